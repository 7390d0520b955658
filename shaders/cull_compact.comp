#version 460
// The cull pass, step 3 of 3 (src/passes/cull_pass.cpp): moves each chunk's survivors from its
// stretch of the staging buffer (cull.comp) to the draw's range of the culled index buffer, at
// the offset the scan gave it (cull_scan.comp), and the draw's last chunk writes the draw's
// indexCount. Chunks of one draw are consecutive in the chunk table, level by level and in
// triangle order within a level; only the chosen level's chunks have survivors (cull.comp), so
// the draw's survivors end up in input order.
//
// A chunk keeps a handful of triangles (8.5% of 64 on the bundled scene at 1080p), so neither a
// workgroup per chunk nor an invocation copying its chunk alone keeps the GPU busy: both wait on
// one chain of loads for every few triangles (the H100 took 0.07 ms either way, half the cull).
// Here a workgroup takes 64 chunks: each invocation first looks up one chunk (in parallel), then
// the workgroup copies the 64 chunks' survivors together, one triangle per invocation per round,
// each finding its chunk by a binary search in shared memory.
layout(local_size_x = 64) in;  // kCompactChunks in src/passes/cull_pass.cpp

#include "common.glsl"

layout(set = 0, binding = 0, std430) readonly buffer Draws { DrawData draws[]; };
// (draw, level, first triangle of the level, the draw's first chunk)
layout(set = 0, binding = 1, std430) readonly buffer Chunks { uvec4 chunks[]; };
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

shared uint s_first[64 + 1];  // survivors of all chunks before this workgroup's chunk i (and after the last)
shared uint s_src[64];        // where chunk i's survivors start in staging
shared uint s_dst[64];        // where they go in the culled index buffer

// Survivors of all chunks before `chunk` (chunk_count included: the grand total).
uint survivors_before(uint chunk) {
    return chunk_starts[chunk] + block_starts[chunk / push.scan_block];
}

void main() {
    uint group_first = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * gl_WorkGroupSize.x;
    // Uniform in the workgroup: whole workgroups leave, so every barrier below sees all of it.
    if (group_first >= push.chunk_count) return;
    uint lane = gl_LocalInvocationID.x;
    uint chunks_here = min(gl_WorkGroupSize.x, push.chunk_count - group_first);

    // 1. One chunk per invocation: where its survivors are and where they go.
    if (lane < chunks_here) {
        uint chunk = group_first + lane;
        uvec4 entry = chunks[chunk];  // (draw, level, first triangle of the level, the draw's first chunk)
        uint out_first = draws[entry.x].out_first;
        uint index_count = draws[entry.x].index_count;
        uint draw_start = survivors_before(entry.w);
        uint start = survivors_before(chunk);
        s_first[lane] = start;
        s_src[lane] = out_first + 3u * entry.z;
        s_dst[lane] = out_first + 3u * (start - draw_start);
        // The draw's chunks are consecutive, all its levels included (build_cull_chunks).
        if (chunk + 1u == push.chunk_count || chunks[chunk + 1u].x != entry.x) {  // the draw's last chunk
            // At most the draw's triangles by construction (only one level has survivors, and
            // no level is larger than level 0); clamped so no input makes it more.
            uint end = survivors_before(chunk + 1u);
            indirect[entry.x * 5u] = 3u * min(end - draw_start, index_count / 3u);
        }
    }
    if (lane == 0u) s_first[chunks_here] = survivors_before(group_first + chunks_here);
    barrier();

    // 2. The workgroup's survivors, one triangle per invocation per round. The bounds hold by
    // construction; they are checked so that no input can make an access leave a buffer.
    uint first = s_first[0];
    uint total = s_first[chunks_here] - first;
    uint staged_end = uint(staged_indices.length()), culled_end = uint(culled_indices.length());
    for (uint t = lane; t < total; t += gl_WorkGroupSize.x) {
        uint g = first + t;
        uint lo = 0u, hi = chunks_here - 1u;  // the last chunk i with s_first[i] <= g
        while (lo < hi) {
            uint mid = (lo + hi + 1u) / 2u;
            if (s_first[mid] <= g) lo = mid; else hi = mid - 1u;
        }
        uint i = 3u * (g - s_first[lo]);
        uint src = s_src[lo] + i, dst = s_dst[lo] + i;
        if (all(bvec2(src + 3u <= staged_end, dst + 3u <= culled_end))) {
            culled_indices[dst] = staged_indices[src];
            culled_indices[dst + 1u] = staged_indices[src + 1u];
            culled_indices[dst + 2u] = staged_indices[src + 2u];
        }
    }
}
