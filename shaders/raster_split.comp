#version 460
// --raster compute (docs/raster.md): the visibility words into what the later passes read: the
// 32-bit visibility id (the shading pass) and the depth (the light cull, the depth pyramid, the ray
// tracer), 0 (the far plane) and kVisibilityNone where nothing covered the pixel.
#include "common.glsl"
#include "raster.glsl"

layout(local_size_x = 8, local_size_y = 8) in;

layout(set = 0, binding = 0) uniform Frame { FrameUniforms frame; };
layout(set = 0, binding = 1, std430) readonly buffer Words { uint64_t words[]; };
layout(set = 0, binding = 2, r32ui) writeonly uniform uimage2D id_image;
layout(set = 0, binding = 3, r32f) writeonly uniform image2D depth_image;
layout(set = 0, binding = 4, std430) buffer Counters { uint counters[]; };

layout(push_constant) uniform SplitPush { uint count; } push;  // 1: count the covered pixels (the instrumented frame)

void main() {
    uvec2 pixel = gl_GlobalInvocationID.xy;
    if (any(greaterThanEqual(pixel, frame.sizes.xy))) return;
    uint64_t word = words[pixel.y * frame.sizes.x + pixel.x];
    imageStore(id_image, ivec2(pixel), uvec4(raster_word_id(word)));
    imageStore(depth_image, ivec2(pixel), vec4(raster_word_depth(word)));
    if (push.count != 0u && word != 0UL) atomicAdd(counters[kRasterPixelsCoveredWord], 1u);
}
