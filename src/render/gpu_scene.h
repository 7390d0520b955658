// The scene on the GPU: vertices, source indices, per-draw data, textures, and the indirect
// commands that draw everything at level 0 (what the scene passes draw where no cull pass set
// commands this frame) and the template the cull pass starts from.
#pragma once

#include <vector>

#include "render/gpu_types.h"
#include "scene/scene.h"
#include "vk/resources.h"

constexpr uint32_t kTextureSize = 512;  // every base-colour texture is resampled to one array layer

struct GpuScene {
    Buffer vertices;          // Vertex[], vertex input and storage (the cull pass reads positions)
    Buffer indices;           // uint32 source indices, absolute into vertices
    Buffer draws;             // GpuDraw[], one per mesh instance
    Buffer indirect_all;      // VkDrawIndexedIndirectCommand[]: every triangle of every draw
    Buffer indirect_template; // same commands with indexCount 0 and firstIndex = out_first: the cull pass's start
    Image textures;           // RGBA8 sRGB-encoded (stored as UNORM), kTextureSize^2, layer 0 white
    VkSampler sampler = VK_NULL_HANDLE;
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
// The texture array's layers as uploaded (RGBA8, kTextureSize^2 each, layer 0 white): what the
// shaders sample, so CPU references (the ray-traced alpha holes) can sample the same texels.
std::vector<uint8_t> build_texture_layers(const Scene& scene);
