#version 460
// --raster compute under occlusion (docs/raster.md, "Occlusion's two phases"): one invocation sizes
// the late draw's dispatches from the late cull's word, so that a frame whose phase 2 re-admitted
// nothing launches no workgroup there. The late cull (cull_late.comp) writes the draw count into
// `readmitted_draws` where it re-admitted any triangle and leaves it 0 otherwise. Where it is 0 both
// dispatches are empty: the chunks' (no late list to rasterize) and the split's (the words are
// phase 1's, which its split already wrote). Otherwise the chunks' grid as RasterPass::make_list
// folded it (within maxComputeWorkGroupCount), and the split's grid over the frame.
layout(local_size_x = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer Readmitted { uint readmitted_draws; };
// Two VkDispatchIndirectCommands: the chunks' at byte 0, the split's at byte 16.
layout(set = 0, binding = 1, std430) writeonly buffer LateDispatches { uint dispatches[8]; };
layout(push_constant) uniform Push { uvec2 chunks, split; } push;

void main() {
    uvec2 chunks = readmitted_draws != 0u ? push.chunks : uvec2(0u);
    uvec2 split = readmitted_draws != 0u ? push.split : uvec2(0u);
    dispatches[0] = chunks.x;
    dispatches[1] = chunks.y;
    dispatches[2] = 1u;
    dispatches[4] = split.x;
    dispatches[5] = split.y;
    dispatches[6] = 1u;
}
