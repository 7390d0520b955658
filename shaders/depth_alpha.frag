#version 460
// Depth pre-pass of scenes with alphaMode MASK materials: the texels below a masked material's
// cutoff are holes (discarded), exactly the texels the ray tracer's any-hit shader ignores
// (raytrace.rahit: same texture level, same alpha, same comparison). Forward shading needs no test
// of its own: its EQUAL depth test only passes where the pre-pass kept the fragment.
#include "scene_bindings.glsl"
#include "material.glsl"  // material_alpha

layout(location = 2) in vec2 in_uv;
layout(location = 3) flat in uint in_draw;

void main() {
    DrawData draw = draws[in_draw];
    if (draw.alpha_cutoff > 0.0) {
        float alpha = material_alpha(draw, in_uv);  // through the base colour's transform
        if (alpha < draw.alpha_cutoff) discard;
    }
}
