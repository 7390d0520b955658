#version 460
// The compaction pass of the ray_trace pass's dense launch (docs/ray-tracing.md, "Dense rays"):
// one invocation per pixel, in 8x8 tiles, before the rays. It takes the pixel's surface (from the
// visibility image, RT_SURFACE_VISIBILITY, or from the forward path's primary launch's hits) and
// rays with ray generation's own functions (ray_surface.glsl: pixel_rays), writes the pixel's value of
// the traced image as far as it is known without a ray (the "shadow ray traced" bit; the rays OR in
// the rest), and appends the pixel to the shadow list and to the reflection list where it traces
// that ray. The dense launch (vkCmdTraceRaysIndirectKHR, its width the lists' entries) then runs
// one ray-generation invocation per ray: no lane of a traversal holds a pixel without one.
//
// Both paths, switched by USE_SUBGROUP (subgroup_switch.glsl), per surface (camera, visibility,
// visibility_meshlet: shaders/variants.cmake):
//  subgroup: one atomicAdd per subgroup and list. subgroupBallot of the lanes that trace the ray,
//    subgroupBallotBitCount of it reserved by the elected lane, subgroupBroadcastFirst of the
//    list's old end, and each lane writes at that base plus subgroupBallotExclusiveBitCount: the
//    number of listed lanes below it.
//  fallback: one atomicAdd per listed ray.
//  RT_LISTS_FINISH (its own variant): one invocation after the compaction: the dense launch's
//    width, both lists.
//
// The order of a list: a subgroup's entries are contiguous and in lane order, and a subgroup's lanes
// are neighbouring pixels of one 8x8 tile (8x4 at 32 lanes, 8x1 at 8), so the dense launch's
// invocations trace rays from neighbouring pixels together (coherent traversal). The subgroups'
// order depends on the atomics; nothing depends on it: each pixel's value is ORed from its rays.
#extension GL_EXT_samplerless_texture_functions : require
#ifndef RT_LISTS_FINISH
#include "subgroup_switch.glsl"
#endif

#ifdef RT_LISTS_FINISH
layout(local_size_x = 1) in;
layout(set = 0, binding = 3, std430) buffer RayLists {
    uint trace_width, trace_height, trace_depth;
    uint list_count[2];
} ray_lists;  // ray_surface.glsl's header
void main() { ray_lists.trace_width = ray_lists.list_count[0] + ray_lists.list_count[1]; }
#else

layout(local_size_x = 8, local_size_y = 8) in;

#define RT_LISTS 1
#include "ray_scene.glsl"
#include "ray_surface.glsl"

// Where a listed lane writes its entry in `list` (kListShadow, kListReflection): the list's old end,
// grown by the listed lanes of this subgroup (or by this lane alone).
//
// Why this is exact, at any subgroup size (4, 8 or 16 on lavapipe, 32 on NVIDIA):
//  * Reconvergence: it is called from main's top level, after the structured ifs of the surface's
//    reconstruction have merged, and no lane has returned (pixels outside the image take part
//    with listed = false), so every invocation of the subgroup that was launched is active here and
//    the ballot sees all of them.
//  * Inactive lanes: a subgroup that is only partly filled (a workgroup of 64 in a subgroup of
//    128) has lanes that were never launched; they are not in the ballot, not counted, and
//    subgroupElect and subgroupBroadcastFirst both name the lowest active lane, so the lane that
//    made the atomic is the one whose value everyone reads.
//  * The exclusive bit count of a listed lane counts the listed lanes below it: the listed lanes
//    get base + 0, 1, ..., n - 1, each once, with no gap (the list stays dense) and no overlap.
uint list_slot_subgroup(bool listed, uint list) {
    uvec4 lanes = subgroupBallot(listed);
    uint base = 0u;
    if (subgroupElect()) {
        uint n = subgroupBallotBitCount(lanes);
        if (n > 0u) base = atomicAdd(ray_lists.list_count[list], n);
    }
    return subgroupBroadcastFirst(base) + subgroupBallotExclusiveBitCount(lanes);
}

uint list_slot(bool listed, uint list) {
    // USE_SUBGROUP is the same for the whole dispatch: the subgroup path keeps the reconvergence
    // above (every launched lane reaches it).
    if (USE_SUBGROUP) return list_slot_subgroup(listed, list);
    return listed ? atomicAdd(ray_lists.list_count[list], 1u) : 0u;
}

void main() {
    ivec2 pixel = ivec2(gl_GlobalInvocationID.xy);
    bool inside = all(lessThan(gl_GlobalInvocationID.xy, uvec2(frame.sizes.xy)));
    Triangle t;
    vec3 weights = vec3(1.0, 0.0, 0.0);
    float lod_offset = 0.0;
    bool hit = inside && pixel_surface_at(pixel, t, weights, lod_offset);
    PixelRays rays = pixel_rays(hit, t, weights, lod_offset);
    if (inside) imageStore(traced_image, pixel, uvec4(rays.shadow ? kTracedShadowRay : 0u));
    uint shadow_slot = list_slot(rays.shadow, kListShadow);
    uint reflection_slot = list_slot(rays.reflection, kListReflection);
    if (rays.shadow) ray_lists.pixels[shadow_slot] = pack_pixel(pixel);
    if (rays.reflection) ray_lists.pixels[ray_lists.reflection_base + reflection_slot] = pack_pixel(pixel);
}
#endif
