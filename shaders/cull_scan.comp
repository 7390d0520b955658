#version 460
// An exclusive scan, in place, of per-chunk counts (src/passes/cull_pass.cpp), for occlusion
// culling's lists (docs/occlusion.md): phase 1's rejected triangles per chunk (cull.comp), and
// phase 1's survivors plus phase 2's additions per chunk for the merge (cull_late.comp). Run twice:
//   - over the counts, one workgroup per block of 256 chunks (tiles_per_group = 1): each count
//     becomes the sum of the lower chunks' of its block, and each block's total goes to
//     group_sums[block];
//   - over those block totals, by one workgroup that walks them in tiles of 256 with a running
//     carry: each becomes the sum of all lower blocks', and the grand total goes to group_sums[0].
// A chunk's entries then start at values[chunk] + block_sums[chunk / 256] in the order of the
// chunk table, and the scan also writes element `count` (one past the last, which reads as 0), so
// the next chunk's start is always defined (cull_late.comp, cull_merge.comp). The cull's own
// compaction needs none of this: cull.comp places its survivors with a look-back in one dispatch.
//
// Both paths, switched by USE_SUBGROUP (subgroup_switch.glsl): subgroupExclusiveAdd and the
// subgroups' sums, or the shared-memory scan (workgroup_scan.glsl).
#include "subgroup_switch.glsl"

layout(local_size_x = 256) in;  // kCullScanBlock in src/passes/cull_pass.cpp

#include "workgroup_scan.glsl"

layout(set = 0, binding = 0, std430) buffer Values { uint values[]; };  // count + 1 elements
layout(set = 0, binding = 1, std430) writeonly buffer GroupSums { uint group_sums[]; };

layout(push_constant) uniform Push {
    uint count;            // elements to scan; element `count` is written too (it reads as 0)
    uint tiles_per_group;  // tiles of 256 that each workgroup scans one after another
} push;

void main() {
    uint rank = scan_rank();
    uint carry = 0u;
    // The same trip count in every invocation: the scan's barriers are reached by all of them.
    for (uint tile = 0u; tile < push.tiles_per_group; ++tile) {
        uint i = (gl_WorkGroupID.x * push.tiles_per_group + tile) * gl_WorkGroupSize.x + rank;
        uint value = i < push.count ? values[i] : 0u;
        uint tile_total;
        uint prefix = workgroup_exclusive_scan(value, tile_total);
        if (i <= push.count) values[i] = carry + prefix;
        carry += tile_total;
    }
    if (rank == 0u) group_sums[gl_WorkGroupID.x] = carry;
}
