// The material of a surface point, one function for forward (forward.frag), the visibility shading
// pass (visibility_shade.comp) and ray-traced hits (raytrace.rcall): glTF 2.0 metallic-roughness
// (docs/materials.md): base colour, metallic-roughness, normal, occlusion and emissive textures,
// each with its own texCoord set (TEXCOORD_0 or _1) and its own KHR_texture_transform, applied
// here per slot. Every texture is sampled with the caller's uv derivatives, which choose the mip
// level and the anisotropic footprint: forward passes its fragment quad's, the shading pass its own
// (quad broadcasts or analytic), a ray hit zero (level 0: a ray has no screen-space footprint).
// One function, so the three paths cannot drift apart.
#ifndef MATERIAL_GLSL
#define MATERIAL_GLSL

#include "common.glsl"
#include "scene_textures.glsl"

// Texture slots: GpuDraw::uv_transform's order (scene.h's MaterialSlot).
const uint kSlotBaseColor = 0u, kSlotMetallicRoughness = 1u, kSlotNormal = 2u, kSlotOcclusion = 3u, kSlotEmissive = 4u;

// What the caller knows about the point. The two deltas are what a 2x2 quad differentiates along x
// and y (forward: dFdx, dFdy; the shading pass: its quad's neighbours); a ray hit passes two edges
// of its triangle instead and footprint 0. They serve twice: scaled by `footprint`, as the
// sampling footprint, and, unscaled, to build the normal map's frame where there is no TANGENT.
struct MaterialInput {
    vec2 uv0, uv1;              // TEXCOORD_0, TEXCOORD_1
    vec2 uv0_d1, uv0_d2;        // their deltas along the two directions
    vec2 uv1_d1, uv1_d2;
    vec3 p_d1, p_d2;            // the world position's along the same two
    vec3 normal;                // interpolated, unit, towards the viewer
    vec4 tangent;               // world TANGENT, w the bitangent's sign; w = 0: none
    float footprint;            // 1: sample with the deltas; 0: level 0
};

struct SurfaceMaterial {
    vec4 base_color;  // linear (the sRGB textures decode), alpha times the factor's
    vec3 emissive;    // linear radiance added after lighting
    float metallic;   // factor x texture B
    float roughness;  // factor x texture G (perceptual)
    float occlusion;  // 1 + strength x (R - 1): scales the ambient light
    vec3 normal;      // the shading normal: the normal map's, world space, unit
};

// A slot's coordinates: its set, through its KHR_texture_transform (translation x rotation x scale).
uint slot_set(DrawData draw, uint slot) { return (draw.texcoords >> slot) & 1u; }
mat2 slot_linear(DrawData draw, uint slot) {
    vec4 m = draw.uv_transform[2u * slot];
    return mat2(m.xy, m.zw);
}
vec2 slot_uv(DrawData draw, uint slot, MaterialInput in_) {
    return slot_linear(draw, slot) * (slot_set(draw, slot) == 1u ? in_.uv1 : in_.uv0) + draw.uv_transform[2u * slot + 1u].xy;
}
// The slot's uv deltas (the transform's linear part: an offset does not move a difference).
vec2 slot_d1(DrawData draw, uint slot, MaterialInput in_) {
    return slot_linear(draw, slot) * (slot_set(draw, slot) == 1u ? in_.uv1_d1 : in_.uv0_d1);
}
vec2 slot_d2(DrawData draw, uint slot, MaterialInput in_) {
    return slot_linear(draw, slot) * (slot_set(draw, slot) == 1u ? in_.uv1_d2 : in_.uv0_d2);
}
bool slot_is_colour(uint slot) { return slot == kSlotBaseColor || slot == kSlotEmissive; }  // glTF: sRGB
vec4 sample_slot(DrawData draw, uint slot, uint texture_index, MaterialInput in_) {
    return scene_texture_grad(texture_index, slot_is_colour(slot), slot_uv(draw, slot, in_), in_.footprint * slot_d1(draw, slot, in_),
                              in_.footprint * slot_d2(draw, slot, in_));
}

// The tangent frame of a surface whose uv is affine along two position deltas (dp1 with duv1, dp2
// with duv2): Schüler's cotangent frame ("Normal Mapping Without Precomputed Tangents", 2013).
// t and b are the surface gradients of u and v (dp2 x n and n x dp1 are the deltas' duals in the
// tangent plane), scaled together so the larger is unit: mirrored or sheared mappings stay right.
// Both come out multiplied by n . (dp1 x dp2), whose sign is the deltas' orientation seen from the
// normal: Vulkan's framebuffer y runs down, so screen derivatives of a front face give a negative
// one (Schüler's OpenGL derivation, y up, a positive one); the sign is divided out, so any pair of
// deltas, screen or edges, gives the same frame. glTF's tangent-space +Y is "up" in the image,
// towards decreasing v, hence -b. From screen derivatives this is the frame of the quad's plane;
// from a triangle's edges, the triangle's.
mat3 cotangent_frame(vec3 n, vec3 dp1, vec3 dp2, vec2 duv1, vec2 duv2) {
    vec3 dp2perp = cross(dp2, n), dp1perp = cross(n, dp1);
    vec3 t = dp2perp * duv1.x + dp1perp * duv2.x;
    vec3 b = dp2perp * duv1.y + dp1perp * duv2.y;
    float largest = max(dot(t, t), dot(b, b));
    float scale = largest > 0.0 ? inversesqrt(largest) : 0.0;  // no uv change: no frame, n unperturbed
    if (dot(n, cross(dp1, dp2)) < 0.0) scale = -scale;
    return mat3(t * scale, -b * scale, n);
}

// The normal texture's normal in world space: through TANGENT where the mesh has it (glTF:
// bitangent = cross(normal, tangent) x w, the MikkTSpace convention), else the cotangent frame.
vec3 mapped_normal(DrawData draw, MaterialInput in_) {
    vec3 n = in_.normal;
    if (draw.normal_texture == 0u) return n;  // uniform per draw: no divergence
    vec3 texel = sample_slot(draw, kSlotNormal, draw.normal_texture, in_).xyz * 2.0 - 1.0;
    texel.xy *= draw.normal_scale;
    mat3 frame;
    if (in_.tangent.w != 0.0) {
        vec3 t = normalize(in_.tangent.xyz - n * dot(n, in_.tangent.xyz));
        frame = mat3(t, cross(n, t) * in_.tangent.w, n);
    } else {
        uint slot = kSlotNormal;
        frame = cotangent_frame(n, in_.p_d1, in_.p_d2, slot_d1(draw, slot, in_), slot_d2(draw, slot, in_));
    }
    vec3 mapped = frame * texel;
    float length2 = dot(mapped, mapped);
    return length2 > 0.0 ? mapped * inversesqrt(length2) : n;
}

SurfaceMaterial evaluate_material(DrawData draw, MaterialInput in_) {
    SurfaceMaterial m;
    // Entry 0 is one white texel: an untextured slot gives its factor alone.
    m.base_color = sample_slot(draw, kSlotBaseColor, draw.base_color_texture, in_) * draw.base_color;
    vec4 metallic_roughness = sample_slot(draw, kSlotMetallicRoughness, draw.metallic_roughness_texture, in_);
    m.metallic = draw.metallic * metallic_roughness.b;
    m.roughness = draw.roughness * metallic_roughness.g;
    float occlusion = sample_slot(draw, kSlotOcclusion, draw.occlusion_texture, in_).r;
    m.occlusion = 1.0 + draw.occlusion_strength * (occlusion - 1.0);
    m.emissive = draw.emissive.rgb * sample_slot(draw, kSlotEmissive, draw.emissive_texture, in_).rgb;
    m.normal = mapped_normal(draw, in_);
    return m;
}

// Alpha of a masked material at TEXCOORD_0 (level 0): the base colour texture's, through its
// transform, times the factor. The depth pre-pass, the visibility pre-pass, the hardware list of
// the compute rasterizer and the any-hit shader all test this same value against the cutoff.
float material_alpha(DrawData draw, vec2 uv0) {
    vec2 uv = slot_linear(draw, kSlotBaseColor) * uv0 + draw.uv_transform[2u * kSlotBaseColor + 1u].xy;
    return scene_texture_lod0(draw.base_color_texture, true, uv).a * draw.base_color.a;
}

#endif
