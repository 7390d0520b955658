#version 460
// Vertex shader of the depth pre-pass and the forward pass. Both compile this same file, so
// gl_Position comes from identical code, and transform.glsl's `precise` (NoContraction: no fused
// multiply-add, no reassociation) keeps the two pipelines' depths bit-identical for the EQUAL test.
// (`invariant gl_Position` says the same, but glslang puts it on a block member, which the
// validation layer's SPIR-V checker warns about.)
#include "scene_bindings.glsl"
#include "transform.glsl"

layout(location = 0) in vec3 in_position;
#ifndef DEPTH_ONLY
layout(location = 1) in vec3 in_normal;
layout(location = 2) in vec2 in_uv;
layout(location = 3) in vec4 in_tangent;  // binding 1, scene.h's VertexMaterial
layout(location = 4) in vec2 in_uv1;
#endif

#ifndef DEPTH_ONLY
layout(location = 0) out vec3 out_world_position;
layout(location = 1) out vec3 out_normal;
layout(location = 2) out vec2 out_uv;
layout(location = 3) flat out uint out_draw;
layout(location = 5) out vec4 out_tangent;  // world space; w the bitangent's sign, 0: none
layout(location = 6) out vec2 out_uv1;
#endif

void main() {
    // firstInstance of each indirect command is its draw index. Clamped: lavapipe at 128-bit
    // vectors runs 4 vertices at once and loads for lanes past the draw's end with a garbage
    // instance index; the clamp keeps every read in bounds on any driver.
    uint draw_index = min(uint(gl_InstanceIndex), frame.tiles.w - 1);
    DrawData draw = draws[draw_index];
    vec4 world = object_to_world(draw.model, in_position);
    gl_Position = world_to_clip(world);
#ifndef DEPTH_ONLY
    out_world_position = world.xyz;
    out_normal = mat3(draw.normal_matrix) * in_normal;
    out_uv = in_uv;
    out_draw = draw_index;
    out_tangent = vec4(mat3(draw.model) * in_tangent.xyz, in_tangent.w);  // a tangent moves with the surface
    out_uv1 = in_uv1;
#endif
}
