#version 460
// Forward shading. Depth test EQUAL against the pre-pass: each visible pixel is shaded once.
// LIGHT_LOOP_SUBGROUP: the scalarized light loop (shading.glsl, docs/light-lists.md).
#ifdef MESHLET_IDS
#extension GL_EXT_mesh_shader : require
#endif
#ifdef LIGHT_LOOP_SUBGROUP
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
#endif
#include "shading.glsl"
#include "material.glsl"
#include "box_filter.glsl"
#ifdef QUAD_MIP
#include "quad_mip.glsl"
#else
// Early tests in every variant (quad_mip.glsl declares them for its own). The light loop's trip
// counters are atomics, i.e. side effects: without this a driver must run the shader before the
// EQUAL depth test, for every covered fragment, so that rejected ones' atomics happen (NVIDIA then
// shades all the overdraw: +1.6 ms of forward at 1920x1080, 7.5M triangles, measured on an H200).
// Nothing here writes depth or discards, so early and late tests keep the same fragments, and
// only the visible fragment of a pixel counts its trips.
layout(early_fragment_tests) in;
#endif

layout(location = 0) in vec3 in_world_position;
layout(location = 1) in vec3 in_normal;
layout(location = 2) in vec2 in_uv;
layout(location = 3) flat in uint in_draw;
layout(location = 5) in vec4 in_tangent;
layout(location = 6) in vec2 in_uv1;

layout(location = 0) out vec4 out_color;

vec3 shade() {
    DrawData draw = draws[in_draw];
    vec3 normal = normalize(in_normal);
    if (!gl_FrontFacing) normal = -normal;
    // The fragment quad's derivatives (those texture() would take) choose the levels, and build the
    // normal map's frame where the mesh has no TANGENT (material.glsl).
    MaterialInput surface;
    surface.uv0 = in_uv;
    surface.uv1 = in_uv1;
    surface.uv0_d1 = dFdx(in_uv);
    surface.uv0_d2 = dFdy(in_uv);
    surface.uv1_d1 = dFdx(in_uv1);
    surface.uv1_d2 = dFdy(in_uv1);
    surface.p_d1 = dFdx(in_world_position);
    surface.p_d2 = dFdy(in_world_position);
    surface.normal = normal;
    surface.tangent = in_tangent.w != 0.0 ? vec4(in_tangent.xyz, in_tangent.w < 0.0 ? -1.0 : 1.0) : vec4(0.0);
    surface.footprint = 1.0;
    SurfaceMaterial material = evaluate_material(draw, surface);
#ifdef QUAD_MIP
    // The last use of the quad's helper invocations (implicit LOD): they end here (quad_mip.glsl).
    if (quad_mip_helper_done()) return vec3(0.0);
#endif
    Brdf brdf = make_brdf(material.base_color.rgb, material.metallic, material.roughness, view_direction(in_world_position));
    vec4 traced = ray_traced_light(ivec2(gl_FragCoord.xy));
    vec3 color = ambient_and_sun(brdf, material.normal, material.occlusion, traced.x);
    color += shade_point_lights(uvec2(gl_FragCoord.xy), brdf, in_world_position, material.normal);
    if ((forward_push.flags & kForwardRayTraced) != 0u) color += traced.yzw;
    return color + material.emissive;
}

#if defined(FORWARD_IDS)
// Tests only (RendererConfig::test_forward_output): instead of a colour, which triangle forward drew
// here, (draw, gl_PrimitiveID) in 11-bit pieces that RGBA16F holds exactly: the oracle of the
// visibility pre-pass's image (tests/gpu/test_visibility.cpp). MESHLET_IDS: the meshlet path's
// triangle instead, from the visibility id meshlet_forward.mesh.ids gives it (visibility_id.glsl),
// decoded to (draw, meshlet << 7 | its triangle) through the task chunks, as Renderer::read_visibility
// decodes the pre-pass's (there gl_PrimitiveID is whatever the mesh shader would set).
#ifdef MESHLET_IDS
#include "meshlet_chunks.glsl"
#include "visibility_id.glsl"
layout(location = 4) perprimitiveEXT flat in uint in_triangle;
#endif
void main() {
#ifdef MESHLET_IDS
    ListedMeshlet lm = listed_meshlet(visibility_id_entry(in_triangle));
    uvec2 id = uvec2(lm.draw, lm.meshlet << kVisibilityMeshletTriangleBits | visibility_id_meshlet_triangle(in_triangle));
#else
    uvec2 id = uvec2(in_draw, uint(gl_PrimitiveID));
#endif
    out_color = vec4(id.x & 2047u, id.x >> 11u, id.y & 2047u, id.y >> 11u);
}
#elif defined(FORWARD_DERIVATIVES)
// Tests only: the coarse derivatives of uv this fragment's quad has, the visibility shading
// pass's oracle (visibility_shade.comp writes its own with kShadeDerivatives).
void main() { out_color = vec4(dFdxCoarse(in_uv), dFdyCoarse(in_uv)); }
#else
void main() {
    // A value the RGBA16F target holds exactly (box_filter.glsl): the target stores it unchanged on
    // any device, whatever its float-to-half rounding, and the quad mip sums that same value.
    out_color = half_exact(vec4(shade(), 1.0));
#ifdef QUAD_MIP
    // At the end of main, after shade()'s branches and loop have rejoined (a rule with
    // MaximallyReconvergesKHR: the *_full_quads variant). Where a driver had not rejoined them, the
    // ballot there would see fewer real lanes: the quad goes to the edge list, still exact.
    write_quad_mip(out_color);
#endif
}
#endif
