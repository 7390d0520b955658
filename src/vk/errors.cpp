#include "vk/errors.h"

#include <atomic>

namespace {

std::atomic<bool> g_device_abandoned{false};

}  // namespace

std::string vk_result_name(VkResult r) {
    switch (r) {
        case VK_ERROR_OUT_OF_HOST_MEMORY: return "VK_ERROR_OUT_OF_HOST_MEMORY";
        case VK_ERROR_OUT_OF_DEVICE_MEMORY: return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
        case VK_ERROR_INITIALIZATION_FAILED: return "VK_ERROR_INITIALIZATION_FAILED";
        case VK_ERROR_DEVICE_LOST: return "VK_ERROR_DEVICE_LOST";
        case VK_ERROR_LAYER_NOT_PRESENT: return "VK_ERROR_LAYER_NOT_PRESENT";
        case VK_ERROR_EXTENSION_NOT_PRESENT: return "VK_ERROR_EXTENSION_NOT_PRESENT";
        case VK_ERROR_FEATURE_NOT_PRESENT: return "VK_ERROR_FEATURE_NOT_PRESENT";
        case VK_ERROR_INCOMPATIBLE_DRIVER: return "VK_ERROR_INCOMPATIBLE_DRIVER";
        case VK_ERROR_SURFACE_LOST_KHR: return "VK_ERROR_SURFACE_LOST_KHR";
        case VK_ERROR_OUT_OF_DATE_KHR: return "VK_ERROR_OUT_OF_DATE_KHR";
        case VK_SUBOPTIMAL_KHR: return "VK_SUBOPTIMAL_KHR";
        default: return "VkResult " + std::to_string(int(r));
    }
}

void vk_check(VkResult result, const char* call) {
    if (result == VK_SUCCESS) return;
    std::string what = std::string(call);
    if (what.size() > 60) what = what.substr(0, what.find('('));
    if (result == VK_ERROR_DEVICE_LOST) {
        mark_device_abandoned();
        throw VulkanError("the GPU was lost (VK_ERROR_DEVICE_LOST) in " + what +
                          "; the driver reset the device (a driver crash, a hang or a GPU fault); run again");
    }
    if (result == VK_ERROR_SURFACE_LOST_KHR)
        throw VulkanError("the window's surface was lost (VK_ERROR_SURFACE_LOST_KHR) in " + what +
                          "; the window system closed it");
    if (result == VK_ERROR_OUT_OF_DATE_KHR)
        throw VulkanError("the swapchain no longer matches the window (VK_ERROR_OUT_OF_DATE_KHR) in " + what);
    throw VulkanError(what + " failed: " + vk_result_name(result));
}

void mark_device_abandoned() { g_device_abandoned = true; }
bool device_abandoned() { return g_device_abandoned.load(); }
