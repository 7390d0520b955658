#include "render/gpu_scene.h"

#include <algorithm>
#include <cstring>

#include <stb/stb_image_resize.h>

std::vector<GpuDraw> build_draws(const Scene& scene) {
    std::vector<GpuDraw> draws;
    draws.reserve(scene.instances.size());
    uint32_t out_first = 0;
    for (const MeshInstance& instance : scene.instances) {
        const Mesh& mesh = scene.meshes[instance.mesh];
        const Material& material = scene.materials[mesh.material];
        GpuDraw d{};
        d.model = instance.transform;
        d.normal_matrix = glm::transpose(glm::inverse(instance.transform));
        d.base_color = material.base_color_factor;
        d.texture_layer = material.base_color_texture >= 0 ? uint32_t(material.base_color_texture) + 1 : 0;
        d.first_index = mesh.first_index;
        d.index_count = mesh.index_count;
        d.out_first = out_first;
        d.metallic = material.metallic;
        d.roughness = material.roughness;
        d.alpha_cutoff = material.alpha_cutoff;
        d.mesh = instance.mesh;
        // Levels (scene/lod.h); a mesh without a chain is its own only level.
        d.bounding_sphere = mesh.bounding_sphere;
        d.lod_count = std::max(1u, mesh.lod_count);
        d.lod_first_index[0] = mesh.first_index;
        d.lod_index_count[0] = mesh.index_count;
        for (uint32_t l = 1; l < mesh.lod_count; ++l) {
            d.lod_first_index[l] = mesh.lods[l].first_index;
            d.lod_index_count[l] = mesh.lods[l].index_count;
            d.lod_error[l] = mesh.lods[l].error;
        }
        // The draw's range of the culled index buffer holds its largest level, level 0.
        out_first += mesh.index_count;
        draws.push_back(d);
    }
    return draws;
}

// Texture layer 0 is white (untextured materials); layer i+1 is scene texture i, resampled.
std::vector<uint8_t> build_texture_layers(const Scene& scene) {
    const size_t layer_bytes = size_t(kTextureSize) * kTextureSize * 4;
    std::vector<uint8_t> pixels(layer_bytes * (scene.textures.size() + 1), 255);
    for (size_t i = 0; i < scene.textures.size(); ++i) {
        const Texture& t = scene.textures[i];
        uint8_t* dst = pixels.data() + layer_bytes * (i + 1);
        if (t.width <= 0 || t.height <= 0 || t.rgba.size() < size_t(t.width) * t.height * 4) continue;
        stbir_resize_uint8_srgb(t.rgba.data(), t.width, t.height, 0, dst, kTextureSize, kTextureSize, 0, 4, 3, 0);
    }
    return pixels;
}

namespace {

void upload_textures(const Context& ctx, const Scene& scene, GpuScene& gpu) {
    std::vector<uint8_t> pixels = build_texture_layers(scene);
    uint32_t layers = uint32_t(scene.textures.size() + 1);
    gpu.textures = create_image(ctx, {kTextureSize, kTextureSize}, VK_FORMAT_R8G8B8A8_UNORM,
                                VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT, "base colour textures", layers,
                                /*array_view=*/true);  // sampler2DArray, even for a scene without textures
    Buffer staging = create_buffer(ctx, pixels.size(), VK_BUFFER_USAGE_TRANSFER_SRC_BIT, MemoryKind::host_upload, "texture staging");
    memcpy(staging.mapped, pixels.data(), pixels.size());
    VkCommandBuffer cmd = begin_one_shot(ctx);
    image_barrier(cmd, gpu.textures.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                  VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_PIPELINE_STAGE_2_NONE, 0, VK_PIPELINE_STAGE_2_COPY_BIT,
                  VK_ACCESS_2_TRANSFER_WRITE_BIT);
    VkBufferImageCopy region{};
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, layers};
    region.imageExtent = {kTextureSize, kTextureSize, 1};
    vkCmdCopyBufferToImage(cmd, staging.buffer, gpu.textures.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
    image_barrier(cmd, gpu.textures.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                  VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                  VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT, VK_ACCESS_2_SHADER_SAMPLED_READ_BIT);
    end_one_shot(ctx, cmd);

    VkSamplerCreateInfo sampler{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
    sampler.magFilter = VK_FILTER_LINEAR;
    sampler.minFilter = VK_FILTER_LINEAR;
    sampler.mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST;
    sampler.addressModeU = VK_SAMPLER_ADDRESS_MODE_REPEAT;
    sampler.addressModeV = VK_SAMPLER_ADDRESS_MODE_REPEAT;
    sampler.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
    VK_CHECK(vkCreateSampler(ctx.device, &sampler, nullptr, &gpu.sampler));
}

}  // namespace

void upload_scene(const Context& ctx, const Scene& scene, GpuScene& gpu) {
    gpu.device = ctx.device;
    gpu.cpu_draws = build_draws(scene);
    gpu.draw_count = uint32_t(gpu.cpu_draws.size());

    std::vector<VkDrawIndexedIndirectCommand> all, empty;
    for (uint32_t i = 0; i < gpu.draw_count; ++i) {
        const GpuDraw& d = gpu.cpu_draws[i];
        all.push_back({d.index_count, 1, d.first_index, 0, i});
        empty.push_back({0, 1, d.out_first, 0, i});
        gpu.triangle_count += d.index_count / 3;
        gpu.culled_index_capacity += d.index_count;
        gpu.max_draw_triangles = std::max(gpu.max_draw_triangles, d.index_count / 3);
    }

    for (const Mesh& mesh : scene.meshes) {
        bool masked = scene.materials[mesh.material].alpha_cutoff > 0.0f;
        gpu.meshes.push_back({mesh.first_index, mesh.index_count, masked});
    }
    for (const GpuDraw& d : gpu.cpu_draws) gpu.alpha_masked |= d.alpha_cutoff > 0.0f;
    gpu.vertex_count = uint32_t(scene.vertices.size());

    const VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    // With ray tracing the BLAS builds read the positions and indices by device address.
    const VkBufferUsageFlags build_input = ctx.features.ray_tracing
                                               ? VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT |
                                                     VK_BUFFER_USAGE_ACCELERATION_STRUCTURE_BUILD_INPUT_READ_ONLY_BIT_KHR
                                               : 0;
    gpu.vertices = create_buffer_with_data(ctx, scene.vertices.data(), scene.vertices.size() * sizeof(Vertex),
                                           VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | storage | build_input, "vertices");
    // Read back by --cull-dump with --cull off (each draw's whole level).
    gpu.indices = create_buffer_with_data(ctx, scene.indices.data(), scene.indices.size() * sizeof(uint32_t),
                                          VK_BUFFER_USAGE_INDEX_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | storage |
                                              build_input,
                                          "source indices");
    gpu.draws = create_buffer_with_data(ctx, gpu.cpu_draws.data(), gpu.cpu_draws.size() * sizeof(GpuDraw), storage, "draws");
    gpu.indirect_all = create_buffer_with_data(ctx, all.data(), all.size() * sizeof(all[0]),
                                               VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT | storage, "indirect (all)");
    gpu.indirect_template = create_buffer_with_data(ctx, empty.data(), empty.size() * sizeof(empty[0]),
                                                    VK_BUFFER_USAGE_TRANSFER_SRC_BIT | storage, "indirect template");
    upload_textures(ctx, scene, gpu);
}

GpuScene::~GpuScene() {
    if (sampler) vkDestroySampler(device, sampler, nullptr);
}
