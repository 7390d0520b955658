// Buffers, images, shaders and pipelines: small RAII owners and the helpers that create them.
#pragma once

#include <algorithm>
#include <cstring>
#include <deque>

#include <functional>
#include <string>
#include <future>
#include <utility>
#include <vector>

#include "vk/context.h"
#include "vk/layout_desc.h"

// Move-only ownership of a plain struct of Vulkan handles whose default value owns nothing (its
// `device` is null): a move takes every field and leaves the source at that default value; reset()
// frees what it owns with destroy(Fields&), declared beside each Fields, and returns it there.
template <typename Fields>
struct Owned : Fields {
    Owned() = default;
    Owned(Owned&& o) noexcept : Fields(std::exchange(static_cast<Fields&>(o), Fields{})) {}
    Owned& operator=(Owned&& o) noexcept {
        if (this != &o) {
            reset();
            static_cast<Fields&>(*this) = std::exchange(static_cast<Fields&>(o), Fields{});
        }
        return *this;
    }
    ~Owned() { reset(); }
    void reset() {
        if (this->device) destroy(static_cast<Fields&>(*this));
        static_cast<Fields&>(*this) = Fields{};
    }
};

// A VkBuffer and its memory. Host-visible buffers stay mapped.
struct BufferFields {
    VkDevice device = VK_NULL_HANDLE;
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkDeviceSize size = 0;
    void* mapped = nullptr;
    VkDeviceAddress address = 0;  // where created with VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT
};
void destroy(BufferFields& b);
struct Buffer : Owned<BufferFields> {};

// A VkImage, its memory and one view of all its mips/layers.
struct ImageFields {
    VkDevice device = VK_NULL_HANDLE;
    VkImage image = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkImageView view = VK_NULL_HANDLE;
    VkFormat format = VK_FORMAT_UNDEFINED;
    VkExtent2D extent{};
    uint32_t layers = 1;
    uint32_t levels = 1;
    // Tracked state of the whole image, so each pass asks for the layout it needs (see transition()).
    VkImageLayout layout = VK_IMAGE_LAYOUT_UNDEFINED;
    VkPipelineStageFlags2 last_stage = VK_PIPELINE_STAGE_2_NONE;
    VkAccessFlags2 last_access = VK_ACCESS_2_NONE;
};
void destroy(ImageFields& i);
struct Image : Owned<ImageFields> {};

enum class MemoryKind { device_local, host_upload, host_readback };

// Every buffer and image created while a log is set, by name and requested size: lets a test hold
// the limits check (run/limits.cpp) to what the renderer really allocates.
struct AllocationRecord {
    std::string name;
    VkDeviceSize bytes = 0;
    bool image = false;
};
void set_allocation_log(std::vector<AllocationRecord>* log);  // nullptr stops logging

Buffer create_buffer(const Context& ctx, VkDeviceSize size, VkBufferUsageFlags usage, MemoryKind kind, const char* name);
// Creates a device-local buffer holding `data` (staged through a host buffer).
Buffer create_buffer_with_data(const Context& ctx, const void* data, VkDeviceSize size, VkBufferUsageFlags usage,
                               const char* name);
// The whole of `buffer` as the GPU left it, after everything submitted before (waits for the
// device; tests, reports and readbacks, never the frame loop). The buffer needs TRANSFER_SRC usage.
std::vector<uint8_t> read_buffer(const Context& ctx, const Buffer& buffer);
template <typename T>
T read_buffer_as(const Context& ctx, const Buffer& buffer) {
    std::vector<uint8_t> bytes = read_buffer(ctx, buffer);
    T value{};
    memcpy(&value, bytes.data(), std::min(sizeof(T), bytes.size()));
    return value;
}
// Writes `size` bytes of `data` at the start of `buffer` (TRANSFER_DST usage), after everything
// submitted before and before everything submitted after (waits for the device; never the frame loop).
void write_buffer(const Context& ctx, const Buffer& buffer, const void* data, VkDeviceSize size);
// The whole of layer 0 of `image` (texel_bytes a texel, tightly packed), after everything submitted
// before; leaves the image in TRANSFER_SRC_OPTIMAL (tests and probes: the renderer's own readback,
// Renderer::read_image, goes through the frame graph).
std::vector<uint8_t> read_image(const Context& ctx, Image& image, uint32_t texel_bytes,
                                VkImageAspectFlags aspect = VK_IMAGE_ASPECT_COLOR_BIT);
// array_view: the view is VK_IMAGE_VIEW_TYPE_2D_ARRAY even with one layer (for sampler2DArray).
// levels: mip levels (the view covers them all); the allocation log records every level's bytes.
Image create_image(const Context& ctx, VkExtent2D extent, VkFormat format, VkImageUsageFlags usage, const char* name,
                   uint32_t layers = 1, bool array_view = false, uint32_t levels = 1, VkImageCreateFlags flags = 0);

// Full-resource barriers, synchronization2 style; enough for a handful of passes per frame.
// image_memory_barrier: the barrier over every mip and layer of `image`, to record with others.
VkImageMemoryBarrier2 image_memory_barrier(VkImage image, VkImageAspectFlags aspect, VkImageLayout old_layout,
                                           VkImageLayout new_layout, VkPipelineStageFlags2 src_stage, VkAccessFlags2 src_access,
                                           VkPipelineStageFlags2 dst_stage, VkAccessFlags2 dst_access);
void image_barrier(VkCommandBuffer cmd, VkImage image, VkImageAspectFlags aspect, VkImageLayout old_layout,
                   VkImageLayout new_layout, VkPipelineStageFlags2 src_stage, VkAccessFlags2 src_access,
                   VkPipelineStageFlags2 dst_stage, VkAccessFlags2 dst_access);
// Moves a tracked image to `layout` for use at (stage, access), waiting on its last recorded use.
// discard: the old contents are not needed (transition from UNDEFINED).
void transition(VkCommandBuffer cmd, Image& image, VkImageLayout layout, VkPipelineStageFlags2 stage,
                VkAccessFlags2 access, bool discard = false);
void memory_barrier(VkCommandBuffer cmd, VkPipelineStageFlags2 src_stage, VkAccessFlags2 src_access,
                    VkPipelineStageFlags2 dst_stage, VkAccessFlags2 dst_access);
// vkCmdDispatch, held to maxComputeWorkGroupCount as the context reports it (SGD_MASK_LIMITS may
// lower it below the device's, which is what the layer checks): a count past it is reported as a
// validation error (VUID-vkCmdDispatch-groupCountX-00386 and its Y, Z siblings).
void dispatch(const Context& ctx, VkCommandBuffer cmd, uint32_t x, uint32_t y = 1, uint32_t z = 1);

// The folder holding the running executable (build/).
std::string executable_dir();

// Dynamic rendering over a whole extent, viewport and scissor set to it. `color` or `depth` may be
// null. The attachment helpers fill in view, layout, load and store (clear values where loading
// clears).
VkRenderingAttachmentInfo color_attachment(const Image& image, VkAttachmentLoadOp load, VkClearColorValue clear = {});
VkRenderingAttachmentInfo depth_attachment(const Image& image, VkImageLayout layout, VkAttachmentLoadOp load,
                                           VkAttachmentStoreOp store, float clear_depth = 0.0f);
void begin_rendering(VkCommandBuffer cmd, VkExtent2D extent, const VkRenderingAttachmentInfo* color,
                     const VkRenderingAttachmentInfo* depth);

// SPIR-V lives in build/shaders next to the executable: shader_path("cull.comp.switch").
std::string shader_path(const std::string& name);
VkShaderModule load_shader(const Context& ctx, const std::string& name);

// A pipeline with its layout and push-descriptor set layout.
//
// The layout and shader modules exist from creation; the VkPipeline is compiled the first time
// handle() is called (where it is bound). Every pass makes all its variants up front, but a run
// binds only the ones its plan picks: compiling the rest was most of a process's start-up on
// lavapipe (docs/testing.md, "Time"). The modules stay eager on purpose: a missing SPIR-V file is
// reported at creation, and GPU-assisted validation numbers each module as it is created, so
// creating them in a fixed order keeps its instrumented shaders (and Mesa's cache of them) the
// same in every run. A driver that fails to compile reports it from handle(), at the first frame
// that needs the pipeline.
struct PipelineFields {
    VkDevice device = VK_NULL_HANDLE;
    VkPipelineLayout layout = VK_NULL_HANDLE;
    VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
    VkPipelineBindPoint bind_point = VK_PIPELINE_BIND_POINT_GRAPHICS;
    DescriptorArena* arena = nullptr;  // set when push descriptors are emulated (GPU-assisted validation)
    // The layout's LayoutDesc: set 0's descriptor types by binding and whether set 1 is the scene's
    // textures (Descriptors::push gives the pipeline only what its layout holds), the stages of its
    // bindings and push-constant range, and that range's bytes.
    std::vector<VkDescriptorType> bindings;
    bool scene_textures = false;
    VkShaderStageFlags stages = 0;
    uint32_t push_constant_bytes = 0;
    std::vector<VkShaderModule> modules;  // the context's (Context::shader_modules): not destroyed here
    std::function<VkPipeline()> compile;  // made by create_*_pipeline; run once, by handle()
    mutable VkPipeline compiled = VK_NULL_HANDLE;  // what compile made: read it through handle()
    std::shared_future<VkPipeline> ahead;          // compile running on its own thread (compile_ahead)
};
void destroy(PipelineFields& p);
struct Pipeline : Owned<PipelineFields> {
    VkPipeline handle() const;                                       // compiles on first use
    explicit operator bool() const { return compiled || compile; }  // made (for this device)?
};
// What the process's first uses have compiled so far: pipelines, and the seconds their first
// handle() took: in the driver's vkCreate*Pipelines (cold: compiling; warm: found in the driver's
// shader cache), or, compiled ahead, waiting for their threads. `ahead`: compiles started ahead,
// used or not.
struct PipelineCompiles {
    uint32_t count = 0;
    double seconds = 0;
    uint32_t ahead = 0;
};
PipelineCompiles pipeline_compiles();
// Pushes the bytes of `data` that p's layout holds: the push-constant block its shaders declare
// (at most `bytes`; a shader may declare a prefix of the C++ struct), to every stage the layout
// names. A block larger than `bytes` throws std::logic_error: the C++ side lacks members a shader reads.
void push_constants(VkCommandBuffer cmd, const Pipeline& p, const void* data, uint32_t bytes);
// Where the context compiles ahead (Context::compile_ahead), starts p's compile on a thread of its
// own, at most one per core at a time; handle() then waits for it. Called by create_*_pipeline.
void compile_ahead(const Context& ctx, Pipeline& p);

// Workgroups (or any blocks of `size`) that cover `n` items.
constexpr uint32_t ceil_div(uint32_t n, uint32_t size) { return (n + size - 1) / size; }

// The specialization constant that switches a shader between its subgroup path and its fallback:
// USE_SUBGROUP in shaders/subgroup_switch.glsl (constant_id 100), set from `use_subgroup` below.
constexpr uint32_t kUseSubgroupConstant = 100;

// A stage's specialization constants: constant_id i = values[i], then USE_SUBGROUP
// (kUseSubgroupConstant, a VkBool32). A module without a constant ignores its entry, so every
// pipeline can carry the switch. `info` points into the object's own storage: not copied or moved.
struct SpecializationConstants {
    std::vector<uint32_t> values;
    std::vector<VkSpecializationMapEntry> entries;
    VkSpecializationInfo info{};
    SpecializationConstants(std::vector<uint32_t> constants, bool use_subgroup);
    SpecializationConstants(const SpecializationConstants&) = delete;
    SpecializationConstants& operator=(const SpecializationConstants&) = delete;
};

// Every member has a default initializer, so a brace list may stop after any of them (as most
// callers do after the layout).
// The most invocations a compute shader of the demo declares in its workgroup (its LocalSize; the
// cull's, cull.comp and cull_merge.comp, come from --cull-group-size instead). A required subgroup
// size (--subgroup-size) must fit such a workgroup into maxComputeWorkgroupSubgroups subgroups,
// which the start-up checks (check_device_limits). Unit test: every built compute module's
// LocalSize within it, and one at it (Workgroups.*).
constexpr uint32_t kLargestFixedWorkgroup = 256;

// layout_of the built shaders `names` (shader_path, vk/spirv_reflect.h): the layout of a pipeline
// made of them, with no binding number written in C++. (A shader's `.layers` twin differs in set 1
// only.)
LayoutDesc shader_layout(const std::vector<std::string>& names);
// The layout of a pipeline made of `shaders`: theirs where `given` is empty (LayoutDesc{}), else
// `given`, checked against theirs (layout_mismatch; VulkanError where it disagrees).
LayoutDesc pipeline_layout(const LayoutDesc& given, const std::vector<std::string>& shaders);

// A desc's layout left empty (LayoutDesc{}) is the one its shaders declare (shader_layout): a binding
// number is written once, in GLSL. One written out must agree with theirs (layout_mismatch), or
// the pipeline is not made.
struct ComputeDesc {
    std::string shader = {};  // e.g. "cull.comp.switch"
    LayoutDesc layout = {};
    uint32_t required_subgroup_size = 0;       // 0: driver's choice
    bool full_subgroups = false;               // VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT
    std::vector<uint32_t> specialization = {}; // 32-bit specialization constants: constant_id i = specialization[i]
    // Runs at --subgroup-size (Context::subgroup_size) where one was given: the compute passes a
    // size sweep compares (cull, light cull, exposure). Ignored where required_subgroup_size is set.
    bool forced_subgroup_size = false;
    // USE_SUBGROUP of a switched shader (NAME.switch or NAME.VARIANT_switch,
    // shaders/subgroup_switch.glsl): true runs its subgroup path. The fallback twin NAME.no_subgroup
    // (NAME.VARIANT_no_subgroup), for devices without the path's operations, has no such constant:
    // leave it false there.
    bool use_subgroup = false;
};
Pipeline create_compute_pipeline(const Context& ctx, const ComputeDesc& desc);
// The push-descriptor set layout and pipeline layout of `desc` into p (pipelines made elsewhere:
// the ray-tracing pipeline, passes/ray_trace_pass.cpp).
void create_pipeline_layout(const Context& ctx, const LayoutDesc& desc, Pipeline& p);

struct GraphicsDesc {
    std::vector<std::pair<VkShaderStageFlagBits, std::string>> shaders;
    LayoutDesc layout;
    std::vector<VkFormat> color_formats;
    VkFormat depth_format = VK_FORMAT_UNDEFINED;
    VkCompareOp depth_compare = VK_COMPARE_OP_GREATER_OR_EQUAL;  // reversed Z
    bool depth_write = true;
    uint32_t vertex_attributes = 3;  // of the scene's Vertex at binding 0: 3 all, 2 position and uv, 1 position only, 0 none;
                                   // 5: all, and binding 1's VertexMaterial (tangent, TEXCOORD_1: scene.vert.forward)
    VkCullModeFlags cull_mode = VK_CULL_MODE_BACK_BIT;
    VkPrimitiveTopology topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
    uint32_t patch_control_points = 0;  // > 0: tessellation
    bool blend = false;                 // premultiplied alpha "over"
    // The task and mesh stages' specialization, as ComputeDesc's: constant_id i = specialization[i],
    // then USE_SUBGROUP of their switched shaders; a module without a constant ignores it.
    std::vector<uint32_t> specialization = {};
    bool use_subgroup = false;
};
// Task and mesh stages run at --subgroup-size (Context::subgroup_size) where one was given.
Pipeline create_graphics_pipeline(const Context& ctx, const GraphicsDesc& desc);

// Descriptor writes for push descriptors, built inline at record time.
struct Descriptors {
    std::vector<VkWriteDescriptorSet> writes;
    // Each write points into these: deques, whose elements stay put as more are added, whatever
    // their number (the visibility pass's meshlet variant pushes 22 buffers).
    std::deque<VkDescriptorBufferInfo> buffers;
    std::deque<VkDescriptorImageInfo> images;
    std::deque<VkAccelerationStructureKHR> structures;
    std::deque<VkWriteDescriptorSetAccelerationStructureKHR> structure_writes;
    Descriptors& acceleration_structure(uint32_t binding, VkAccelerationStructureKHR tlas);
    Descriptors& buffer(uint32_t binding, const Buffer& b, VkDescriptorType type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER);
    Descriptors& buffer(uint32_t binding, VkBuffer b, VkDescriptorType type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER);
    // Storage buffers at bindings first, first + 1, ... in the order given (the shader's order).
    Descriptors& storage_buffers(uint32_t first, std::initializer_list<std::reference_wrapper<const Buffer>> list);
    Descriptors& storage_image(uint32_t binding, VkImageView view);
    Descriptors& sampled_image(uint32_t binding, VkImageView view, VkSampler sampler);
    // A depth image read with texelFetch (GL_EXT_samplerless_texture_functions, no sampler), in
    // DEPTH_READ_ONLY_OPTIMAL: the layout depth keeps while compute reads it and the forward
    // pass's depth test still uses it.
    Descriptors& sampled_depth(uint32_t binding, VkImageView view);
    // Any image read with texelFetch the same way, in `layout`.
    Descriptors& sampled_texels(uint32_t binding, VkImageView view, VkImageLayout layout);
    // The scene's texture array (GpuScene::texture_set): bound as set 1 by push(), for pipelines
    // whose layout has LayoutDesc::scene_textures.
    Descriptors& textures(VkDescriptorSet set);
    VkDescriptorSet texture_set = VK_NULL_HANDLE;
    // Pushes the writes to bindings the pipeline's layout holds, and binds the textures where it
    // samples them. A layout is what the pipeline's shaders declare (shader_layout), and variants
    // of one shader declare fewer or more of a pass's bindings (the compiler drops what a variant
    // never reads): so a pass writes all its bindings, and each pipeline takes its own.
    void push(VkCommandBuffer cmd, const Pipeline& pipeline);

private:
    Descriptors& image(uint32_t binding, VkDescriptorType type, VkDescriptorImageInfo info);
};
