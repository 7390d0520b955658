#version 460
// The resolve pass in compute (src/passes/resolve_pass.cpp): what resolve.frag does, the HDR frame
// times the exposure tonemapped into the 8-bit sRGB frame, on the whole chip instead of the
// graphics stages. The visibility path (docs/visibility.md) shades in compute and resolves the same
// way; its shading pass writes the quad mip, so this pass has no mip variant. One invocation per
// pixel in 16x8 tiles (quad_tile.glsl's layout; no subgroup operation, so any numbering serves).
#include "exposure.glsl"
#include "tonemap.glsl"
#include "quad_tile.glsl"

layout(local_size_x = 128) in;

layout(set = 0, binding = 0, rgba16f) uniform readonly image2D hdr_image;
layout(set = 0, binding = 1, std430) readonly buffer State { EXPOSURE_STATE_BLOCK } state;
layout(set = 0, binding = 2, rgba8) uniform writeonly image2D color_image;

// resolve.frag's push constants, then the frame's extent.
layout(push_constant) uniform Push {
    uint measured;  // 1: apply the exposure pass's exposure, 0: the fixed one
    uint mip_width;
    uint mip_height;
    uint width;
    uint height;
};

void main() {
    ivec2 pixel = ivec2(quad_tile_pixel(gl_LocalInvocationIndex));
    if (any(greaterThanEqual(pixel, ivec2(width, height)))) return;
    vec4 hdr = imageLoad(hdr_image, pixel);
    float exposure = measured != 0u ? state.exposure : 1.0;  // exposure::kFixed
    imageStore(color_image, pixel, vec4(display(hdr.rgb, exposure), 1.0));
}
