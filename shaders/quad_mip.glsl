// Half-resolution mip written by the forward fragment shader while it shades (docs/quad-mip.md).
// Included by forward.frag when QUAD_MIP is defined; the pipeline binds the mip at binding 5.
//
// The four fragment invocations of a quad shade the 2x2 pixel block (2x, 2y)..(2x+1, 2y+1): the
// rasteriser forms quads at even framebuffer coordinates (Vulkan's derivative groups), so the
// quad's sum is exactly mip texel (x, y). Two quad swaps add it up: horizontal (quad index
// i <-> i ^ 1), then vertical (i <-> i ^ 2); after them every lane holds the sum of all four.
#ifndef QUAD_MIP_GLSL
#define QUAD_MIP_GLSL

#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_quad : require

// Image stores are side effects: without this, a fragment that the EQUAL depth test rejects
// after the shader ran would already have stored. With early tests a rejected fragment never
// runs as a real invocation, so only the surviving (visible) fragment of a pixel stores.
// (A rejected fragment may still run as a helper of its quad; helpers never store, see below.)
layout(early_fragment_tests) in;

layout(set = 0, binding = 5, rgba8) uniform writeonly image2D mip_image;

// colour: what this invocation writes to the 8-bit colour target (sRGB-encoded, 0..1).
void write_quad_mip(vec4 colour) {
    // Sum what the target will store, not the float: the mip is then the exact 2x2 box filter of
    // the finished frame (UNORM stores round to the nearest of 256 levels).
    vec3 stored = round(clamp(colour.rgb, 0.0, 1.0) * 255.0) / 255.0;

    // Helper invocations run for pixels of the quad that this triangle does not cover, or that
    // failed the depth test; their colour is an extrapolation of the triangle's attributes, not a
    // pixel of the frame. They take part in the swaps (Vulkan runs full quads when a fragment
    // shader uses quad operations, helpers included) but add nothing, so the average is over the
    // quad's real pixels only.
    // Alpha carries which lanes are real: bit (1 << quad index), 0 for a helper. Quad index =
    // gl_SubgroupInvocationID & 3, the index the swaps pair by, at any subgroup size. The four
    // bits are distinct, so their sum is their OR, exact in float: after the two swaps every lane
    // knows both the colour sum and the set of real lanes, from one vec4 exchange per direction.
    uint quad_index = gl_SubgroupInvocationID & 3u;
    vec4 sum = gl_HelperInvocation ? vec4(0.0) : vec4(stored, float(1u << quad_index));
    sum += subgroupQuadSwapHorizontal(sum);
    sum += subgroupQuadSwapVertical(sum);
    uint real_lanes = uint(sum.a);

    // Exactly one real lane stores: the lowest quad index among the real lanes (a deterministic
    // choice). A helper never stores: its stores would be discarded anyway, and if the choice fell
    // on one, the texel would be lost.
    if (gl_HelperInvocation || quad_index != uint(findLSB(real_lanes))) return;
    float covered = float(bitCount(real_lanes));

    // Odd frame sizes: the mip is floor(W/2) x floor(H/2), so the last column (row) of an odd-sized
    // frame belongs to no texel; its quads would address texel W/2, outside the image. Skip them.
    ivec2 texel = ivec2(gl_FragCoord.xy) >> 1;
    if (any(greaterThanEqual(texel, imageSize(mip_image)))) return;

    // Alpha is the texel's coverage by this triangle: real pixels / 4. Where one triangle covers
    // all four pixels (alpha 1) the texel equals the box filter of the frame. Along a triangle
    // edge the quad is split between triangles: each triangle's quad stores the average of its
    // own pixels, with alpha < 1, to the same texel. Image stores from different primitives are
    // not ordered (rasterization order covers attachments only), so one of those partial averages
    // survives, not the box filter of all four. Texels nobody writes keep the frame-start clear:
    // the clear colour with alpha 0 (ScenePass::record_forward).
    imageStore(mip_image, texel, vec4(sum.rgb / covered, covered * 0.25));
}

#endif
