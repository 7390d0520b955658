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
// The depth pyramids (occlusion_pass.h: two, frame.occlusion.y and .z say where); bound only
// with an occlusion phase (push.occlusion_phase > 0).
layout(set = 0, binding = 9, std430) readonly buffer Pyramid { float pyramid_texels[]; };
#define PYRAMID_BUFFER pyramid_texels
#include "occlusion.glsl"

layout(push_constant) uniform Push {
    uint chunk_count;
    float snap_px;
    float frustum_eps;
    float lod_max_error_px;  // --lod auto: 1 pixel; --lod off: 0 (level 0 always)
    // Occlusion culling (docs/occlusion.md): 0 none; 1 phase 1, against the previous frame's
    // pyramid with its view-projection (nothing rejected without one); 2 phase 2, against this
    // frame's pyramid of the phase-1 depth.
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
    if (chunk == entry.w && gl_LocalInvocationIndex == 0u) indirect[draw_id * 5u] = 0u;
    // Chunks of the levels the draw does not use this frame keep nothing. The choice depends on
    // the draw alone, so the whole workgroup leaves together (as above).
    LodView lod = lod_view(frame.view, frame.projection, frame.sizes.xy);
    if (level != choose_lod_level(draws[draw_id], lod, push.lod_max_error_px)) {
        if (gl_LocalInvocationIndex == 0u) chunk_survivors[chunk] = 0u;
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

    // Occlusion. Both branches are uniform (push constants and frame uniforms), and the test is
    // straight-line code, so the scan below still runs with the whole workgroup.
    vec2 viewport = vec2(frame.sizes.xy);
    bool early_occluded = false;  // phase 1's verdict (phase 2 repeats it for the re-admitted count)
    bool late_occluded = false;
    if (push.occlusion_phase > 0u && frame.occlusion.x != 0u) {
        precise vec4 q0 = frame.previous_view_proj * world0;
        precise vec4 q1 = frame.previous_view_proj * world1;
        precise vec4 q2 = frame.previous_view_proj * world2;
        early_occluded = occluded_by_pyramid(q0, q1, q2, viewport, push.snap_px, push.frustum_eps, frame.occlusion.y);
    }
    if (push.occlusion_phase == 2u)
        late_occluded = occluded_by_pyramid(c0, c1, c2, viewport, push.snap_px, push.frustum_eps, frame.occlusion.z);
    bool occluded = push.occlusion_phase == 1u ? early_occluded : late_occluded;
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
    // The occlusion counters: rejected (low 16 bits) and, in phase 2, re-admitted (high 16 bits),
    // summed by a second scan (workgroups are at most 1024 invocations: no carry between halves).
    uint occlusion_counts = 0u;
    if (push.occlusion_phase > 0u) {
        uint rejected = all(bvec2(passes_others, occluded)) ? 1u : 0u;
        uint readmitted = all(bvec4(passes_others, early_occluded, !late_occluded, push.occlusion_phase == 2u)) ? 1u : 0u;
        workgroup_exclusive_scan(rejected | (readmitted << 16u), occlusion_counts);
    }
    if (rank == 0u) {
        if (push.occlusion_phase > 0u) {
            if ((occlusion_counts & 0xFFFFu) != 0u) atomicAdd(counters[kOcclusionRejectedWord + push.occlusion_phase - 1u], occlusion_counts & 0xFFFFu);
            if ((occlusion_counts >> 16u) != 0u) atomicAdd(counters[kOcclusionReadmittedWord], occlusion_counts >> 16u);
        }
        chunk_survivors[chunk] = survivors;
        // The per-level counters: one atomic per workgroup of the chosen level, none per triangle.
        // The level's first chunk counts the draw (whether or not any of its triangles survive).
        // Phase 1 leaves them to phase 2, whose list is the frame's.
        if (push.occlusion_phase != 1u) {
            if (entry.z == 0u) atomicAdd(counters[kLodDrawsWord + level], 1u);
            if (survivors > 0u) atomicAdd(counters[kLodTrianglesWord + level], survivors);
        }
    }
}
