// How a Vulkan call's failure becomes the contract's exit code: the two exceptions main maps, the
// check every call goes through, and the flag that tells teardown not to wait for a lost GPU.
// Below the context: the fault injection and the pipeline statistics use it too.
#pragma once

#include <stdexcept>
#include <string>

#include <vulkan/vulkan.h>

// A Vulkan call failed at run time: exit 1.
struct VulkanError : std::runtime_error {
    using std::runtime_error::runtime_error;
};
// No device that can run the demo: exit 4.
struct NoDeviceError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

std::string vk_result_name(VkResult result);
// Throws VulkanError naming the call and the result; a lost device also marks it abandoned.
void vk_check(VkResult result, const char* call);
#define VK_CHECK(call) vk_check((call), #call)

// After a timeout or a lost device the GPU may still be running the frame: teardown must not wait for it.
void mark_device_abandoned();
bool device_abandoned();
