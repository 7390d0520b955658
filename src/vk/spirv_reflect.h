// What a SPIR-V module declares, read from its words (a small parser in the spirit of niagara's
// shaders.cpp): its stage, its descriptor bindings (DescriptorSet/Binding decorations and the
// variables' types), its push-constant block's size, and the member offsets of the structs its
// buffers hold. So a binding number is written once, in GLSL (shader_layout), and the C++ struct
// layouts are checked against glslang's (tests/test_gpu_layout.cpp).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <vulkan/vulkan.h>

#include "vk/layout_desc.h"

struct SpirvBinding {
    uint32_t set = 0;
    uint32_t binding = 0;
    VkDescriptorType type = VK_DESCRIPTOR_TYPE_MAX_ENUM;
    uint32_t count = 1;  // array elements; 0: a runtime array
};

struct SpirvReflection {
    VkShaderStageFlagBits stage = VK_SHADER_STAGE_ALL;
    std::vector<SpirvBinding> bindings;  // by set, then binding
    uint32_t push_constant_bytes = 0;    // the push-constant block's end (0: none)
};

// Throws std::runtime_error on words that are not a SPIR-V module this reader understands.
SpirvReflection reflect_spirv(std::span<const uint32_t> words);

// The Offset of every member of the struct that the variable at (set, binding) holds: the block
// itself where `member` is negative, else the struct type of the block's member `member` (through
// arrays: a `DrawData draws[]` buffer's DrawData). Empty where there is no such struct.
std::vector<uint32_t> spirv_struct_offsets(std::span<const uint32_t> words, uint32_t set, uint32_t binding, int member);

// The pipeline layout the modules declare together: set 0's bindings by number (kNoBinding in the
// gaps), the stages of the modules that declare a binding or push constants (the stages the pass
// pushes constants for), the largest push-constant block, and set 1 where one samples the scene's
// textures. Throws VulkanError where two modules give one binding different types, or a
// module uses a set other than 0 and 1.
LayoutDesc layout_of(std::span<const SpirvReflection> modules);

// Where a layout written out in C++ (`given`) disagrees with the one its shaders declare: a binding
// they declare that it lacks or gives another type, a push-constant block larger than its range,
// set 1 they sample that it lacks. Empty where it holds all they declare (it may hold more).
std::string layout_mismatch(const LayoutDesc& given, const LayoutDesc& declared);

