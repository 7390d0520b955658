// Shared by the six ray-tracing stages of the ray_trace pass (src/passes/ray_trace_pass.cpp,
// docs/ray-tracing.md): bindings, the payload, geometry fetch and the statistics.
#ifndef RAYTRACE_GLSL
#define RAYTRACE_GLSL

#extension GL_EXT_ray_tracing : require
#extension GL_EXT_samplerless_texture_functions : require
#ifdef RT_SUBGROUP
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_ballot : require
#endif

// Set 0, pushed each frame (the numbers match kRayTraceLayout in ray_trace_pass.cpp): 0..3 the
// scene's (frame, draws, lights, textures), as the graphics pipelines have them.
#include "scene_bindings.glsl"

// The debug views in the six stages (RT_VIEW variants, docs/ray-tracing.md): the stage under view
// (VIEW_HERE, with one of view_common.glsl's VIEW_* defines) measures its lane with lane_record()
// first thing in main(), and the record travels back to raygen in the payload (callable data, hit
// attributes from the intersection shader); raygen stores it packed instead of the frame's bits.
#ifdef RT_VIEW
#define VIEW_PARAMS_BINDING 10
#include "view_common.glsl"
#endif

layout(set = 0, binding = 4) uniform accelerationStructureEXT scene_tlas;
layout(set = 0, binding = 5, std430) readonly buffer Vertices { float vertex_data[]; };  // Vertex: 8 floats
layout(set = 0, binding = 6, std430) readonly buffer Indices { uint index_data[]; };
layout(set = 0, binding = 7) uniform texture2D depth_image;            // reversed Z, from the pre-pass
layout(set = 0, binding = 8, r32ui) uniform uimage2D traced_image;     // what forward reads (encoding below)
// binding 9: the statistics (RayStats below); 10 and 11 the views' (view_common.glsl);
// RT_SURFACE_VISIBILITY (ray generation on the visibility path): 12..15 visibility_surface.glsl's,
// and with VISIBILITY_MESHLET 16.. the meshlet path's (meshlet.glsl).

// TLAS instance masks and SBT layout (ray_trace_pass.cpp builds the same).
const uint kMaskGeometry = 1u, kMaskLights = 2u;
const uint kHitKindLight = 0u;                 // what the intersection shader reports
const float kBulbRadius = 0.3;                 // a light's glowing sphere, world units
const uint kRayPrimary = 0u, kRayShadow = 1u, kRayReflection = 2u;

// One payload type for every ray kind (the hit and miss shaders see the kind).
struct RayPayload {
    vec3 color;         // reflection: the reflected radiance
    float t;            // hit distance, < 0 on a miss
    uint primitive;     // primary: the hit's triangle in its draw's mesh (raygen rebuilds the surface)
    uint kind;          // kRayPrimary, kRayShadow, kRayReflection
    uint draw;          // primary: the hit's draw
    uint record;        // RT_VIEW: the packed lane record of the stage under view that served the ray (0: none)
};

struct MaterialCall {  // callableDataEXT of the material evaluation (material.glsl)
    vec3 albedo;
    uint draw;
    vec3 emissive;
    uint pad;
    vec2 uv;
    uint record;  // RT_VIEW: the callable's packed lane record
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

// The value written per pixel into traced_image (an R32UI image; forward.frag decodes it):
// bits 0..29 the reflection's radiance times its weight, sRGB-encoded 10 bits per channel (0: none);
// bit 30 a shadow ray was traced; bit 31 it was blocked (the sun is occluded).
const uint kTracedShadowRay = 1u << 30, kTracedSunBlocked = 1u << 31;

uint encode_reflection(vec3 radiance) {
    uvec3 q = uvec3(round(srgb_encode(clamp(radiance, 0.0, 1.0)) * 1023.0));
    return q.r | (q.g << 10) | (q.b << 20);
}

vec3 decode_reflection(uint bits) {
    return srgb_decode(vec3(bits & 1023u, (bits >> 10) & 1023u, (bits >> 20) & 1023u) / 1023.0);
}

// ---- Geometry of a triangle hit --------------------------------------------------------------

vec3 vertex_position(uint v) { return vec3(vertex_data[8 * v], vertex_data[8 * v + 1], vertex_data[8 * v + 2]); }
vec3 vertex_normal(uint v) { return vec3(vertex_data[8 * v + 3], vertex_data[8 * v + 4], vertex_data[8 * v + 5]); }
vec2 vertex_uv(uint v) { return vec2(vertex_data[8 * v + 6], vertex_data[8 * v + 7]); }

// The BLAS of a draw's mesh indexes from its first_index, so primitive p of the hit is the triangle
// at first_index + 3p; the TLAS instance's custom index is the draw.
uvec3 triangle_vertices(DrawData draw, uint primitive) {
    uint base = draw.first_index + 3u * primitive;
    return uvec3(index_data[base], index_data[base + 1u], index_data[base + 2u]);
}

vec2 hit_uv(uvec3 v, vec2 barycentrics) {
    vec3 b = vec3(1.0 - barycentrics.x - barycentrics.y, barycentrics);
    return vertex_uv(v.x) * b.x + vertex_uv(v.y) * b.y + vertex_uv(v.z) * b.z;
}

// Alpha of a masked material at uv: the texture's (level 0) times the factor. The depth pre-pass
// (depth_alpha.frag) tests the same texel values against the same cutoff.
float material_alpha(DrawData draw, vec2 uv) {
    return scene_texture_lod0(draw.base_color_texture, uv).a * draw.base_color.a;
}

// Reflection weight: Schlick Fresnel from F0 (dielectric 0.06, metal 1), faded by roughness.
// Rays are traced only where it can matter: roughness below kReflectRoughness.
const float kReflectRoughness = 0.6;
float reflection_weight(DrawData draw, float cos_view) {
    float f0 = mix(0.06, 1.0, draw.metallic);
    float fresnel = f0 + (1.0 - f0) * pow(1.0 - clamp(cos_view, 0.0, 1.0), 5.0);
    float smooth_ = 1.0 - draw.roughness / kReflectRoughness;
    return fresnel * smooth_ * smooth_;
}

vec3 sky_radiance(vec3 direction) {
    float up = clamp(direction.y, 0.0, 1.0);
    return mix(vec3(0.30, 0.34, 0.40), vec3(0.10, 0.18, 0.34), up);
}

#include "raytrace_stats.glsl"

#endif
