// One mip texel from the finished HDR frame: the box filter of its four pixels. Included by the
// compute shaders that write the mip from the frame (mip_downsample.comp, mip_fixup.comp) after
// they declare `color_image` (the HDR frame, rgba16f).
#ifndef MIP_TEXEL_GLSL
#define MIP_TEXEL_GLSL

#include "box_filter.glsl"

vec4 box_filter_of_frame(ivec2 texel) {
    // The mip is floor(W/2) x floor(H/2): for odd sizes the last column/row of the frame belongs
    // to no texel. Clamping only matters for a 1-pixel-wide (or -high) frame, whose mip is 1 texel.
    ivec2 last = imageSize(color_image) - 1;
    ivec2 p = texel * 2;
    return mip_texel(imageLoad(color_image, min(p, last)), imageLoad(color_image, min(p + ivec2(1, 0), last)),
                     imageLoad(color_image, min(p + ivec2(0, 1), last)), imageLoad(color_image, min(p + ivec2(1, 1), last)));
}

#endif
