// Test-only fault injection (docs/robustness.md), read once from the environment, so the tests can
// reach the failure paths a healthy lavapipe never takes:
//   SGD_FAULT=oom@BYTES       device-memory allocations larger than BYTES fail (VK_ERROR_OUT_OF_DEVICE_MEMORY)
//   SGD_FAULT=device-lost@N   waiting for the N-th submitted frame (from 0) reports VK_ERROR_DEVICE_LOST
//   SGD_FAULT=hang@N          the N-th submitted frame never completes, as on a hung GPU
//   SGD_FRAME_TIMEOUT_S=S     seconds a frame may take before the run gives up (default 600)
//   SGD_POISON_ALLOCATIONS=1  every new buffer and image starts out filled with garbage (NaN floats,
//                             huge integers, odd colours and depths) instead of whatever the memory
//                             held: a frame that changes under it reads something before writing it
//                             (read at every allocation, so an in-process test can switch it)
// It ships in the binary because the tests drive the real executable (docs/architecture.md says
// why); without the variables every hook below is a comparison that never fires. The context and
// the allocator call these hooks and nothing else of it.
#pragma once

#include <cstdint>

#include <vulkan/vulkan.h>

// Whether allocating `size` bytes of device memory must fail as out of memory (oom@BYTES).
bool inject_out_of_memory(VkDeviceSize size);

// Whether new buffers and images are filled with garbage first (SGD_POISON_ALLOCATIONS set, not 0).
bool poison_allocations();

// The seconds a frame may take (SGD_FRAME_TIMEOUT_S, default 600).
uint32_t frame_timeout_s();

// One frame's wait for its fence: created once per frame waited for (numbering them from 0),
// apply() turns the fence's answer into the injected fault's for the chosen frame.
class FrameFault {
public:
    FrameFault();
    VkResult apply(VkResult wait) const;
    // This frame's wait reports VK_ERROR_DEVICE_LOST. The device is not really lost: the caller
    // lets it finish its work first, as a lost device would run nothing more, so that freeing
    // buffers while unwinding never races a driver thread still executing them (lavapipe did).
    bool loses_device() const;

private:
    int64_t frame_;
};
