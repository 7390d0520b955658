// Shared by the six ray-tracing stages of the ray_trace pass (src/passes/ray_trace_pass.cpp,
// docs/ray-tracing.md): bindings, the payload, geometry fetch and the statistics.
#ifndef RAYTRACE_GLSL
#define RAYTRACE_GLSL

#extension GL_EXT_ray_tracing : require
#ifndef RT_VIEW
// The statistics' two ways, switched by USE_SUBGROUP (raytrace_stats.glsl): the subgroup variant
// and the fallback are one SPIR-V, NAME.switch, and the fallback's twin NAME.no_subgroup where the
// ray-tracing stages have no subgroups (lavapipe).
#include "subgroup_switch.glsl"
#endif

// Set 0 (the numbers match kRayTraceLayout in ray_trace_pass.cpp) but the TLAS and the statistics,
// the payload's constants, the traced image's encoding and the geometry fetch: ray_scene.glsl,
// shared with the compaction pass (ray_lists.comp), which runs in compute.
#include "ray_scene.glsl"

// The debug views in the six stages (RT_VIEW variants, docs/ray-tracing.md): the stage under view
// (VIEW_HERE, with one of view_common.glsl's VIEW_* defines) measures its lane with lane_record()
// first thing in main(), and the record travels back to raygen in the payload (callable data, hit
// attributes from the intersection shader); raygen stores it packed instead of the frame's bits.
#ifdef RT_VIEW
#define VIEW_PARAMS_BINDING 10
#include "view_common.glsl"
#endif

layout(set = 0, binding = 4) uniform accelerationStructureEXT scene_tlas;
// 5..8 ray_scene.glsl's.
// binding 9: the statistics (RayStats below); 10 and 11 the views' (view_common.glsl);
// RT_SURFACE_VISIBILITY (ray generation on the visibility path): 12, 13 and 15 visibility_surface.glsl's,
// and with VISIBILITY_MESHLET 16.. the meshlet path's (meshlet.glsl).
// Binding 14 (visibility_surface.glsl's place for them in the shading pass, free in ray generation):
// the vertices' VertexMaterial (scene.h: tangent, TEXCOORD_1), beside vertex_data, same index; the
// closest-hit shader reads them for the reflected surface's material.
layout(set = 0, binding = 14, std430) readonly buffer VertexMaterials { vec4 vertex_material_data[]; };
vec4 vertex_tangent(uint v) { return vertex_material_data[2u * v]; }  // xyz object space, w the sign; 0: none
vec2 vertex_uv1(uint v) { return vertex_material_data[2u * v + 1u].xy; }

// One payload type for every ray kind (the hit and miss shaders see the kind).
struct RayPayload {
    vec3 color;         // reflection: the reflected radiance
    float t;            // hit distance, < 0 on a miss
    uint primitive;     // primary: the hit's triangle in its draw's mesh (raygen rebuilds the surface)
    uint kind;          // kRayPrimary, kRayShadow, kRayReflection
    uint draw;          // primary: the hit's draw
    uint record;        // RT_VIEW: the packed lane record of the stage under view that served the ray (0: none)
};

// The callable data of the material evaluation (raytrace.rcall, material.glsl), 80 bytes: what the
// closest-hit shader interpolates at the hit goes in, what its lighting needs comes out.
struct MaterialCall {
    vec4 tangent;      // in: world, w the bitangent's sign: the mesh's TANGENT, or the triangle's (w = 0: no frame)
    vec3 normal;       // in: interpolated, unit, towards the ray's origin; out: the shading normal (normal map)
    uint draw;         // in
    vec2 uv0, uv1;     // in: TEXCOORD_0, TEXCOORD_1 at the hit
    float metallic;    // out: factor x texture, as SurfaceMaterial
    float roughness;   // out
    vec3 base_color;   // out: linear
    float occlusion;   // out
    vec3 emissive;     // out
    uint record;       // RT_VIEW: the callable's packed lane record
};

// A lane record (view_common.glsl) in 32 bits: x, y, w below 256 (lanes, sizes <= 128), z 2 bits;
// bit 31 set, so 0 means "no invocation of the stage served this ray".
uint pack_record(uvec4 r) { return 0x80000000u | (r.x & 255u) | ((r.y & 255u) << 8) | ((r.z & 3u) << 16) | ((r.w & 255u) << 18); }
uvec4 unpack_record(uint p) { return uvec4(p & 255u, (p >> 8) & 255u, (p >> 16) & 3u, (p >> 18) & 255u); }

// A packed record carried from intersection to closest-hit in a float hit attribute (the hit
// group's closest-hit reads the triangles' vec2 barycentrics, so the attribute stays a float).
// The record's bits as they are make a denormal float whenever bits 23..30 (the exponent) are
// zero, that is whenever the record's w is below 32 (most records), and Vulkan lets a driver
// flush denormals to zero: the closest-hit would read "no record". pack_record never sets bit 30,
// so it is set here and stripped on the way out: the exponent is then 128..135, a normal finite
// float, never a denormal, infinity or NaN, which every driver carries bit for bit. No record (0)
// stays 0.0.
const uint kRecordAttributeBit = 1u << 30;
float record_to_attribute(uint record) { return record == 0u ? 0.0 : uintBitsToFloat(record | kRecordAttributeBit); }
uint record_from_attribute(float value) { return floatBitsToUint(value) & ~kRecordAttributeBit; }

// material_alpha (material.glsl): the alpha test's value, the depth pre-pass's (depth_alpha.frag).
#include "material.glsl"

#include "raytrace_stats.glsl"

#endif
