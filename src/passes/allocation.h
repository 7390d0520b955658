// What a frame allocates on the device, as plain data: the start-up memory plan (run/limits.cpp)
// checks every buffer and image against the device's limits before anything is allocated, and each
// pass contributes its own share through its table entry (PassInfo::frame_allocations).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

struct Scene;

enum class AllocationKind {
    storage_buffer,  // bound as a storage buffer: maxStorageBufferRange applies
    buffer,          // other device-local buffer (uniforms, indirect-only)
    host_buffer,     // host-visible (per-frame uploads, staging)
    image,           // device-local image
};

struct PlannedAllocation {
    std::string name;  // the name the renderer gives it (debug-utils object name)
    uint64_t bytes = 0;
    AllocationKind kind = AllocationKind::storage_buffer;
    bool uploaded = true;  // filled from the host through a staging buffer (false: written by the GPU only)
};

// What a pass's share depends on.
struct AllocationQuery {
    const Scene& scene;  // already replicated by --instances
    uint32_t width, height, lights, cull_group_size;
    bool ray_tracing = false;  // the device has ray tracing: the ray_trace pass allocates its buffers
};
