// The level of detail of a draw (docs/lod.md), the same function for the compute cull (cull.comp),
// the task shaders and the lod view, so every path draws the same level. Its CPU mirror is
// choose_lod_level() in src/scene/lod.cpp. Needs common.glsl (DrawData).
//
// The coarsest level whose error, scaled by the model, moves no point of the draw's bounding
// sphere that is on screen by more than max_error_px pixels. max_error_px 0 (--lod off): level 0.
// Every input is the same for a whole workgroup (one draw), so the loop is uniform.
//
// The bound (derived in docs/lod.md, "The bound"): a point at view-space depth z and distance |p|
// from the eye moves on screen by at most f |p| / z^2 pixels per unit it moves in space (f:
// pixels_per_unit). Over the sphere's points on screen, z >= depth (the sphere's nearest view
// depth) and |p| / z <= stretch: at most the frame corner's sqrt(1 + 1/P00^2 + 1/P11^2), and at most
// (|c| + r) / depth. The straight-line distance to the sphere alone underestimates the corners'
// pixels by up to 1 + 1/P00^2 + 1/P11^2 (1.9 at 50 degrees and 16:9).
//
// The per-level counters, words of GpuCounters (src/render/frame.h): per level l, word
// kLodDrawsWord + l counts the draws that chose l, kLodTrianglesWord + l the triangles kept of it,
// kLodMeshletsWord + l the meshlets kept of it (meshlet path); kMaxLodLevels levels (src/scene/gpu_layout.h).
const uint kLodDrawsWord = 51u;
const uint kLodTrianglesWord = 59u;
const uint kLodMeshletsWord = 67u;

// What the rule needs of the view: lod_view(frame.view, frame.projection, frame.sizes.xy).
struct LodView {
    mat4 view;              // world -> view (camera at the origin looking down -z)
    float pixels_per_unit;  // f: pixels a unit length covers at depth 1 on the centre line
    float corner_stretch;   // |p| / z in the frame's corners
};

// projection: P[0][0], P[1][1] (frame.projection.xy); size: the frame in pixels.
LodView lod_view(mat4 view, vec4 projection, uvec2 size) {
    vec2 f = abs(projection.xy) * 0.5 * vec2(size);  // P[1][1] < 0: y flipped
    vec2 corner = 1.0 / projection.xy;               // x / z, y / z at the frame's edges
    return LodView(view, max(f.x, f.y), sqrt(1.0 + dot(corner, corner)));
}

uint choose_lod_level(DrawData draw, LodView v, float max_error_px) {
    // --lod off: level 0 even where a coarser level has no error at all (flat regions simplify
    // with an error of exactly 0, which the test below would accept at any distance).
    if (max_error_px <= 0.0) return 0u;
    vec3 centre = (v.view * (draw.model * vec4(draw.bounding_sphere.xyz, 1.0))).xyz;
    float scale = max(length(draw.model[0].xyz), max(length(draw.model[1].xyz), length(draw.model[2].xyz)));
    float radius = draw.bounding_sphere.w * scale;
    float depth = max(-centre.z - radius, 0.0);  // 0: the sphere reaches the eye's plane
    float stretch = depth > 0.0 ? min(v.corner_stretch, (length(centre) + radius) / depth) : v.corner_stretch;
    uint level = 0u;
    for (uint l = 1u; l < draw.lod_count; ++l) {
        // error * scale * f * stretch / depth <= max_error_px, without the division: a sphere
        // at depth 0 keeps level 0 (or a level of error 0).
        if (draw.lod_error[l] * scale * v.pixels_per_unit * stretch > max_error_px * depth) break;
        level = l;
    }
    return level;
}
