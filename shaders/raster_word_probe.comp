#version 460
// Tests only (tests/gpu_compute/test_raster_compute.cpp): the visibility word (raster.glsl) of each
// depth in, with its index as the id, so that the word's order can be held to the depths' order.
#include "raster.glsl"

layout(local_size_x = 64) in;

layout(set = 0, binding = 0, std430) readonly buffer Depths { float depths[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Words { uint64_t words[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < uint(depths.length())) words[i] = raster_word(depths[i], i);
}
