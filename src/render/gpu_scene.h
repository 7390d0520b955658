// The scene on the GPU: vertices, source indices, per-draw data, textures, and the indirect
// commands that draw everything at level 0 (what the scene passes draw where no cull pass set
// commands this frame) and the template the cull pass starts from.
#pragma once

#include <vector>

#include "render/gpu_types.h"
#include "scene/scene.h"
#include "vk/resources.h"

struct GpuScene {
    Buffer vertices;          // Vertex[], vertex input and storage (the cull pass reads positions)
    Buffer vertex_materials;  // VertexMaterial[] beside it: tangents, TEXCOORD_1 (materials only)
    Buffer indices;           // uint32 source indices, absolute into vertices
    Buffer draws;             // GpuDraw[], one per mesh instance
    Buffer indirect_all;      // VkDrawIndexedIndirectCommand[]: every triangle of every draw
    Buffer indirect_template; // same commands with indexCount 0 and firstIndex = out_first: the cull pass's start
    // One word, draw_count: the count of the scene's draws after a frame's first counted draw
    // (FrameContext::drew_with_count; read only where the device has drawIndirectCount).
    Buffer all_draws_count;
    // The texture array the shaders index (shaders/scene_textures.glsl): [0] one white texel (the
    // untextured materials), [i + 1] scene texture i at its own size with its full mip chain
    // (scene/texture_mips.h), R8G8B8A8_SRGB for colour, UNORM for data. Written once into
    // texture_set (Context::texture_set_layout), each with `sampler`.
    // Without descriptor indexing (Context features, docs/materials.md) `textures` holds one image
    // instead: every texture a layer of it at one size (texture_layer_extent), entry i layer i,
    // UNORM with its view for the data slots and colour_layers, an sRGB view, for the colour ones.
    std::vector<Image> textures;
    VkImageView colour_layers = VK_NULL_HANDLE;
    VkSampler sampler = VK_NULL_HANDLE;  // trilinear, anisotropic where the device offers it, repeat
    VkDescriptorPool texture_pool = VK_NULL_HANDLE;
    VkDescriptorSet texture_set = VK_NULL_HANDLE;
    uint64_t texture_bytes = 0;      // every level of every texture
    double texture_ms = 0.0;         // host time of the mip chains and their upload
    VkDevice device = VK_NULL_HANDLE;

    std::vector<GpuDraw> cpu_draws;  // kept for the tests' CPU references and the report
    // The unique meshes (GpuDraw::mesh): one BLAS each (passes/ray_trace_pass.cpp), opaque unless
    // their material is alpha-masked.
    struct MeshRange {
        uint32_t first_index, index_count;
        bool alpha_masked;
    };
    std::vector<MeshRange> meshes;
    uint32_t vertex_count = 0;
    bool alpha_masked = false;       // some draw's material is alphaMode MASK: the depth pre-pass tests alpha
    uint32_t draw_count = 0;
    uint64_t triangle_count = 0;     // drawn triangles, all draws
    uint64_t culled_index_capacity = 0;  // indices the culled index buffer must hold (sum of index_count)
    uint32_t max_draw_triangles = 0;

    GpuScene() = default;
    GpuScene(const GpuScene&) = delete;
    ~GpuScene();
};

void upload_scene(const Context& ctx, const Scene& scene, GpuScene& gpu);

// Per-draw data for a scene (no GPU): what upload_scene puts in `draws`.
std::vector<GpuDraw> build_draws(const Scene& scene);
// Bytes of every texture's mip chain, the white texel included (GpuScene::textures), and of the
// staging buffer their upload uses: what run/limits.cpp plans.
// layers: as the layers of one array texture (devices without descriptor indexing).
uint64_t texture_bytes(const Scene& scene, bool layers);
uint64_t texture_staging_bytes(const Scene& scene, bool layers);
// The layers' size: the largest width and height among the scene's textures, each at most
// kMaxTextureLayerSide (a larger texture is filtered down to it), at least 1.
constexpr uint32_t kMaxTextureLayerSide = 2048;
VkExtent2D texture_layer_extent(const Scene& scene);
// The largest anisotropy the scene's sampler uses (1: none): 16, or less where the device offers
// less; 1 on lavapipe, whose compute textureGrad would filter unlike forward (gpu_scene.cpp).
float sampler_anisotropy(const Context& ctx);
