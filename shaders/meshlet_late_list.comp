#version 460
// Occlusion phase 2 of the meshlet path, its list (src/passes/meshlet_pass.cpp, docs/occlusion.md):
// the meshlets that phase 1's task shaders rejected only because the previous frame's pyramid hid
// them (each chunk's chunk_rejected mask), as visible-list entries 32 c + i in input order (chunk
// by chunk, bit by bit), and the indirect command that launches one phase-2 task workgroup per 32
// of them. One workgroup walks the chunks in tiles of 256 with a running carry (the meshlet path
// has few chunks: 32 meshlets each); an exclusive scan of the masks' bit counts places each
// chunk's entries (workgroup_scan.glsl: subgroupExclusiveAdd, or the shared-memory fallback, switched
// by USE_SUBGROUP).
#include "subgroup_switch.glsl"

layout(local_size_x = 256) in;

#include "workgroup_scan.glsl"

struct VisibleMeshlet {  // meshlet.glsl's
    uint chunk_kept;
    uint chunk_late;
    uint chunk_rejected;
    uint pad;
    uvec4 mask;
};
layout(set = 0, binding = 0, std430) readonly buffer VisibleList { VisibleMeshlet entries[]; } visible;
layout(set = 0, binding = 1, std430) writeonly buffer LateList {
    uvec4 late_header;  // x, y, z: task workgroups (VkDrawMeshTasksIndirectCommandEXT); w: entries
    uint late_entries[];
};

layout(push_constant) uniform Push {
    uint chunk_count;
    uint max_groups_x;  // maxTaskWorkGroupCount[0]: more workgroups go into rows
} push;

const uint kMeshletsPerTask = 32u;

void main() {
    uint rank = scan_rank();
    uint carry = 0u;
    uint capacity = uint(late_entries.length());
    // The same trip count in every invocation: the scan's barriers are reached by all of them.
    for (uint first = 0u; first < push.chunk_count; first += gl_WorkGroupSize.x) {
        uint chunk = first + rank;
        uint mask = chunk < push.chunk_count ? visible.entries[chunk * kMeshletsPerTask].chunk_rejected : 0u;
        uint tile_total;
        uint at = carry + workgroup_exclusive_scan(bitCount(mask), tile_total);
        for (; mask != 0u; mask &= mask - 1u, ++at)
            if (at < capacity) late_entries[at] = chunk * kMeshletsPerTask + uint(findLSB(mask));
        carry += tile_total;
    }
    if (rank == 0u) {
        uint count = min(carry, capacity);
        uint groups = (count + kMeshletsPerTask - 1u) / kMeshletsPerTask;
        uint x = min(groups, push.max_groups_x);
        late_header = uvec4(x, x == 0u ? 1u : (groups + x - 1u) / x, 1u, count);
    }
}
