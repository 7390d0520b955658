#version 460
// Window presentation: the frame's RGBA bytes reordered to BGRA, so a plain image copy (not a blit)
// moves them into a B8G8R8A8 swapchain image. Bytes are unchanged: rgba8 loads and stores of
// 8-bit UNORM values round-trip exactly (x / 255 * 255 rounds back to x).
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, rgba8) uniform readonly image2D color;
layout(set = 0, binding = 1, rgba8) uniform writeonly image2D swizzled;

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(p, imageSize(color)))) return;
    imageStore(swizzled, p, imageLoad(color, p).bgra);
}
