#version 460
// Fallback of the quad mip: a 2x2 box filter of the HDR frame, one invocation per mip texel, summed
// (a + b) + (c + d) in fp32 (box_filter.glsl) exactly as the resolve pass's quad swaps and the
// forward variant do, so the three mips are bit-identical (docs/quad-mip.md).
layout(local_size_x = 8, local_size_y = 8) in;

layout(set = 0, binding = 0, rgba16f) uniform readonly image2D color_image;
layout(set = 0, binding = 1, rgba16f) uniform writeonly image2D mip_image;

#include "mip_texel.glsl"

void main() {
    ivec2 texel = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(texel, imageSize(mip_image)))) return;  // the grid is rounded up to 8x8 groups
    imageStore(mip_image, texel, box_filter_of_frame(texel));
}
