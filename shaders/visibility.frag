#version 460
// The visibility path's depth pre-pass (--shading visibility, docs/visibility.md): besides depth,
// each pixel keeps which triangle covers it, the 32-bit visibility id (visibility_id.glsl): the
// draw's index (its indirect command's firstInstance, scene.vert's out_draw) and gl_PrimitiveID,
// the triangle's place in the list that draw drew (indices firstIndex + 3 primitive .. + 2).
// The pipeline tests GREATER_OR_EQUAL, so of the fragments at a pixel's final depth the last one
// drawn keeps its id: the one forward's EQUAL test shows. With occlusion's two phases the depth
// passes draw depth only and the merged list writes the ids afterwards with an EQUAL test
// (ScenePass::record_ids), so the list is always the one forward draws.
// ALPHA: alphaMode MASK materials cut their holes here exactly as depth_alpha.frag does.
// MESHLET: the meshlet path's pre-pass (meshlet_cull.mesh VISIBILITY_IDS): the mesh shader names
// each primitive's triangle (its visibility id); this writes that id.
#ifdef MESHLET
#extension GL_EXT_mesh_shader : require
#endif
#include "scene_bindings.glsl"
#include "material.glsl"  // material_alpha
#include "visibility_id.glsl"

#ifndef ALPHA
// Nothing discards: the tests may run early, as the depth-only pre-pass's do.
layout(early_fragment_tests) in;
#endif

#if !defined(MESHLET) || defined(ALPHA)  // (the meshlet mesh shader outputs these for the alpha test only)
layout(location = 2) in vec2 in_uv;
layout(location = 3) flat in uint in_draw;
#endif

layout(location = 0) out uint out_triangle;

#ifdef MESHLET
layout(location = 4) perprimitiveEXT flat in uint in_triangle;
#endif

void main() {
#ifdef ALPHA
    DrawData draw = draws[in_draw];
    if (draw.alpha_cutoff > 0.0) {
        float alpha = material_alpha(draw, in_uv);  // through the base colour's transform
        if (alpha < draw.alpha_cutoff) discard;
    }
#endif
#ifdef MESHLET
    out_triangle = in_triangle;
#else
    // frame.tiles.w: the draw count, which sets the split between draw and primitive bits.
    out_triangle = visibility_id_indexed(in_draw, uint(gl_PrimitiveID), false, frame.tiles.w);
#endif
}
