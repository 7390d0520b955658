#version 460
// The resolve pass (docs/quad-mip.md): the HDR frame, times the exposure, tonemapped into the
// 8-bit sRGB frame. RESOLVE_MIP also writes the half-resolution HDR mip with two quad swaps and one
// store per quad.
//
// Why the mip is exact and cheap here: a full-screen triangle makes every pixel of the frame a real
// fragment, and the rasteriser groups them in quads at even coordinates (Vulkan's derivative
// groups; lanes 4q..4q+3 of a subgroup, at any subgroup size). So each quad inside the frame is the
// 2x2 block of one mip texel, four real pixels: no helper lanes, no edge list, no fix-up. The only
// quads with missing pixels are those across the right or bottom edge of an odd-sized frame, whose
// texel lies outside the mip (floor(W/2) x floor(H/2)) and is not stored. The swaps run at the top
// of main, in uniform control flow, before any branch.
#ifdef RESOLVE_MIP
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_quad : require
#endif

#include "box_filter.glsl"
#include "exposure.glsl"
#include "tonemap.glsl"

layout(set = 0, binding = 0, rgba16f) uniform readonly image2D hdr_image;
layout(set = 0, binding = 1, std430) readonly buffer State { EXPOSURE_STATE_BLOCK } state;
#ifdef RESOLVE_MIP
layout(set = 0, binding = 2, rgba16f) uniform writeonly image2D mip_image;
#endif

// measured: 1 when the plan runs the exposure pass (apply its exposure), 0 for the fixed one.
// mip_width, mip_height: the mip's extent, floor(W/2) x floor(H/2). Push constants, not imageSize(): on the
// H100 that per-invocation image query alone cost 0.09 ms of a 0.19 ms pass at 1080p.
layout(push_constant) uniform Push {  // the pass's ResolvePush, as resolve.comp's
    uint measured;
    uint mip_width;
    uint mip_height;
    uint width, height;  // resolve.comp's: unread here
};

layout(location = 0) out vec4 out_color;

void main() {
    ivec2 pixel = ivec2(gl_FragCoord.xy);
    vec4 hdr = imageLoad(hdr_image, pixel);
#ifdef RESOLVE_MIP
    // box_filter.glsl's order: the horizontal swap gives a + b on the top row's lanes and c + d on
    // the bottom row's, the vertical swap brings c + d to the top-left lane, which stores
    // (a + b) + (c + d), bit for bit what the compute fallback computes from the same four pixels.
    precise vec4 row = hdr + subgroupQuadSwapHorizontal(hdr);
    vec4 other_row = subgroupQuadSwapVertical(row);
    uvec2 texel = uvec2(pixel) >> 1u;
    if (all(equal(pixel & 1, ivec2(0))) && texel.x < mip_width && texel.y < mip_height)
        imageStore(mip_image, ivec2(texel), mip_texel_of_rows(row, other_row));
#endif
    float exposure = measured != 0u ? state.exposure : 1.0;  // exposure::kFixed
    out_color = vec4(display(hdr.rgb, exposure), 1.0);
}
