#version 460
// The visibility path's depth pre-pass (--shading visibility, docs/visibility.md): besides depth,
// each pixel keeps which triangle covers it, (draw, primitive): the draw's index (its indirect
// command's firstInstance, scene.vert's out_draw) and gl_PrimitiveID, the triangle's place in the
// list that draw drew (indices firstIndex + 3 primitive .. + 2). Occlusion phase 2's late draw
// sets the draw word's top bit: its triangles are in the late list (visibility_shade.comp reads
// that list's indirect commands for them). The pipeline tests GREATER_OR_EQUAL, so of the fragments
// at a pixel's final depth the last one drawn keeps its id: the one forward's EQUAL test shows.
// ALPHA: alphaMode MASK materials cut their holes here exactly as depth_alpha.frag does.
// MESHLET: the meshlet path's pre-pass (meshlet_cull.mesh VISIBILITY_IDS): the mesh shader names
// each primitive's triangle (meshlet.glsl's meshlet_triangle_id, the late bit included); this
// writes that name.
#ifdef MESHLET
#extension GL_EXT_mesh_shader : require
#endif
#include "scene_bindings.glsl"

#ifndef ALPHA
// Nothing discards: the tests may run early, as the depth-only pre-pass's do.
layout(early_fragment_tests) in;
#endif

#if !defined(MESHLET) || defined(ALPHA)  // (the meshlet mesh shader outputs these for the alpha test only)
layout(location = 2) in vec2 in_uv;
layout(location = 3) flat in uint in_draw;
#endif

layout(location = 0) out uvec2 out_triangle;

#ifdef MESHLET
layout(location = 4) perprimitiveEXT flat in uvec2 in_triangle;
#else
layout(push_constant) uniform VisibilityPush { uint late_bit; } push;  // 0, or 1 << 31 in the late draw
#endif

void main() {
#ifdef ALPHA
    DrawData draw = draws[in_draw];
    if (draw.alpha_cutoff > 0.0) {
        float alpha = scene_texture_lod0(draw.base_color_texture, in_uv).a * draw.base_color.a;
        if (alpha < draw.alpha_cutoff) discard;
    }
#endif
#ifdef MESHLET
    out_triangle = in_triangle;
#else
    out_triangle = uvec2(in_draw | push.late_bit, uint(gl_PrimitiveID));
#endif
}
