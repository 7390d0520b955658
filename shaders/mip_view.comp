#version 460
// The `mip` debug view: a split screen over the finished frame. Left of the centre line the
// full-resolution frame stays as it is; right of it each pixel shows the mip texel it belongs to
// (the HDR mip upscaled 2x, nearest, tonemapped like the frame), so the two halves line up and the
// mip's blocks read against the frame. A 2-pixel line marks the split. Only the right half is written.
layout(local_size_x = 8, local_size_y = 8) in;

#include "exposure.glsl"
#include "tonemap.glsl"

layout(set = 0, binding = 0, rgba8) uniform writeonly image2D color_image;
layout(set = 0, binding = 1, rgba16f) uniform readonly image2D mip_image;
layout(set = 0, binding = 2, std430) readonly buffer State { EXPOSURE_STATE_BLOCK } state;

layout(push_constant) uniform Push {
    int split_x;    // first column of the separator
    uint measured;  // as resolve.frag: apply the exposure pass's exposure, else the fixed one
};

void main() {
    ivec2 pixel = ivec2(gl_GlobalInvocationID.xy) + ivec2(split_x, 0);
    if (any(greaterThanEqual(pixel, imageSize(color_image)))) return;
    vec4 colour;
    if (pixel.x < split_x + 2) {
        colour = vec4(1.0, 0.8, 0.1, 1.0);  // separator
    } else {
        ivec2 texel = min(pixel >> 1, imageSize(mip_image) - 1);  // odd sizes: the last column/row
        // After this frame's exposure pass: `applied` is the exposure the frame was resolved with.
        float exposure = measured != 0u ? state.applied : 1.0;
        colour = vec4(display(imageLoad(mip_image, texel).rgb, exposure), 1.0);
    }
    imageStore(color_image, pixel, colour);
}
