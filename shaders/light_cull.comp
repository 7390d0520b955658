#version 460
// Light culling: one workgroup per 16x16 pixel tile builds the tile's light list.
//   1. depth bounds of the tile from the depth pre-pass (reversed Z; background pixels skipped),
//   2. the tile's view-space box: the axis-aligned bounds of the tile's frustum between them,
//   3. every light tested against that box (sphere vs AABB, conservative), 8 lights per invocation
//      and round,
//   4. touching lights appended to the tile's list: the subgroup path (USE_SUBGROUP) with one
//      atomic per subgroup and round (ballot aggregation), the fallback with one atomic per
//      appended light.
// The same test, in double precision, is src/render/light_reference.cpp (the tests' oracle).
#extension GL_EXT_samplerless_texture_functions : require

#include "common.glsl"
#include "subgroup_switch.glsl"
#include "light_list.glsl"

// 64 invocations: a whole number of subgroups at every size from 4 to 64 (lavapipe 4/8/16,
// NVIDIA 32, AMD 64), so every subgroup is full. A 128-wide subgroup would hold the workgroup
// with lanes 64..127 inactive; the code below stays correct there (see append_subgroup).
const uint kGroupSize = 64;
layout(local_size_x = kGroupSize) in;
const uint kLightListCapacityMax = 512;  // kLightListCapacity (light_cull_pass.h): the most a list holds

layout(set = 0, binding = 0) uniform Frame { FrameUniforms frame; };
layout(set = 0, binding = 1, std430) readonly buffer Lights { PointLight lights[]; };
layout(set = 0, binding = 2) uniform texture2D depth_image;  // DEPTH_READ_ONLY_OPTIMAL
// coherent: lane 0 reads the final count that other subgroups' atomics produced (after barrier).
layout(set = 0, binding = 3, std430) coherent buffer LightLists { uint light_list_data[]; };
layout(set = 0, binding = 4, std430) buffer Counters {
    uint triangles_visible;
    uint light_list_entries;   // entries stored, all tiles: sum of min(count, capacity)
    uint light_list_overflow;  // entries dropped because a tile's list was full: sum of max(count - capacity, 0)
    uint light_atomics;        // atomics on list counters, counted when `instrument` is set
} counters;
layout(push_constant) uniform Push { uint instrument; };

shared uint s_depth_min_bits;  // farthest geometry depth of the tile (reversed Z: smallest value)
shared uint s_depth_max_bits;  // nearest
shared uint s_count;           // the tile's final raw count, after every append
shared uint s_list[kLightListCapacityMax];  // the tile's list while it is sorted

// Reversed-Z depth to view distance along -z: depth = n (f - d) / ((f - n) d), so
// d = n f / (depth (f - n) + n); depth 1 is the near plane, 0 the far plane.
float view_distance(float depth) {
    float n = frame.projection.z, f = frame.projection.w;
    return n * f / (depth * (f - n) + n);
}

struct Box {
    vec3 lo, hi;
};

// The view-space AABB of the part of the tile's frustum between view distances d_near and d_far.
// x_view = ndc_x * d / P[0][0], y_view = ndc_y * d / P[1][1] (P[1][1] < 0: Vulkan's y points down);
// both are linear in d, so the extremes lie at the two distances.
Box tile_box(uvec2 tile, float d_near, float d_far) {
    vec2 size = vec2(frame.sizes.xy);
    vec2 pixel_lo = vec2(tile * kLightTileSize);
    vec2 pixel_hi = min(pixel_lo + float(kLightTileSize), size);
    vec2 ndc_lo = pixel_lo / size * 2.0 - 1.0;
    vec2 ndc_hi = pixel_hi / size * 2.0 - 1.0;
    vec2 inv_p = 1.0 / frame.projection.xy;
    vec2 a = ndc_lo * inv_p, b = ndc_hi * inv_p;
    vec2 c0 = a * d_near, c1 = a * d_far, c2 = b * d_near, c3 = b * d_far;
    Box box;
    box.lo = vec3(min(min(c0, c1), min(c2, c3)), -d_far);
    box.hi = vec3(max(max(c0, c1), max(c2, c3)), -d_near);
    return box;
}

// Sphere vs box: the light reaches the box if the box's nearest point is closer than the radius.
// Strictly closer: at the radius light_falloff is exactly 0, so such a light adds nothing.
bool light_touches_box(PointLight light, Box box) {
    vec3 center = (frame.view * vec4(light.position_radius.xyz, 1.0)).xyz;
    vec3 outside = max(box.lo - center, vec3(0.0)) + max(center - box.hi, vec3(0.0));
    float radius = light.position_radius.w;
    return dot(outside, outside) < radius * radius;
}

void count_atomic() {
    if (instrument != 0) atomicAdd(counters.light_atomics, 1);
}

// Each invocation tests kLightsPerLane lights per round; a round covers kRoundSize lights.
const uint kLightsPerLane = 8;
const uint kRoundSize = kGroupSize * kLightsPerLane;
const uint kCountBits = 4;  // enough bits for a lane's hit count, 0..kLightsPerLane (8 = 0b1000)

// Which light of the round invocation `lane` tests as its b-th: lanes are cut into runs of `width`
// (the subgroup size, capped at the workgroup size; a power of two that divides 64), each run
// owning width * kLightsPerLane consecutive lights, light b of lane i at b * width + i. A bijection
// from (lane, b) onto [0, kRoundSize) whatever the subgroup layout; when subgroups are runs of
// consecutive invocations (the usual layout) every subgroup tests one contiguous block of lights
// (lights are stored in spatial order, src/scene/lights.cpp, so its lanes tend to agree), and its
// loads for one b are contiguous.
uint light_in_round(uint lane, uint b, uint width) {
    // width is a power of two: shift and mask instead of a division by a non-constant.
    return (lane & ~(width - 1)) * kLightsPerLane + b * width + (lane & (width - 1));
}

// Ballot-aggregated append: one atomicAdd per subgroup and round instead of one per light.
// `hits` bit b: this lane's b-th light touches the tile.
// Called by every invocation of the workgroup in every round (uniform loop bounds, see main):
// all lanes of the subgroup are active here, and lanes whose lights are past the light count
// take part with hits = 0. That matters: the elect, the atomic and the broadcast below must see
// one and the same set of active lanes. In uniform control flow they do; had the lanes past the
// light count left the loop early, the remaining lanes would be in divergent control flow, where
// (without VK_KHR_shader_maximal_reconvergence) Vulkan does not promise they execute these
// instructions together, and the one-atomic-per-subgroup saving would not be guaranteed.
void append_subgroup(uint hits, uint round_first, uint width, uint tile, uint tile_count, uint capacity) {
    uint lane = gl_LocalInvocationIndex;
    // subgroupAny is the same on every lane: the whole subgroup skips rounds where none of its
    // lights touches the tile (most rounds, with many lights), and stays converged when it enters.
    if (!subgroupAny(hits != 0)) return;
    // Each lane appends `mine` (0..8) lights. Its first slot is the sum of `mine` over the lower
    // lanes, and the subgroup's total is the sum over all lanes; both come from ballots alone, one
    // per bit of `mine` (mine = sum of 2^k * bit k): the lower lanes with bit k set are
    // subgroupBallotExclusiveBitCount of that bit's ballot, all lanes with it subgroupBallotBitCount.
    // Ballots are uvec4 (up to 128 lanes); the counts only look at bits below gl_SubgroupSize.
    uint mine = bitCount(hits);
    uint before = 0, added = 0;
    for (uint k = 0; k < kCountBits; ++k) {
        uvec4 ballot = subgroupBallot((mine & (1u << k)) != 0);
        before += subgroupBallotExclusiveBitCount(ballot) << k;
        added += subgroupBallotBitCount(ballot) << k;
    }
    uint base = 0;
    // subgroupElect() is true on the lowest active lane only, and subgroupBroadcastFirst reads the
    // lowest active lane: with the same active set (no divergence in between), the value every
    // lane receives is the one the elected lane got back from its atomic.
    if (subgroupElect()) {
        base = atomicAdd(light_list_data[light_list_count_offset(tile)], added);
        count_atomic();
    }
    // This lane owns slots [slot, slot + mine): disjoint from every other lane's, no gaps.
    uint slot = subgroupBroadcastFirst(base) + before;
    for (uint b = 0; b < kLightsPerLane; ++b) {
        if ((hits & (1u << b)) == 0) continue;
        if (slot < capacity)  // bounded: slots past the capacity are counted, not stored
            light_list_data[light_list_entry_offset(tile, slot, tile_count, capacity)] =
                round_first + light_in_round(lane, b, width);
        ++slot;
    }
}

// Fallback append: every touching light reserves its own slot.
void append_fallback(uint hits, uint round_first, uint width, uint tile, uint tile_count, uint capacity) {
    uint lane = gl_LocalInvocationIndex;
    for (uint b = 0; b < kLightsPerLane; ++b) {
        if ((hits & (1u << b)) == 0) continue;
        uint slot = atomicAdd(light_list_data[light_list_count_offset(tile)], 1);
        count_atomic();
        if (slot < capacity)
            light_list_data[light_list_entry_offset(tile, slot, tile_count, capacity)] =
                round_first + light_in_round(lane, b, width);
    }
}

// 4. The tile's list in ascending light order, the same set. The appends above land in atomic
// order, which changes from run to run; the forward pass adds the lights up in list order, so
// without the sort a frame could differ in the last bit from one run to the next. Sorted, both
// light loops walk the same order (the subgroup loop needs it: it merges the lists of a
// subgroup's tiles). A rank sort: the entries are distinct (every light is tested once per tile,
// light_in_round is a bijection), so the number of entries smaller than an entry is its place,
// and those places are a permutation of 0..stored-1. Reads go to shared memory first, so no
// invocation overwrites an entry another still has to read. Called by the whole workgroup
// (uniform: `stored` comes from shared memory after a barrier). Typical lists hold 5 to 25
// lights: one pass of at most 25 compares per invocation. (A tile whose list overflows keeps
// whichever lights won the race: the overflow counter says so, and the frame is then not exact.)
void sort_tile_list(uint tile, uint tile_count, uint capacity) {
    uint lane = gl_LocalInvocationIndex;
    barrier();  // s_count written by lane 0 above
    uint stored = min(min(s_count, capacity), kLightListCapacityMax);
    if (stored < 2) return;
    for (uint i = lane; i < stored; i += kGroupSize)
        s_list[i] = light_list_data[light_list_entry_offset(tile, i, tile_count, capacity)];
    barrier();
    for (uint i = lane; i < stored; i += kGroupSize) {
        uint light = s_list[i];
        uint rank = 0;
        for (uint j = 0; j < stored; ++j) rank += s_list[j] < light ? 1 : 0;
        light_list_data[light_list_entry_offset(tile, rank, tile_count, capacity)] = light;
    }
}

void main() {
    uvec2 tile_xy = gl_WorkGroupID.xy;
    uint tile_count = frame.tiles.x * frame.tiles.y;
    uint tile = tile_xy.y * frame.tiles.x + tile_xy.x;
    uint capacity = frame.tiles.z;
    uint lane = gl_LocalInvocationIndex;

    // 1. Depth bounds over the tile's pixels inside the image. Depth is reversed Z and cleared to
    // 0; the pre-pass's GREATER test never stores 0, so 0 is background, which is never shaded.
    // Non-negative floats order like their bit patterns: shared atomicMin/Max on the bits.
    if (lane == 0) {
        s_depth_min_bits = floatBitsToUint(2.0);
        s_depth_max_bits = 0;
    }
    barrier();
    float local_min = 2.0, local_max = 0.0;
    for (uint i = lane; i < kLightTileSize * kLightTileSize; i += kGroupSize) {
        uvec2 pixel = tile_xy * kLightTileSize + uvec2(i % kLightTileSize, i / kLightTileSize);
        if (pixel.x >= frame.sizes.x || pixel.y >= frame.sizes.y) continue;
        float depth = texelFetch(depth_image, ivec2(pixel), 0).r;
        if (depth <= 0.0) continue;
        local_min = min(local_min, depth);
        local_max = max(local_max, depth);
    }
    if (local_max > 0.0) {
        atomicMin(s_depth_min_bits, floatBitsToUint(local_min));
        atomicMax(s_depth_max_bits, floatBitsToUint(local_max));
    }
    barrier();
    // Uniform across the workgroup: every invocation reads the same shared values.
    if (s_depth_max_bits == 0) return;  // no geometry: the list stays empty (count cleared to 0)
    Box box = tile_box(tile_xy, view_distance(uintBitsToFloat(s_depth_max_bits)),
                       view_distance(uintBitsToFloat(s_depth_min_bits)));

    // 2. Every light against the box, kRoundSize lights per round. The loop bound is uniform, so
    // all invocations run every round (see append_subgroup for why that matters).
    // The fallback's width: lane i tests lights i, i + 64, ...: contiguous loads.
    uint width = USE_SUBGROUP ? min(gl_SubgroupSize, kGroupSize) : kGroupSize;
    uint light_count = frame.sizes.z;
    for (uint round_first = 0; round_first < light_count; round_first += kRoundSize) {
        uint hits = 0;
        for (uint b = 0; b < kLightsPerLane; ++b) {
            uint light_index = round_first + light_in_round(lane, b, width);
            if (light_index < light_count && light_touches_box(lights[light_index], box)) hits |= 1u << b;
        }
        if (USE_SUBGROUP)
            append_subgroup(hits, round_first, width, tile, tile_count, capacity);
        else
            append_fallback(hits, round_first, width, tile, tile_count, capacity);
    }

    // 3. Totals for the report: one pair of atomics per tile, on the report counters (not list
    // counters, so not part of light_atomics). The count may exceed the capacity: the excess was
    // not stored and is the tile's overflow.
    memoryBarrierBuffer();
    barrier();
    if (lane == 0) {
        uint count = light_list_data[light_list_count_offset(tile)];
        s_count = count;
        uint stored = min(count, capacity);
        if (stored > 0) atomicAdd(counters.light_list_entries, stored);
        if (count > stored) atomicAdd(counters.light_list_overflow, count - stored);
    }
    sort_tile_list(tile, tile_count, capacity);
}
