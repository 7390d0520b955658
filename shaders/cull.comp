#version 460
// The cull pass, step 1 of 3 (src/passes/cull_pass.cpp): tests every triangle of every draw
// (cull_tests.glsl) and compacts each workgroup's survivors, in input order, to the start of the
// workgroup's own stretch of the staging buffer; it also stores how many survived. One invocation
// per triangle; one workgroup per chunk of gl_WorkGroupSize.x triangles of ONE draw (the host's
// chunk table). Steps 2 (cull_scan.comp: a scan of the chunks' counts) and 3 (cull_compact.comp:
// each chunk's survivors moved to the draw's range at the scanned offset) follow. Nothing is
// decided by an atomic race, so the survivors land in input order, the same on every run and in
// both variants.
//
// With occlusion phase 1 (docs/occlusion.md) it also tests each triangle against the previous
// frame's depth pyramid, and keeps for phase 2 (cull_late.comp, cull_merge.comp) what that needs:
// the ranks of the triangles only the pyramid rejected, compacted by the same scan (their counts
// are scanned like the survivors', which makes them one list in input order), and the survivors'
// count and rank mask.
//
// Two variants (shaders/variants.cmake), one scan (workgroup_scan.glsl):
//   CULL_SUBGROUP  subgroupExclusiveAdd within each subgroup, the subgroups' sums across them.
//   (fallback)     a Hillis-Steele scan over the workgroup in shared memory.
#ifdef CULL_SUBGROUP
#define SCAN_SUBGROUP 1
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
#endif

#include "common.glsl"
#include "cull_tests.glsl"
#include "lod.glsl"

// The workgroup size is a specialization constant (--cull-group-size; 64 by default): the
// scan is correct for any size, including sizes that leave a partial subgroup.
layout(local_size_x_id = 0) in;

#include "workgroup_scan.glsl"

layout(set = 0, binding = 0) uniform Frame { FrameUniforms frame; };
layout(set = 0, binding = 1, std430) readonly buffer Draws { DrawData draws[]; };
layout(set = 0, binding = 2, std430) readonly buffer Vertices { float vertex_data[]; };  // 8 floats per Vertex
layout(set = 0, binding = 3, std430) readonly buffer SourceIndices { uint source_indices[]; };
// (draw, level, first triangle of the level, the draw's first chunk): build_cull_chunks().
layout(set = 0, binding = 4, std430) readonly buffer Chunks { uvec4 chunks[]; };
// Laid out like the culled index buffer: chunk (draw, level, first) owns indices from
// draws[draw].out_first + 3 first on, and fills the first 3 * survivors of them. Chunks of
// different levels of a draw share that stretch, but only the chosen level's write.
layout(set = 0, binding = 5, std430) writeonly buffer Staging { uint staged_indices[]; };
layout(set = 0, binding = 6, std430) writeonly buffer ChunkSurvivors { uint chunk_survivors[]; };
// VkDrawIndexedIndirectCommand[]: the draw's first chunk zeroes its indexCount; step 3 writes it
// where the draw keeps a triangle.
layout(set = 0, binding = 7, std430) writeonly buffer Indirect { uint indirect[]; };
// GpuCounters (src/render/frame.h), as words: the per-level counters (lod.glsl).
layout(set = 0, binding = 8, std430) buffer Counters { uint counters[]; };
// The depth pyramids (occlusion_pass.h: two, frame.occlusion.y and .z say where); read only in
// occlusion phase 1 (push.occlusion_phase 1).
layout(set = 0, binding = 9, std430) readonly buffer Pyramid { float pyramid_texels[]; };
#define PYRAMID_BUFFER pyramid_texels
#include "occlusion.glsl"
// Occlusion phase 1 only (docs/occlusion.md), what phase 2 (cull_late.comp, cull_merge.comp) needs:
// - the triangles rejected as occluded, in input order, as the chunk's ranks at the start of its
//   own stretch (laid out like the staging buffer, one word per triangle), and their count;
// - the chunk's survivor count again (the merge's scan adds phase 2's to it) and its survivors as
//   a bit mask over the chunk's ranks (kDrawnWords words per chunk);
// - the late draw's indexCount, zeroed by the draw's first chunk (phase 2 counts into it).
layout(set = 0, binding = 10, std430) writeonly buffer Rejected { uint rejected_ranks[]; };
layout(set = 0, binding = 11, std430) writeonly buffer ChunkRejected { uint chunk_rejected[]; };
layout(set = 0, binding = 12, std430) writeonly buffer ChunkDrawn { uint chunk_drawn[]; };
layout(set = 0, binding = 13, std430) writeonly buffer DrawnMasks { uint drawn_masks[]; };
layout(set = 0, binding = 14, std430) writeonly buffer LateIndirect { uint late_indirect[]; };
const uint kDrawnWords = (gl_WorkGroupSize.x + 31u) / 32u;
shared uint drawn_words[kDrawnWords];

layout(push_constant) uniform Push {
    uint chunk_count;
    float snap_px;
    float frustum_eps;
    float lod_max_error_px;  // --lod auto: 1 pixel; --lod off: 0 (level 0 always)
    // Occlusion culling (docs/occlusion.md): 0 none; 1 phase 1, against the previous frame's
    // pyramid with its view-projection (nothing rejected without one). Phase 2 is cull_late.comp.
    uint occlusion_phase;
} push;

vec3 vertex_position(uint index) {
    uint base = index * 8u;  // sizeof(Vertex) / 4: position is its first three floats
    return vec3(vertex_data[base], vertex_data[base + 1u], vertex_data[base + 2u]);
}

void main() {
    // A 2D grid only because devices may limit a dimension to 65535 workgroups.
    uint chunk = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    // The same for every invocation of the workgroup: whole workgroups leave here, so the
    // barriers and subgroup operations below never run with part of a workgroup gone.
    if (chunk >= push.chunk_count) return;

    // Invocation of rank r tests the chunk's triangle r (workgroup_scan.glsl: the scan below
    // counts in rank order, so slots follow triangle order).
    uvec4 entry = chunks[chunk];
    uint draw_id = entry.x;
    uint level = entry.y;
    bool phase1 = push.occlusion_phase == 1u;
    if (all(bvec2(chunk == entry.w, gl_LocalInvocationIndex == 0u))) {
        indirect[draw_id * 5u] = 0u;
        if (phase1) late_indirect[draw_id * 5u] = 0u;
    }
    // Chunks of the levels the draw does not use this frame keep nothing. The choice depends on
    // the draw alone, so the whole workgroup leaves together (as above).
    LodView lod = lod_view(frame.view, frame.projection, frame.sizes.xy);
    if (level != choose_lod_level(draws[draw_id], lod, push.lod_max_error_px)) {
        if (gl_LocalInvocationIndex == 0u) {
            chunk_survivors[chunk] = 0u;
            if (phase1) {
                chunk_rejected[chunk] = 0u;
                chunk_drawn[chunk] = 0u;
            }
        }
        return;
    }

    uint rank = scan_rank();
    uint triangle_count = draws[draw_id].lod_index_count[level] / 3u;  // >= 1: the host skips empty levels
    uint triangle = entry.z + rank;
    // Invocations past the draw's last triangle (the draw's last chunk) stay active and take
    // part in the scan with a count of 0; they read the last triangle again (cached) so the
    // code before the scan has no divergent branch at all.
    bool in_range = triangle < triangle_count;
    uint first = draws[draw_id].lod_first_index[level] + 3u * min(triangle, triangle_count - 1u);
    uvec3 index = uvec3(source_indices[first], source_indices[first + 1u], source_indices[first + 2u]);
    vec3 p0 = vertex_position(index.x);
    vec3 p1 = vertex_position(index.y);
    vec3 p2 = vertex_position(index.z);

    // The depth pass's vertex shader (scene.vert) computes exactly this, `precise` included, so
    // the tests see the positions the rasterizer sees; their margins absorb any difference in
    // rounding between the two pipelines.
    mat4 model = draws[draw_id].model;
    precise vec4 world0 = model * vec4(p0, 1.0);
    precise vec4 world1 = model * vec4(p1, 1.0);
    precise vec4 world2 = model * vec4(p2, 1.0);
    precise vec4 c0 = frame.view_proj * world0;
    precise vec4 c1 = frame.view_proj * world1;
    precise vec4 c2 = frame.view_proj * world2;
    CullParams params = CullParams(vec2(frame.sizes.xy), push.snap_px, push.frustum_eps);
    uint result = classify_triangle(index, p0, p1, p2, c0, c1, c2, params);
    bool passes_others = all(bvec2(in_range, result == CULL_VISIBLE));

    // Occlusion phase 1: the previous frame's pyramid, seen with the previous view-projection. The
    // branch is uniform (push constant and frame uniforms) and the test straight-line code, so the
    // scans below still run with the whole workgroup.
    bool occluded = false;
    if (all(bvec2(phase1, frame.occlusion.x != 0u))) {
        precise vec4 q0 = frame.previous_view_proj * world0;
        precise vec4 q1 = frame.previous_view_proj * world1;
        precise vec4 q2 = frame.previous_view_proj * world2;
        occluded = triangle_occluded(q0, q1, q2, vec2(frame.sizes.xy), push.snap_px, push.frustum_eps, frame.occlusion.y);
    }
    bool visible = all(bvec2(passes_others, !occluded));

    // Control flow is uniform here: the only branch above is the workgroup-uniform return, and
    // everything since is straight-line code (no early return, no && or || that could
    // short-circuit into a branch, loads clamped instead of skipped). So the active invocations
    // are all of the workgroup's, which is what the scan's barriers and subgroup operations need.
    uint survivors;
    uint slot = workgroup_exclusive_scan(visible ? 1u : 0u, survivors);

    // slot < survivors <= the chunk's triangles, so the write stays inside the chunk's stretch;
    // the buffer bound is checked anyway: a write never leaves the buffer, whatever the inputs.
    uint dst = draws[draw_id].out_first + 3u * (entry.z + slot);
    if (visible && dst + 3u <= uint(staged_indices.length())) {
        staged_indices[dst] = index.x;
        staged_indices[dst + 1u] = index.y;
        staged_indices[dst + 2u] = index.z;
    }
    if (phase1) {
        // Phase 2's list: the ranks of the triangles only the pyramid rejected, compacted in rank
        // (input) order by the same scan, to the start of the chunk's stretch (a word per triangle).
        bool rejected = all(bvec2(passes_others, occluded));
        uint rejected_count;
        uint rejected_slot = workgroup_exclusive_scan(rejected ? 1u : 0u, rejected_count);
        uint at = draws[draw_id].out_first / 3u + entry.z + rejected_slot;
        if (rejected && at < uint(rejected_ranks.length())) rejected_ranks[at] = rank;
        // The survivors as bits of their ranks: what the merge puts phase 2's additions between.
        if (rank < kDrawnWords) drawn_words[rank] = 0u;
        barrier();
        if (visible) atomicOr(drawn_words[rank / 32u], 1u << (rank % 32u));
        barrier();
        if (rank < kDrawnWords) drawn_masks[chunk * kDrawnWords + rank] = drawn_words[rank];
        if (rank == 0u) {
            chunk_rejected[chunk] = rejected_count;
            chunk_drawn[chunk] = survivors;
            if (rejected_count != 0u) atomicAdd(counters[kOcclusionTrianglesWord + kOcclusionRejected1], rejected_count);
        }
    }
    if (rank == 0u) {
        chunk_survivors[chunk] = survivors;
        // The per-level counters: one atomic per workgroup of the chosen level, none per triangle.
        // The level's first chunk counts the draw (whether or not any of its triangles survive).
        // Phase 2 adds its additions (cull_late.comp).
        if (entry.z == 0u) atomicAdd(counters[kLodDrawsWord + level], 1u);
        if (survivors > 0u) atomicAdd(counters[kLodTrianglesWord + level], survivors);
    }
}
