#version 460
// Test-only (tests/gpu/test_robustness.cpp): writes data[i] = i for i < count. The test binds a
// range shorter than `count` to check that GPU-assisted validation reports the overrun on this
// device before trusting it to find none in the renderer's passes.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Data { uint data[]; };
layout(push_constant) uniform Push { uint count; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < count) data[i] = i;
}
