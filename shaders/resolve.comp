#version 460
// The resolve pass in compute (src/passes/resolve_pass.cpp): what resolve.frag does, the HDR frame
// times the exposure tonemapped into the 8-bit sRGB frame, on the whole chip instead of the
// graphics stages (the visibility path shades in compute, docs/visibility.md, and resolves the
// same way). RESOLVE_MIP also writes the half-resolution HDR mip with two quad swaps and one store
// per quad, as resolve.frag's does, bit for bit (box_filter.glsl's order).
//
// Invocations map to pixels in 2x2 quads as quad_tile.glsl says: the mip variant numbers them by
// subgroup, so lanes 4q..4q+3 are one quad for the swaps (the pipeline requires full subgroups);
// the plain variant uses no subgroup operation and numbers by gl_LocalInvocationIndex.
//
// Every invocation loads a pixel (clamped into the frame at the right and bottom edges), so the
// swaps run with all four lanes of every quad, in uniform control flow before any branch. A quad
// reaching past the frame's edge belongs to a texel outside the mip (floor(W/2) x floor(H/2)), which
// is not stored, and its pixels outside the frame are not stored either.
#ifdef RESOLVE_MIP
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_quad : require
#endif

#include "box_filter.glsl"
#include "exposure.glsl"
#include "tonemap.glsl"
#include "quad_tile.glsl"

layout(local_size_x = 128) in;

layout(set = 0, binding = 0, rgba16f) uniform readonly image2D hdr_image;
layout(set = 0, binding = 1, std430) readonly buffer State { EXPOSURE_STATE_BLOCK } state;
layout(set = 0, binding = 2, rgba8) uniform writeonly image2D color_image;
#ifdef RESOLVE_MIP
layout(set = 0, binding = 3, rgba16f) uniform writeonly image2D mip_image;
#endif

// resolve.frag's push constants, then the frame's extent.
layout(push_constant) uniform Push {
    uint measured;  // 1: apply the exposure pass's exposure, 0: the fixed one
    uint mip_width;
    uint mip_height;
    uint width;
    uint height;
};

void main() {
#ifdef RESOLVE_MIP
    uint me = gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID;
#else
    uint me = gl_LocalInvocationIndex;
#endif
    ivec2 pixel = ivec2(quad_tile_pixel(me));
    vec4 hdr = imageLoad(hdr_image, min(pixel, ivec2(width, height) - 1));
#ifdef RESOLVE_MIP
    precise vec4 row = hdr + subgroupQuadSwapHorizontal(hdr);
    vec4 other_row = subgroupQuadSwapVertical(row);
    uvec2 texel = uvec2(pixel) >> 1u;
    if (all(equal(pixel & 1, ivec2(0))) && texel.x < mip_width && texel.y < mip_height)
        imageStore(mip_image, ivec2(texel), mip_texel_of_rows(row, other_row));
#endif
    if (any(greaterThanEqual(pixel, ivec2(width, height)))) return;
    float exposure = measured != 0u ? state.exposure : 1.0;  // exposure::kFixed
    imageStore(color_image, pixel, vec4(display(hdr.rgb, exposure), 1.0));
}
