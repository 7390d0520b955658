// The structs and constants both C++ and the shaders read: one definition, compiled as C++
// (render/gpu_types.h names the structs for the renderer) and as GLSL (shaders/common.glsl includes
// this file). Every vec4 and mat4 sits at a multiple of 16 bytes and the scalars between them fill
// whole vec4s, so std430 (storage buffers), std140 (the frame's uniform buffer) and C++ lay each
// struct out alike; the GpuLayout unit tests compare every member's offset in the compiled SPIR-V
// with C++'s offsetof. Keep it so: no vec3, vec2 or bool members, and arrays only of 4-byte scalars
// in storage-buffer structs or of vec4s.
#ifndef SGD_GPU_LAYOUT_H
#define SGD_GPU_LAYOUT_H

#ifdef __cplusplus
#include <cstdint>

#include <glm/glm.hpp>

namespace gpu {
// GLSL's names for glm's types, inside this namespace only.
using uint = uint32_t;
using vec4 = glm::vec4;
using uvec4 = glm::uvec4;
using mat4 = glm::mat4;
#endif

// Levels of detail per mesh (docs/lod.md): level 0 is the mesh itself, each further level about
// half the triangles of the one before, down to about 1/64 (7 levels), so 8 is enough.
const uint kMaxLodLevels = 8u;
// A material's texture slots (scene.h's MaterialSlot, material.glsl's kSlot*).
const uint kMaterialSlots = 5u;

// One mesh instance: its transform, material and index ranges (GpuScene::draws; the shaders' draws[]).
struct DrawData {
    mat4 model;
    mat4 normal_matrix;        // inverse-transpose of model (upper 3x3 used)
    vec4 base_color;
    uint base_color_texture;   // into the scene's textures (scene_textures.glsl); 0 is plain white
    uint first_index;          // first index of this draw's triangles in the source index buffer
    uint index_count;          // 3 x triangles
    uint out_first;            // first index of this draw's range in the culled index buffer
    // Ray tracing (docs/ray-tracing.md): the glTF metallic and roughness factors, the alpha cutoff
    // (0: opaque; else alphaMode MASK, also tested by the depth pre-pass), and the unique mesh whose
    // BLAS the draw's TLAS instance uses.
    float metallic;
    float roughness;
    float alpha_cutoff;        // texels with alpha below it are holes
    uint mesh;
    // Levels of detail (docs/lod.md, shaders/lod.glsl): the mesh's bounding sphere and per level
    // its index range and error, both in object space. Level 0 is first_index, index_count.
    vec4 bounding_sphere;      // centre, radius
    float lod_error[kMaxLodLevels];
    uint lod_first_index[kMaxLodLevels];
    uint lod_index_count[kMaxLodLevels];
    uint lod_count;            // >= 1
    uint emissive_texture;     // into the scene's textures; 0 is plain white
    uint lod_pad1, lod_pad2;
    vec4 emissive;             // rgb: emissiveFactor x emissiveStrength (linear), times the texture
    // The rest of the metallic-roughness material (shaders/material.glsl), textures into the
    // scene's textures (0: white, i.e. the factor alone; a normal texture 0 maps nothing).
    uint metallic_roughness_texture;
    uint normal_texture;
    uint occlusion_texture;
    float normal_scale;
    float occlusion_strength;
    uint texcoords;            // bit s: slot s reads TEXCOORD_1
    uint material;             // the scene's material: draws of one material have the same material data
    uint material_pad;
    // Per slot its KHR_texture_transform: [2s] the 2x2 linear part's columns (x0, y0, x1, y1),
    // [2s + 1].xy the offset.
    vec4 uv_transform[2u * kMaterialSlots];
};

struct PointLight {
    vec4 position_radius;  // xyz world position, w radius (the light is exactly zero beyond it)
    vec4 color;            // rgb intensity
};

// The frame's uniform buffer (binding 0 of the scene's passes).
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
    mat4 inverse_view_proj;  // clip -> world: the ray tracer's primary rays from depth
    // Occlusion culling (docs/occlusion.md): the view-projection the previous pyramid was built
    // with, and x: that pyramid exists, y: where it starts in the pyramid buffer, z: where this
    // frame's starts (texels). All 0 without occlusion.
    mat4 previous_view_proj;
    uvec4 occlusion;
};

#ifdef __cplusplus
}  // namespace gpu
#endif

#endif
