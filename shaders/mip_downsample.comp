#version 460
// Fallback of the quad mip: a 2x2 box filter of the finished colour frame, one invocation per mip
// texel. Averages the stored (sRGB-encoded) 8-bit values, as the quad path does, so the two mips
// agree wherever a quad belongs to one triangle (docs/quad-mip.md).
layout(local_size_x = 8, local_size_y = 8) in;

layout(set = 0, binding = 0, rgba8) uniform readonly image2D color_image;
layout(set = 0, binding = 1, rgba8) uniform writeonly image2D mip_image;

void main() {
    ivec2 texel = ivec2(gl_GlobalInvocationID.xy);
    ivec2 mip_size = imageSize(mip_image);
    if (any(greaterThanEqual(texel, mip_size))) return;  // the grid is rounded up to 8x8 groups
    // The mip is floor(W/2) x floor(H/2): for odd sizes the last column/row of the frame belongs
    // to no texel. Clamping only matters for a 1-pixel-wide (or -high) frame, whose mip is 1 texel.
    ivec2 last = imageSize(color_image) - 1;
    ivec2 p = texel * 2;
    vec4 sum = imageLoad(color_image, min(p, last)) + imageLoad(color_image, min(p + ivec2(1, 0), last)) +
               imageLoad(color_image, min(p + ivec2(0, 1), last)) + imageLoad(color_image, min(p + ivec2(1, 1), last));
    imageStore(mip_image, texel, sum * 0.25);
}
