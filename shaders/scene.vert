#version 460
// Vertex shader of the depth pre-pass and the forward pass. Both compile this same file, so
// gl_Position comes from identical code, and `precise` (NoContraction: no fused multiply-add,
// no reassociation; in clip_position(), common.glsl) keeps the two pipelines' depths
// bit-identical for the EQUAL test.
// (`invariant gl_Position` says the same, but glslang puts it on a block member, which the
// validation layer's SPIR-V checker warns about.)
#include "scene_bindings.glsl"

layout(location = 0) in vec3 in_position;
#ifndef DEPTH_ONLY
layout(location = 1) in vec3 in_normal;
layout(location = 2) in vec2 in_uv;
#endif

#ifndef DEPTH_ONLY
layout(location = 0) out vec3 out_world_position;
layout(location = 1) out vec3 out_normal;
layout(location = 2) out vec2 out_uv;
layout(location = 3) flat out uint out_draw;
#endif

void main() {
    // firstInstance of each indirect command is its draw index.
    DrawData draw = draws[gl_InstanceIndex];
    vec4 world = world_position(draw.model, in_position);
    gl_Position = clip_position(frame.view_proj, world);
#ifndef DEPTH_ONLY
    out_world_position = world.xyz;
    out_normal = mat3(draw.normal_matrix) * in_normal;
    out_uv = in_uv;
    out_draw = gl_InstanceIndex;
#endif
}
