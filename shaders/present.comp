#version 460
// Window presentation: the window's image, written where a plain image copy of the frame cannot
// fill the swapchain image as it is. Inside the frame its pixel, with the bytes reordered to BGRA
// for a B8G8R8A8 swapchain; outside it (a frame smaller than the window, kept at its size past a
// device limit) the grey kOutsideTheFrame. Bytes are unchanged: rgba8 loads and stores of 8-bit
// UNORM values round-trip exactly (x / 255 * 255 rounds back to x).
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, rgba8) uniform readonly image2D color;
layout(set = 0, binding = 1, rgba8) uniform writeonly image2D window_image;
layout(push_constant) uniform Push {
    uint bgra;     // reorder the bytes for a BGRA swapchain
    float grey;    // kOutsideTheFrame / 255
};

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(p, imageSize(window_image)))) return;
    vec4 texel = vec4(grey, grey, grey, 1.0);
    if (all(lessThan(p, imageSize(color)))) texel = bgra != 0u ? imageLoad(color, p).bgra : imageLoad(color, p);
    imageStore(window_image, p, texel);
}
