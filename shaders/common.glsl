// Shared declarations: the layouts here mirror src/render/gpu_types.h byte for byte.
#ifndef COMMON_GLSL
#define COMMON_GLSL

struct DrawData {
    mat4 model;
    mat4 normal_matrix;   // inverse-transpose of model (upper 3x3 used)
    vec4 base_color;
    uint base_color_texture;  // into the scene's textures (scene_textures.glsl); 0 is plain white
    uint first_index;     // first index of this draw's triangles in the source index buffer
    uint index_count;     // 3 x triangles
    uint out_first;       // first index of this draw's range in the culled index buffer
    float metallic;       // glTF metallic and roughness factors: ray-traced reflections
    float roughness;
    float alpha_cutoff;   // alphaMode MASK: texels with alpha below it are holes; 0: opaque
    uint mesh;            // the unique mesh (its BLAS)
    // Levels of detail (lod.glsl, docs/lod.md): level 0 is first_index, index_count.
    vec4 bounding_sphere;      // object space: centre, radius
    float lod_error[8];        // per level, object space
    uint lod_first_index[8];
    uint lod_index_count[8];
    uint lod_count;            // >= 1
    uint emissive_texture;     // into the scene's textures (scene_textures.glsl); 0 is plain white
    uint lod_pad1, lod_pad2;
    vec4 emissive;             // rgb: emissiveFactor x emissiveStrength (linear), times the texture
    // The rest of the metallic-roughness material (material.glsl); 0: white (the factor alone; no
    // normal map for the normal texture).
    uint metallic_roughness_texture;
    uint normal_texture;
    uint occlusion_texture;
    float normal_scale;
    float occlusion_strength;
    uint texcoords;            // bit s: slot s reads TEXCOORD_1 (slots: material.glsl's kSlot*)
    uint material;             // the scene's material: draws of one material have the same material data
    uint material_pad;
    vec4 uv_transform[10];     // per slot: [2s] the 2x2 linear part's columns, [2s + 1].xy the offset
};

struct PointLight {
    vec4 position_radius;  // xyz world position, w radius (the light is exactly zero beyond it)
    vec4 color;            // rgb intensity
};

struct FrameUniforms {
    mat4 view_proj;
    mat4 view;
    vec4 camera_position;
    vec4 sun_direction;    // towards the sun, normalized
    vec4 sun_color;
    vec4 ambient;
    uvec4 sizes;           // x width, y height, z light count, w frame index
    uvec4 tiles;           // x tiles across, y tiles down, z list capacity per tile, w draw count
    vec4 projection;       // x = P[0][0], y = P[1][1], z near, w far (reversed Z: depth 1 at near)
    mat4 inverse_view_proj;  // clip -> world (the ray tracer's primary rays, from depth)
    mat4 previous_view_proj; // occlusion: the previous pyramid's view-projection
    uvec4 occlusion;         // x: a previous pyramid exists, y: its base, z: this frame's base (texels)
};

// Finite-radius point light falloff: smooth, and exactly 0 at and beyond the radius, so a light
// list that omits a light outside its radius changes nothing in the image.
float light_falloff(float distance, float radius) {
    float x = clamp(distance / radius, 0.0, 1.0);
    float f = 1.0 - x * x;
    return f * f / (1.0 + distance * distance);
}

vec3 srgb_encode(vec3 linear) {
    vec3 lo = linear * 12.92;
    vec3 hi = 1.055 * pow(linear, vec3(1.0 / 2.4)) - 0.055;
    return mix(lo, hi, step(vec3(0.0031308), linear));
}

vec3 srgb_decode(vec3 encoded) {
    vec3 lo = encoded / 12.92;
    vec3 hi = pow((encoded + 0.055) / 1.055, vec3(2.4));
    return mix(lo, hi, step(vec3(0.04045), encoded));
}

#endif
