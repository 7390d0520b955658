#version 460
// --raster compute's hardware rasterizer, the fragment stage: the visibility word of the fragment,
// by the same atomicMax as raster.comp (raster.glsl), so the two rasterizers merge without
// ordering. gl_FragCoord.z is the depth the --raster hardware pre-pass writes for this fragment;
// raster_word clamps it to [0, 1] (a rounding below the far plane would otherwise sort above 1).
// ALPHA: masked materials cut the holes depth_alpha.frag cuts.
// VIEW (--view raster): the classifying draw's test, in colour: the hardware's colour where the
// final word names this fragment's triangle, nothing elsewhere. (Only that triangle writes words
// with its id, so the match alone says the fragment survived any alpha test.)
#include "scene_bindings.glsl"
#include "material.glsl"  // material_alpha
#include "raster.glsl"

#ifndef ALPHA
layout(early_fragment_tests) in;
#endif

layout(set = 0, binding = 7, std430) buffer Words { uint64_t words[]; };
layout(set = 0, binding = 10, std430) buffer Counters { uint counters[]; };

layout(push_constant) uniform RasterPush {
    uint ranked, max_extent, capacity, top_left, chunks, count;
    uint classify;  // 1: the words are final; count the pixels whose word is this fragment's
    uint view_colour;  // VIEW: the hardware's colour, RGBA8 (sRGB-encoded bytes)
} push;

#ifdef VIEW
layout(location = 0) out vec4 out_colour;
#endif

layout(location = 0) flat in uint in_id;
layout(location = 1) in vec2 in_uv;
layout(location = 2) flat in uint in_draw;

void main() {
#ifdef ALPHA
    DrawData draw = draws[in_draw];
    if (draw.alpha_cutoff > 0.0) {
        float alpha = material_alpha(draw, in_uv);  // through the base colour's transform
        if (alpha < draw.alpha_cutoff) discard;
    }
#endif
    uvec2 pixel = uvec2(gl_FragCoord.xy);
    uint64_t word = raster_word(gl_FragCoord.z, in_id);
#ifdef VIEW
    // The id halves only (a word names one triangle): in this pipeline, with a colour attachment,
    // lavapipe gives a triangle clipped at the near plane other depths than in the draw that wrote
    // the words (the generated scene's near quad, 2,517 pixels).
    if (uint(words[pixel.y * frame.sizes.x + pixel.x]) != uint(word)) discard;
    out_colour = unpackUnorm4x8(push.view_colour);
    return;
#endif
    // The classifying draw (the instrumented frame, after the last rasterization): a word names one
    // triangle, which covers the pixel once, so equality counts each hardware-won pixel once.
    if (push.classify != 0u) {
        if (words[pixel.y * frame.sizes.x + pixel.x] == word) atomicAdd(counters[kRasterPixelsHardwareWord], 1u);
        return;
    }
    atomicMax(words[pixel.y * frame.sizes.x + pixel.x], word);
}
