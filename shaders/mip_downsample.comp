#version 460
// Fallback of the quad mip: a 2x2 box filter of the finished colour frame, one invocation per mip
// texel. Averages the stored 8-bit values in integers (box_filter.glsl), exactly as the quad path
// and its edge fix-up do, so the two mips are bit-identical (docs/quad-mip.md).
layout(local_size_x = 8, local_size_y = 8) in;

layout(set = 0, binding = 0, rgba8) uniform readonly image2D color_image;
layout(set = 0, binding = 1, rgba8) uniform writeonly image2D mip_image;

#include "mip_texel.glsl"

void main() {
    ivec2 texel = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(texel, imageSize(mip_image)))) return;  // the grid is rounded up to 8x8 groups
    imageStore(mip_image, texel, box_filter_of_frame(texel));
}
