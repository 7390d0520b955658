#include "vk/spirv_reflect.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "vk/errors.h"

// Unity builds join this file with others: everything here in a namespace of its own.
namespace spirv_reader {

// The few opcodes, decorations, storage classes and execution models this reader needs (the
// SPIR-V specification's numbers).
enum : uint32_t {
    OpEntryPoint = 15, OpTypeInt = 21, OpTypeFloat = 22, OpTypeVector = 23, OpTypeMatrix = 24, OpTypeImage = 25,
    OpTypeSampler = 26, OpTypeSampledImage = 27, OpTypeArray = 28, OpTypeRuntimeArray = 29, OpTypeStruct = 30,
    OpTypePointer = 32, OpConstant = 43, OpVariable = 59, OpDecorate = 71, OpMemberDecorate = 72,
    OpTypeAccelerationStructureKHR = 5341,
};
enum : uint32_t {
    DecorationBufferBlock = 3, DecorationArrayStride = 6, DecorationMatrixStride = 7, DecorationBinding = 33,
    DecorationDescriptorSet = 34, DecorationOffset = 35,
};
enum : uint32_t { StorageUniformConstant = 0, StorageUniform = 2, StoragePushConstant = 9, StorageStorageBuffer = 12 };
constexpr uint32_t kDimBuffer = 5, kDimSubpassData = 6;
constexpr uint32_t kNone = ~0u;

// An id's definition: the instruction that made it and its operands after the result id, with the
// decorations this reader uses.
struct Id {
    uint32_t op = 0;
    uint32_t type = 0;                 // OpConstant, OpVariable: the result type
    std::vector<uint32_t> operands;
    uint32_t set = kNone, binding = kNone, array_stride = 0;
    bool buffer_block = false;
    std::vector<uint32_t> offsets, matrix_strides;  // per member of an OpTypeStruct
};

struct Module {
    VkShaderStageFlagBits stage = VK_SHADER_STAGE_ALL;
    std::vector<Id> ids;
    std::vector<uint32_t> variables;
};

[[noreturn]] void malformed(const char* what) { throw std::runtime_error(std::string("SPIR-V: ") + what); }

VkShaderStageFlagBits stage_of(uint32_t model) {
    switch (model) {
        case 0: return VK_SHADER_STAGE_VERTEX_BIT;
        case 1: return VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT;
        case 2: return VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT;
        case 3: return VK_SHADER_STAGE_GEOMETRY_BIT;
        case 4: return VK_SHADER_STAGE_FRAGMENT_BIT;
        case 5: return VK_SHADER_STAGE_COMPUTE_BIT;
        case 5313: return VK_SHADER_STAGE_RAYGEN_BIT_KHR;
        case 5314: return VK_SHADER_STAGE_INTERSECTION_BIT_KHR;
        case 5315: return VK_SHADER_STAGE_ANY_HIT_BIT_KHR;
        case 5316: return VK_SHADER_STAGE_CLOSEST_HIT_BIT_KHR;
        case 5317: return VK_SHADER_STAGE_MISS_BIT_KHR;
        case 5318: return VK_SHADER_STAGE_CALLABLE_BIT_KHR;
        case 5364: return VK_SHADER_STAGE_TASK_BIT_EXT;
        case 5365: return VK_SHADER_STAGE_MESH_BIT_EXT;
        default: malformed("unknown execution model");
    }
}

Module parse(std::span<const uint32_t> words) {
    if (words.size() < 5 || words[0] != 0x07230203u) malformed("not a module");
    Module m;
    m.ids.resize(words[3]);  // the id bound
    auto id = [&](uint32_t i) -> Id& {
        if (i >= m.ids.size()) malformed("id out of bounds");
        return m.ids[i];
    };
    for (size_t at = 5; at < words.size();) {
        uint32_t op = words[at] & 0xffffu, count = words[at] >> 16;
        if (count == 0 || at + count > words.size()) malformed("truncated instruction");
        std::span<const uint32_t> w = words.subspan(at, count);
        at += count;
        switch (op) {
            case OpEntryPoint:
                if (count < 3) malformed("short OpEntryPoint");
                if (m.stage == VK_SHADER_STAGE_ALL) m.stage = stage_of(w[1]);
                break;
            case OpDecorate:
                if (count < 3) malformed("short OpDecorate");
                if (w[2] == DecorationBufferBlock) id(w[1]).buffer_block = true;
                if (count < 4) break;
                if (w[2] == DecorationDescriptorSet) id(w[1]).set = w[3];
                if (w[2] == DecorationBinding) id(w[1]).binding = w[3];
                if (w[2] == DecorationArrayStride) id(w[1]).array_stride = w[3];
                break;
            case OpMemberDecorate: {
                if (count < 5 || (w[3] != DecorationOffset && w[3] != DecorationMatrixStride)) break;
                Id& s = id(w[1]);
                std::vector<uint32_t>& v = w[3] == DecorationOffset ? s.offsets : s.matrix_strides;
                if (w[2] >= 4096) malformed("member index");
                if (v.size() <= w[2]) v.resize(w[2] + 1, 0);
                v[w[2]] = w[4];
                break;
            }
            case OpTypeInt: case OpTypeFloat: case OpTypeVector: case OpTypeMatrix: case OpTypeImage:
            case OpTypeSampler: case OpTypeSampledImage: case OpTypeArray: case OpTypeRuntimeArray:
            case OpTypeStruct: case OpTypePointer: case OpTypeAccelerationStructureKHR: {
                if (count < 2) malformed("short type");
                Id& t = id(w[1]);
                t.op = op;
                t.operands.assign(w.begin() + 2, w.end());
                break;
            }
            case OpConstant: case OpVariable: {
                if (count < 4) malformed("short constant or variable");
                Id& v = id(w[2]);
                v.op = op;
                v.type = w[1];
                v.operands.assign(w.begin() + 3, w.end());
                if (op == OpVariable) m.variables.push_back(w[2]);
                break;
            }
            default: break;
        }
    }
    if (m.stage == VK_SHADER_STAGE_ALL) malformed("no entry point");
    return m;
}

const Id& type_at(const Module& m, uint32_t i, uint32_t op) {
    if (i >= m.ids.size() || m.ids[i].op != op || m.ids[i].operands.empty()) malformed("unexpected type");
    return m.ids[i];
}

// The pointee of a variable's pointer type.
uint32_t pointee(const Module& m, const Id& variable) {
    const Id& p = type_at(m, variable.type, OpTypePointer);
    if (p.operands.size() < 2) malformed("short OpTypePointer");
    return p.operands[1];
}

uint32_t array_length(const Module& m, const Id& array) {
    const Id* length = array.operands.size() > 1 && array.operands[1] < m.ids.size() ? &m.ids[array.operands[1]] : nullptr;
    if (!length || length->op != OpConstant || length->operands.empty()) malformed("array length");
    return length->operands[0];
}

// Strips arrays from type t, multiplying their lengths into count (0: a runtime array).
uint32_t element_type(const Module& m, uint32_t t, uint32_t* count = nullptr) {
    while (t < m.ids.size() && (m.ids[t].op == OpTypeArray || m.ids[t].op == OpTypeRuntimeArray)) {
        const Id& a = m.ids[t];
        if (a.operands.empty()) malformed("short array");
        if (count) {
            *count = a.op == OpTypeRuntimeArray ? 0 : *count * array_length(m, a);
        }
        t = a.operands[0];
    }
    return t;
}

VkDescriptorType descriptor_type(const Module& m, const Id& variable, uint32_t type) {
    uint32_t storage = variable.operands[0];
    if (storage == StorageStorageBuffer) return VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    if (storage == StorageUniform)
        return m.ids[type].buffer_block ? VK_DESCRIPTOR_TYPE_STORAGE_BUFFER : VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
    if (storage != StorageUniformConstant) malformed("a descriptor in an unexpected storage class");
    switch (m.ids[type].op) {
        case OpTypeSampler: return VK_DESCRIPTOR_TYPE_SAMPLER;
        case OpTypeSampledImage: return VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
        case OpTypeAccelerationStructureKHR: return VK_DESCRIPTOR_TYPE_ACCELERATION_STRUCTURE_KHR;
        case OpTypeImage: {
            const std::vector<uint32_t>& image = m.ids[type].operands;  // sampled type, dim, depth, arrayed, ms, sampled
            if (image.size() < 6) malformed("short OpTypeImage");
            if (image[1] == kDimSubpassData) return VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT;
            if (image[1] == kDimBuffer)
                return image[5] == 2 ? VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER : VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER;
            return image[5] == 2 ? VK_DESCRIPTOR_TYPE_STORAGE_IMAGE : VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE;
        }
        default: malformed("a descriptor of an unexpected type");
    }
}

// Bytes of type t as a buffer lays it out (matrix_stride: the member's MatrixStride, for a matrix).
uint32_t type_bytes(const Module& m, uint32_t t, uint32_t matrix_stride, int depth = 0) {
    if (t >= m.ids.size() || depth > 16) malformed("type");
    const Id& type = m.ids[t];
    switch (type.op) {
        case OpTypeInt: case OpTypeFloat: return type.operands.at(0) / 8;
        case OpTypeVector: return type.operands.at(1) * type_bytes(m, type.operands.at(0), 0, depth + 1);
        case OpTypeMatrix: return type.operands.at(1) * (matrix_stride ? matrix_stride : type_bytes(m, type.operands.at(0), 0, depth + 1));
        case OpTypeArray: return type.array_stride * array_length(m, type);
        case OpTypeStruct: {
            uint32_t end = 0;
            for (size_t i = 0; i < type.operands.size() && i < type.offsets.size(); ++i) {
                uint32_t stride = i < type.matrix_strides.size() ? type.matrix_strides[i] : 0;
                end = std::max(end, type.offsets[i] + type_bytes(m, type.operands[i], stride, depth + 1));
            }
            return end;
        }
        default: malformed("a type of unknown size");
    }
}

}  // namespace spirv_reader

SpirvReflection reflect_spirv(std::span<const uint32_t> words) {
    using namespace spirv_reader;
    Module m = parse(words);
    SpirvReflection r;
    r.stage = m.stage;
    for (uint32_t v : m.variables) {
        const Id& variable = m.ids[v];
        if (variable.operands.empty()) malformed("short OpVariable");
        if (variable.operands[0] == StoragePushConstant) {
            r.push_constant_bytes = std::max(r.push_constant_bytes, type_bytes(m, pointee(m, variable), 0));
            continue;
        }
        if (variable.set == kNone || variable.binding == kNone) continue;
        SpirvBinding b{variable.set, variable.binding};
        uint32_t type = element_type(m, pointee(m, variable), &b.count);
        b.type = descriptor_type(m, variable, type);
        r.bindings.push_back(b);
    }
    std::sort(r.bindings.begin(), r.bindings.end(),
              [](const SpirvBinding& a, const SpirvBinding& b) { return a.set != b.set ? a.set < b.set : a.binding < b.binding; });
    return r;
}

std::vector<uint32_t> spirv_struct_offsets(std::span<const uint32_t> words, uint32_t set, uint32_t binding, int member) {
    using namespace spirv_reader;
    Module m = parse(words);
    for (uint32_t v : m.variables) {
        const Id& variable = m.ids[v];
        if (variable.set != set || variable.binding != binding) continue;
        uint32_t t = element_type(m, pointee(m, variable));
        if (m.ids[t].op != OpTypeStruct) return {};
        if (member >= 0) {
            if (size_t(member) >= m.ids[t].operands.size()) return {};
            t = element_type(m, m.ids[t].operands[member]);
            if (m.ids[t].op != OpTypeStruct) return {};
        }
        return m.ids[t].offsets;
    }
    return {};
}

LayoutDesc layout_of(std::span<const SpirvReflection> modules) {
    LayoutDesc layout{{}, 0, 0, false};
    for (const SpirvReflection& m : modules) {
        if (!m.bindings.empty() || m.push_constant_bytes) layout.stages |= m.stage;
        layout.push_constant_bytes = std::max(layout.push_constant_bytes, m.push_constant_bytes);
        for (const SpirvBinding& b : m.bindings) {
            if (b.set == 1) {
                layout.scene_textures = true;
                continue;
            }
            if (b.set != 0) throw VulkanError("shader layout: descriptor set " + std::to_string(b.set) + " (only 0 and 1 exist)");
            if (b.count != 1) throw VulkanError("shader layout: an array at set 0, binding " + std::to_string(b.binding));
            if (layout.bindings.size() <= b.binding) layout.bindings.resize(b.binding + 1, kNoBinding);
            VkDescriptorType& type = layout.bindings[b.binding];
            if (type != kNoBinding && type != b.type)
                throw VulkanError("shader layout: binding " + std::to_string(b.binding) + " has two descriptor types");
            type = b.type;
        }
    }
    return layout;
}

std::string layout_mismatch(const LayoutDesc& given, const LayoutDesc& declared) {
    for (uint32_t b = 0; b < declared.bindings.size(); ++b) {
        if (declared.bindings[b] == kNoBinding) continue;
        if (b >= given.bindings.size() || given.bindings[b] == kNoBinding)
            return "binding " + std::to_string(b) + " is declared by the shaders but not by the layout";
        if (given.bindings[b] != declared.bindings[b])
            return "binding " + std::to_string(b) + " has descriptor type " + std::to_string(given.bindings[b]) +
                   " in the layout but " + std::to_string(declared.bindings[b]) + " in the shaders";
    }
    if (given.push_constant_bytes < declared.push_constant_bytes)
        return "push constants: " + std::to_string(declared.push_constant_bytes) + " bytes in the shaders, " +
               std::to_string(given.push_constant_bytes) + " in the layout";
    if (declared.scene_textures && !given.scene_textures) return "the shaders sample set 1, the layout has none";
    return {};
}
