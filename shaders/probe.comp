#version 460
// The stage probe's compute side: the loop once per invocation of a width x height dispatch in
// 8x8 workgroups (the probe's sizes are multiples of 8), stored to an R32F storage image.
#include "probe_loop.glsl"

layout(local_size_x = 8, local_size_y = 8) in;

layout(push_constant) uniform Push {
    uint iterations;
} push;

layout(binding = 0, r32f) uniform writeonly image2D result;

void main() {
    imageStore(result, ivec2(gl_GlobalInvocationID.xy), vec4(probe_loop(gl_GlobalInvocationID.xy, push.iterations)));
}
