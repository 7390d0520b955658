#version 460
// --raster compute on the meshlet path (docs/raster.md): one invocation turns the count of the kept
// meshlets' chunks into raster.comp's indirect dispatches, a workgroup per chunk: this phase's
// chunks (from first_new on) and the frame's, folded as the other grids are, into rows of at most
// maxComputeWorkGroupCount[0] workgroups, the workgroups past the chunks leaving.
#define MESHLET_RASTER_LIST_BINDING 0
#include "meshlet_raster_list.glsl"

layout(local_size_x = 1) in;
layout(push_constant) uniform Push { uint max_groups_x; } push;

uvec3 folded(uint groups) {
    uint x = min(groups, push.max_groups_x);  // 0: nothing kept, an empty dispatch
    return uvec3(x, groups == 0u ? 0u : (groups + x - 1u) / x, 1u);
}

void main() {
    uint count = min(chunk_count, uint(chunks.length()));
    uvec3 phase = folded(count - min(first_new, count)), all_chunks = folded(count);
    dispatch_new = uint[3](phase.x, phase.y, phase.z);
    dispatch_all = uint[3](all_chunks.x, all_chunks.y, all_chunks.z);
}
