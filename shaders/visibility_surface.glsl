// The surface a pixel of the visibility image shows, rebuilt from its triangle: shared by the
// visibility path's shading pass (visibility_shade.comp) and the ray tracer's ray generation
// (raytrace.rgen's RT_SURFACE_VISIBILITY variants), so the shadow and reflection rays start from
// exactly the point, normal and draw the shading pass shades (docs/visibility.md, docs/ray-tracing.md).
//
// The includer has declared, before including this:
//  - scene_bindings.glsl (frame, draws);
//  - `vertex_data[]`, the scene's vertices (scene.h's Vertex: 8 floats);
//  - VISIBILITY_SURFACE_BINDING: the first of this file's bindings (the drawn indices, their
//    indirect commands, with VISIBILITY_SURFACE_MATERIAL the vertices' VertexMaterial at + 2, the
//    visibility image at + 3);
//  - VISIBILITY_SURFACE_MATERIAL (the shading pass): the triangle's tangents and TEXCOORD_1 too
//    (Triangle's fields under the same define, triangle_surface.glsl);
//  - with VISIBILITY_MESHLET, meshlet.glsl (the meshlet path names its triangles by visible-list entry).
#ifndef VISIBILITY_SURFACE_GLSL
#define VISIBILITY_SURFACE_GLSL

#include "visibility_id.glsl"
#include "triangle_surface.glsl"  // Triangle, place_vertex, weights_at, world_at, ...

// The list the ids name (render/frame.h's named_indices) and its VkDrawIndexedIndirectCommand per
// draw (5 words): the list the pre-pass drew (with occlusion, phase 1's survivors and the late
// draw's additions merged), or under --raster compute each draw's level of the source indices.
layout(set = 0, binding = VISIBILITY_SURFACE_BINDING, std430) readonly buffer DrawnIndices { uint indices[]; };
layout(set = 0, binding = VISIBILITY_SURFACE_BINDING + 1, std430) readonly buffer Indirect { uint indirect[]; };
layout(set = 0, binding = VISIBILITY_SURFACE_BINDING + 3) uniform utexture2D visibility_image;  // texelFetch: no sampler
#if defined(VISIBILITY_SURFACE_MATERIAL) && !defined(VISIBILITY_MESHLET)
// scene.h's VertexMaterial, 8 floats: tangent (xyz, w the sign; 0: none), TEXCOORD_1, padding.
layout(set = 0, binding = VISIBILITY_SURFACE_BINDING + 2, std430) readonly buffer VertexMaterials { vec4 vertex_material_data[]; };
#endif

// The visibility id of a pixel (visibility_id.glsl; kVisibilityNone where no triangle covers it).
uint visibility_at(ivec2 pixel) { return texelFetch(visibility_image, pixel, 0).x; }

#ifdef VISIBILITY_MESHLET
// The meshlet path (docs/visibility.md, "The meshlet path"): the id names the visible-list entry
// (whose task chunk gives the draw and the meshlet) and the triangle's index in the
// meshlet (visibility_id.glsl); the vertices come from the meshlet's own arrays and are transformed
// with the mesh shaders' `precise` math (meshlet_clip, meshlet_forward.mesh), so the clip positions
// are the rasterizer's. Whichever occlusion phase drew the triangle, its name is the same: the late
// bit is not needed.
Triangle fetch_triangle(uint id) {
    Triangle t;
    ListedMeshlet lm = listed_meshlet(visibility_id_entry(id));
    t.draw = lm.draw;
    Meshlet m = meshlets[lm.meshlet];
    uint packed = triangles[m.triangle_offset + visibility_id_meshlet_triangle(id)];
    DrawData draw = draws[t.draw];
    for (uint i = 0u; i < 3u; ++i) {
        uint v = m.vertex_offset + ((packed >> (8u * i)) & 0xffu);
        uint a = v * kMeshletAttributes;  // normal, uv, tangent, TEXCOORD_1 (meshlet.glsl)
        place_vertex(t, i, draw, meshlet_position(v), vec3(attributes[a], attributes[a + 1u], attributes[a + 2u]),
                     vec2(attributes[a + 3u], attributes[a + 4u]));
#ifdef VISIBILITY_SURFACE_MATERIAL
        vec4 tangent = vec4(attributes[a + 5u], attributes[a + 6u], attributes[a + 7u], attributes[a + 8u]);
        t.tangent[i] = vec4(mat3(draw.model) * tangent.xyz, tangent.w);
        t.uv1[i] = vec2(attributes[a + 9u], attributes[a + 10u]);
#endif
    }
    finish_triangle(t);
    return t;
}
#else
vec3 vertex_vec3(uint v, uint at) { return vec3(vertex_data[v * 8u + at], vertex_data[v * 8u + at + 1u], vertex_data[v * 8u + at + 2u]); }

Triangle fetch_triangle(uint id) {
    Triangle t;
    t.draw = visibility_id_draw(id, frame.tiles.w);  // frame.tiles.w: the draw count, the id's split
    uint command = t.draw * 5u;
    uint primitive = visibility_id_primitive(id, frame.tiles.w);
    uint first_index = indirect[command + 2u];
    int vertex_offset = int(indirect[command + 3u]);
    DrawData draw = draws[t.draw];
    for (uint i = 0u; i < 3u; ++i) {
        uint v = uint(int(indices[first_index + 3u * primitive + i]) + vertex_offset);
        place_vertex(t, i, draw, vertex_vec3(v, 0u), vertex_vec3(v, 3u), vec2(vertex_data[v * 8u + 6u], vertex_data[v * 8u + 7u]));
#ifdef VISIBILITY_SURFACE_MATERIAL
        vec4 tangent = vertex_material_data[v * 2u];
        t.tangent[i] = vec4(mat3(draw.model) * tangent.xyz, tangent.w);
        t.uv1[i] = vertex_material_data[v * 2u + 1u].xy;
#endif
    }
    finish_triangle(t);
    return t;
}
#endif

#ifdef VISIBILITY_SURFACE_MATERIAL
vec2 uv1_at(Triangle t, vec3 b) { return b.x * t.uv1[0] + b.y * t.uv1[1] + b.z * t.uv1[2]; }
// The interpolated tangent, as the rasterizer interpolates scene.vert's; w: +-1, or 0 without one.
vec4 tangent_at(Triangle t, vec3 b) {
    vec4 v = b.x * t.tangent[0] + b.y * t.tangent[1] + b.z * t.tangent[2];
    return v.w != 0.0 ? vec4(v.xyz, v.w < 0.0 ? -1.0 : 1.0) : vec4(0.0);
}
#endif

#endif
