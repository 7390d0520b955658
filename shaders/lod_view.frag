#version 460
// The lod debug view's colour (lod_view.vert): the level's colour from the push constants, the
// exact bytes of kLodColours (opaque). The overdraw view draws the same fragments with its step
// (kOverdrawStep) in every level's place, alpha 0: the pipeline's premultiplied "over" blend then
// adds it to the pixel. Alpha-masked materials keep their holes, as in the depth pre-pass
// (depth_alpha.frag: same texture level, same comparison), so the view covers the frame's pixels.
#include "scene_bindings.glsl"
#include "material.glsl"  // material_alpha

layout(location = 0) flat in uint in_level;
layout(location = 1) flat in uint in_draw;
layout(location = 2) in vec2 in_uv;
layout(location = 0) out vec4 out_color;

layout(push_constant) uniform LodViewPush {
    uint colours[8];
    float lod_max_error_px;
} push;

void main() {
    DrawData draw = draws[in_draw];
    if (draw.alpha_cutoff > 0.0) {
        float alpha = material_alpha(draw, in_uv);  // through the base colour's transform
        if (alpha < draw.alpha_cutoff) discard;
    }
    out_color = unpackUnorm4x8(push.colours[in_level & 7u]);
}
