// A pipeline's descriptor and push-constant layout, as a pipeline is made with it
// (create_pipeline_layout, vk/resources.h) and as its shaders declare it (vk/spirv_reflect.h).
#pragma once

#include <cstdint>
#include <vector>

#include <vulkan/vulkan.h>

// A binding number a layout leaves unused (LayoutDesc::bindings), so that a pipeline's own bindings
// can sit at fixed numbers after another layout's (the meshlet path's, shaders/meshlet.glsl).
constexpr VkDescriptorType kNoBinding = VK_DESCRIPTOR_TYPE_MAX_ENUM;

// The descriptor types of set 0, binding i = bindings[i]; pushed with vkCmdPushDescriptorSetKHR.
// scene_textures: set 1 is the scene's texture array (Context::texture_set_layout), bound by
// Descriptors::textures().
struct LayoutDesc {
    std::vector<VkDescriptorType> bindings;
    VkShaderStageFlags stages = VK_SHADER_STAGE_ALL;
    uint32_t push_constant_bytes = 0;
    bool scene_textures = false;
    bool operator==(const LayoutDesc&) const = default;
};
