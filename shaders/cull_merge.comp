#version 460
// Occlusion phase 2 of the indexed path, last step (src/passes/cull_pass.cpp, docs/occlusion.md):
// forward's list for the draws that phase 2 added triangles to. Forward must draw a draw's
// triangles in input order, as --occlusion off does: where two triangles meet at exactly the same
// depth, forward's EQUAL test passes both and the one drawn last keeps the pixel. So phase 1's
// survivors and phase 2's additions are merged by rank: chunk by chunk, in the order of the chunk
// table, each chunk's triangles whose bit is set in its mask (phase 1's survivors, cull.comp, and
// the additions, cull_late.comp), at the chunk's start in the scan of the chunks' counts
// (cull_scan.comp over phase 1's counts plus the additions), written over the draw's range of the
// culled index buffer (phase 1's list and the late list, which the depth passes have read). Draws
// without additions keep phase 1's list as it is: this step does nothing for them, so a frame in
// which nothing is re-admitted pays one workgroup per chunk that leaves at once.
//
// Why the order matters in forward and not in depth: the depth pre-pass and the late draw test
// GREATER (reversed Z) and write, so each pixel ends up holding the largest depth of the fragments
// drawn there, whichever order they came in and however they are split between the two draws (an
// equal fragment later fails GREATER and writes nothing, but the value is the same one); so the
// late list may be in any order. Forward tests EQUAL and writes colour, not depth: every fragment
// at the stored depth passes, and the last one drawn keeps the pixel. Two triangles that meet at
// exactly the same depth therefore show as --occlusion off shows them only if forward draws them in
// the same order, which is input order, per draw; draws go in draw order in both.
//
// One workgroup per chunk (the cull's grid); invocation i takes the chunk's triangles
// kTrianglesPerInvocation i .. kTrianglesPerInvocation (i + 1) - 1, as in cull.comp.
layout(local_size_x_id = 0) in;  // --cull-group-size, as cull.comp

#include "common.glsl"
#include "cull_tests.glsl"  // kTrianglesPerInvocation

layout(set = 0, binding = 0, std430) readonly buffer Draws { DrawData draws[]; };
layout(set = 0, binding = 1, std430) readonly buffer SourceIndices { uint source_indices[]; };
layout(set = 0, binding = 2, std430) readonly buffer Chunks { uvec4 chunks[]; };
layout(set = 0, binding = 3, std430) readonly buffer DrawChunkEnds { uint draw_chunk_ends[]; };
layout(set = 0, binding = 4, std430) readonly buffer ChunkStarts { uint chunk_starts[]; };  // within the block
layout(set = 0, binding = 5, std430) readonly buffer BlockStarts { uint block_starts[]; };
layout(set = 0, binding = 6, std430) readonly buffer DrawnMasks { uint drawn_masks[]; };
layout(set = 0, binding = 7, std430) readonly buffer LateIndirect { uint late_indirect[]; };
layout(set = 0, binding = 8, std430) writeonly buffer CulledIndices { uint culled_indices[]; };
// VkDrawIndexedIndirectCommand per draw: what forward draws (indexCount of the draws merged here).
layout(set = 0, binding = 9, std430) writeonly buffer Indirect { uint indirect[]; };
// Each listed triangle's index in its draw's level, beside it (cull.comp's).
layout(set = 0, binding = 10, std430) writeonly buffer SourceRanks { uint source_ranks[]; };

layout(push_constant) uniform Push {
    uint chunk_count;
    uint scan_block;  // chunks per block of the scan
} push;

const uint kWords = (gl_WorkGroupSize.x * kTrianglesPerInvocation + 31u) / 32u;  // mask words per chunk (cull.comp's kDrawnWords)

uint drawn_before(uint chunk) { return chunk_starts[chunk] + block_starts[chunk / push.scan_block]; }

void main() {
    uint chunk = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    if (chunk >= push.chunk_count) return;
    uvec4 entry = chunks[chunk];  // (draw, level, first triangle of the level, the draw's first chunk)
    uint draw_id = entry.x, level = entry.y;
    if (late_indirect[draw_id * 5u] == 0u) return;  // no additions: forward draws phase 1's list

    // The merged list goes over the draw's range (nothing reads phase 1's list or the late list
    // after the depth passes; the renderer orders this after them).
    uint out_first = draws[draw_id].out_first;
    uint draw_start = drawn_before(entry.w);
    if (all(bvec2(chunk == entry.w, gl_LocalInvocationIndex == 0u))) {
        // At most the draw's triangles by construction; clamped so that no input makes it more.
        uint count = min(drawn_before(draw_chunk_ends[draw_id]) - draw_start, draws[draw_id].index_count / 3u);
        indirect[draw_id * 5u] = 3u * count;
    }
    uint start = drawn_before(chunk);
    if (drawn_before(chunk + 1u) == start) return;  // keeps nothing (also every level not chosen)

    // The invocation's ranks share one mask word (kTrianglesPerInvocation divides 32); their slots
    // follow the set bits below them.
    uint base = chunk * kWords;
    uint first_rank = gl_LocalInvocationIndex * kTrianglesPerInvocation;
    uint word_index = first_rank / 32u;
    uint word = drawn_masks[base + word_index];
    uint mine = (word >> (first_rank % 32u)) & ((1u << kTrianglesPerInvocation) - 1u);
    if (mine == 0u) return;
    uint slot = bitCount(word & ((1u << (first_rank % 32u)) - 1u));
    for (uint w = 0u; w < word_index; ++w) slot += bitCount(drawn_masks[base + w]);
    // The bounds hold by construction; checked so that no input makes an access leave a buffer.
    uint end = min(out_first + draws[draw_id].index_count, uint(culled_indices.length()));
    for (uint t = 0u; t < kTrianglesPerInvocation; ++t) {
        if ((mine & (1u << t)) == 0u) continue;
        uint first = draws[draw_id].lod_first_index[level] + 3u * (entry.z + first_rank + t);
        uint dst = out_first + 3u * (start - draw_start + slot);
        ++slot;
        if (all(bvec2(first + 3u <= uint(source_indices.length()), dst + 3u <= end))) {
            culled_indices[dst] = source_indices[first];
            culled_indices[dst + 1u] = source_indices[first + 1u];
            culled_indices[dst + 2u] = source_indices[first + 2u];
            source_ranks[dst / 3u] = entry.z + first_rank + t;
        }
    }
}
