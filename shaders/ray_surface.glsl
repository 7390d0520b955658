// A pixel's surface and the rays it asks for, shared by ray generation (raytrace.rgen) and the
// compaction pass (ray_lists.comp), which lists the pixels by the rays they trace: both decide by
// the same arithmetic, so the dense launch traces exactly the rays of the plain one, from the same
// origins. The includer has included ray_scene.glsl.
#ifndef RAY_SURFACE_GLSL
#define RAY_SURFACE_GLSL

#include "triangle_surface.glsl"
#ifdef RT_SURFACE_VISIBILITY
#ifdef VISIBILITY_MESHLET
#include "meshlet.glsl"  // MESHLET_BINDING 16: after the views' 10, 11 and the surface's 12..15
#endif
#define VISIBILITY_SURFACE_BINDING 12
#include "visibility_surface.glsl"
#include "lod.glsl"
// --lod's bound in pixels (0: off), as the culls choose levels with it (ray_trace_pass.cpp).
layout(push_constant) uniform RayPush { float lod_max_error_px; } ray_push;

// The surface the shading pass shades at this pixel (the visibility path): its triangle and the
// perspective-correct barycentrics of the pixel centre, with the shading pass's own functions. No
// primary ray. False where no triangle covers the pixel.
bool visibility_surface_at(ivec2 pixel, out Triangle t, out vec3 weights, out float lod_offset) {
    uint id = visibility_at(pixel);
    weights = vec3(1.0, 0.0, 0.0);
    lod_offset = 0.0;
    if (id == kVisibilityNone) return false;
    t = fetch_triangle(id);
    weights = weights_at(t, vec2(pixel));
    // The rays meet the meshes' full detail (one BLAS per mesh), while the raster may have drawn a
    // coarser level of detail: its surface lies within that level's error of the full one, and a
    // ray leaving from below the full surface would shadow itself. So the origins move out by the
    // drawn level's error (world units; 0 at level 0). The meshlet path's id names the level it
    // drew (its task chunk); the indexed path's level is chosen again as the culls choose it (with
    // culling frozen, the current view's choice, not the frozen frame's).
    DrawData drawn = draws[t.draw];
#ifdef VISIBILITY_MESHLET
    uint level = listed_meshlet(visibility_id_entry(id)).level;
#else
    uint level = choose_lod_level(drawn, lod_view(frame.view, frame.projection, frame.sizes.xy), ray_push.lod_max_error_px);
#endif
    float scale = max(length(drawn.model[0].xyz), max(length(drawn.model[1].xyz), length(drawn.model[2].xyz)));
    lod_offset = drawn.lod_error[level] * scale;
    return true;
}
#endif


// The hit of a primary ray (the forward path, which names the triangle by its draw and primitive),
// rebuilt as the visibility path rebuilds the raster's: the same corners, normals and barycentrics
// of the pixel centre, bit for bit, wherever the primary ray and the raster see the same triangle.
void camera_triangle(uint draw, uint primitive, ivec2 pixel, out Triangle t, out vec3 weights) {
    t.draw = draw;
    DrawData drawn = draws[draw];
    uvec3 v = triangle_vertices(drawn, primitive);
    for (uint i = 0u; i < 3u; ++i) place_vertex(t, i, drawn, vertex_position(v[i]), vertex_normal(v[i]), vertex_uv(v[i]));
    finish_triangle(t);
    weights = weights_at(t, vec2(pixel));
}

#if !defined(RT_SURFACE_VISIBILITY) && (defined(RT_PRIMARY) || defined(RT_DENSE) || defined(RT_LISTS))
// The forward path's dense launch: its primary launch (RT_PRIMARY ray generation) stores each
// pixel's hit, (draw, primitive) or kNoPrimaryHit, at binding 12 (the visibility path's surface
// bindings start there; the forward path has none).
layout(set = 0, binding = 12, std430) buffer PrimaryHits { uvec2 primary_hits[]; };
const uint kNoPrimaryHit = 0xffffffffu;
uint primary_hit_index(ivec2 pixel) { return uint(pixel.x) + uint(pixel.y) * frame.sizes.x; }

bool camera_surface_at(ivec2 pixel, out Triangle t, out vec3 weights, out float lod_offset) {
    uvec2 hit = primary_hits[primary_hit_index(pixel)];
    weights = vec3(1.0, 0.0, 0.0);
    lod_offset = 0.0;  // the primary ray met the full detail
    if (hit.x == kNoPrimaryHit) return false;
    camera_triangle(hit.x, hit.y, pixel, t, weights);
    return true;
}
#endif

// The pixel's surface where no ray is needed to find it: the visibility image's triangle, or the
// primary launch's hit.
#if defined(RT_SURFACE_VISIBILITY) || defined(RT_DENSE) || defined(RT_LISTS)
bool pixel_surface_at(ivec2 pixel, out Triangle t, out vec3 weights, out float lod_offset) {
#ifdef RT_SURFACE_VISIBILITY
    return visibility_surface_at(pixel, t, weights, lod_offset);
#else
    return camera_surface_at(pixel, t, weights, lod_offset);
#endif
}
#endif

#include "ray_origin.glsl"

// What a pixel traces: where its rays start (ray_origin.glsl), the view direction, its draw, and
// whether it traces a shadow ray (its normal faces the sun: forward's n.l > 0) and a reflection
// ray (a material smoother than kReflectRoughness).
struct PixelRays {
    RayStart start;
    vec3 direction;  // from the camera to the surface
    uint draw;
    bool shadow, reflection;
};

PixelRays pixel_rays(bool hit, Triangle t, vec3 weights, float lod_offset) {
    if (!hit) {  // no surface: nothing traces (the values only keep the arithmetic finite)
        t.draw = 0u;
        t.world = vec3[3](vec3(0.0), vec3(1.0, 0.0, 0.0), vec3(0.0, 0.0, 1.0));
        t.normal = vec3[3](vec3(0.0, 1.0, 0.0), vec3(0.0, 1.0, 0.0), vec3(0.0, 1.0, 0.0));
    }
    PixelRays r;
    r.draw = t.draw;
    bool mirrored = determinant(mat3(draws[t.draw].model)) < 0.0;
    vec3 camera = frame.camera_position.xyz;
    r.start = ray_start(t.world, t.normal, weights, mirrored, camera, lod_offset);
    r.direction = normalize(r.start.position - camera);
    r.shadow = hit && dot(r.start.normal, frame.sun_direction.xyz) > 0.0;
    r.reflection = hit && draws[min(t.draw, frame.tiles.w - 1)].roughness < kReflectRoughness;
    return r;
}

// A list entry: the pixel's coordinates (16 bits each; the render size is below 65536).
uint pack_pixel(ivec2 pixel) { return uint(pixel.x) | (uint(pixel.y) << 16); }
ivec2 unpack_pixel(uint entry) { return ivec2(entry & 0xffffu, entry >> 16); }

// The dense launch's lists (docs/ray-tracing.md, "Dense rays"): ray_lists.comp writes them, the
// RT_DENSE ray generation reads them, one ray per invocation. Binding 3 of set 0 (free in the
// scene's numbering).
layout(set = 0, binding = 3, std430) buffer RayLists {
    uint trace_width, trace_height, trace_depth;  // VkTraceRaysIndirectCommandKHR of the dense launch
    uint list_count[2];                           // entries in each list: kListShadow, kListReflection
    uint reflection_base;                         // the reflection list's first entry (the pixels' count)
    uint header_pad[2];
    uint pixels[];  // pack_pixel: the shadow list at [0, its count), the reflection list's at reflection_base
} ray_lists;
const uint kListShadow = 0u, kListReflection = 1u;

#endif
