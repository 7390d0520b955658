#version 460
// The `mip` debug view: a split screen over the finished frame. Left of the centre line the
// full-resolution frame stays as it is; right of it each pixel shows the mip texel it belongs to
// (the mip upscaled 2x, nearest), so the two halves line up and the mip's blocks and edge texels
// read against the frame. A 2-pixel line marks the split. Only the right half is written.
layout(local_size_x = 8, local_size_y = 8) in;

layout(set = 0, binding = 0, rgba8) uniform writeonly image2D color_image;
layout(set = 0, binding = 1, rgba8) uniform readonly image2D mip_image;

layout(push_constant) uniform Push { int split_x; };  // first column of the separator

void main() {
    ivec2 pixel = ivec2(gl_GlobalInvocationID.xy) + ivec2(split_x, 0);
    if (any(greaterThanEqual(pixel, imageSize(color_image)))) return;
    vec4 colour;
    if (pixel.x < split_x + 2) {
        colour = vec4(1.0, 0.8, 0.1, 1.0);  // separator
    } else {
        ivec2 texel = min(pixel >> 1, imageSize(mip_image) - 1);  // odd sizes: the last column/row
        colour = vec4(imageLoad(mip_image, texel).rgb, 1.0);      // alpha holds coverage: not shown
    }
    imageStore(color_image, pixel, colour);
}
