// The window's swapchain: format and present mode choice, creation and recreation (resize,
// out-of-date, suboptimal). The renderer draws offscreen; each frame is copied into a swapchain image
// (see present.h).
#pragma once

#include <string>
#include <vector>

#include "vk/context.h"

struct Swapchain {
    VkSwapchainKHR swapchain = VK_NULL_HANDLE;
    VkSurfaceFormatKHR format{};
    VkPresentModeKHR present_mode = VK_PRESENT_MODE_FIFO_KHR;
    VkExtent2D extent{};
    std::vector<VkImage> images;
    // One per image: signalled by the frame that drew into the image, waited on by its present. Per image,
    // not per frame slot, because a present may still wait on it when the slot comes round again.
    std::vector<VkSemaphore> rendered;
};

// Pure choices, tested without a surface.
// An 8-bit RGBA or BGRA format in the sRGB colour space, RGBA first (no reorder needed), UNORM before
// _SRGB; the copy moves the sRGB-encoded bytes unchanged into either. Returns {VK_FORMAT_UNDEFINED}
// when none is offered.
VkSurfaceFormatKHR choose_surface_format(const std::vector<VkSurfaceFormatKHR>& formats);
// FIFO (always offered) unless no_vsync: then MAILBOX, else IMMEDIATE, else FIFO.
VkPresentModeKHR choose_present_mode(const std::vector<VkPresentModeKHR>& modes, bool no_vsync);
// The surface's current extent when it dictates one, else the framebuffer size clamped to its limits.
VkExtent2D choose_extent(const VkSurfaceCapabilitiesKHR& caps, VkExtent2D framebuffer);
const char* present_mode_name(VkPresentModeKHR mode);
std::string format_name(VkFormat format);

// Creates `sc` (or recreates it, retiring the old swapchain) for the framebuffer size. Returns false
// and leaves `sc` empty when the surface has zero size (minimised); the caller waits for events.
bool create_swapchain(const Context& ctx, VkSurfaceKHR surface, VkExtent2D framebuffer, bool no_vsync, Swapchain& sc);
// The device must be idle.
void destroy_swapchain(const Context& ctx, Swapchain& sc);
