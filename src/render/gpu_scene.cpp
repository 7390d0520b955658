#include "render/gpu_scene.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <type_traits>

#include "scene/texture_mips.h"

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
        d.base_color_texture = material.base_color_texture >= 0 ? uint32_t(material.base_color_texture) + 1 : 0;
        d.first_index = mesh.first_index;
        d.index_count = mesh.index_count;
        d.out_first = out_first;
        d.metallic = material.metallic;
        d.roughness = material.roughness;
        d.alpha_cutoff = material.alpha_cutoff;
        d.emissive = glm::vec4(material.emissive, 0.0f);
        d.emissive_texture = material.emissive_texture >= 0 ? uint32_t(material.emissive_texture) + 1 : 0;
        auto texture = [](int t) { return t >= 0 ? uint32_t(t) + 1 : 0u; };
        d.metallic_roughness_texture = texture(material.metallic_roughness_texture);
        d.normal_texture = texture(material.normal_texture);
        d.occlusion_texture = texture(material.occlusion_texture);
        d.normal_scale = material.normal_scale;
        d.material = mesh.material;
        d.occlusion_strength = material.occlusion_strength;
        for (int s = 0; s < kSlotCount; ++s) {
            const glm::mat3& m = material.uv[s].map;
            d.uv_transform[2 * s] = glm::vec4(m[0][0], m[0][1], m[1][0], m[1][1]);
            d.uv_transform[2 * s + 1] = glm::vec4(m[2][0], m[2][1], 0.0f, 0.0f);
            d.texcoords |= uint32_t(material.uv[s].texcoord == 1) << s;
        }
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

namespace {

// What upload_textures() uploads: texture 0 is one white texel (untextured materials), texture i + 1
// scene texture i. A texture that failed to decode is not in scene.textures at all (the loader drops it).
Texture white_texel() {
    Texture t;
    t.width = t.height = 1;
    t.rgba = {255, 255, 255, 255};
    return t;
}

bool usable(const Texture& t) {
    return t.width > 0 && t.height > 0 && t.rgba.size() >= size_t(t.width) * size_t(t.height) * 4;
}

// Each texture as uploaded: a texture without texels (only a hand-made Scene has one) is white.
// `each` may take a second argument: whether a masked material samples it (alpha-weighted mips).
template <typename Each>
void for_each_texture(const Scene& scene, Each each) {
    const Texture white = white_texel();
    std::vector<bool> masked = masked_textures(scene);
    auto call = [&](const Texture& t, bool alpha_weighted) {
        if constexpr (std::is_invocable_v<Each, const Texture&, bool>) each(t, alpha_weighted);
        else each(t);
    };
    call(white, false);
    for (size_t i = 0; i < scene.textures.size(); ++i) call(usable(scene.textures[i]) ? scene.textures[i] : white, masked[i]);
}

// Uploads stage at most this much at a time (more only for one larger texture).
constexpr uint64_t kTextureBatchBytes = 64ull << 20;

VkFormat texture_format(const Texture& t) { return t.srgb ? VK_FORMAT_R8G8B8A8_SRGB : VK_FORMAT_R8G8B8A8_UNORM; }

}  // namespace

VkExtent2D texture_layer_extent(const Scene& scene) {
    VkExtent2D extent{1, 1};
    for_each_texture(scene, [&](const Texture& t) {
        extent.width = std::max(extent.width, std::min(uint32_t(t.width), kMaxTextureLayerSide));
        extent.height = std::max(extent.height, std::min(uint32_t(t.height), kMaxTextureLayerSide));
    });
    return extent;
}

uint64_t texture_bytes(const Scene& scene, bool layers) {
    uint64_t bytes = 0, count = 0;
    for_each_texture(scene, [&](const Texture& t) {
        bytes += mip_chain_bytes(uint32_t(t.width), uint32_t(t.height));
        ++count;
    });
    if (!layers) return bytes;
    VkExtent2D extent = texture_layer_extent(scene);
    return count * mip_chain_bytes(extent.width, extent.height);
}

uint64_t texture_staging_bytes(const Scene& scene, bool layers) {
    uint64_t largest = 0;
    for_each_texture(scene, [&](const Texture& t) {
        largest = std::max(largest, mip_chain_bytes(uint32_t(t.width), uint32_t(t.height)));
    });
    if (layers) {
        VkExtent2D extent = texture_layer_extent(scene);
        largest = mip_chain_bytes(extent.width, extent.height);
    }
    return std::max(largest, std::min(texture_bytes(scene, layers), kTextureBatchBytes));
}

float sampler_anisotropy(const Context& ctx) {
    VkPhysicalDeviceFeatures features;  // create_device() enables samplerAnisotropy where offered
    vkGetPhysicalDeviceFeatures(ctx.physical, &features);
    if (!features.samplerAnisotropy) return 1.0f;
    // lavapipe (Mesa 25.0) offers anisotropy, but the compute shading pass's textureGrad samples
    // isotropically where forward's texture() does not: with 16x the two shading paths differed by
    // 39.2 dB on the bundled scene and 28.2 dB on a checker at a grazing angle (the compute frame
    // the blurrier), with 1x by 61.6 and 53.5 dB (docs/scenes.md, "Textures"). Trilinear there, so
    // both paths filter alike.
    VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
    VkPhysicalDeviceProperties2 properties{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &driver};
    vkGetPhysicalDeviceProperties2(ctx.physical, &properties);
    if (driver.driverID == VK_DRIVER_ID_MESA_LLVMPIPE) return 1.0f;
    return std::clamp(ctx.properties.limits.maxSamplerAnisotropy, 1.0f, 16.0f);
}

namespace {

// A texture's mip chain, staged at `offset`, copied into `layer` of `image`.
void copy_mip_chain(VkCommandBuffer cmd, VkBuffer staging, VkImage image, const MipChain& chain, uint64_t offset, uint32_t layer) {
    std::vector<VkBufferImageCopy> regions;
    for (uint32_t l = 0; l < chain.levels.size(); ++l) {
        VkBufferImageCopy region{};
        region.bufferOffset = offset + chain.levels[l].offset;
        region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, l, layer, 1};
        region.imageExtent = {chain.levels[l].width, chain.levels[l].height, 1};
        regions.push_back(region);
    }
    vkCmdCopyBufferToImage(cmd, staging, image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, uint32_t(regions.size()), regions.data());
}

// The two layout changes of a texture upload: to the copies, then to every stage that shades or
// alpha-tests (the pre-pass, forward, compute, rays).
void begin_texture_upload(VkCommandBuffer cmd, VkImage image) {
    // Hand-written: a texture uploads once at load, before any frame (the graph follows frames).
    image_barrier(cmd, image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                  VK_PIPELINE_STAGE_2_NONE, 0, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT);
}
void end_texture_upload(VkCommandBuffer cmd, Image& image) {
    // Hand-written: a texture uploads once at load, before any frame (the graph follows frames).
    image_barrier(cmd, image.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                  VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                  VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_SHADER_SAMPLED_READ_BIT);
    image.layout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
}

// Every texture's chain is built on the host (scene/texture_mips.h: colour filtered in linear light,
// premultiplied where a masked material samples it),
// staged in batches of up to kTextureBatchBytes and copied level by level; then the array's
// descriptors are written once.
void upload_textures(const Context& ctx, const Scene& scene, GpuScene& gpu) {
    Buffer staging = create_buffer(ctx, texture_staging_bytes(scene, false), VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                   MemoryKind::host_upload, "texture staging");
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    uint64_t staged = 0;
    auto flush = [&] {
        if (cmd) end_one_shot(ctx, cmd);
        cmd = VK_NULL_HANDLE;
        staged = 0;
    };
    for_each_texture(scene, [&](const Texture& t, bool alpha_weighted) {
        const MipChain& chain = scene_mip_chain(scene, t, alpha_weighted);
        if (staged + chain.rgba.size() > staging.size) flush();
        if (!cmd) cmd = begin_one_shot(ctx);
        memcpy(static_cast<uint8_t*>(staging.mapped) + staged, chain.rgba.data(), chain.rgba.size());
        uint32_t levels = uint32_t(chain.levels.size());
        Image image = create_image(ctx, {chain.levels[0].width, chain.levels[0].height}, texture_format(t),
                                   VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT, "textures", 1, false, levels);
        begin_texture_upload(cmd, image.image);
        copy_mip_chain(cmd, staging.buffer, image.image, chain, staged, 0);
        end_texture_upload(cmd, image);
        staged += chain.rgba.size();  // a multiple of 4: every copy's offset is one of the texel size
        gpu.texture_bytes += chain.rgba.size();
        gpu.textures.push_back(std::move(image));
    });
    flush();
}

// Without descriptor indexing: every texture resampled to one size (texture_layer_extent; the same
// texels where it has that size already), its chain built as upload_textures builds it, and
// copied into its layer of one UNORM image that an sRGB view also reads (MUTABLE_FORMAT).
void upload_texture_layers(const Context& ctx, const Scene& scene, GpuScene& gpu) {
    VkExtent2D extent = texture_layer_extent(scene);
    uint32_t layers = 0;
    for_each_texture(scene, [&](const Texture&) { ++layers; });
    uint32_t levels = mip_level_count(extent.width, extent.height);
    Image image = create_image(ctx, extent, VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
                               "textures", layers, true, levels, VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT);
    VkImageViewCreateInfo view{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
    view.image = image.image;
    view.viewType = VK_IMAGE_VIEW_TYPE_2D_ARRAY;
    view.format = VK_FORMAT_R8G8B8A8_SRGB;
    view.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, levels, 0, layers};
    VK_CHECK(vkCreateImageView(ctx.device, &view, nullptr, &gpu.colour_layers));

    Buffer staging = create_buffer(ctx, texture_staging_bytes(scene, true), VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                   MemoryKind::host_upload, "texture staging");
    VkCommandBuffer cmd = begin_one_shot(ctx);
    begin_texture_upload(cmd, image.image);
    uint64_t staged = 0;
    uint32_t layer = 0;
    for_each_texture(scene, [&](const Texture& t, bool alpha_weighted) {
        MipChain chain = build_mip_chain(resample_texture(t, extent.width, extent.height, alpha_weighted), alpha_weighted);
        if (staged + chain.rgba.size() > staging.size) {
            end_one_shot(ctx, cmd);  // waits: the staging buffer may be written again
            cmd = begin_one_shot(ctx);
            staged = 0;
        }
        memcpy(static_cast<uint8_t*>(staging.mapped) + staged, chain.rgba.data(), chain.rgba.size());
        copy_mip_chain(cmd, staging.buffer, image.image, chain, staged, layer);
        staged += chain.rgba.size();
        gpu.texture_bytes += chain.rgba.size();
        ++layer;
    });
    end_texture_upload(cmd, image);
    end_one_shot(ctx, cmd);
    gpu.textures.push_back(std::move(image));
}

void create_texture_set(const Context& ctx, GpuScene& gpu) {
    VkSamplerCreateInfo sampler{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
    sampler.magFilter = VK_FILTER_LINEAR;
    sampler.minFilter = VK_FILTER_LINEAR;
    sampler.mipmapMode = VK_SAMPLER_MIPMAP_MODE_LINEAR;
    sampler.addressModeU = VK_SAMPLER_ADDRESS_MODE_REPEAT;
    sampler.addressModeV = VK_SAMPLER_ADDRESS_MODE_REPEAT;
    sampler.addressModeW = VK_SAMPLER_ADDRESS_MODE_REPEAT;
    sampler.maxLod = VK_LOD_CLAMP_NONE;
    sampler.anisotropyEnable = sampler_anisotropy(ctx) > 1.0f;
    sampler.maxAnisotropy = sampler_anisotropy(ctx);
    VK_CHECK(vkCreateSampler(ctx.device, &sampler, nullptr, &gpu.sampler));

    const bool layers = !ctx.features.descriptor_indexing;
    if (layers) {
        // The two views of the one array texture (scene_textures.glsl SCENE_TEXTURE_LAYERS).
        VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 2};
        VkDescriptorPoolCreateInfo pool{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
        pool.maxSets = 1;
        pool.poolSizeCount = 1;
        pool.pPoolSizes = &size;
        VK_CHECK(vkCreateDescriptorPool(ctx.device, &pool, nullptr, &gpu.texture_pool));
        VkDescriptorSetAllocateInfo allocate{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
        allocate.descriptorPool = gpu.texture_pool;
        allocate.descriptorSetCount = 1;
        allocate.pSetLayouts = &ctx.texture_set_layout;
        VK_CHECK(vkAllocateDescriptorSets(ctx.device, &allocate, &gpu.texture_set));
        VkDescriptorImageInfo views[2] = {{gpu.sampler, gpu.colour_layers, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL},
                                          {gpu.sampler, gpu.textures[0].view, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL}};
        VkWriteDescriptorSet writes[2];
        for (uint32_t b = 0; b < 2; ++b) {
            writes[b] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
            writes[b].dstSet = gpu.texture_set;
            writes[b].dstBinding = b;
            writes[b].descriptorCount = 1;
            writes[b].descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
            writes[b].pImageInfo = &views[b];
        }
        vkUpdateDescriptorSets(ctx.device, 2, writes, 0, nullptr);
        return;
    }
    uint32_t count = uint32_t(gpu.textures.size());
    VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, count};
    VkDescriptorPoolCreateInfo pool{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    pool.maxSets = 1;
    pool.poolSizeCount = 1;
    pool.pPoolSizes = &size;
    VK_CHECK(vkCreateDescriptorPool(ctx.device, &pool, nullptr, &gpu.texture_pool));
    VkDescriptorSetVariableDescriptorCountAllocateInfo variable{
        VK_STRUCTURE_TYPE_DESCRIPTOR_SET_VARIABLE_DESCRIPTOR_COUNT_ALLOCATE_INFO};
    variable.descriptorSetCount = 1;
    variable.pDescriptorCounts = &count;
    VkDescriptorSetAllocateInfo allocate{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO, &variable};
    allocate.descriptorPool = gpu.texture_pool;
    allocate.descriptorSetCount = 1;
    allocate.pSetLayouts = &ctx.texture_set_layout;
    VK_CHECK(vkAllocateDescriptorSets(ctx.device, &allocate, &gpu.texture_set));
    std::vector<VkDescriptorImageInfo> images;
    for (const Image& image : gpu.textures) images.push_back({gpu.sampler, image.view, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL});
    VkWriteDescriptorSet write{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    write.dstSet = gpu.texture_set;
    write.dstBinding = 0;
    write.descriptorCount = count;
    write.descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
    write.pImageInfo = images.data();
    vkUpdateDescriptorSets(ctx.device, 1, &write, 0, nullptr);
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
    // Tangents and TEXCOORD_1 (material shading only): one per vertex, defaults where the scene has none.
    std::vector<VertexMaterial> vertex_materials = scene.vertex_materials;
    vertex_materials.resize(std::max<size_t>(scene.vertices.size(), 1));
    gpu.vertex_materials = create_buffer_with_data(ctx, vertex_materials.data(), vertex_materials.size() * sizeof(VertexMaterial),
                                                   VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | storage, "vertex materials");
    // Read back by --cull-dump with --cull off (each draw's whole level).
    gpu.indices = create_buffer_with_data(ctx, scene.indices.data(), scene.indices.size() * sizeof(uint32_t),
                                          VK_BUFFER_USAGE_INDEX_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | storage |
                                              build_input,
                                          "source indices");
    gpu.draws = create_buffer_with_data(ctx, gpu.cpu_draws.data(), gpu.cpu_draws.size() * sizeof(GpuDraw), storage, "draws");
    gpu.indirect_all = create_buffer_with_data(ctx, all.data(), all.size() * sizeof(all[0]),
                                               VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | storage, "indirect (all)");
    gpu.all_draws_count = create_buffer_with_data(ctx, &gpu.draw_count, sizeof(gpu.draw_count), VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT,
                                                  "all draws count");
    gpu.indirect_template = create_buffer_with_data(ctx, empty.data(), empty.size() * sizeof(empty[0]),
                                                    VK_BUFFER_USAGE_TRANSFER_SRC_BIT | storage, "indirect template");
    auto start = std::chrono::steady_clock::now();
    if (ctx.features.descriptor_indexing) upload_textures(ctx, scene, gpu);
    else upload_texture_layers(ctx, scene, gpu);
    create_texture_set(ctx, gpu);
    gpu.texture_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

GpuScene::~GpuScene() {
    if (texture_pool) vkDestroyDescriptorPool(device, texture_pool, nullptr);
    if (colour_layers) vkDestroyImageView(device, colour_layers, nullptr);
    if (sampler) vkDestroySampler(device, sampler, nullptr);
}
