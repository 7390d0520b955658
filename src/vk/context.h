// Vulkan instance, physical device choice, logical device and queue, validation messages,
// and the subgroup capabilities read once from the device.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <vulkan/vulkan.h>

#include "caps/caps.h"
#include "vk/errors.h"


struct ContextOptions {
    bool validate = false;
    int device_index = -1;                          // -1: best by type
    std::vector<const char*> instance_extensions;  // e.g. what GLFW needs for a surface
    bool swapchain = false;
    uint32_t mask_stages = 0;
    uint32_t mask_ops = 0;
    uint32_t subgroup_size = 0;  // --subgroup-size (0: none): refused (UnsupportedRequest) where the device cannot
};

struct DeviceInfo {
    std::string name;
    std::string driver;
    std::string api_version;
    std::string type;  // "discrete", "integrated", "virtual", "cpu", "other"
    uint32_t vendor_id = 0;
    uint32_t device_id = 0;
    float timestamp_period_ns = 1.0f;
};

// Under GPU-assisted validation (SGD_GPU_AV=1) push descriptors are emulated with descriptor sets
// allocated from these pools: the layer in Debian 12 (1.3.239) reports every access through a
// push descriptor as "uninitialized" (Vulkan-ValidationLayers issue 5321, fixed in later layers),
// which would hide the out-of-bounds accesses the check is for. Sets live until the device does.
// Push descriptors update incrementally (the debug views push binding 4, then draw_scene bindings
// 0..3), so the arena keeps what was pushed per command buffer and layout, writes all of it to each
// new set, and binds a set only once every binding of its layout has been pushed: lavapipe 22.3
// crashes binding a set whose image descriptors were never written (legal while unused).
struct PushedDescriptor {
    VkDescriptorType type;
    VkDescriptorBufferInfo buffer;
    VkDescriptorImageInfo image;
    VkAccelerationStructureKHR acceleration_structure;
};
struct DescriptorArena {
    bool enabled = false;
    bool acceleration_structures = false;  // the device has ray tracing: pools hold TLAS descriptors too
    std::vector<VkDescriptorPool> pools;
    std::map<std::pair<VkCommandBuffer, VkPipelineLayout>, std::map<uint32_t, PushedDescriptor>> pushed;
    std::map<VkPipelineLayout, uint32_t> binding_counts;
};

struct Context {
    VkInstance instance = VK_NULL_HANDLE;
    VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    VkDevice device = VK_NULL_HANDLE;
    VkQueue queue = VK_NULL_HANDLE;
    uint32_t queue_family = 0;
    VkCommandPool command_pool = VK_NULL_HANDLE;  // for one-shot uploads and readbacks

    VkPhysicalDeviceProperties properties{};
    VkPhysicalDeviceMemoryProperties memory{};
    DeviceInfo info;
    SubgroupCaps subgroup;
    SubgroupCaps subgroup_unmasked;
    DeviceFeatures features;
    // --subgroup-size: the size the compute passes that take it (ComputeDesc::forced_subgroup_size)
    // and the task and mesh stages run at; 0: the driver's choice.
    uint32_t subgroup_size = 0;
    // Filled where features.mesh_shader / features.ray_tracing (zeroed otherwise).
    VkPhysicalDeviceMeshShaderPropertiesEXT mesh_properties{};
    VkPhysicalDeviceRayTracingPipelinePropertiesKHR ray_tracing_properties{};
    VkPhysicalDeviceAccelerationStructurePropertiesKHR acceleration_structure_properties{};
    bool debug_utils = false;
    // SGD_PIPELINE_STATS's file where the device offers VK_KHR_pipeline_executable_properties,
    // else empty (vk/pipeline_stats.h, diagnosis only).
    std::string pipeline_stats_path;
    // Pipelines compile on threads of their own as they are created (vk/resources.h,
    // compile_ahead), not at their first use. The default on a GPU: the first run's quick
    // measurement took 2.3 s instead of 5.6 at 1080p on an H100 with the driver's cache empty
    // (docs/benchmarks.md). Not on a CPU device, whose compile threads would take the cores that
    // run the frames, for ~70 variants the plan never binds. SGD_PIPELINE_COMPILE=ahead|first-use
    // chooses either way.
    bool compile_ahead = false;
    mutable DescriptorArena descriptor_arena;
    // Set 1 of every pipeline that samples the scene's textures (LayoutDesc::scene_textures):
    // binding 0 holds them all as one runtime array of combined image samplers, each texture at its
    // own size with its mips (descriptor indexing: variable count, partially bound). One set per
    // scene, written at upload (GpuScene::texture_set). max_scene_textures: the array's capacity
    // here, below the device's per-stage sampler and sampled-image limits (run/limits.cpp refuses
    // a scene with more).
    VkDescriptorSetLayout texture_set_layout = VK_NULL_HANDLE;
    uint32_t max_scene_textures = 0;
    // Every shader module loaded, by file path, created once and kept until the device goes
    // (load_shader): renderers built one after another (--compare's rows, --atlas's cells, the
    // window's key switches) reuse them, so the validation layer parses and checks each SPIR-V
    // file once per process instead of once per renderer (an --atlas under --validate: 15x).
    mutable std::map<std::string, VkShaderModule> shader_modules;

    Context() = default;
    Context(const Context&) = delete;
    Context& operator=(const Context&) = delete;
    ~Context();
};

// Messages the validation layer reported so far (warnings and errors), across all contexts.
uint32_t validation_message_count();
// A message of the program's own checks where the layer cannot check (a dispatch past the limits
// SGD_MASK_LIMITS lowered: the layer holds it to the device's own): printed and counted as one of
// the layer's.
void report_validation_error(const std::string& message);

void create_context(Context& ctx, const ContextOptions& options);
std::vector<std::string> list_devices();  // "INDEX: NAME (type, api)"

// Waits for a submitted frame's fence in one-second steps: a lost device throws VulkanError at
// once, a frame that takes longer than the timeout (600 s; tests shorten it, vk/fault_injection.h)
// throws too (and marks the device abandoned), so a run ends with a message instead of blocking forever.
void wait_for_frame(const Context& ctx, VkFence fence);

// Forgets what was pushed into `cmd` under emulated push descriptors (see DescriptorArena): call
// when recording of `cmd` begins. A no-op otherwise.
void forget_pushed_descriptors(const Context& ctx, VkCommandBuffer cmd);

// One-shot command buffer, submitted and waited for (uploads, readbacks; never in the frame loop).
VkCommandBuffer begin_one_shot(const Context& ctx);
void end_one_shot(const Context& ctx, VkCommandBuffer cmd);

// VK_EXT_debug_utils labels, so RenderDoc captures read pass by pass; no-ops without the extension.
void begin_label(const Context& ctx, VkCommandBuffer cmd, const std::string& name);  // debug_label(...)
void end_label(const Context& ctx, VkCommandBuffer cmd);
void set_name(const Context& ctx, VkObjectType type, uint64_t handle, const char* name);

// VK_KHR_push_descriptor entry point, loaded at device creation.
extern PFN_vkCmdPushDescriptorSetKHR vkCmdPushDescriptorSet_;
// VK_EXT_mesh_shader draws, loaded where features.mesh_shader (null otherwise).
extern PFN_vkCmdDrawMeshTasksEXT vkCmdDrawMeshTasks_;
extern PFN_vkCmdDrawMeshTasksIndirectEXT vkCmdDrawMeshTasksIndirect_;
