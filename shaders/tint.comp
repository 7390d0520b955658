#version 460
// Throwaway demonstration pass (docs/architecture.md, "Adding a pass"): tints the finished 8-bit
// frame warmer where an 8x8 block is dark, by the block's mean luminance. One invocation a pixel.
//
// TINT_SUBGROUP: the block's sum is a subgroupAdd per subgroup, then one shared-memory slot per
// subgroup. Correct at any subgroup size: every invocation of the group reaches the subgroupAdd
// (pixels outside the frame add 0 instead of returning early), so each subgroup's sum covers all
// its lanes, and gl_NumSubgroups slots cover the group whatever the size (4 to 64 lanes for 64
// invocations). Fallback: a shared-memory tree. Luminance is summed as integers (1/10000ths of a
// code value), so both orders of addition give the same sum and the same frame bit for bit.
#extension GL_KHR_shader_subgroup_basic : enable
#extension GL_KHR_shader_subgroup_arithmetic : enable
layout(local_size_x = 8, local_size_y = 8) in;

layout(set = 0, binding = 0, rgba8) uniform image2D color_image;

shared uint partial[64];

void main() {
    ivec2 pixel = ivec2(gl_GlobalInvocationID.xy);
    bool inside = all(lessThan(pixel, imageSize(color_image)));
    vec4 color = inside ? imageLoad(color_image, pixel) : vec4(0.0);
    uint luminance = uint(dot(round(color.rgb * 255.0), vec3(2126.0, 7152.0, 722.0)));  // <= 2,550,000

#ifdef TINT_SUBGROUP
    uint subgroup_sum = subgroupAdd(luminance);
    if (subgroupElect()) partial[gl_SubgroupID] = subgroup_sum;
    barrier();
    uint sum = 0;
    for (uint i = 0; i < gl_NumSubgroups; ++i) sum += partial[i];
#else
    partial[gl_LocalInvocationIndex] = luminance;
    barrier();
    for (uint stride = 32; stride > 0; stride /= 2) {
        if (gl_LocalInvocationIndex < stride)
            partial[gl_LocalInvocationIndex] += partial[gl_LocalInvocationIndex + stride];
        barrier();
    }
    uint sum = partial[0];
#endif
    float darkness = 1.0 - float(sum) / (64.0 * 255.0 * 10000.0);
    if (inside) imageStore(color_image, pixel, vec4(color.rgb * mix(vec3(1.0), vec3(1.25, 1.0, 0.7), darkness), color.a));
}
