#version 460
// --view raster (docs/raster.md): each pixel the compute rasterizer's words cover, in the colour of
// the compute path that ran (subgroup-split or per-lane); the uncovered keep 30% of the shaded
// frame. Then the hardware's classifying draw (raster_hw.frag VIEW) paints over the pixels whose
// final word its fragments wrote, so every covered pixel is exactly one of the two.
#include "common.glsl"
#include "raster.glsl"

layout(local_size_x = 8, local_size_y = 8) in;

layout(set = 0, binding = 0) uniform Frame { FrameUniforms frame; };
layout(set = 0, binding = 1, std430) readonly buffer Words { uint64_t words[]; };
layout(set = 0, binding = 2, rgba8) uniform image2D color_image;  // holds sRGB-encoded values

layout(push_constant) uniform ViewPush { uint compute_colour; } push;  // RGBA8

void main() {
    uvec2 pixel = gl_GlobalInvocationID.xy;
    if (any(greaterThanEqual(pixel, frame.sizes.xy))) return;
    bool covered = words[pixel.y * frame.sizes.x + pixel.x] != 0UL;
    vec4 colour = covered ? unpackUnorm4x8(push.compute_colour) : vec4(imageLoad(color_image, ivec2(pixel)).rgb * 0.3, 1.0);
    imageStore(color_image, ivec2(pixel), colour);
}
