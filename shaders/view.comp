#version 460
// Debug views, compute stage: one invocation per pixel in 16x16 workgroups, so the image shows how
// the implementation tiles a 2D workgroup with subgroups. Where gl_LocalInvocationIndex is packed
// linearly into subgroups, a subgroup of 32 is two rows of a tile and one of 4, 8 or 16 a part of
// one row. lavapipe never lets a subgroup span two rows (in a workgroup narrower than its
// subgroup, lanes stay empty), hence tiles 16 wide.
// The view covers the whole frame; first-last-lane dims the frame under its marks.
// Without a VIEW_* define: the hatch.
#define VIEW_PARAMS_BINDING 1
#include "view_common.glsl"

layout(local_size_x = 16, local_size_y = 16) in;  // kViewWorkgroup in src/passes/debug_view_pass.h
layout(set = 0, binding = 0, rgba8) uniform image2D color;

void main() {
    // Measured before the bounds check: invocations past the image's edge are still launched
    // lanes of their subgroup and must be counted (they only do not write).
    uvec4 record = lane_record();
    ivec2 pixel = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(pixel, imageSize(color)))) return;
    vec4 view_pixel = view_colour(record, pixel);
    vec4 scene = imageLoad(color, pixel);
    // The "over" blend of the graphics views, by hand: alpha 1 replaces, alpha 0 keeps.
    imageStore(color, pixel, vec4(view_pixel.rgb + scene.rgb * (1.0 - view_pixel.a), 1.0));
}
