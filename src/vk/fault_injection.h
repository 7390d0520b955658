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
//   SGD_CULL_LOOKBACK=late@K[,spin@N]  the cull pass's look-back (docs/culling.md): in each run of K
//                             tickets the partitions go out last first, so they start before their
//                             predecessors, which publish late; spin@N: a predecessor not ready is
//                             read N + 1 times before the workgroup counts it itself (spin@0: never
//                             spin). Read when the cull pass is created, so an in-process test can
//                             switch it
//   SGD_MESHLET_FALLBACK_STAGE=task|mesh  diagnosis, not a fault: the meshlet depth pass's subgroup
//                             pipeline takes that stage's fallback shader (meshlet_fallback_stage)
// It ships in the binary because the tests drive the real executable (docs/architecture.md says
// why); without the variables every hook below is a comparison that never fires. The context and
// the allocator call these hooks and nothing else of it.
#pragma once

#include <string>

#include <cstdint>

#include <vulkan/vulkan.h>

// Whether allocating `size` bytes of device memory must fail as out of memory (oom@BYTES).
bool inject_out_of_memory(VkDeviceSize size);

// Whether new buffers and images are filled with garbage first (SGD_POISON_ALLOCATIONS set, not 0).
bool poison_allocations();

// The cull look-back's schedule (SGD_CULL_LOOKBACK): late_group 1 and spin_limit kLookbackSpinLimit
// unless the variable says otherwise.
constexpr uint32_t kLookbackSpinLimit = 64;  // docs/culling.md: measured against 16 and 256
struct LookbackSchedule {
    uint32_t late_group = 1;
    uint32_t spin_limit = kLookbackSpinLimit;
};
LookbackSchedule lookback_schedule();

// Diagnosis only (SGD_MESHLET_FALLBACK_STAGE=task or mesh, tools/gpu_meshlet_split.sh): the meshlet
// depth pass's subgroup pipeline takes that one stage's fallback shader, so timing it against both
// whole variants splits the subgroup variant's cost between the task and the mesh shader. Both
// shaders share one payload and give the same kept meshlets and triangles in any pairing.
// Empty where unset.
std::string meshlet_fallback_stage();

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
