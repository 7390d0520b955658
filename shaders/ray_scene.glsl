// The ray_trace pass's set 0 without what needs GL_EXT_ray_tracing (the TLAS, the statistics):
// the scene, its vertices and indices, the depth and traced images, the rays' constants and the
// geometry of a triangle. Shared by the six ray-tracing stages (raytrace.glsl) and the compaction
// pass that lists the pixels by the rays they trace (ray_lists.comp), which runs in compute.
#ifndef RAY_SCENE_GLSL
#define RAY_SCENE_GLSL

#extension GL_EXT_samplerless_texture_functions : require

// Set 0, pushed each frame (the numbers match kRayTraceLayout in ray_trace_pass.cpp): 0..3 the
// scene's (frame, draws, lights, textures), as the graphics pipelines have them.
#include "scene_bindings.glsl"

layout(set = 0, binding = 5, std430) readonly buffer Vertices { float vertex_data[]; };  // Vertex: 8 floats
layout(set = 0, binding = 6, std430) readonly buffer Indices { uint index_data[]; };
layout(set = 0, binding = 7) uniform texture2D depth_image;            // reversed Z, from the pre-pass
layout(set = 0, binding = 8, r32ui) uniform uimage2D traced_image;     // what forward reads (encoding below)

// TLAS instance masks and SBT layout (ray_trace_pass.cpp builds the same).
const uint kMaskGeometry = 1u, kMaskLights = 2u;
const uint kHitKindLight = 0u;                 // what the intersection shader reports
const float kBulbRadius = 0.3;                 // a light's glowing sphere, world units
const uint kRayPrimary = 0u, kRayShadow = 1u, kRayReflection = 2u;

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

#endif
