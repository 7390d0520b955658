// What the renderer will allocate on the GPU, buffer by buffer and image by image, computed from
// the scene and the options alone, so that every device limit is checked before anything is
// allocated (docs/robustness.md). Plain data and arithmetic: unit-tested with made-up limits.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "run/options.h"
#include "passes/allocation.h"
#include "scene/scene.h"

struct Context;

// The device numbers that bound those allocations.
struct DeviceLimits {
    uint64_t max_image_dimension_2d = 0;
    uint64_t max_scene_textures = 0;     // Context::max_scene_textures: the texture array's capacity
    uint64_t max_storage_buffer_range = 0;
    uint64_t max_buffer_size = 0;        // VkPhysicalDeviceMaintenance4Properties (core in 1.3)
    uint64_t max_allocation_size = 0;    // VkPhysicalDeviceMaintenance3Properties; every buffer is its own allocation
    uint64_t device_local_heap = 0;      // largest device-local heap
    bool unified_memory = false;         // host-visible memory lives in that heap too (lavapipe, integrated GPUs)
    bool ray_tracing = false;            // the ray_trace pass's buffers exist (ctx.features.ray_tracing)
    bool mesh_shader = false;            // a task or mesh debug view draws meshlets (ctx.features.mesh_shader)
};

DeviceLimits device_limits(const Context& ctx);

// Everything Renderer's constructor and its passes allocate for `scene` (already replicated by
// --instances) at options.width x options.height with options.lights lights and
// options.cull_group_size invocations per cull workgroup, running `plan` (what auto resolved,
// not what was typed: the compute rasterizer's buffers where plan.raster is compute), plus the
// largest staging buffer the uploads use at the same time. Only device.ray_tracing and
// device.mesh_shader are read: with ray_tracing, the ray_trace pass's buffers whose size the scene
// alone gives (light AABBs, TLAS instances; kDriverSizedAllocations are not planned); with
// mesh_shader, the meshlet path's buffers where a task or mesh debug view draws them.
std::vector<PlannedAllocation> planned_allocations(const Scene& scene, const Options& options, const Plan& plan,
                                                   const DeviceLimits& device = {});
// What one renderer holds after it took each of `plans` in turn (--compare's rows, the window's
// keys): a plan's buffers are made the first time it runs and kept (Renderer::set_plan), so each
// name at the most any of the plans allocates under it.
std::vector<PlannedAllocation> planned_allocations(const Scene& scene, const Options& options, const std::vector<Plan>& plans,
                                                   const DeviceLimits& device = {});

// Allocations whose size only the driver knows once asked (vkGetAccelerationStructureBuildSizesKHR,
// the shader group handle size): not in planned_allocations, so not checked in advance. A device
// that cannot hold them fails the allocation with the out-of-memory message instead.
inline const std::vector<std::string> kDriverSizedAllocations = {"acceleration structures",
                                                                 "acceleration structure scratch", "shader binding table"};

// Throws UsageError (exit 2) with one line naming the limit, the size asked and what to change.
void check_limits(const DeviceLimits& limits, const Options& options, const Plan& plan, const Scene& scene);
// The same for one renderer that takes each of `plans` in turn: their buffers together.
void check_limits(const DeviceLimits& limits, const Options& options, const std::vector<Plan>& plans, const Scene& scene);

// Draws (mesh instances after --instances) the renderer accepts: each costs GpuDraw (512 B),
// two indirect commands and a cull chunk on the GPU, and about 300 B on the host.
constexpr uint64_t kMaxDraws = 1ull << 22;
