#version 460
// The cull pass: tests every triangle of every draw (cull_tests.glsl) and compacts the
// survivors' indices into each draw's range of the culled index buffer, counting them in the
// draw's VkDrawIndexedIndirectCommand::indexCount. One invocation per triangle; one workgroup
// per chunk of gl_WorkGroupSize.x triangles of ONE draw (the host's chunk table, see
// src/passes/cull_pass.cpp), so all survivors of a workgroup, and of each of its subgroups,
// go to the same draw's range.
//
// Two variants (shaders/variants.cmake):
//   CULL_SUBGROUP  subgroupExclusiveAdd gives each survivor its slot, one atomicAdd per
//                  subgroup reserves the range, subgroupBroadcastFirst shares its base.
//   (fallback)     a shared-memory scan over the workgroup and one atomicAdd per workgroup.
// Both write the same set of triangles; only their order within a draw's range differs
// (ranges are reserved in whatever order subgroups or workgroups reach the atomic).
#ifdef CULL_SUBGROUP
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
#endif

#include "common.glsl"
#include "cull_tests.glsl"

// The workgroup size is a specialization constant (--cull-group-size; 64 by default): the
// scan below is correct for any size, including sizes that leave a partial subgroup.
layout(local_size_x_id = 0) in;

layout(set = 0, binding = 0) uniform Frame { FrameUniforms frame; };
layout(set = 0, binding = 1, std430) readonly buffer Draws { DrawData draws[]; };
layout(set = 0, binding = 2, std430) readonly buffer Vertices { float vertex_data[]; };  // 8 floats per Vertex
layout(set = 0, binding = 3, std430) readonly buffer SourceIndices { uint source_indices[]; };
layout(set = 0, binding = 4, std430) readonly buffer Chunks { uvec2 chunks[]; };  // (draw, first triangle)
layout(set = 0, binding = 5, std430) writeonly buffer CulledIndices { uint culled_indices[]; };
// VkDrawIndexedIndirectCommand[]: indexCount, instanceCount, firstIndex, vertexOffset, firstInstance.
layout(set = 0, binding = 6, std430) buffer Indirect { uint indirect[]; };

layout(push_constant) uniform Push {
    uint chunk_count;
    float snap_px;
    float frustum_eps;
} push;

#ifndef CULL_SUBGROUP
shared uint scan[gl_WorkGroupSize.x];
shared uint group_base;
#endif

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

    uvec2 entry = chunks[chunk];
    uint draw_id = entry.x;
    uint triangle_count = draws[draw_id].index_count / 3u;  // >= 1: the host skips empty draws
    uint triangle = entry.y + gl_LocalInvocationID.x;
    // Invocations past the draw's last triangle (the draw's last chunk) stay active and take
    // part in the scan with a count of 0; they read the last triangle again (cached) so the
    // code before the scan has no divergent branch at all.
    bool in_range = triangle < triangle_count;
    uint first = draws[draw_id].first_index + 3u * min(triangle, triangle_count - 1u);
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
    bool visible = all(bvec2(in_range, result == CULL_VISIBLE));
    uint count = visible ? 3u : 0u;  // indices this invocation writes

#ifdef CULL_SUBGROUP
    // Why this is correct at any subgroup size and with partial subgroups:
    // - Control flow here is uniform: the only branch above is the workgroup-uniform return;
    //   everything since is straight-line code (no early return, no && or || that could
    //   short-circuit into a branch, loads clamped instead of skipped), so no reconvergence
    //   is needed and the active invocations are all of this subgroup's invocations in the
    //   workgroup. That is every lane, or fewer when the workgroup size is not a multiple of
    //   the subgroup size (say 64 invocations on a 128-wide subgroup, or --cull-group-size 61
    //   on 8 lanes). The operations below are defined over the active invocations only, so
    //   inactive lanes neither add to the sums nor get elected.
    // - offset: survivors' indices in lower lanes; total: all of the subgroup's. Both sums
    //   of at most gl_WorkGroupSize.x * 3, so no overflow at any size up to 128 (or 1024).
    uint offset = subgroupExclusiveAdd(count);
    uint total = subgroupAdd(count);
    // - One atomic per subgroup: subgroupElect() is true in exactly one invocation, the
    //   active one with the lowest gl_SubgroupInvocationID. subgroupBroadcastFirst() reads
    //   that same invocation (the lowest active one), so every lane gets the base that the
    //   elected lane's atomicAdd returned; the other lanes' `base` of 0 is never read.
    //   (Broadcasting from any other lane, e.g. the highest one holding the inclusive sum,
    //   would need that lane to be the one doing the atomic.) The `if` is entered by the
    //   whole subgroup in uniform control flow and left by all of it, so control flow is
    //   uniform again at the broadcast (Vulkan's definition of uniform control flow); that is
    //   the only reconvergence this code relies on.
    uint base = 0u;
    if (subgroupElect() && total > 0u) base = atomicAdd(indirect[draw_id * 5u], total);
    base = subgroupBroadcastFirst(base);
#else
    // Hillis-Steele inclusive scan over the workgroup in shared memory: log2(size) rounds of
    // two barriers. The loop bound is the same for every invocation, so every barrier is
    // reached by the whole workgroup.
    uint lane = gl_LocalInvocationID.x;
    scan[lane] = count;
    barrier();
    for (uint stride = 1u; stride < gl_WorkGroupSize.x; stride *= 2u) {
        uint add = lane >= stride ? scan[lane - stride] : 0u;
        barrier();
        scan[lane] += add;
        barrier();
    }
    uint offset = scan[lane] - count;
    uint total = scan[gl_WorkGroupSize.x - 1u];
    // One atomic per workgroup, by invocation 0; shared memory hands its result to the rest.
    if (lane == 0u) group_base = total > 0u ? atomicAdd(indirect[draw_id * 5u], total) : 0u;
    barrier();
    uint base = group_base;
#endif

    // The draw's range holds index_count indices and at most all its triangles survive, so
    // base + offset + 3 <= index_count; both bounds are checked anyway: a write never leaves
    // the draw's range nor the buffer, whatever the inputs.
    uint slot = base + offset;
    uint dst = draws[draw_id].out_first + slot;
    if (visible && slot + 3u <= draws[draw_id].index_count && dst + 3u <= uint(culled_indices.length())) {
        culled_indices[dst] = index.x;
        culled_indices[dst + 1u] = index.y;
        culled_indices[dst + 2u] = index.z;
    }
}
