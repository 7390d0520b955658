// CPU-side scene: what the glTF loader produces and the renderer uploads.
// Everything here is plain data; no Vulkan.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "scene/gpu_layout.h"  // kMaxLodLevels, kMaterialSlots

// 32 bytes, tightly packed: the vertex buffer layout and the layout the cull shader reads.
struct Vertex {
    glm::vec3 position;
    glm::vec3 normal;
    glm::vec2 uv;
};
static_assert(sizeof(Vertex) == 32);

// The attributes only materials read, in a stream of their own beside Scene::vertices (same index),
// so every pass that reads positions keeps its 32-byte vertex: glTF TANGENT (xyz, w the bitangent's
// sign; w = 0 where the primitive has none: the shader builds a frame from derivatives) and TEXCOORD_1.
struct VertexMaterial {
    glm::vec4 tangent{0.0f};
    glm::vec2 uv1{0.0f};
    glm::vec2 pad{0.0f};
};
static_assert(sizeof(VertexMaterial) == 32);

// One image at its own size, as decoded; the renderer adds its mip chain (scene/texture_mips.h).
struct Texture {
    int width = 0;
    int height = 0;
    std::vector<uint8_t> rgba;  // width * height * 4 bytes, RGBA8 as stored in the file
    bool srgb = true;           // colour (sRGB-encoded, base colour): sampled and filtered in linear light
};

// Where a texture slot reads its coordinates: the glTF texCoord set (TEXCOORD_0 or TEXCOORD_1) and
// its KHR_texture_transform (identity without one), applied in the shader per slot
// (shaders/material.glsl): uv' = map * (uv, 1).
struct TextureUv {
    glm::mat3 map{1.0f};
    int texcoord = 0;
};

// A material's texture slots, in GpuDraw::uv_transform order.
enum MaterialSlot { kSlotBaseColor, kSlotMetallicRoughness, kSlotNormal, kSlotOcclusion, kSlotEmissive, kSlotCount };
static_assert(kSlotCount == gpu::kMaterialSlots);

struct Material {
    glm::vec4 base_color_factor{1.0f};
    int base_color_texture = -1;  // index into Scene::textures, -1 for none
    float metallic = 1.0f;        // glTF metallicFactor / roughnessFactor (their defaults), times the
    float roughness = 1.0f;       // metallic-roughness texture's B and G where there is one
    int metallic_roughness_texture = -1;  // linear data: G roughness, B metallic
    int normal_texture = -1;              // linear data: tangent-space normal, +Y up (glTF)
    float normal_scale = 1.0f;            // normalTexture.scale: x and y of the sampled normal
    int occlusion_texture = -1;           // linear data: R ambient occlusion
    float occlusion_strength = 1.0f;      // occlusionTexture.strength: 1 + strength x (R - 1)
    // glTF alphaMode MASK: texels whose alpha (texture times factor) is below the cutoff are holes,
    // in the depth pre-pass and for every ray. 0: opaque (OPAQUE, and BLEND, drawn opaque).
    float alpha_cutoff = 0.0f;
    // Emitted light (linear): emissiveFactor x KHR_materials_emissive_strength's emissiveStrength,
    // times the emissive texture (sRGB colour) where there is one.
    glm::vec3 emissive{0.0f};
    int emissive_texture = -1;
    TextureUv uv[kSlotCount];  // per slot: its texCoord set and KHR_texture_transform
};

// Levels of detail per mesh (docs/lod.md): defined with the structs the shaders read.
constexpr uint32_t kMaxLodLevels = gpu::kMaxLodLevels;

// One level of a mesh: its own triangles over the mesh's vertices (levels share the vertex buffer).
struct LodLevel {
    uint32_t first_index = 0;  // into Scene::indices
    uint32_t index_count = 0;
    float error = 0.0f;        // object space: how far the level's surface may lie from level 0's
};

// One glTF primitive (triangles). Indices are absolute into Scene::vertices.
struct Mesh {
    uint32_t first_index = 0;  // into Scene::indices
    uint32_t index_count = 0;  // multiple of 3
    uint32_t material = 0;     // into Scene::materials (the loader always provides at least one)
    // build_lod_chain() (scene/lod.h) fills these; until then the mesh is its only level.
    uint32_t lod_count = 0;                       // 0: not built (level 0 alone)
    LodLevel lods[kMaxLodLevels] = {};            // lods[0] is {first_index, index_count, 0}
    glm::vec4 bounding_sphere{0.0f};              // object space: centre, radius over its vertices
};

// A mesh placed in the world; one per (node, primitive) pair after flattening the node tree.
struct MeshInstance {
    uint32_t mesh = 0;
    glm::mat4 transform{1.0f};
};

struct Meshlets;       // scene/meshlets.h
struct MipChainCache;  // scene/texture_mips.h

struct Scene {
    std::string path;
    std::vector<Vertex> vertices;
    // Empty, or one per vertex: tangents and second UVs (a scene made without them draws with
    // none: the derivative frame and TEXCOORD_1 = 0).
    std::vector<VertexMaterial> vertex_materials;
    std::vector<uint32_t> indices;
    std::vector<Mesh> meshes;
    std::vector<MeshInstance> instances;
    std::vector<Material> materials;
    std::vector<Texture> textures;
    std::vector<std::string> warnings;  // non-fatal problems (e.g. a corrupt texture replaced by none)
    glm::vec3 bounds_min{0.0f};  // world-space bounds over all instances
    glm::vec3 bounds_max{0.0f};
    uint32_t grid = 1;           // --instances N: the scene was replicated N x N
    bool unique_meshes = false;  // --unique-meshes: each copy has its own vertices and indices
    double lod_build_ms = 0.0;   // host time of build_lod_chain() (scene/lod.h)
    // The meshes' meshlets (scene_meshlets, scene/meshlets.h), built on first use and kept, so that
    // the memory plan that counts the meshlet path's buffers and the path that uploads them build
    // them once.
    mutable std::shared_ptr<const Meshlets> meshlet_cache;
    // The textures' mip chains (scene_mip_chain, scene/texture_mips.h), built on first use and kept.
    mutable std::shared_ptr<MipChainCache> mip_chain_cache;

    uint64_t triangle_count() const;  // drawn triangles: sum over instances of mesh triangles
};

// Thrown for anything wrong with the input file: missing, unreadable, malformed, unsupported.
// main() turns it into exit code 3.
struct SceneError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Loads a .gltf or .glb file. Every accessor, buffer view and index is bounds-checked.
Scene load_scene(const std::string& path);

// Same, from bytes in memory (used by the fuzzer and tests). base_dir resolves external URIs;
// pass an empty string to forbid external files.
Scene load_scene_from_memory(const uint8_t* data, size_t size, const std::string& base_dir, bool binary);

// Replicates every instance in an n x n grid on the XZ plane, spaced by the scene's extent,
// and updates the bounds. unique_meshes (--unique-meshes): every copy but the first also gets its
// own copy of the vertices, indices and meshes, so copies draw distinct bytes (same geometry).
void replicate_grid(Scene& scene, uint32_t n, bool unique_meshes = false);

// Recomputes bounds_min/bounds_max over all instances (all zero when nothing is drawn).
void update_bounds(Scene& scene);
