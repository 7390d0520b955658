#include "window/swapchain.h"

#include <algorithm>

VkSurfaceFormatKHR choose_surface_format(const std::vector<VkSurfaceFormatKHR>& formats) {
    for (VkFormat want : {VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_R8G8B8A8_SRGB, VK_FORMAT_B8G8R8A8_UNORM, VK_FORMAT_B8G8R8A8_SRGB})
        for (const VkSurfaceFormatKHR& f : formats)
            if (f.format == want && f.colorSpace == VK_COLOR_SPACE_SRGB_NONLINEAR_KHR) return f;
    if (formats.size() == 1 && formats[0].format == VK_FORMAT_UNDEFINED)  // "anything goes" (old drivers)
        return {VK_FORMAT_R8G8B8A8_UNORM, VK_COLOR_SPACE_SRGB_NONLINEAR_KHR};
    return {VK_FORMAT_UNDEFINED, VK_COLOR_SPACE_SRGB_NONLINEAR_KHR};
}

VkPresentModeKHR choose_present_mode(const std::vector<VkPresentModeKHR>& modes, bool no_vsync) {
    auto offered = [&](VkPresentModeKHR m) { return std::find(modes.begin(), modes.end(), m) != modes.end(); };
    if (no_vsync) {
        if (offered(VK_PRESENT_MODE_MAILBOX_KHR)) return VK_PRESENT_MODE_MAILBOX_KHR;
        if (offered(VK_PRESENT_MODE_IMMEDIATE_KHR)) return VK_PRESENT_MODE_IMMEDIATE_KHR;
    }
    return VK_PRESENT_MODE_FIFO_KHR;  // the one mode every surface must offer
}

VkExtent2D choose_extent(const VkSurfaceCapabilitiesKHR& caps, VkExtent2D framebuffer) {
    if (caps.currentExtent.width != UINT32_MAX) return caps.currentExtent;
    return {std::clamp(framebuffer.width, caps.minImageExtent.width, caps.maxImageExtent.width),
            std::clamp(framebuffer.height, caps.minImageExtent.height, caps.maxImageExtent.height)};
}

const char* present_mode_name(VkPresentModeKHR mode) {
    switch (mode) {
        case VK_PRESENT_MODE_IMMEDIATE_KHR: return "immediate";
        case VK_PRESENT_MODE_MAILBOX_KHR: return "mailbox";
        case VK_PRESENT_MODE_FIFO_KHR: return "fifo";
        case VK_PRESENT_MODE_FIFO_RELAXED_KHR: return "fifo-relaxed";
        default: return "other";
    }
}

std::string format_name(VkFormat format) {
    switch (format) {
        case VK_FORMAT_B8G8R8A8_UNORM: return "B8G8R8A8_UNORM";
        case VK_FORMAT_R8G8B8A8_UNORM: return "R8G8B8A8_UNORM";
        case VK_FORMAT_A8B8G8R8_UNORM_PACK32: return "A8B8G8R8_UNORM_PACK32";
        case VK_FORMAT_B8G8R8A8_SRGB: return "B8G8R8A8_SRGB";
        case VK_FORMAT_R8G8B8A8_SRGB: return "R8G8B8A8_SRGB";
        default: return "VkFormat " + std::to_string(int(format));
    }
}

bool create_swapchain(const Context& ctx, VkSurfaceKHR surface, VkExtent2D framebuffer, bool no_vsync, Swapchain& sc) {
    VkSurfaceCapabilitiesKHR caps;
    VK_CHECK(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(ctx.physical, surface, &caps));
    VkExtent2D extent = choose_extent(caps, framebuffer);
    if (extent.width == 0 || extent.height == 0) {
        destroy_swapchain(ctx, sc);
        return false;
    }
    if (!(caps.supportedUsageFlags & VK_IMAGE_USAGE_TRANSFER_DST_BIT))
        throw VulkanError("the window surface cannot be a transfer destination, which the frame copy needs");

    uint32_t count = 0;
    vkGetPhysicalDeviceSurfaceFormatsKHR(ctx.physical, surface, &count, nullptr);
    std::vector<VkSurfaceFormatKHR> formats(count);
    vkGetPhysicalDeviceSurfaceFormatsKHR(ctx.physical, surface, &count, formats.data());
    vkGetPhysicalDeviceSurfacePresentModesKHR(ctx.physical, surface, &count, nullptr);
    std::vector<VkPresentModeKHR> modes(count);
    vkGetPhysicalDeviceSurfacePresentModesKHR(ctx.physical, surface, &count, modes.data());

    VkSurfaceFormatKHR format = choose_surface_format(formats);
    if (format.format == VK_FORMAT_UNDEFINED) {
        std::string offered;
        for (const VkSurfaceFormatKHR& f : formats) offered += (offered.empty() ? "" : ", ") + format_name(f.format);
        throw VulkanError("the window offers no 8-bit RGBA or BGRA sRGB swapchain format (offered: " + offered + ")");
    }

    VkSwapchainCreateInfoKHR info{VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR};
    info.surface = surface;
    // One more than the minimum so the CPU can record the next frame while the compositor holds one.
    info.minImageCount = caps.minImageCount + 1;
    if (caps.maxImageCount > 0) info.minImageCount = std::min(info.minImageCount, caps.maxImageCount);
    info.imageFormat = format.format;
    info.imageColorSpace = format.colorSpace;
    info.imageExtent = extent;
    info.imageArrayLayers = 1;
    info.imageUsage = VK_IMAGE_USAGE_TRANSFER_DST_BIT;
    info.imageSharingMode = VK_SHARING_MODE_EXCLUSIVE;
    info.preTransform = caps.currentTransform;
    info.compositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
    if (!(caps.supportedCompositeAlpha & VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR))
        for (VkCompositeAlphaFlagBitsKHR a : {VK_COMPOSITE_ALPHA_INHERIT_BIT_KHR, VK_COMPOSITE_ALPHA_PRE_MULTIPLIED_BIT_KHR,
                                              VK_COMPOSITE_ALPHA_POST_MULTIPLIED_BIT_KHR})
            if (caps.supportedCompositeAlpha & a) {
                info.compositeAlpha = a;
                break;
            }
    info.presentMode = choose_present_mode(modes, no_vsync);
    info.clipped = VK_TRUE;
    info.oldSwapchain = sc.swapchain;  // lets the presentation engine hand over without a blank frame

    VkSwapchainKHR created;
    VK_CHECK(vkCreateSwapchainKHR(ctx.device, &info, nullptr, &created));
    destroy_swapchain(ctx, sc);  // the retired one; the caller made the device idle
    sc.swapchain = created;
    sc.format = format;
    sc.present_mode = info.presentMode;
    sc.extent = extent;

    vkGetSwapchainImagesKHR(ctx.device, sc.swapchain, &count, nullptr);
    sc.images.resize(count);
    vkGetSwapchainImagesKHR(ctx.device, sc.swapchain, &count, sc.images.data());
    VkSemaphoreCreateInfo semaphore{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    sc.rendered.resize(count);
    for (VkSemaphore& s : sc.rendered) VK_CHECK(vkCreateSemaphore(ctx.device, &semaphore, nullptr, &s));
    for (uint32_t i = 0; i < count; ++i) {
        std::string name = "swapchain image " + std::to_string(i);
        set_name(ctx, VK_OBJECT_TYPE_IMAGE, uint64_t(sc.images[i]), name.c_str());
    }
    return true;
}

void destroy_swapchain(const Context& ctx, Swapchain& sc) {
    for (VkSemaphore s : sc.rendered) vkDestroySemaphore(ctx.device, s, nullptr);
    sc.rendered.clear();
    sc.images.clear();
    if (sc.swapchain) vkDestroySwapchainKHR(ctx.device, sc.swapchain, nullptr);
    sc.swapchain = VK_NULL_HANDLE;
}
