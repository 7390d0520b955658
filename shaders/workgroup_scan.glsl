// An exclusive scan over one workgroup that keeps a fixed order: the order in which each
// invocation's *rank* counts. Used by the cull pass (cull.comp): both variants give every element
// the same slot, so the compacted output is in input order, identical between variants and between
// runs (no atomic race decides an order).
//
// Usage: `uint i = scan_rank();` first (in uniform control flow, before any divergence), let
// invocation i handle element i of the workgroup's range, then
// `uint slot = workgroup_exclusive_scan(value, total);` in uniform control flow.
//
//   SCAN_SUBGROUP  ranks in (gl_SubgroupID, gl_SubgroupInvocationID) order; the scan is
//                  subgroupExclusiveAdd within a subgroup plus the lower subgroups' sums.
//   (fallback)     ranks are gl_LocalInvocationIndex; Hillis-Steele scan in shared memory.
//
// The includer defines the workgroup as 1D (local_size_x, possibly a specialization constant).

#ifdef SCAN_SUBGROUP
// One slot per subgroup: there are never more subgroups than invocations.
shared uint scan_per_subgroup[gl_WorkGroupSize.x];

// Sums `value` over the subgroups below this one (and over all of them, into `total`). Uniform
// control flow required: every invocation reaches both barriers.
uint scan_lower_subgroups(uint value, out uint total) {
    if (subgroupElect()) scan_per_subgroup[gl_SubgroupID] = value;
    barrier();
    uint below = 0u;
    total = 0u;
    for (uint s = 0u; s < gl_NumSubgroups; ++s) {
        uint v = scan_per_subgroup[s];
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
uint scan_rank() {
    uvec4 everyone = subgroupBallot(true);
    uint unused;
    return scan_lower_subgroups(subgroupBallotBitCount(everyone), unused) + subgroupBallotExclusiveBitCount(everyone);
}

uint workgroup_exclusive_scan(uint value, out uint total) {
    uint in_subgroup = subgroupExclusiveAdd(value);
    return scan_lower_subgroups(subgroupAdd(value), total) + in_subgroup;
}
#else
shared uint scan_values[gl_WorkGroupSize.x];

uint scan_rank() { return gl_LocalInvocationIndex; }

// Hillis-Steele inclusive scan: log2(size) rounds of two barriers. The loop bound is the same in
// every invocation, so every barrier is reached by the whole workgroup.
uint workgroup_exclusive_scan(uint value, out uint total) {
    uint lane = gl_LocalInvocationIndex;
    scan_values[lane] = value;
    barrier();
    for (uint stride = 1u; stride < gl_WorkGroupSize.x; stride *= 2u) {
        uint add = lane >= stride ? scan_values[lane - stride] : 0u;
        barrier();
        scan_values[lane] += add;
        barrier();
    }
    uint inclusive = scan_values[lane];
    total = scan_values[gl_WorkGroupSize.x - 1u];
    barrier();  // the array is free again for the next call
    return inclusive - value;
}
#endif
