#version 460
// The cull pass, step 3 of 3 (src/passes/cull_pass.cpp): moves each chunk's survivors from its
// stretch of the staging buffer (cull.comp) to the draw's range of the culled index buffer, at
// the offset the scan gave it (cull_scan.comp), and the draw's last chunk writes the draw's
// indexCount. Chunks of one draw are consecutive in the chunk table, in triangle order, so the
// draw's survivors end up in input order.
//
// One invocation per chunk, not a workgroup: a chunk keeps a handful of triangles (8.5% of 64 on
// the bundled scene at 1080p), so a workgroup per chunk would launch one workgroup per 64
// triangles of the scene to copy five of them, and pay the scan's loads once per workgroup. No
// barriers or subgroup operations here, so invocations past the table simply return.
layout(local_size_x = 64) in;
layout(constant_id = 0) const uint kChunkTriangles = 64u;  // --cull-group-size

#include "common.glsl"

layout(set = 0, binding = 0, std430) readonly buffer Draws { DrawData draws[]; };
layout(set = 0, binding = 1, std430) readonly buffer Chunks { uvec2 chunks[]; };  // (draw, first triangle)
layout(set = 0, binding = 2, std430) readonly buffer Staging { uint staged_indices[]; };
layout(set = 0, binding = 3, std430) readonly buffer ChunkStarts { uint chunk_starts[]; };  // within the block
layout(set = 0, binding = 4, std430) readonly buffer BlockStarts { uint block_starts[]; };
layout(set = 0, binding = 5, std430) writeonly buffer CulledIndices { uint culled_indices[]; };
// VkDrawIndexedIndirectCommand[]: indexCount, instanceCount, firstIndex, vertexOffset, firstInstance.
layout(set = 0, binding = 6, std430) writeonly buffer Indirect { uint indirect[]; };

layout(push_constant) uniform Push {
    uint chunk_count;
    uint scan_block;  // chunks per block of the scan's first dispatch
} push;

// Survivors of all chunks before `chunk` (chunk_count included: the grand total).
uint survivors_before(uint chunk) {
    return chunk_starts[chunk] + block_starts[chunk / push.scan_block];
}

void main() {
    uint chunk = gl_GlobalInvocationID.y * (gl_NumWorkGroups.x * gl_WorkGroupSize.x) + gl_GlobalInvocationID.x;
    if (chunk >= push.chunk_count) return;

    uvec2 entry = chunks[chunk];
    uint out_first = draws[entry.x].out_first;
    uint index_count = draws[entry.x].index_count;
    // The draw's chunks start at triangle 0 and step by the chunk size (build_cull_chunks).
    uint draw_start = survivors_before(chunk - entry.y / kChunkTriangles);
    uint start = survivors_before(chunk);
    uint survivors = survivors_before(chunk + 1u) - start;

    // The bounds hold by construction (start - draw_start <= entry.y); they are checked so that no
    // input can make a write leave the draw's range or a read leave the staging buffer.
    uint src = out_first + 3u * entry.y;
    uint dst = out_first + 3u * (start - draw_start);
    uint indices = 3u * survivors;
    bool in_bounds = all(bvec3(dst + indices <= out_first + index_count, src + indices <= uint(staged_indices.length()),
                               dst + indices <= uint(culled_indices.length())));
    if (in_bounds)
        for (uint k = 0u; k < indices; ++k) culled_indices[dst + k] = staged_indices[src + k];

    if (entry.y + kChunkTriangles >= index_count / 3u)  // the draw's last chunk
        indirect[entry.x * 5u] = in_bounds ? 3u * (start + survivors - draw_start) : 0u;
}
