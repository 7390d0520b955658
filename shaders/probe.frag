#version 460
// The stage probe's fragment side: the loop once per pixel of a full-screen triangle
// (resolve.vert), stored to an R32F colour attachment.
#include "probe_loop.glsl"

layout(push_constant) uniform Push {
    uint iterations;
} push;

layout(location = 0) out float result;

void main() {
    result = probe_loop(uvec2(gl_FragCoord.xy), push.iterations);
}
