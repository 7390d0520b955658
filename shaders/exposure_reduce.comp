#version 460
// Auto-exposure, step 1 (docs/exposure.md): the sum over the half-resolution HDR mip of each
// texel's fixed-point log2 luminance (exposure.glsl), into a 64-bit integer in the state buffer.
// One invocation per texel, 16x16 per workgroup.
//
// Subgroup path (USE_SUBGROUP): two levels of subgroupAdd (the subgroups' sums meet in shared memory, the
// first subgroup adds them), then one atomic per workgroup. Fallback: a shared-memory tree over the
// workgroup, then one atomic per workgroup. Both sum integers, so the totals are equal bit for bit.
// (One atomic per subgroup was measured first: on the H100 its 8x more atomics on one address made
// it 1.7x-2.6x slower than the tree; docs/exposure.md.)
#include "exposure.glsl"
#include "subgroup_switch.glsl"

layout(local_size_x = 16, local_size_y = 16) in;

layout(set = 0, binding = 0, rgba16f) uniform readonly image2D mip_image;
layout(set = 0, binding = 1, std430) buffer State { EXPOSURE_STATE_BLOCK } state;

// Adds one workgroup's or subgroup's partial sum (< 2^32: at most 256 texels of <= 8192) to the
// 64-bit total: the low word's atomicAdd returns the value before, so this addition wrapped exactly
// when old + partial < old, and then the high word takes the carry. Each wrap is counted once, by
// the invocation whose addition caused it, whatever the order: the total is exact.
void add_to_total(uint partial) {
    uint old = atomicAdd(state.sum_lo, partial);
    if (old + partial < old) atomicAdd(state.sum_hi, 1u);
}

// Subgroup path: one sum per subgroup (256: enough at any subgroup size); fallback: the tree's.
shared uint partial_sums[256];

void reduce_subgroup(uint value) {
    // Every invocation of the subgroup is active here (no branch in main returns), so subgroupAdd
    // sums the whole subgroup, at any subgroup size; a partial subgroup (a workgroup of 256 is not
    // always a multiple of the size) only has fewer active lanes, and sums those. subgroupElect
    // picks one active lane: exactly one shared-memory slot per subgroup, none dropped, none
    // written twice.
    uint sum = subgroupAdd(value);
    if (subgroupElect()) partial_sums[gl_SubgroupID] = sum;
    barrier();  // every subgroup's sum is in shared memory (workgroup scope), visible to subgroup 0
    // Second level, in subgroup 0 only (a uniform branch for its lanes): lane i adds the sums of
    // subgroups i, i + size, ... (more than one only where there are more subgroups than lanes, as
    // with 4 lanes: 64 subgroups), then one subgroupAdd and one atomic for the whole workgroup.
    if (gl_SubgroupID == 0u) {
        uint workgroup_sum = 0u;
        for (uint s = gl_SubgroupInvocationID; s < gl_NumSubgroups; s += gl_SubgroupSize) workgroup_sum += partial_sums[s];
        workgroup_sum = subgroupAdd(workgroup_sum);
        if (subgroupElect()) add_to_total(workgroup_sum);
    }
}

void reduce_tree(uint value) {
    uint i = gl_LocalInvocationIndex;
    partial_sums[i] = value;
    for (uint stride = 128u; stride > 0u; stride >>= 1u) {
        barrier();  // also makes the previous level's shared writes visible (workgroup scope)
        if (i < stride) partial_sums[i] += partial_sums[i + stride];
    }
    if (i == 0u) add_to_total(partial_sums[0]);
}

void main() {
    ivec2 texel = ivec2(gl_GlobalInvocationID.xy);
    // Invocations past the mip's edge (the grid is rounded up to 16x16) stay active and add 0: they
    // must take part in the subgroup operation and the barriers, never return early.
    bool inside = all(lessThan(texel, imageSize(mip_image)));
    uint value = inside ? fixed_log_luminance(imageLoad(mip_image, texel).rgb) : 0u;
    // A specialization constant: the same for the whole dispatch, so the barriers stay in
    // uniform control flow.
    if (USE_SUBGROUP)
        reduce_subgroup(value);
    else
        reduce_tree(value);
}
