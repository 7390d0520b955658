#version 460
// The quad mip's edge fix-up, step 1 (docs/quad-mip.md): one invocation turns the edge list's
// count into the indirect dispatch of mip_fixup.comp and the report's counters. Within capacity:
// one invocation per entry. Past it (entries were dropped): one per mip texel, the whole mip.
layout(local_size_x = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer MipEdges { uint count; uint capacity; } mip_edges;
layout(set = 0, binding = 1, std430) writeonly buffer Args { uint groups_x, groups_y, groups_z; } args;
#include "mip_counters.glsl"
MIP_COUNTERS(2);
layout(push_constant) uniform Push { uint texel_count; };

const uint kGroupSize = 64u;      // mip_fixup.comp's local_size_x
const uint kMaxGroups = 65535u;   // maxComputeWorkGroupCount[0] is at least this; the fix-up loops past it

void main() {
    uint count = mip_edges.count;
    bool overflow = count > mip_edges.capacity;
    uint items = overflow ? texel_count : count;
    args.groups_x = min((items + kGroupSize - 1u) / kGroupSize, kMaxGroups);  // 0: nothing to fix
    args.groups_y = 1u;
    args.groups_z = 1u;
    counters.mip_edge_appends = count;
    counters.mip_edge_overflow = overflow ? count - mip_edges.capacity : 0u;
}
