// The level of detail of a draw (docs/lod.md), the same function for the compute cull (cull.comp)
// and the task shaders, so both geometry paths draw the same level. Its CPU mirror is
// choose_lod_level() in src/scene/lod.cpp. Needs common.glsl (DrawData).
//
// The coarsest level whose error, scaled by the model and projected at the nearest point of the
// draw's bounding sphere, is at most max_error_px pixels. pixels_per_unit: P[1][1] * height / 2.
// max_error_px 0 (--lod off): level 0. Every input is the same for a whole workgroup (one draw),
// so the loop is uniform.
//
// The per-level counters, words of GpuCounters (src/render/frame.h): per level l, word
// kLodDrawsWord + l counts the draws that chose l, kLodTrianglesWord + l the triangles kept of it,
// kLodMeshletsWord + l the meshlets kept of it (meshlet path). kMaxLodLevels = 8.
const uint kLodDrawsWord = 51u;
const uint kLodTrianglesWord = 59u;
const uint kLodMeshletsWord = 67u;
const uint kMaxLodLevels = 8u;

uint choose_lod_level(DrawData draw, vec3 camera_position, float pixels_per_unit, float max_error_px) {
    // --lod off: level 0 even where a coarser level has no error at all (flat regions simplify
    // with an error of exactly 0, which the test below would accept at any distance).
    if (max_error_px <= 0.0) return 0u;
    vec3 centre = (draw.model * vec4(draw.bounding_sphere.xyz, 1.0)).xyz;
    float scale = max(length(draw.model[0].xyz), max(length(draw.model[1].xyz), length(draw.model[2].xyz)));
    float distance = max(length(centre - camera_position) - draw.bounding_sphere.w * scale, 0.0);
    uint level = 0u;
    for (uint l = 1u; l < draw.lod_count; ++l) {
        // error * scale / distance * pixels_per_unit <= max_error_px, without the division: a
        // camera inside the sphere (distance 0) keeps level 0.
        if (draw.lod_error[l] * scale * pixels_per_unit > max_error_px * distance) break;
        level = l;
    }
    return level;
}
