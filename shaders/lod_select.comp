#version 460
// The indexed path with --cull off (src/passes/cull_pass.cpp, docs/lod.md): no triangle is
// tested, but every draw still draws the level of detail lod.glsl picks, as the cull pass and the
// meshlet path's task shaders do. One invocation per draw writes the draw's command: the whole
// chosen level, read from the source index buffer. It adds the draw to the per-level counters.
//
// No subgroup variant: --cull off is the baseline without culling, and the work is one
// invocation per draw (thousands, against millions of triangles), two atomics each.
#include "common.glsl"
#include "lod.glsl"

layout(local_size_x = 64) in;

layout(set = 0, binding = 0) uniform Frame { FrameUniforms frame; };
layout(set = 0, binding = 1, std430) readonly buffer Draws { DrawData draws[]; };
// VkDrawIndexedIndirectCommand[], one per draw: indexCount, instanceCount, firstIndex,
// vertexOffset, firstInstance (the draw: scene.vert reads its DrawData).
layout(set = 0, binding = 2, std430) writeonly buffer Indirect { uint indirect[]; };
// GpuCounters (src/render/frame.h), as words: the per-level counters (lod.glsl).
layout(set = 0, binding = 3, std430) buffer Counters { uint counters[]; };

layout(push_constant) uniform Push {
    uint draw_count;
    float lod_max_error_px;  // --lod auto: 1 pixel; --lod off: 0 (level 0 always)
} push;

void main() {
    uint draw = gl_GlobalInvocationID.x;
    if (draw >= push.draw_count) return;
    uint level = choose_lod_level(draws[draw], lod_view(frame.view, frame.projection, frame.sizes.xy), push.lod_max_error_px);
    uint index_count = draws[draw].lod_index_count[level];
    indirect[draw * 5u] = index_count;
    indirect[draw * 5u + 1u] = 1u;
    indirect[draw * 5u + 2u] = draws[draw].lod_first_index[level];
    indirect[draw * 5u + 3u] = 0u;
    indirect[draw * 5u + 4u] = draw;
    atomicAdd(counters[kLodDrawsWord + level], 1u);
    atomicAdd(counters[kLodTrianglesWord + level], index_count / 3u);
}
