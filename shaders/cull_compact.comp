#version 460
// The cull pass, step 3 of 3 (src/passes/cull_pass.cpp): moves each chunk's survivors from its
// stretch of the staging buffer (cull.comp) to the draw's range of the culled index buffer, at
// the offset the scan gave it (cull_scan.comp), and the invocation that moves a draw's last
// survivor writes the draw's indexCount (cull.comp zeroed it, so draws that keep nothing read 0).
// Chunks of one draw are consecutive in the chunk table, level by level and in triangle order
// within a level; only the chosen level's chunks have survivors (cull.comp), so the draw's
// survivors end up in input order.
//
// One invocation per SURVIVOR, not per chunk: a chunk keeps a handful of triangles (8.5% of 64 on
// the bundled scene at 1080p) while a chunk close to the camera keeps all 64, so any mapping of
// chunks to invocations or workgroups leaves most lanes idle and makes the dense chunks a serial
// tail (the H100 took 0.07 ms that way, half the cull). Here survivor g finds its chunk by a
// binary search over the scanned starts: first over the blocks' starts (a few hundred entries,
// cached), then within its block of 256 chunks. A fixed grid walks the survivors in strides, so
// the dispatch needs no count from the GPU.
layout(local_size_x = 256) in;  // kCompactGroupSize in src/passes/cull_pass.cpp

#include "common.glsl"

layout(set = 0, binding = 0, std430) readonly buffer Draws { DrawData draws[]; };
// (draw, level, first triangle of the level, the draw's first chunk)
layout(set = 0, binding = 1, std430) readonly buffer Chunks { uvec4 chunks[]; };
layout(set = 0, binding = 2, std430) readonly buffer DrawChunkEnds { uint draw_chunk_ends[]; };  // one past each draw's last chunk
layout(set = 0, binding = 3, std430) readonly buffer Staging { uint staged_indices[]; };
layout(set = 0, binding = 4, std430) readonly buffer ChunkStarts { uint chunk_starts[]; };  // within the block
layout(set = 0, binding = 5, std430) readonly buffer BlockStarts { uint block_starts[]; };
layout(set = 0, binding = 6, std430) writeonly buffer CulledIndices { uint culled_indices[]; };
// VkDrawIndexedIndirectCommand[]: indexCount, instanceCount, firstIndex, vertexOffset, firstInstance.
layout(set = 0, binding = 7, std430) writeonly buffer Indirect { uint indirect[]; };

layout(push_constant) uniform Push {
    uint chunk_count;
    uint scan_block;  // chunks per block of the scan's first dispatch
} push;

// Survivors of all chunks before `chunk` (chunk_count included: the grand total).
uint survivors_before(uint chunk) {
    return chunk_starts[chunk] + block_starts[chunk / push.scan_block];
}

// Binary searches for the last index i in [lo, hi] whose start is <= g (starts never decrease,
// and start(lo) <= g). Chunks that keep nothing share their start with the next chunk, so the last
// such index is the one block, or chunk, that really holds survivor g.
uint block_holding(uint g, uint lo, uint hi) {
    while (lo < hi) {
        uint mid = (lo + hi + 1u) / 2u;
        if (block_starts[mid] <= g) lo = mid; else hi = mid - 1u;
    }
    return lo;
}
uint chunk_holding(uint g_in_block, uint lo, uint hi) {
    while (lo < hi) {
        uint mid = (lo + hi + 1u) / 2u;
        if (chunk_starts[mid] <= g_in_block) lo = mid; else hi = mid - 1u;
    }
    return lo;
}

void main() {
    uint total = survivors_before(push.chunk_count);
    uint last_block = push.chunk_count / push.scan_block;  // the block that holds element chunk_count
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    uint staged_end = uint(staged_indices.length()), culled_end = uint(culled_indices.length());
    for (uint g = gl_GlobalInvocationID.x; g < total; g += stride) {
        uint block = block_holding(g, 0u, last_block);
        uint in_block = g - block_starts[block];
        uint first_chunk = block * push.scan_block;
        uint chunk = chunk_holding(in_block, first_chunk, min(first_chunk + push.scan_block, push.chunk_count) - 1u);

        uvec4 entry = chunks[chunk];  // (draw, level, first triangle of the level, the draw's first chunk)
        uint out_first = draws[entry.x].out_first;
        uint draw_start = survivors_before(entry.w);
        uint src = out_first + 3u * (entry.z + in_block - chunk_starts[chunk]);
        uint dst = out_first + 3u * (g - draw_start);
        // The bounds hold by construction; they are checked so that no input can make an access
        // leave a buffer.
        if (all(bvec2(src + 3u <= staged_end, dst + 3u <= culled_end))) {
            culled_indices[dst] = staged_indices[src];
            culled_indices[dst + 1u] = staged_indices[src + 1u];
            culled_indices[dst + 2u] = staged_indices[src + 2u];
        }
        // The draw's last survivor: its count. At most the draw's triangles by construction (only
        // one level has survivors, none larger than level 0); clamped so no input makes it more.
        if (g + 1u == survivors_before(draw_chunk_ends[entry.x]))
            indirect[entry.x * 5u] = 3u * min(g + 1u - draw_start, draws[entry.x].index_count / 3u);
    }
}
