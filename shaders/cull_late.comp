#version 460
// Occlusion phase 2 of the indexed path (src/passes/cull_pass.cpp, docs/occlusion.md): re-tests
// only the triangles that phase 1 (cull.comp) rejected as occluded, against this frame's pyramid,
// which was built from the depth of phase 1's survivors. Those that no longer are occluded (the
// re-admitted) are appended to their draw's late list, right after phase 1's survivors in the
// draw's range of the culled index buffer, which the late depth draw adds to the depth; and they
// are marked for the merge (cull_merge.comp), which then rewrites the draw's range as phase 1's
// survivors and the additions in input order, for forward.
//
// Phase 1's rejected list is its chunks' stretches (each chunk's rejected ranks, in rank order, at
// the start of its stretch) plus the scan of their counts (cull_scan.comp): entry g of the list,
// in input order, lies in the chunk whose scanned start is the last one <= g. Invocation g finds it
// by a binary search over the scanned starts, so the work is one invocation per rejected
// triangle and nothing in between. A fixed grid walks the list in strides: the dispatch needs no
// count from the GPU.
layout(local_size_x = 256) in;  // kLateGroupSize in src/passes/cull_pass.cpp

#include "common.glsl"
#include "cull_tests.glsl"

layout(set = 0, binding = 0) uniform Frame { FrameUniforms frame; };
#include "transform.glsl"
layout(set = 0, binding = 1, std430) readonly buffer Draws { DrawData draws[]; };
layout(set = 0, binding = 2, std430) readonly buffer Vertices { float vertex_data[]; };  // 8 floats per Vertex
layout(set = 0, binding = 3, std430) readonly buffer SourceIndices { uint source_indices[]; };
// (draw, level, first triangle of the level, the draw's first chunk): build_cull_chunks().
layout(set = 0, binding = 4, std430) readonly buffer Chunks { uvec4 chunks[]; };
layout(set = 0, binding = 5, std430) readonly buffer Rejected { uint rejected_ranks[]; };
layout(set = 0, binding = 6, std430) readonly buffer ChunkStarts { uint chunk_starts[]; };  // within the block
layout(set = 0, binding = 7, std430) readonly buffer BlockStarts { uint block_starts[]; };
layout(set = 0, binding = 8, std430) readonly buffer Pyramid { float pyramid_texels[]; };
#define PYRAMID_BUFFER pyramid_texels
#include "occlusion.glsl"
#include "lod.glsl"
// GpuCounters (src/render/frame.h), as words.
layout(set = 0, binding = 9, std430) buffer Counters { uint counters[]; };
// The culled index buffer and its commands (VkDrawIndexedIndirectCommand per draw): phase 1's
// survivors of draw d are indexCount indices from out_first on; the late list goes after them.
layout(set = 0, binding = 10, std430) writeonly buffer CulledIndices { uint culled_indices[]; };
layout(set = 0, binding = 14, std430) readonly buffer Indirect { uint indirect[]; };
// The late depth draw's commands: indexCount counts the appended indices (cull.comp zeroed it),
// firstIndex is where they start (written here, the same value by every writer).
layout(set = 0, binding = 11, std430) buffer LateIndirect { uint late_indirect[]; };
// Per chunk: phase 1's survivor count, to which the additions are added (the merge scans it), and
// the survivors' rank mask, which gets the additions' bits.
layout(set = 0, binding = 12, std430) buffer ChunkDrawn { uint chunk_drawn[]; };
layout(set = 0, binding = 13, std430) buffer DrawnMasks { uint drawn_masks[]; };
// The merge's three dispatches (VkDispatchIndirectCommand each: its two scans and cull_merge.comp),
// set to launch nothing before this step: a workgroup that re-admits anything sets their x to
// launch them (every writer writes the same values). A frame that re-admits nothing then pays no
// merge at all.
layout(set = 0, binding = 15, std430) writeonly buffer MergeDispatches { uint merge_dispatches[9]; };
// Each listed triangle's index in its draw's level, beside it (cull.comp's).
layout(set = 0, binding = 16, std430) writeonly buffer SourceRanks { uint source_ranks[]; };
// The count of the hardware pre-pass's ids draw (ScenePass::record_ids, a draw count from the GPU),
// 0 before this step: a workgroup that re-admits anything sets it to every draw, as it launches the
// merge. A frame that re-admits nothing keeps phase 1's ids, which are then the merged list's.
layout(set = 0, binding = 17, std430) writeonly buffer IdsDrawCount { uint ids_draw_count; };

layout(push_constant) uniform Push {
    uint chunk_count;
    uint scan_block;   // chunks per block of the scan
    float snap_px;
    float frustum_eps;
    uint chunk_triangles;  // triangles per chunk (cull_chunk_triangles(--cull-group-size))
    uint scan_groups;  // the merge's first scan's workgroups (its second has one)
    uint merge_groups; // cull_merge.comp's workgroups along x (the cull's grid)
} push;

vec3 vertex_position(uint index) {
    uint base = index * 8u;
    return vec3(vertex_data[base], vertex_data[base + 1u], vertex_data[base + 2u]);
}

uint rejected_before(uint chunk) { return chunk_starts[chunk] + block_starts[chunk / push.scan_block]; }

// The last block, then chunk, whose start is <= g (binary searches over the scanned starts).
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

// Tested, re-admitted, and re-admitted per level of detail: summed over the workgroup, then one
// counter atomic each.
shared uint group_counts[2 + kMaxLodLevels];

void main() {
    if (gl_LocalInvocationIndex < 2u + kMaxLodLevels) group_counts[gl_LocalInvocationIndex] = 0u;
    barrier();
    uint drawn_words = (push.chunk_triangles + 31u) / 32u;  // mask words per chunk (cull.comp's kDrawnWords)
    uint per_level[kMaxLodLevels] = uint[](0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u);
    uint total = rejected_before(push.chunk_count);
    uint last_block = push.chunk_count / push.scan_block;
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    uint tested = 0u, readmitted = 0u;
    vec2 viewport = vec2(frame.sizes.xy);
    for (uint g = gl_GlobalInvocationID.x; g < total; g += stride) {
        uint block = block_holding(g, 0u, last_block);
        uint in_block = g - block_starts[block];
        uint first_chunk = block * push.scan_block;
        uint chunk = chunk_holding(in_block, first_chunk, min(first_chunk + push.scan_block, push.chunk_count) - 1u);
        uvec4 entry = chunks[chunk];
        uint draw_id = entry.x, level = entry.y;
        uint out_first = draws[draw_id].out_first;
        // Bounds hold by construction; checked so that no input makes an access leave a buffer.
        uint at = min(out_first / 3u + entry.z + in_block - chunk_starts[chunk], uint(rejected_ranks.length()) - 1u);
        uint rank = min(rejected_ranks[at], push.chunk_triangles - 1u);
        uint triangle = entry.z + rank;
        uint first = draws[draw_id].lod_first_index[level] + 3u * triangle;
        if (first + 3u > uint(source_indices.length())) continue;
        uvec3 index = uvec3(source_indices[first], source_indices[first + 1u], source_indices[first + 2u]);
        // cull.comp's and scene.vert's arithmetic (transform.glsl).
        mat4 model = draws[draw_id].model;
        vec4 c0 = world_to_clip(object_to_world(model, vertex_position(index.x)));
        vec4 c1 = world_to_clip(object_to_world(model, vertex_position(index.y)));
        vec4 c2 = world_to_clip(object_to_world(model, vertex_position(index.z)));
        ++tested;
        if (triangle_occluded(c0, c1, c2, viewport, push.snap_px, push.frustum_eps, frame.occlusion.z)) continue;
        ++readmitted;
        // Re-admitted: appended to the draw's late list (its order does not matter: the depth test
        // keeps the nearest value whatever the order; forward's order comes from the merge). Phase
        // 1's survivors and the additions are at most the draw's triangles: the list fits its range.
        uint late_first = out_first + indirect[draw_id * 5u];
        uint slot = atomicAdd(late_indirect[draw_id * 5u], 3u);
        late_indirect[draw_id * 5u + 2u] = late_first;
        uint dst = late_first + slot;
        if (dst + 3u <= min(out_first + draws[draw_id].index_count, uint(culled_indices.length()))) {
            culled_indices[dst] = index.x;
            culled_indices[dst + 1u] = index.y;
            culled_indices[dst + 2u] = index.z;
            source_ranks[dst / 3u] = triangle;
        }
        atomicAdd(chunk_drawn[chunk], 1u);
        atomicOr(drawn_masks[chunk * drawn_words + rank / 32u], 1u << (rank % 32u));
        ++per_level[min(level, kMaxLodLevels - 1u)];
    }
    // Every invocation has left the loop: the counts go out with one atomic per workgroup.
    atomicAdd(group_counts[0], tested);
    atomicAdd(group_counts[1], readmitted);
    for (uint l = 0u; l < kMaxLodLevels; ++l)
        if (per_level[l] != 0u) atomicAdd(group_counts[2u + l], per_level[l]);
    barrier();
    if (gl_LocalInvocationIndex < kMaxLodLevels && group_counts[2u + gl_LocalInvocationIndex] != 0u)
        atomicAdd(counters[kLodTrianglesWord + gl_LocalInvocationIndex], group_counts[2u + gl_LocalInvocationIndex]);
    if (gl_LocalInvocationIndex == 0u) {
        uint t = group_counts[0], r = group_counts[1];
        if (t != 0u) {
            atomicAdd(counters[kOcclusionTrianglesWord + kOcclusionTested], t);
            atomicAdd(counters[kOcclusionTrianglesWord + kOcclusionRejected2], t - r);
        }
        if (r != 0u) {
            merge_dispatches[0] = push.scan_groups;
            merge_dispatches[3] = 1u;
            merge_dispatches[6] = push.merge_groups;
            ids_draw_count = frame.tiles.w;  // the draw count
            atomicAdd(counters[kOcclusionTrianglesWord + kOcclusionReadmitted], r);
            atomicAdd(counters[0], r);  // triangles_visible: phase 1's survivors (cull.comp, per draw) and these
        }
    }
}
