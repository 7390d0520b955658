// Forward shading of one pixel: the material (material.glsl) under a dim sun, the sky's ambient and
// point lights, with glTF's metallic-roughness BRDF.
#ifndef SHADING_GLSL
#define SHADING_GLSL

#include "scene_bindings.glsl"
// Brdf, ambient_and_sun: the ray-traced reflections light with them too (raytrace.rchit).
#include "brdf.glsl"
#include "light_list.glsl"

// Binding 4: the per-tile light lists written by light_cull.comp (layout in light_list.glsl).
// Always bound; read only when frame.tiles.z (the list capacity) is not 0.
layout(set = 0, binding = 4, std430) readonly buffer LightLists { uint light_list_data[]; };

vec3 point_light(PointLight light, Brdf brdf, vec3 position, vec3 normal) {
    vec3 to_light = light.position_radius.xyz - position;
    float distance = length(to_light);
    float radius = light.position_radius.w;
    if (distance >= radius) return vec3(0.0);
    return light.color.rgb * light_falloff(distance, radius) * brdf_lit(brdf, normal, to_light / max(distance, 1e-6));
}

// The forward pass's counters, after the seven GpuCounters fields the other passes use
// (src/render/frame.h); written only in the instrumented frame (push constant flag). The binding
// after the last one the variant has: 5, or 7 after the quad mip's image and edge list (scene_pass.cpp).
#ifdef QUAD_MIP
#define LOOP_COUNTERS_BINDING 7
#else
#define LOOP_COUNTERS_BINDING 5
#endif
layout(set = 0, binding = LOOP_COUNTERS_BINDING, std430) buffer LoopCounters {
    uint earlier_counters[7];  // GpuCounters before loop_lanes: light lists, atomics, the quad mip's edges
    uint lanes;                // lanes that ran the loop (helper lanes' atomics have no effect: not counted)
    uint lane_trips;           // sum over those lanes of their own trips: what a per-lane loop runs
    uint subgroups;            // LIGHT_LOOP_SUBGROUP: subgroups that ran the loop
    uint subgroup_trips;       // LIGHT_LOOP_SUBGROUP: trips of the subgroup-uniform loop, once per subgroup
    uint max_lane_trips;       // LIGHT_LOOP_SUBGROUP: sum over subgroups of their longest lane's trips
    uint tiles_spanned[4];     // LIGHT_LOOP_SUBGROUP: subgroups whose lanes lie in 1, 2, 3, 4+ tiles
    uint later_counters[73];   // GpuCounters words 16..88: ray statistics to the compute rasterizer's
    uint material_subgroups;   // visibility_shade.comp's material waterfall (MATERIAL_WATERFALL)
    uint material_trips;
} loop_counters;
// The ray_trace pass's image (shaders/raytrace.glsl has the encoding), after the counters.
layout(set = 0, binding = LOOP_COUNTERS_BINDING + 1, r32ui) readonly uniform uimage2D ray_traced_image;
// Push constant bits: count the loop's trips (the instrumented frame); split tiles (tests only, see
// shade_point_lights); ray-traced shadows and reflections (the ray_trace pass ran this frame).
const uint kForwardInstrument = 1u, kForwardSplitTiles = 2u, kForwardRayTraced = 4u;
layout(push_constant) uniform ForwardPush { uint flags; } forward_push;

#ifdef LIGHT_LOOP_SUBGROUP
const uint kNoLight = 0xffffffffu;  // past the last entry; light indices are < 65536

// The scalarized light loop. The lanes of the subgroup walk the UNION of their tiles' lists
// together: every trip shades one light, the same on every lane, chosen with subgroupMin, so the
// loop's exit, the light's index and the address its data is loaded from are subgroup-uniform
// (one load per subgroup, no divergent loop); a lane whose tile lacks that light skips its
// arithmetic. The light cull sorts every list ascending (light_cull.comp), so the walk is a
// merge: the trips are the size of the union.
//
// Why it is correct (each lane adds exactly its own tile's lights, each once), at any subgroup
// size and with any set of active lanes:
//  * Each lane keeps a cursor `slot` into its own list and `next`, the light there (kNoLight at
//    the end). A trip takes light = min of `next` over the lanes that execute the subgroupMin
//    together; a lane's own `next` is among them, so light <= next. The lane shades and advances
//    only when light == next: it never skips an entry and never shades one twice. It leaves only
//    when light == kNoLight, i.e. when its own `next` is kNoLight too: its list is done.
//  * Progress: the lanes holding the minimum advance on every trip, so the loop ends after at most
//    the sum of the distinct tiles' list lengths; with sorted lists, after exactly |union| trips.
//    Order only changes the trip count, never the sum's terms.
//  * Inactive lanes (a partially covered subgroup: few pixels of a small triangle) are simply not
//    in the subgroupMin. Helper lanes (derivatives for the texture fetch) may or may not take part
//    in non-quad subgroup operations, depending on the implementation: they hold a valid tile
//    (pixel coordinates of the quad lie inside the padded tile grid), so either way they only add
//    their own tile's lights to the union, and their colour is discarded.
//  * Nothing assumes a subgroup size (4 to 128) or that the lanes reconverge after the `if`: had
//    they split, each group of lanes that executes subgroupMin together runs the same argument
//    among themselves. Maximal reconvergence (the *_full_quads variant) only keeps the groups whole.
//  * Each lane sums its lights in its list's order, exactly as the per-lane loop does over the
//    same list; the light cull sorts every list (both of its variants), so the two loops add the
//    same terms in the same order and shade identical pixels.
vec3 shade_tile_lights_subgroup(uint tile, uint count, uint tile_count, uint capacity, Brdf brdf, vec3 position,
                                vec3 normal, out uint trips) {
    vec3 color = vec3(0.0);
    // Most subgroups lie in one tile: then the union is that one list, the same on every lane.
    // subgroupBroadcastFirst and subgroupAll run in the same control flow (nothing in between), so
    // they see the same lanes; the broadcasts make the tile and count provably uniform.
    uint first_tile = subgroupBroadcastFirst(tile);
    if (subgroupAll(tile == first_tile)) {
        uint n = subgroupBroadcastFirst(count);
        for (uint i = 0; i < n; ++i) {
            uint light = light_list_data[light_list_entry_offset(first_tile, i, tile_count, capacity)];
            color += point_light(lights[light], brdf, position, normal);
        }
        trips = n;
        return color;
    }
    uint slot = 0;
    uint next = count > 0 ? light_list_data[light_list_entry_offset(tile, 0, tile_count, capacity)] : kNoLight;
    trips = 0;
    for (;;) {
        uint light = subgroupMin(next);
        if (light == kNoLight) break;  // uniform: every lane's list is done
        ++trips;
        PointLight data = lights[light];  // uniform address: one load for the subgroup
        if (next == light) {
            color += point_light(data, brdf, position, normal);
            ++slot;
            next = slot < count ? light_list_data[light_list_entry_offset(tile, slot, tile_count, capacity)] : kNoLight;
        }
    }
    return color;
}
#endif

// Instrumented frame only: the loop's trips, per lane and (subgroup variant) per subgroup.
void count_light_loop(uint own_trips, uint loop_trips, uint tile) {
#ifdef LIGHT_LOOP_SUBGROUP
    // One lane per subgroup adds the subgroup's numbers: the lowest active lane that is not a helper
    // (a helper lane's atomics have no effect, so subgroupElect() could pick a lane whose add is lost;
    // every quad has a non-helper lane). Same control flow for all these operations.
#ifdef SHADING_IN_COMPUTE
    bool real = true;  // visibility_shade.comp: compute has no helper lanes
#else
    bool real = !gl_HelperInvocation;
#endif
    uvec4 real_lanes = subgroupBallot(real);
    uint lanes = subgroupBallotBitCount(real_lanes);
    uint lane_trips = subgroupAdd(real ? own_trips : 0);
    uint longest = subgroupMax(own_trips);
    // Distinct tiles among the lanes: peel off the smallest remaining tile until none is left.
    uint spanned = 0;
    bool pending = true;
    while (subgroupAny(pending)) {
        uint smallest = subgroupMin(pending ? tile : 0xffffffffu);
        if (tile == smallest) pending = false;
        ++spanned;
    }
    if (gl_SubgroupInvocationID == subgroupBallotFindLSB(real_lanes)) {
        atomicAdd(loop_counters.lanes, lanes);
        atomicAdd(loop_counters.lane_trips, lane_trips);
        atomicAdd(loop_counters.subgroups, 1);
        atomicAdd(loop_counters.subgroup_trips, loop_trips);
        atomicAdd(loop_counters.max_lane_trips, longest);
        atomicAdd(loop_counters.tiles_spanned[min(spanned, 4u) - 1], 1);
    }
#else
    atomicAdd(loop_counters.lanes, 1);
    atomicAdd(loop_counters.lane_trips, own_trips);
#endif
}

// Sum of the point lights at a pixel. With lists (frame.tiles.z = capacity > 0) only the lights of
// the pixel's tile; else every light (--light-cull off). frame.tiles.z is uniform for the draw, so
// the branch costs no divergence. Lights left out of a tile's list are farther than their radius
// from every pixel of the tile, where light_falloff is exactly 0: both paths give the same sum up
// to float rounding of the summation.
vec3 shade_point_lights(uvec2 pixel, Brdf brdf, vec3 position, vec3 normal) {
    vec3 color = vec3(0.0);
    uint capacity = frame.tiles.z;
    uint tile_count = frame.tiles.x * frame.tiles.y;
    uint tile = light_tile_of_pixel(pixel, frame.tiles.x);
    // Tests only: odd pixel columns take the next tile's list, so every quad spans two tiles and
    // the union walk runs even where the rasterizer never puts two tiles in one subgroup (lavapipe
    // shades 4x4 blocks inside a tile). The image is then not the scene's, but both variants shade
    // the same pixels with the same lists, which is what the tests compare.
    if ((forward_push.flags & kForwardSplitTiles) != 0) tile = (tile + (pixel.x & 1u)) % tile_count;
    bool instrument = (forward_push.flags & kForwardInstrument) != 0;
    if (capacity == 0) {
        // No lists: every lane walks every light in the same order. Bound and addresses are uniform
        // already, so this is the scalar loop the subgroup variant builds; both variants run it.
        uint light_count = frame.sizes.z;
        for (uint i = 0; i < light_count; ++i)
            color += point_light(lights[i], brdf, position, normal);
        if (instrument) count_light_loop(light_count, light_count, tile);
        return color;
    }
    uint count = min(light_list_data[light_list_count_offset(tile)], capacity);  // overflow: first `capacity` only
#ifdef LIGHT_LOOP_SUBGROUP
    uint trips;
    color = shade_tile_lights_subgroup(tile, count, tile_count, capacity, brdf, position, normal, trips);
    if (instrument) count_light_loop(count, trips, tile);
#else
    for (uint i = 0; i < count; ++i) {
        uint light = light_list_data[light_list_entry_offset(tile, i, tile_count, capacity)];
        color += point_light(lights[light], brdf, position, normal);
    }
    if (instrument) count_light_loop(count, count, tile);
#endif
    return color;
}

// The viewing direction at a world position (towards the camera).
vec3 view_direction(vec3 position) { return normalize(frame.camera_position.xyz - position); }

// The ray_trace pass's result at a pixel: x the sun's visibility (0 or 1), yzw the reflected
// radiance, already weighted. Without the pass (--ray-trace off): (1, 0, 0, 0), and the sum in
// shade() is exactly that of the untraced frame.
vec4 ray_traced_light(ivec2 pixel) {
    if ((forward_push.flags & kForwardRayTraced) == 0u) return vec4(1.0, vec3(0.0));
    uint bits = imageLoad(ray_traced_image, pixel).r;
    uint reflection = bits & ((1u << 30) - 1u);
    vec3 reflected = srgb_decode(vec3(reflection & 1023u, (reflection >> 10) & 1023u, (reflection >> 20) & 1023u) / 1023.0);
    return vec4((bits & (1u << 31)) != 0u ? 0.0 : 1.0, reflection != 0u ? reflected : vec3(0.0));
}

#endif
