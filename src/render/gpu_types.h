// C++ mirrors of the structs in shaders/common.glsl (std430 / std140 compatible as laid out).
#pragma once

#include <cstdint>

#include <glm/glm.hpp>

#include "scene/scene.h"  // kMaxLodLevels

struct GpuDraw {
    glm::mat4 model;
    glm::mat4 normal_matrix;
    glm::vec4 base_color;
    uint32_t base_color_texture;  // into GpuScene::textures (0: white)
    uint32_t first_index;
    uint32_t index_count;
    uint32_t out_first;
    // Ray tracing (docs/ray-tracing.md): the material's metallic and roughness factors, its alpha
    // cutoff (0: opaque; else alphaMode MASK, also tested by the depth pre-pass), and the unique mesh
    // whose BLAS the draw's TLAS instance uses.
    float metallic;
    float roughness;
    float alpha_cutoff;
    uint32_t mesh;
    // Levels of detail (docs/lod.md, shaders/lod.glsl): the mesh's bounding sphere (object space)
    // and per level its index range and object-space error. Level 0 is first_index, index_count.
    glm::vec4 bounding_sphere;
    float lod_error[kMaxLodLevels];
    uint32_t lod_first_index[kMaxLodLevels];
    uint32_t lod_index_count[kMaxLodLevels];
    uint32_t lod_count;          // >= 1
    uint32_t emissive_texture;   // into GpuScene::textures (0: white)
    uint32_t pad[2];
    glm::vec4 emissive;          // rgb: emissiveFactor x emissiveStrength (linear)
    // The rest of the metallic-roughness material (shaders/material.glsl), textures into
    // GpuScene::textures (0: white, i.e. the factor alone; a normal texture 0 maps nothing).
    uint32_t metallic_roughness_texture;
    uint32_t normal_texture;
    uint32_t occlusion_texture;
    float normal_scale;
    float occlusion_strength;
    uint32_t texcoords;          // bit s: slot s (MaterialSlot) reads TEXCOORD_1
    uint32_t material;           // Scene::materials index (the shading pass's material waterfall)
    uint32_t material_pad;
    // Per slot (MaterialSlot order) its KHR_texture_transform: [2s] the 2x2 linear part's columns
    // (x0, y0, x1, y1), [2s + 1].xy the offset.
    glm::vec4 uv_transform[2 * kSlotCount];
};
static_assert(sizeof(GpuDraw) == 512 && kMaxLodLevels == 8 && kSlotCount == 5);

struct GpuLight {
    glm::vec4 position_radius;
    glm::vec4 color;
};
static_assert(sizeof(GpuLight) == 32);

struct FrameUniforms {
    glm::mat4 view_proj;
    glm::mat4 view;
    glm::vec4 camera_position;
    glm::vec4 sun_direction;
    glm::vec4 sun_color;
    glm::vec4 ambient;
    glm::uvec4 sizes;       // width, height, light count, frame index
    glm::uvec4 tiles;       // tiles across, tiles down, list capacity per tile, draw count
    glm::vec4 projection;   // P[0][0], P[1][1], near, far
    glm::mat4 inverse_view_proj;  // clip -> world: the ray tracer's primary rays from depth
    // Occlusion culling (passes/occlusion_pass.h): the view-projection the previous pyramid was
    // built with, and x: that pyramid exists, y: where it starts in the pyramid buffer, z: where
    // this frame's starts (texels). All 0 without occlusion.
    glm::mat4 previous_view_proj;
    glm::uvec4 occlusion;
};
