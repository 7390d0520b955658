#version 460
// The ray_trace pass's light spheres: each animated light's bounding box (kBulbRadius around its
// centre), the input of the light BLAS rebuilt every frame (ray_trace_pass.cpp).
layout(local_size_x = 64) in;

struct PointLight {
    vec4 position_radius;
    vec4 color;
};
layout(set = 0, binding = 0, std430) readonly buffer Lights { PointLight lights[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Aabbs { float aabbs[]; };  // VkAabbPositionsKHR: min xyz, max xyz
layout(push_constant) uniform Push { uint count; float radius; } push;

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= push.count) return;
    vec3 c = lights[i].position_radius.xyz;
    aabbs[6 * i + 0] = c.x - push.radius;
    aabbs[6 * i + 1] = c.y - push.radius;
    aabbs[6 * i + 2] = c.z - push.radius;
    aabbs[6 * i + 3] = c.x + push.radius;
    aabbs[6 * i + 4] = c.y + push.radius;
    aabbs[6 * i + 5] = c.z + push.radius;
}
