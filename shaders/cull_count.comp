#version 460
// The cull pass's second step: adds up the surviving triangles of every draw (the indexCount
// the first step left in each indirect command) into GpuCounters::triangles_visible for the
// report. Kept out of cull.comp on purpose: there, one more atomic per subgroup on a single
// global counter would serialize every subgroup of the frame on one address. Here it is one
// atomic per workgroup of draws, and the same for both variants (no subgroup operations).
layout(local_size_x = 64) in;

// VkDrawIndexedIndirectCommand[], 5 uints each, written by cull.comp.
layout(set = 0, binding = 0, std430) readonly buffer Indirect { uint indirect[]; };
// GpuCounters (src/render/frame.h); triangles_visible is the first member.
layout(set = 0, binding = 1, std430) buffer Counters { uint triangles_visible; } counters;

layout(push_constant) uniform Push { uint draw_count; } push;

shared uint partial[64];

void main() {
    uint lane = gl_LocalInvocationID.x;
    // The host caps the grid at the device's workgroup-count limit; the stride covers the rest.
    uint sum = 0u;
    for (uint draw_id = gl_GlobalInvocationID.x; draw_id < push.draw_count; draw_id += gl_NumWorkGroups.x * 64u)
        sum += indirect[draw_id * 5u] / 3u;
    partial[lane] = sum;
    barrier();
    // Tree reduction; every invocation reaches every barrier (the loop bound is a constant).
    for (uint stride = 32u; stride > 0u; stride /= 2u) {
        if (lane < stride) partial[lane] += partial[lane + stride];
        barrier();
    }
    if (lane == 0u && partial[0] > 0u) atomicAdd(counters.triangles_visible, partial[0]);
}
