#version 460
// --view raster (docs/raster.md): the frame at 30%. Then raster.comp's VIEW variants paint the
// pixels whose final word a compute path's triangle wrote in that path's colour (per lane, split,
// tile bin), and the hardware's classifying draw (raster_hw.frag VIEW) paints those its fragments
// wrote: a word names one triangle, so every covered pixel gets exactly one colour, and a covered
// pixel left dim is one no path claims.
#include "common.glsl"

layout(local_size_x = 8, local_size_y = 8) in;

layout(set = 0, binding = 0) uniform Frame { FrameUniforms frame; };
layout(set = 0, binding = 1, rgba8) uniform image2D color_image;  // holds sRGB-encoded values

void main() {
    uvec2 pixel = gl_GlobalInvocationID.xy;
    if (any(greaterThanEqual(pixel, frame.sizes.xy))) return;
    imageStore(color_image, ivec2(pixel), vec4(imageLoad(color_image, ivec2(pixel)).rgb * 0.3, 1.0));
}
