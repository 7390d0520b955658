// An exclusive scan over one workgroup that keeps a fixed order: the order in which each
// invocation's *rank* counts. Used by the cull pass (cull.comp) and occlusion's scans: both paths give every element
// the same slot, so the compacted output is in input order, identical between variants and between
// runs (no atomic race decides an order).
//
// Usage: `uint i = scan_rank();` first (in uniform control flow, before any divergence), let
// invocation i handle element i of the workgroup's range, then
// `uint slot = workgroup_exclusive_scan(value, total);` in uniform control flow.
//
// Both paths, switched by USE_SUBGROUP (subgroup_switch.glsl):
//   subgroup   ranks in (gl_SubgroupID, gl_SubgroupInvocationID) order; the scan is
//              subgroupExclusiveAdd within a subgroup plus the lower subgroups' sums.
//   fallback   ranks are gl_LocalInvocationIndex; Hillis-Steele scan in shared memory.
// USE_SUBGROUP is a specialization constant, the same in the whole dispatch, so the barriers under
// either branch stay in uniform control flow.
//
// The includer defines the workgroup as 1D (local_size_x, possibly a specialization constant).
#include "subgroup_switch.glsl"

// The subgroup path's per-subgroup sums (one slot per subgroup: there are never more subgroups
// than invocations) or the fallback's per-invocation values: one array, so the module needs the
// shared memory of one path, not of both.
shared uint scan_shared[gl_WorkGroupSize.x];

// Sums `value` over the subgroups below this one (and over all of them, into `total`). Uniform
// control flow required: every invocation reaches both barriers.
uint scan_lower_subgroups(uint value, out uint total) {
    if (subgroupElect()) scan_shared[gl_SubgroupID] = value;
    barrier();
    uint below = 0u;
    total = 0u;
    for (uint s = 0u; s < gl_NumSubgroups; ++s) {
        uint v = scan_shared[s];
        below += s < gl_SubgroupID ? v : 0u;
        total += v;
    }
    barrier();  // the array is free again for the next call
    return below;
}

// Why the rank is a bijection onto 0 .. gl_WorkGroupSize.x - 1 whatever the device does:
// Vulkan fixes neither which invocations share a subgroup, nor that subgroups are full, nor (for
// SPIR-V 1.6, which may vary the size) that they all have gl_SubgroupSize lanes. So the rank does
// not use gl_LocalInvocationIndex or gl_SubgroupSize at all: it counts the invocations that are
// really there. Each subgroup's active lanes (a ballot counts only those) are numbered in lane
// order after all active lanes of the lower subgroups. Subgroups partition the workgroup, so every
// invocation gets one rank and every rank is used once. subgroupExclusiveAdd and the subgroups'
// sums below use the same order, so "slot = number of kept elements of lower rank" holds.
uint scan_rank_subgroup() {
    uvec4 everyone = subgroupBallot(true);
    uint unused;
    return scan_lower_subgroups(subgroupBallotBitCount(everyone), unused) + subgroupBallotExclusiveBitCount(everyone);
}

uint workgroup_exclusive_scan_subgroup(uint value, out uint total) {
    uint in_subgroup = subgroupExclusiveAdd(value);
    return scan_lower_subgroups(subgroupAdd(value), total) + in_subgroup;
}

uint scan_rank() {
    if (USE_SUBGROUP) return scan_rank_subgroup();
    return gl_LocalInvocationIndex;
}

// Hillis-Steele inclusive scan: log2(size) rounds of two barriers. The loop bound is the same in
// every invocation, so every barrier is reached by the whole workgroup.
uint workgroup_exclusive_scan_fallback(uint value, out uint total) {
    uint lane = gl_LocalInvocationIndex;
    scan_shared[lane] = value;
    barrier();
    for (uint stride = 1u; stride < gl_WorkGroupSize.x; stride *= 2u) {
        uint add = lane >= stride ? scan_shared[lane - stride] : 0u;
        barrier();
        scan_shared[lane] += add;
        barrier();
    }
    uint inclusive = scan_shared[lane];
    total = scan_shared[gl_WorkGroupSize.x - 1u];
    barrier();  // the array is free again for the next call
    return inclusive - value;
}

uint workgroup_exclusive_scan(uint value, out uint total) {
    if (USE_SUBGROUP) return workgroup_exclusive_scan_subgroup(value, total);
    return workgroup_exclusive_scan_fallback(value, total);
}
