// What the CI drivers are known to offer, checked in: the suite's own record, so a skip or an
// "unsupported" outcome is held to what the driver has, never to what the product's detection
// (src/vk/context.cpp, src/caps/) says it has. Where the running driver is one of these (driver
// ID and its Mesa major.minor), tests/gpu_compute/test_known_drivers.cpp fails on any difference
// from detection, and every test that would skip or expect "unsupported" asks the record first.
// On any other driver known_driver() is null and the tests decide as before (docs/testing.md).
//
// Read from vulkaninfo of each driver (VkPhysicalDeviceSubgroupProperties, the features and the
// extension list), not from this program; the sources are kept beside the checkout in
// ../shared/device-caps/ (lavapipe-vulkaninfo.txt, lavapipe-mesa25-vulkaninfo.txt), but nothing
// reads them at test time. The subgroup size is not recorded: lavapipe's follows
// LP_NATIVE_VECTOR_WIDTH (SGD_EXPECT_SUBGROUP, checked by the tests at each width).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include <vulkan/vulkan.h>

#include "vk/shader_cache.h"

struct KnownDriver {
    const char* name;
    VkDriverId driver_id;
    int major, minor;      // the Mesa release in driverInfo ("Mesa 25.0.7-2~bpo12+1 (LLVM 15.0.6)")
    const char* source;    // the vulkaninfo it was read from
    // Stages and operations as the command line and the report spell them.
    std::vector<std::string> subgroup_stages;
    std::vector<std::string> subgroup_operations;
    bool quad_in_all_stages;
    bool size_control;    // subgroupSizeControl
    bool full_subgroups;  // computeFullSubgroups
    std::vector<std::string> required_size_stages;
    // Device features.
    bool tessellation, geometry;
    bool fragment_stores, vertex_stores;  // fragmentStoresAndAtomics, vertexPipelineStoresAndAtomics
    bool multi_draw_indirect, pipeline_statistics;
    bool quad_control;           // VK_KHR_shader_quad_control
    bool maximal_reconvergence;  // VK_KHR_shader_maximal_reconvergence
    bool mesh_shader;            // VK_EXT_mesh_shader with taskShader and meshShader
    bool ray_tracing;            // VK_KHR_ray_tracing_pipeline, _acceleration_structure, _deferred_host_operations
    // runtimeDescriptorArray, descriptorBindingPartiallyBound, descriptorBindingVariableDescriptorCount,
    // shaderSampledImageArrayNonUniformIndexing: the scene's textures as an array of descriptors
    // (without them, one array texture's layers: docs/materials.md).
    bool descriptor_indexing;
    uint64_t max_storage_buffer_range;  // limits.maxStorageBufferRange

    bool has_stage(const std::string& s) const {
        return std::find(subgroup_stages.begin(), subgroup_stages.end(), s) != subgroup_stages.end();
    }
    bool has_op(const std::string& o) const {
        return std::find(subgroup_operations.begin(), subgroup_operations.end(), o) != subgroup_operations.end();
    }
};

// The six ray-tracing stages, as the command line spells them.
inline const std::vector<std::string> kRecordRayTracingStages = {"raygen", "any-hit", "closest-hit",
                                                                 "miss",   "intersection", "callable"};

// lavapipe of Mesa 22.3 (Debian 12).
inline KnownDriver lavapipe_mesa22_record() {
    return {
        .name = "lavapipe, Mesa 22.3 (Debian 12)",
        .driver_id = VK_DRIVER_ID_MESA_LLVMPIPE,
        .major = 22,
        .minor = 3,
        .source = "../shared/device-caps/lavapipe-vulkaninfo.txt (Mesa 22.3.6, LLVM 15.0.6)",
        .subgroup_stages = {"fragment", "compute"},
        .subgroup_operations = {"basic", "vote", "arithmetic", "ballot", "shuffle", "shuffle-relative", "quad"},
        .quad_in_all_stages = false,
        .size_control = true,
        .full_subgroups = true,
        .required_size_stages = {"fragment", "compute"},
        .tessellation = true,
        .geometry = true,
        .fragment_stores = true,
        .vertex_stores = true,
        .multi_draw_indirect = true,
        .pipeline_statistics = true,
        .quad_control = false,
        .maximal_reconvergence = false,
        .mesh_shader = false,
        .ray_tracing = false,
        .descriptor_indexing = false,
        .max_storage_buffer_range = 134217728,
    };
}

// lavapipe of Mesa 25.0: what differs from Mesa 22.3's record (its vulkaninfo against 22.3's).
inline KnownDriver lavapipe_mesa25_record() {
    KnownDriver k = lavapipe_mesa22_record();
    k.name = "lavapipe, Mesa 25.0 (Debian 12 backports, what tools/setup.sh installs)";
    k.major = 25;
    k.minor = 0;
    k.source = "../shared/device-caps/lavapipe-mesa25-vulkaninfo.txt (Mesa 25.0.7-2~bpo12+1, LLVM 15.0.6)";
    // No subgroups in vertex, tessellation, geometry or any of the six ray-tracing stages.
    k.subgroup_stages = {"fragment", "compute", "task", "mesh"};
    k.subgroup_operations = {"basic", "vote", "arithmetic", "ballot", "shuffle", "shuffle-relative", "clustered", "quad"};
    k.maximal_reconvergence = true;
    k.mesh_shader = true;
    k.ray_tracing = true;
    k.descriptor_indexing = true;
    return k;
}

inline const std::vector<KnownDriver>& known_drivers() {
    static const std::vector<KnownDriver> drivers = {lavapipe_mesa22_record(), lavapipe_mesa25_record()};
    return drivers;
}

// A GPU with subgroups in every stage, for the planner's unit test (tests/test_known_plans.cpp):
// on lavapipe vertex, tessellation, geometry and the ray-tracing stages have none, so only a
// record like this one can show a planner that wrongly calls them unsupported. Not matched
// against a running driver (its version is not Mesa's): GPU runs decide from the device. What
// differs from the Mesa 25.0 lavapipe's record (its vulkaninfo against that one's).
inline const KnownDriver& nvidia_h200_record() {
    static const KnownDriver driver = [] {
        const std::vector<std::string> all_stages = {
            "vertex", "tess-control", "tess-eval", "geometry", "fragment", "compute", "task", "mesh",
            "raygen", "any-hit", "closest-hit", "miss", "intersection", "callable"};
        KnownDriver k = lavapipe_mesa25_record();
        k.name = "NVIDIA H200, driver 580.159.04";
        k.driver_id = VK_DRIVER_ID_NVIDIA_PROPRIETARY;
        k.major = k.minor = -1;
        k.source = "../shared/device-caps/nvidia-h200-vulkaninfo.txt";
        k.subgroup_stages = all_stages;
        // (the operations also SUBGROUP_FEATURE_PARTITIONED_BIT_NV, which the demo does not use)
        k.quad_in_all_stages = true;
        k.required_size_stages = all_stages;
        k.quad_control = true;
        k.max_storage_buffer_range = 4294967295;
        return k;
    }();
    return driver;
}

// The driver of this machine's Vulkan device, read here with Vulkan directly (not through
// src/vk/context.cpp, which is what the record checks).
struct RunningDriver {
    VkDriverId driver_id = VkDriverId(0);
    std::string driver_name, driver_info, device_name;
    int major = -1, minor = -1;  // of "Mesa X.Y" in driverInfo; -1 for a driver that is not Mesa
};

// "Mesa 25.0.7-2~bpo12+1 (LLVM 15.0.6)" -> 25, 0; false when driverInfo names no Mesa release.
inline bool parse_mesa_version(const std::string& info, int& major, int& minor) {
    size_t at = info.find("Mesa ");
    return at != std::string::npos && sscanf(info.c_str() + at + 5, "%d.%d", &major, &minor) == 2;
}

// Only where the instance shows exactly one device (CI: lavapipe alone), so it is the one the demo
// uses; with several (a GPU beside lavapipe) the record applies to none of them.
inline std::optional<RunningDriver> running_driver() {
    static const std::optional<RunningDriver> driver = []() -> std::optional<RunningDriver> {
        isolate_lavapipe_shader_cache();  // the same environment the demo's own instance gets
        VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
        app.apiVersion = VK_API_VERSION_1_3;
        VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
        info.pApplicationInfo = &app;
        VkInstance instance = VK_NULL_HANDLE;
        if (vkCreateInstance(&info, nullptr, &instance) != VK_SUCCESS) return std::nullopt;
        uint32_t count = 0;
        vkEnumeratePhysicalDevices(instance, &count, nullptr);
        std::vector<VkPhysicalDevice> devices(count);
        vkEnumeratePhysicalDevices(instance, &count, devices.data());
        std::optional<RunningDriver> result;
        if (count == 1) {
            VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
            VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &driver};
            vkGetPhysicalDeviceProperties2(devices[0], &props);
            RunningDriver d;
            d.driver_id = driver.driverID;
            d.driver_name = driver.driverName;
            d.driver_info = driver.driverInfo;
            d.device_name = props.properties.deviceName;
            if (!parse_mesa_version(d.driver_info, d.major, d.minor)) d.major = d.minor = -1;
            result = d;
        }
        vkDestroyInstance(instance, nullptr);
        return result;
    }();
    return driver;
}

// The record of the running driver, or null: then tests decide from the device as before.
inline const KnownDriver* known_driver() {
    std::optional<RunningDriver> running = running_driver();
    if (!running) return nullptr;
    for (const KnownDriver& k : known_drivers())
        if (k.driver_id == running->driver_id && k.major == running->major && k.minor == running->minor) return &k;
    return nullptr;
}

// What the record says about a debug view (lane-id: basic; the other two also ballot) in a stage:
// the stage has subgroups with those operations, and the device can run the stage at all.
inline bool record_supports_view(const KnownDriver& k, const std::string& mode, const std::string& stage) {
    bool ops = k.has_op("basic") && (mode == "lane-id" || k.has_op("ballot"));
    bool runs = true;
    if (stage == "tess-control" || stage == "tess-eval") runs = k.tessellation;
    if (stage == "geometry") runs = k.geometry;
    if (stage == "task" || stage == "mesh") runs = k.mesh_shader;
    for (const std::string& rt : kRecordRayTracingStages)
        if (stage == rt) runs = k.ray_tracing;
    // active-lanes counts its subgroups with an atomic: vertex-pipeline and fragment stages store
    // only with the store features.
    if (mode == "active-lanes") {
        if (stage == "vertex" || stage == "tess-control" || stage == "tess-eval" || stage == "geometry")
            runs = runs && k.vertex_stores;
        if (stage == "fragment") runs = runs && k.fragment_stores;
    }
    return runs && ops && k.has_stage(stage);
}

// The record's ray-tracing stages without subgroups (all six on lavapipe).
inline std::vector<std::string> record_rt_stages_without_subgroups(const KnownDriver& k) {
    std::vector<std::string> lacking;
    for (const std::string& s : kRecordRayTracingStages)
        if (!k.has_stage(s)) lacking.push_back(s);
    return lacking;
}
