#include "vk/context.h"
#include "vk/fault_injection.h"
#include "vk/pipeline_stats.h"
#include "vk/shader_cache.h"
#include "passes/pass_table.h"  // the stage table (kStages), UnsupportedRequest

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

PFN_vkCmdPushDescriptorSetKHR vkCmdPushDescriptorSet_ = nullptr;
PFN_vkCmdDrawMeshTasksEXT vkCmdDrawMeshTasks_ = nullptr;
PFN_vkCmdDrawMeshTasksIndirectEXT vkCmdDrawMeshTasksIndirect_ = nullptr;

namespace {

std::atomic<uint32_t> g_validation_messages{0};
PFN_vkCmdBeginDebugUtilsLabelEXT g_begin_label = nullptr;
PFN_vkCmdEndDebugUtilsLabelEXT g_end_label = nullptr;
PFN_vkSetDebugUtilsObjectNameEXT g_set_name = nullptr;

VKAPI_ATTR VkBool32 VKAPI_CALL on_validation_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                     VkDebugUtilsMessageTypeFlagsEXT,
                                                     const VkDebugUtilsMessengerCallbackDataEXT* data, void*) {
    const char* level = severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT ? "error" : "warning";
    fprintf(stderr, "validation %s: %s\n", level, data->pMessage ? data->pMessage : "(no message)");
    g_validation_messages++;
    return VK_FALSE;
}

bool has_extension(const std::vector<VkExtensionProperties>& list, const char* name) {
    return std::any_of(list.begin(), list.end(), [&](auto& e) { return strcmp(e.extensionName, name) == 0; });
}

std::vector<VkExtensionProperties> device_extensions(VkPhysicalDevice physical) {
    uint32_t count = 0;
    vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, nullptr);
    std::vector<VkExtensionProperties> list(count);
    vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, list.data());
    return list;
}

const char* type_name(VkPhysicalDeviceType type) {
    switch (type) {
        case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete";
        case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated";
        case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual";
        case VK_PHYSICAL_DEVICE_TYPE_CPU: return "cpu";
        default: return "other";
    }
}

int type_rank(VkPhysicalDeviceType type) {
    switch (type) {
        case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 4;
        case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 3;
        case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
        case VK_PHYSICAL_DEVICE_TYPE_CPU: return 1;
        default: return 0;
    }
}

std::string version_string(uint32_t v) {
    return std::to_string(VK_API_VERSION_MAJOR(v)) + "." + std::to_string(VK_API_VERSION_MINOR(v)) + "." +
           std::to_string(VK_API_VERSION_PATCH(v));
}

// A family that does graphics and compute (and timestamps), or UINT32_MAX.
uint32_t find_queue_family(VkPhysicalDevice physical) {
    uint32_t count = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, nullptr);
    std::vector<VkQueueFamilyProperties> families(count);
    vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, families.data());
    for (uint32_t i = 0; i < count; ++i) {
        VkQueueFlags need = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
        if ((families[i].queueFlags & need) == need && families[i].timestampValidBits > 0) return i;
    }
    return UINT32_MAX;
}

std::vector<VkPhysicalDevice> physical_devices(VkInstance instance) {
    uint32_t count = 0;
    vkEnumeratePhysicalDevices(instance, &count, nullptr);
    std::vector<VkPhysicalDevice> list(count);
    vkEnumeratePhysicalDevices(instance, &count, list.data());
    return list;
}

// Why this device cannot run the demo, or empty.
std::string unusable_reason(VkPhysicalDevice physical) {
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(physical, &props);
    if (props.apiVersion < VK_API_VERSION_1_3) return "needs Vulkan 1.3, device has " + version_string(props.apiVersion);
    if (find_queue_family(physical) == UINT32_MAX) return "no graphics+compute queue with timestamps";
    if (!has_extension(device_extensions(physical), VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME))
        return "no VK_KHR_push_descriptor";
    return {};
}

// Why the scene's textures cannot be one runtime array of descriptors indexed per pixel
// (scene_textures.glsl), or empty. SGD_MASK_FEATURES=descriptor-indexing treats the device as
// lacking it (tests: the array-texture fallback on any device).
std::string descriptor_indexing_missing(VkPhysicalDevice physical) {
    const char* masked = getenv("SGD_MASK_FEATURES");
    if (masked && std::string(masked).find("descriptor-indexing") != std::string::npos)
        return "descriptor indexing masked by SGD_MASK_FEATURES";
    VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &f12};
    vkGetPhysicalDeviceFeatures2(physical, &f2);
    if (!f12.runtimeDescriptorArray || !f12.descriptorBindingPartiallyBound ||
        !f12.descriptorBindingVariableDescriptorCount || !f12.shaderSampledImageArrayNonUniformIndexing)
        return "device lacks descriptor indexing (runtimeDescriptorArray, descriptorBindingPartiallyBound, "
               "descriptorBindingVariableDescriptorCount, shaderSampledImageArrayNonUniformIndexing)";
    return {};
}

uint32_t stage_bits_from_vk(VkShaderStageFlags flags) {
    uint32_t bits = 0;
    for (const StageInfo& s : kStages)
        if (flags & s.vk_stage) bits |= bit(s.stage);
    return bits;
}

uint32_t op_bits_from_vk(VkSubgroupFeatureFlags flags) {
    uint32_t bits = 0;
    if (flags & VK_SUBGROUP_FEATURE_BASIC_BIT) bits |= bit(Op::basic);
    if (flags & VK_SUBGROUP_FEATURE_VOTE_BIT) bits |= bit(Op::vote);
    if (flags & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT) bits |= bit(Op::arithmetic);
    if (flags & VK_SUBGROUP_FEATURE_BALLOT_BIT) bits |= bit(Op::ballot);
    if (flags & VK_SUBGROUP_FEATURE_SHUFFLE_BIT) bits |= bit(Op::shuffle);
    if (flags & VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT) bits |= bit(Op::shuffle_relative);
    if (flags & VK_SUBGROUP_FEATURE_CLUSTERED_BIT) bits |= bit(Op::clustered);
    if (flags & VK_SUBGROUP_FEATURE_QUAD_BIT) bits |= bit(Op::quad);
    return bits;
}

bool gpu_assisted_validation_requested() {
    const char* env = getenv("SGD_GPU_AV");
    return env && strcmp(env, "1") == 0;
}

void create_instance(Context& ctx, const ContextOptions& options) {
    // Before the driver is loaded: each lavapipe vector width gets a shader cache of its own.
    isolate_lavapipe_shader_cache();
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "subgroup-demo";
    app.apiVersion = VK_API_VERSION_1_3;

    uint32_t count = 0;
    vkEnumerateInstanceExtensionProperties(nullptr, &count, nullptr);
    std::vector<VkExtensionProperties> available(count);
    vkEnumerateInstanceExtensionProperties(nullptr, &count, available.data());

    std::vector<const char*> extensions = options.instance_extensions;
    ctx.debug_utils = has_extension(available, VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    if (ctx.debug_utils) extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);

    std::vector<const char*> layers;
    // Synchronization validation is off by default in the layer; this turns it on for --validate.
    // SGD_GPU_AV=1 adds GPU-assisted validation (shaders instrumented to check every descriptor
    // access and buffer bound on the GPU; docs/robustness.md), used by the robustness tests.
    std::vector<VkValidationFeatureEnableEXT> enables = {VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
    if (options.validate && gpu_assisted_validation_requested()) {
        enables.push_back(VK_VALIDATION_FEATURE_ENABLE_GPU_ASSISTED_EXT);
        enables.push_back(VK_VALIDATION_FEATURE_ENABLE_GPU_ASSISTED_RESERVE_BINDING_SLOT_EXT);
    }
    VkValidationFeaturesEXT validation_features{VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT};
    validation_features.enabledValidationFeatureCount = uint32_t(enables.size());
    validation_features.pEnabledValidationFeatures = enables.data();

    VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    info.pApplicationInfo = &app;
    if (options.validate) {
        uint32_t layer_count = 0;
        vkEnumerateInstanceLayerProperties(&layer_count, nullptr);
        std::vector<VkLayerProperties> all(layer_count);
        vkEnumerateInstanceLayerProperties(&layer_count, all.data());
        bool found = std::any_of(all.begin(), all.end(),
                                 [](auto& l) { return strcmp(l.layerName, "VK_LAYER_KHRONOS_validation") == 0; });
        if (!found)
            throw VulkanError("--validate: VK_LAYER_KHRONOS_validation is not installed (Debian: vulkan-validationlayers)");
        if (!ctx.debug_utils) throw VulkanError("--validate: VK_EXT_debug_utils is not available");
        layers.push_back("VK_LAYER_KHRONOS_validation");
        info.pNext = &validation_features;
    }
    info.enabledLayerCount = uint32_t(layers.size());
    info.ppEnabledLayerNames = layers.data();
    info.enabledExtensionCount = uint32_t(extensions.size());
    info.ppEnabledExtensionNames = extensions.data();
    VkResult result = vkCreateInstance(&info, nullptr, &ctx.instance);
    if (result == VK_ERROR_INCOMPATIBLE_DRIVER)
        throw NoDeviceError("no Vulkan driver found (install mesa-vulkan-drivers for the CPU device lavapipe)");
    VK_CHECK(result);

    if (ctx.debug_utils) {
        g_begin_label = (PFN_vkCmdBeginDebugUtilsLabelEXT)vkGetInstanceProcAddr(ctx.instance, "vkCmdBeginDebugUtilsLabelEXT");
        g_end_label = (PFN_vkCmdEndDebugUtilsLabelEXT)vkGetInstanceProcAddr(ctx.instance, "vkCmdEndDebugUtilsLabelEXT");
        g_set_name = (PFN_vkSetDebugUtilsObjectNameEXT)vkGetInstanceProcAddr(ctx.instance, "vkSetDebugUtilsObjectNameEXT");
    }
    if (options.validate) {
        VkDebugUtilsMessengerCreateInfoEXT messenger{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
        messenger.messageSeverity =
            VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
        messenger.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                                VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                                VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
        messenger.pfnUserCallback = on_validation_message;
        auto create = (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(ctx.instance, "vkCreateDebugUtilsMessengerEXT");
        VK_CHECK(create(ctx.instance, &messenger, nullptr, &ctx.messenger));
    }
}

VkPhysicalDevice pick_physical_device(Context& ctx, int index) {
    std::vector<VkPhysicalDevice> devices = physical_devices(ctx.instance);
    if (devices.empty()) throw NoDeviceError("no Vulkan device found (install mesa-vulkan-drivers for lavapipe)");
    if (index >= 0) {
        if (size_t(index) >= devices.size())
            throw NoDeviceError("--device " + std::to_string(index) + ": only " + std::to_string(devices.size()) +
                                " device(s); see --list-devices");
        std::string why = unusable_reason(devices[index]);
        if (!why.empty()) throw NoDeviceError("--device " + std::to_string(index) + " is not usable: " + why);
        return devices[index];
    }
    VkPhysicalDevice best = VK_NULL_HANDLE;
    int best_rank = -1;
    std::string last_reason;
    for (VkPhysicalDevice d : devices) {
        std::string why = unusable_reason(d);
        if (!why.empty()) {
            last_reason = why;
            continue;
        }
        VkPhysicalDeviceProperties props;
        vkGetPhysicalDeviceProperties(d, &props);
        if (type_rank(props.deviceType) > best_rank) {
            best = d;
            best_rank = type_rank(props.deviceType);
        }
    }
    if (!best) throw NoDeviceError("no usable Vulkan device: " + last_reason);
    return best;
}

// SGD_MASK_LIMITS="name=value,...": the device reports these limits instead of its own, so that
// what depends on them can be seen anywhere (tests: the compute rasterizer's refusal where the
// sub-pixel precision differs, dispatches folded under a small workgroup count, a memory plan
// refused for its storage buffers at a test's small size, a window grown past the largest image).
// Names: subPixelPrecisionBits, maxComputeWorkGroupCount (all three dimensions),
// maxStorageBufferRange, maxImageDimension2D. The values may only
// lower a limit: a device cannot be made to do more than it can.
void apply_limit_masks(VkPhysicalDeviceLimits& limits) {
    const char* spec = getenv("SGD_MASK_LIMITS");
    if (!spec || !*spec) return;
    std::string rest = spec;
    while (!rest.empty()) {
        size_t comma = rest.find(',');
        std::string item = rest.substr(0, comma);
        rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
        size_t eq = item.find('=');
        char* end = nullptr;
        unsigned long value = eq == std::string::npos ? 0 : strtoul(item.c_str() + eq + 1, &end, 10);
        std::string name = item.substr(0, eq);
        uint32_t* fields[3] = {};
        if (name == "subPixelPrecisionBits") fields[0] = &limits.subPixelPrecisionBits;
        if (name == "maxComputeWorkGroupCount")
            for (int i = 0; i < 3; ++i) fields[i] = &limits.maxComputeWorkGroupCount[i];
        if (name == "maxStorageBufferRange") fields[0] = &limits.maxStorageBufferRange;
        if (name == "maxImageDimension2D") fields[0] = &limits.maxImageDimension2D;
        if (!fields[0] || eq == std::string::npos || !end || *end || value == 0 || value > *fields[0])
            throw UnsupportedRequest("SGD_MASK_LIMITS: '" + item + "' is not subPixelPrecisionBits=N, maxComputeWorkGroupCount=N, "
                                     "maxStorageBufferRange=N or maxImageDimension2D=N with 0 < N <= the device's value");
        for (uint32_t* field : fields)
            if (field) *field = uint32_t(value);
    }
}

void read_capabilities(Context& ctx, const std::vector<VkExtensionProperties>& extensions) {
    VkPhysicalDeviceSubgroupSizeControlProperties size_control{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES};
    VkPhysicalDeviceSubgroupProperties subgroup{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES, &size_control};
    VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES, &subgroup};
    VkPhysicalDeviceProperties2 props2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &driver};
    vkGetPhysicalDeviceProperties2(ctx.physical, &props2);
    ctx.properties = props2.properties;
    apply_limit_masks(ctx.properties.limits);
    vkGetPhysicalDeviceMemoryProperties(ctx.physical, &ctx.memory);

    VkPhysicalDeviceVulkan13Features f13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
    VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &f13};
    vkGetPhysicalDeviceFeatures2(ctx.physical, &f2);

    ctx.info.name = ctx.properties.deviceName;
    ctx.info.driver = std::string(driver.driverName) + " " + driver.driverInfo;
    ctx.info.api_version = version_string(ctx.properties.apiVersion);
    ctx.info.type = type_name(ctx.properties.deviceType);
    ctx.info.vendor_id = ctx.properties.vendorID;
    ctx.info.device_id = ctx.properties.deviceID;
    ctx.info.timestamp_period_ns = ctx.properties.limits.timestampPeriod;

    SubgroupCaps& caps = ctx.subgroup;
    caps.size = subgroup.subgroupSize;
    caps.min_size = f13.subgroupSizeControl ? size_control.minSubgroupSize : subgroup.subgroupSize;
    caps.max_size = f13.subgroupSizeControl ? size_control.maxSubgroupSize : subgroup.subgroupSize;
    caps.stages = stage_bits_from_vk(subgroup.supportedStages);
    caps.ops = op_bits_from_vk(subgroup.supportedOperations);
    caps.quad_in_all_stages = subgroup.quadOperationsInAllStages;
    caps.size_control = f13.subgroupSizeControl;
    caps.full_subgroups = f13.computeFullSubgroups;
    caps.required_size_stages = stage_bits_from_vk(size_control.requiredSubgroupSizeStages);
    caps.max_workgroup_subgroups = size_control.maxComputeWorkgroupSubgroups;
    ctx.subgroup_unmasked = caps;

    DeviceFeatures& feat = ctx.features;
    feat.pipeline_statistics = f2.features.pipelineStatisticsQuery;
    feat.tessellation = f2.features.tessellationShader;
    feat.geometry = f2.features.geometryShader;
    feat.fragment_stores = f2.features.fragmentStoresAndAtomics;
    feat.vertex_stores = f2.features.vertexPipelineStoresAndAtomics;
    feat.multi_draw_indirect = f2.features.multiDrawIndirect;
    feat.compute_full_subgroups = f13.computeFullSubgroups;
    feat.quad_control = has_extension(extensions, "VK_KHR_shader_quad_control");
    feat.maximal_reconvergence = has_extension(extensions, "VK_KHR_shader_maximal_reconvergence");
    feat.textures_missing = descriptor_indexing_missing(ctx.physical);
    feat.descriptor_indexing = feat.textures_missing.empty();
}

// VK_KHR_shader_quad_control and VK_KHR_shader_maximal_reconvergence (Vulkan 1.3.274+); the
// system headers may predate them, so the feature structs are spelled out from the registry.
struct QuadControlFeatures {
    VkStructureType sType = VkStructureType(1000235000);  // ..._SHADER_QUAD_CONTROL_FEATURES_KHR
    void* pNext = nullptr;
    VkBool32 shaderQuadControl = VK_FALSE;
};
struct MaximalReconvergenceFeatures {
    VkStructureType sType = VkStructureType(1000434000);  // ..._SHADER_MAXIMAL_RECONVERGENCE_FEATURES_KHR
    void* pNext = nullptr;
    VkBool32 shaderMaximalReconvergence = VK_FALSE;
};
constexpr const char* kQuadControlExtension = "VK_KHR_shader_quad_control";
constexpr const char* kMaximalReconvergenceExtension = "VK_KHR_shader_maximal_reconvergence";

// Whether the quad mip may use both extensions: the device has them and their features, and no
// validation layer too old to know them is loaded (it would report the unknown feature structs and
// SPIR-V capability; such runs take the core quad path instead).
bool use_quad_control(const Context& ctx, const ContextOptions& options) {
    if (!ctx.features.quad_control || !ctx.features.maximal_reconvergence) return false;
    MaximalReconvergenceFeatures reconvergence;
    QuadControlFeatures quad;
    quad.pNext = &reconvergence;
    VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &quad};
    vkGetPhysicalDeviceFeatures2(ctx.physical, &features);
    if (!quad.shaderQuadControl || !reconvergence.shaderMaximalReconvergence) return false;
    if (!options.validate) return true;
    uint32_t count = 0;
    vkEnumerateInstanceLayerProperties(&count, nullptr);
    std::vector<VkLayerProperties> layers(count);
    vkEnumerateInstanceLayerProperties(&count, layers.data());
    for (const VkLayerProperties& layer : layers)
        if (strcmp(layer.layerName, "VK_LAYER_KHRONOS_validation") == 0)
            return layer.specVersion >= VK_MAKE_API_VERSION(0, 1, 3, 280);
    return false;
}

void create_device(Context& ctx, const ContextOptions& options) {
    std::vector<VkExtensionProperties> available = device_extensions(ctx.physical);
    read_capabilities(ctx, available);
    ctx.queue_family = find_queue_family(ctx.physical);

    // Enable only what the device has; passes check ctx.features before relying on any of it.
    VkPhysicalDeviceFeatures2 supported{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    vkGetPhysicalDeviceFeatures2(ctx.physical, &supported);
    const VkPhysicalDeviceFeatures& s = supported.features;

    VkPhysicalDeviceVulkan13Features f13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
    f13.synchronization2 = VK_TRUE;
    f13.dynamicRendering = VK_TRUE;
    f13.maintenance4 = VK_TRUE;
    f13.subgroupSizeControl = ctx.subgroup.size_control;
    f13.computeFullSubgroups = ctx.subgroup.full_subgroups;
    VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, &f13};
    f12.hostQueryReset = VK_TRUE;
    // The scene's texture array where the device has descriptor indexing; else its textures are
    // the layers of one array texture (docs/materials.md), which needs none of this.
    f12.runtimeDescriptorArray = ctx.features.descriptor_indexing;
    f12.descriptorBindingPartiallyBound = ctx.features.descriptor_indexing;
    f12.descriptorBindingVariableDescriptorCount = ctx.features.descriptor_indexing;
    f12.shaderSampledImageArrayNonUniformIndexing = ctx.features.descriptor_indexing;
    VkPhysicalDeviceVulkan11Features f11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES, &f12};
    f11.shaderDrawParameters = VK_TRUE;
    VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &f11};
    VkPhysicalDeviceFeatures& f = features.features;
    f.multiDrawIndirect = s.multiDrawIndirect;
    f.drawIndirectFirstInstance = s.drawIndirectFirstInstance;
    f.tessellationShader = s.tessellationShader;
    f.geometryShader = s.geometryShader;
    f.fragmentStoresAndAtomics = s.fragmentStoresAndAtomics;
    f.vertexPipelineStoresAndAtomics = s.vertexPipelineStoresAndAtomics;
    f.shaderStorageImageWriteWithoutFormat = s.shaderStorageImageWriteWithoutFormat;
    f.samplerAnisotropy = s.samplerAnisotropy;
    f.pipelineStatisticsQuery = s.pipelineStatisticsQuery;
    if (!s.drawIndirectFirstInstance)
        throw NoDeviceError(ctx.info.name + " lacks drawIndirectFirstInstance, which the indirect draws use");

    std::vector<const char*> extensions = {VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME};
    QuadControlFeatures quad_control;
    MaximalReconvergenceFeatures maximal_reconvergence;
    if (use_quad_control(ctx, options)) {
        quad_control.shaderQuadControl = VK_TRUE;
        maximal_reconvergence.shaderMaximalReconvergence = VK_TRUE;
        quad_control.pNext = &maximal_reconvergence;
        f13.pNext = &quad_control;
        extensions.push_back(kQuadControlExtension);
        extensions.push_back(kMaximalReconvergenceExtension);
        ctx.features.quad_control_enabled = true;
    }
    // Task and mesh shaders (the meshlet path, docs/meshlets.md) and ray-tracing pipelines
    // (docs/ray-tracing.md), where the device offers them: the Mesa 25 lavapipe and the NVIDIA GPUs
    // do, the Mesa 22.3 lavapipe has neither. Without them those stages are absent and the plan says so.
    VkPhysicalDeviceMeshShaderFeaturesEXT mesh{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MESH_SHADER_FEATURES_EXT};
    VkPhysicalDeviceRayTracingPipelineFeaturesKHR ray_tracing{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_TRACING_PIPELINE_FEATURES_KHR};
    VkPhysicalDeviceAccelerationStructureFeaturesKHR acceleration{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ACCELERATION_STRUCTURE_FEATURES_KHR};
    VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR executables{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
    {
        VkPhysicalDeviceVulkan12Features has12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
        VkPhysicalDeviceMeshShaderFeaturesEXT has_mesh{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MESH_SHADER_FEATURES_EXT, &has12};
        VkPhysicalDeviceRayTracingPipelineFeaturesKHR has_rt{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_TRACING_PIPELINE_FEATURES_KHR,
                                                             &has_mesh};
        VkPhysicalDeviceAccelerationStructureFeaturesKHR has_as{
            VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ACCELERATION_STRUCTURE_FEATURES_KHR, &has_rt};
        VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR has_executables{
            VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR, &has_as};
        VkPhysicalDeviceFeatures2 query{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &has_executables};
        vkGetPhysicalDeviceFeatures2(ctx.physical, &query);
        void* chain = f13.pNext;  // quad control, when enabled above
        // --raster compute's 64-bit atomics (docs/raster.md).
        // SGD_MASK_FEATURES=int64-atomics treats the device as lacking them (tests: auto's reason).
        const char* masked = getenv("SGD_MASK_FEATURES");
        bool int64_masked = masked && std::string(masked).find("int64-atomics") != std::string::npos;
        if (has12.shaderBufferInt64Atomics && s.shaderInt64 && s.fragmentStoresAndAtomics && !int64_masked) {
            f12.shaderBufferInt64Atomics = VK_TRUE;
            f.shaderInt64 = VK_TRUE;
            ctx.features.int64_atomics = true;
        }
        ctx.features.sub_pixel_bits = ctx.properties.limits.subPixelPrecisionBits;
        if (has12.drawIndirectCount) {
            f12.drawIndirectCount = VK_TRUE;
            ctx.features.draw_indirect_count = true;
        }
        ctx.compile_ahead = ctx.properties.deviceType != VK_PHYSICAL_DEVICE_TYPE_CPU;
        if (const char* compile = getenv("SGD_PIPELINE_COMPILE"); compile && *compile) {
            ctx.compile_ahead = std::string(compile) == "ahead";
            if (!ctx.compile_ahead && std::string(compile) != "first-use")
                fprintf(stderr, "note: SGD_PIPELINE_COMPILE=%s is neither ahead nor first-use: pipelines compile at first use\n", compile);
        }
        if (std::string path = pipeline_stats_request(); !path.empty()) {
            if (has_extension(available, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME) &&
                has_executables.pipelineExecutableInfo) {
                executables.pipelineExecutableInfo = VK_TRUE;
                executables.pNext = chain;
                chain = &executables;
                extensions.push_back(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
                ctx.pipeline_stats_path = path;
            } else {
                fprintf(stderr, "note: SGD_PIPELINE_STATS: %s does not offer VK_KHR_pipeline_executable_properties; "
                        "no pipeline statistics are written\n", ctx.info.name.c_str());
            }
        }
        if (has_extension(available, VK_EXT_MESH_SHADER_EXTENSION_NAME) && has_mesh.taskShader && has_mesh.meshShader) {
            mesh.taskShader = mesh.meshShader = VK_TRUE;
            mesh.pNext = chain;
            chain = &mesh;
            extensions.push_back(VK_EXT_MESH_SHADER_EXTENSION_NAME);
            ctx.features.mesh_shader = true;
        }
        const bool ray_tracing_offered = has_extension(available, VK_KHR_RAY_TRACING_PIPELINE_EXTENSION_NAME) &&
                                         has_extension(available, VK_KHR_ACCELERATION_STRUCTURE_EXTENSION_NAME) &&
                                         has_extension(available, VK_KHR_DEFERRED_HOST_OPERATIONS_EXTENSION_NAME) &&
                                         has_rt.rayTracingPipeline && has_as.accelerationStructure && has12.bufferDeviceAddress;
        // VK_KHR_acceleration_structure requires descriptor indexing: a device masked to lack it lacks this too.
        if (ray_tracing_offered && !ctx.features.descriptor_indexing)
            ctx.features.ray_tracing_missing = "VK_KHR_acceleration_structure requires descriptor indexing, and " +
                                               ctx.features.textures_missing;
        if (ray_tracing_offered && ctx.features.descriptor_indexing) {
            ray_tracing.rayTracingPipeline = VK_TRUE;
            // The dense launch (ray_trace_pass.cpp): its width written by the compaction pass.
            ray_tracing.rayTracingPipelineTraceRaysIndirect = has_rt.rayTracingPipelineTraceRaysIndirect;
            ctx.features.ray_tracing_indirect = has_rt.rayTracingPipelineTraceRaysIndirect;
            acceleration.accelerationStructure = VK_TRUE;
            acceleration.pNext = chain;
            ray_tracing.pNext = &acceleration;
            chain = &ray_tracing;
            f12.bufferDeviceAddress = VK_TRUE;
            extensions.push_back(VK_KHR_RAY_TRACING_PIPELINE_EXTENSION_NAME);
            extensions.push_back(VK_KHR_ACCELERATION_STRUCTURE_EXTENSION_NAME);
            extensions.push_back(VK_KHR_DEFERRED_HOST_OPERATIONS_EXTENSION_NAME);
            ctx.features.ray_tracing = true;
        }
        f13.pNext = chain;
        // Their limits, chained only for what is enabled (an unknown struct in the chain is invalid).
        VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
        ctx.mesh_properties.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MESH_SHADER_PROPERTIES_EXT;
        ctx.ray_tracing_properties.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_TRACING_PIPELINE_PROPERTIES_KHR;
        ctx.acceleration_structure_properties.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ACCELERATION_STRUCTURE_PROPERTIES_KHR;
        if (ctx.features.mesh_shader) {
            ctx.mesh_properties.pNext = props.pNext;
            props.pNext = &ctx.mesh_properties;
        }
        if (ctx.features.ray_tracing) {
            ctx.acceleration_structure_properties.pNext = props.pNext;
            ctx.ray_tracing_properties.pNext = &ctx.acceleration_structure_properties;
            props.pNext = &ctx.ray_tracing_properties;
        }
        vkGetPhysicalDeviceProperties2(ctx.physical, &props);
        ctx.mesh_properties.pNext = ctx.ray_tracing_properties.pNext = ctx.acceleration_structure_properties.pNext = nullptr;
    }
    if (options.swapchain) {
        if (!has_extension(available, VK_KHR_SWAPCHAIN_EXTENSION_NAME))
            throw NoDeviceError(ctx.info.name + " cannot present (no VK_KHR_swapchain)");
        extensions.push_back(VK_KHR_SWAPCHAIN_EXTENSION_NAME);
    }

    float priority = 1.0f;
    VkDeviceQueueCreateInfo queue{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    queue.queueFamilyIndex = ctx.queue_family;
    queue.queueCount = 1;
    queue.pQueuePriorities = &priority;

    VkDeviceCreateInfo info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, &features};
    info.queueCreateInfoCount = 1;
    info.pQueueCreateInfos = &queue;
    info.enabledExtensionCount = uint32_t(extensions.size());
    info.ppEnabledExtensionNames = extensions.data();
    VK_CHECK(vkCreateDevice(ctx.physical, &info, nullptr, &ctx.device));
    vkGetDeviceQueue(ctx.device, ctx.queue_family, 0, &ctx.queue);
    vkCmdPushDescriptorSet_ = (PFN_vkCmdPushDescriptorSetKHR)vkGetDeviceProcAddr(ctx.device, "vkCmdPushDescriptorSetKHR");
    if (ctx.features.mesh_shader) {
        vkCmdDrawMeshTasks_ = (PFN_vkCmdDrawMeshTasksEXT)vkGetDeviceProcAddr(ctx.device, "vkCmdDrawMeshTasksEXT");
        vkCmdDrawMeshTasksIndirect_ =
            (PFN_vkCmdDrawMeshTasksIndirectEXT)vkGetDeviceProcAddr(ctx.device, "vkCmdDrawMeshTasksIndirectEXT");
    }

    VkCommandPoolCreateInfo pool{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pool.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pool.queueFamilyIndex = ctx.queue_family;
    VK_CHECK(vkCreateCommandPool(ctx.device, &pool, nullptr, &ctx.command_pool));
}

}  // namespace

void forget_pushed_descriptors(const Context& ctx, VkCommandBuffer cmd) {
    auto& pushed = ctx.descriptor_arena.pushed;
    for (auto it = pushed.begin(); it != pushed.end();)
        it = it->first.first == cmd ? pushed.erase(it) : std::next(it);
}

void wait_for_frame(const Context& ctx, VkFence fence) {
    FrameFault fault;  // test only: SGD_FAULT=device-lost@N, hang@N
    if (fault.loses_device()) vkDeviceWaitIdle(ctx.device);
    uint32_t timeout_s = frame_timeout_s(), waited_s = 0;
    for (;;) {
        VkResult wait = fault.apply(vkWaitForFences(ctx.device, 1, &fence, VK_TRUE, 1'000'000'000ull));
        if (wait != VK_TIMEOUT) {
            vk_check(wait, "vkWaitForFences (frame)");
            return;
        }
        if (++waited_s >= timeout_s) {
            mark_device_abandoned();
            throw VulkanError("a frame did not finish on the GPU within " + std::to_string(timeout_s) +
                              " s; giving up (the GPU is hung or far too slow for this --size/--instances)");
        }
    }
}

uint32_t validation_message_count() { return g_validation_messages.load(); }

void report_validation_error(const std::string& message) {
    fprintf(stderr, "validation error: %s\n", message.c_str());
    g_validation_messages++;
}

// The scene textures' set layout (Context::texture_set_layout). A combined image sampler counts as a
// sampler and as a sampled image; a few of each are left to set 0 (the depth and visibility images
// read with texelFetch), so a pipeline layout with both sets stays within the per-stage limits.
static void create_texture_set_layout(Context& ctx) {
    if (!ctx.features.descriptor_indexing) {
        // The array texture's two views (sRGB, UNORM): scene_textures.glsl SCENE_TEXTURE_LAYERS.
        VkDescriptorSetLayoutBinding views[2] = {{0, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1, VK_SHADER_STAGE_ALL, nullptr},
                                                 {1, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1, VK_SHADER_STAGE_ALL, nullptr}};
        VkDescriptorSetLayoutCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
        info.bindingCount = 2;
        info.pBindings = views;
        VK_CHECK(vkCreateDescriptorSetLayout(ctx.device, &info, nullptr, &ctx.texture_set_layout));
        ctx.max_scene_textures = ctx.properties.limits.maxImageArrayLayers;
        return;
    }
    const VkPhysicalDeviceLimits& l = ctx.properties.limits;
    constexpr uint32_t kSetZeroShare = 16, kCap = 1u << 16;
    uint32_t limit = std::min({l.maxPerStageDescriptorSamplers, l.maxPerStageDescriptorSampledImages,
                               l.maxDescriptorSetSamplers, l.maxDescriptorSetSampledImages});
    ctx.max_scene_textures = std::min(kCap, limit > kSetZeroShare ? limit - kSetZeroShare : 1u);
    VkDescriptorSetLayoutBinding binding{0, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, ctx.max_scene_textures,
                                         VK_SHADER_STAGE_ALL, nullptr};
    VkDescriptorBindingFlags flags =
        VK_DESCRIPTOR_BINDING_PARTIALLY_BOUND_BIT | VK_DESCRIPTOR_BINDING_VARIABLE_DESCRIPTOR_COUNT_BIT;
    VkDescriptorSetLayoutBindingFlagsCreateInfo binding_flags{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_BINDING_FLAGS_CREATE_INFO};
    binding_flags.bindingCount = 1;
    binding_flags.pBindingFlags = &flags;
    VkDescriptorSetLayoutCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, &binding_flags};
    info.bindingCount = 1;
    info.pBindings = &binding;
    VK_CHECK(vkCreateDescriptorSetLayout(ctx.device, &info, nullptr, &ctx.texture_set_layout));
}

void create_context(Context& ctx, const ContextOptions& options) {
    create_instance(ctx, options);
    ctx.physical = pick_physical_device(ctx, options.device_index);
    create_device(ctx, options);
    if (options.subgroup_size) {
        // The stages it applies to: compute, and task and mesh where the device has them.
        uint32_t stages = bit(Stage::compute) | (ctx.features.mesh_shader ? bit(Stage::task) | bit(Stage::mesh) : 0);
        if (std::string why = subgroup_size_refusal(ctx.subgroup_unmasked, options.subgroup_size, stages); !why.empty())
            throw UnsupportedRequest("--subgroup-size " + std::to_string(options.subgroup_size) + ": " + why);
        ctx.subgroup_size = options.subgroup_size;
    }
    ctx.descriptor_arena.enabled = options.validate && gpu_assisted_validation_requested();
    ctx.descriptor_arena.acceleration_structures = ctx.features.ray_tracing;
    create_texture_set_layout(ctx);
    apply_masks(ctx.subgroup, options.mask_stages, options.mask_ops);
}

Context::~Context() {
    // An abandoned device may still be running (or never finish) a frame: waiting for it, or
    // destroying it under its feet, could block forever. The process is about to exit anyway.
    if (device_abandoned()) return;
    if (device) {
        vkDeviceWaitIdle(device);
        for (VkDescriptorPool pool : descriptor_arena.pools) vkDestroyDescriptorPool(device, pool, nullptr);
        for (auto& [path, module] : shader_modules) vkDestroyShaderModule(device, module, nullptr);
        if (texture_set_layout) vkDestroyDescriptorSetLayout(device, texture_set_layout, nullptr);
        if (command_pool) vkDestroyCommandPool(device, command_pool, nullptr);
        vkDestroyDevice(device, nullptr);
    }
    if (messenger) {
        auto destroy = (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(instance, "vkDestroyDebugUtilsMessengerEXT");
        destroy(instance, messenger, nullptr);
    }
    if (instance) vkDestroyInstance(instance, nullptr);
}

std::vector<std::string> list_devices() {
    Context ctx;
    create_instance(ctx, {});
    std::vector<std::string> lines;
    std::vector<VkPhysicalDevice> devices = physical_devices(ctx.instance);
    for (size_t i = 0; i < devices.size(); ++i) {
        VkPhysicalDeviceProperties props;
        vkGetPhysicalDeviceProperties(devices[i], &props);
        std::string why = unusable_reason(devices[i]);
        lines.push_back(std::to_string(i) + ": " + props.deviceName + " (" + type_name(props.deviceType) +
                        ", Vulkan " + version_string(props.apiVersion) + ")" + (why.empty() ? "" : " unusable: " + why));
    }
    return lines;
}

VkCommandBuffer begin_one_shot(const Context& ctx) {
    VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    alloc.commandPool = ctx.command_pool;
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = 1;
    VkCommandBuffer cmd;
    VK_CHECK(vkAllocateCommandBuffers(ctx.device, &alloc, &cmd));
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    VK_CHECK(vkBeginCommandBuffer(cmd, &begin));
    forget_pushed_descriptors(ctx, cmd);
    return cmd;
}

void end_one_shot(const Context& ctx, VkCommandBuffer cmd) {
    VK_CHECK(vkEndCommandBuffer(cmd));
    VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &cmd;
    VK_CHECK(vkQueueSubmit(ctx.queue, 1, &submit, VK_NULL_HANDLE));
    VK_CHECK(vkQueueWaitIdle(ctx.queue));
    vkFreeCommandBuffers(ctx.device, ctx.command_pool, 1, &cmd);
}

void begin_label(const Context& ctx, VkCommandBuffer cmd, const std::string& name) {
    if (!ctx.debug_utils || !g_begin_label) return;
    VkDebugUtilsLabelEXT label{VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT};
    label.pLabelName = name.c_str();
    g_begin_label(cmd, &label);
}

void end_label(const Context& ctx, VkCommandBuffer cmd) {
    if (ctx.debug_utils && g_end_label) g_end_label(cmd);
}

void set_name(const Context& ctx, VkObjectType type, uint64_t handle, const char* name) {
    if (!ctx.debug_utils || !g_set_name) return;
    VkDebugUtilsObjectNameInfoEXT info{VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT};
    info.objectType = type;
    info.objectHandle = handle;
    info.pObjectName = name;
    g_set_name(ctx.device, &info);
}
