// Moves the renderer's finished colour into a swapchain image with an image copy. Copies move raw
// bytes, so a BGRA swapchain first gets a window image with the bytes reordered by a small compute
// pass (which also fills the window outside a frame smaller than it); an RGBA one takes the colour
// as it is where the frame fills the window. The bytes are sRGB-encoded already, so a UNORM and an _SRGB swapchain
// both show them unchanged; a blit would encode them a second time into an _SRGB one, and needs
// the format's BLIT_DST feature where a copy needs only TRANSFER_DST usage.
#pragma once

#include "render/frame_graph.h"
#include "vk/resources.h"

// Swapchain formats the copy can fill; anything else is refused with a clear error.
bool is_rgba8(VkFormat format);
bool is_bgra8(VkFormat format);

// The grey (0-255, every channel) of the window outside a frame smaller than the window.
constexpr uint8_t kOutsideTheFrame = 16;

class Presenter {
public:
    void create(const Context& ctx);
    // After every swapchain (re)creation, with the device idle.
    // `extent` is the swapchain's; the frame may be smaller (window.cpp keeps it past a device limit).
    void resize(const Context& ctx, VkFormat swapchain_format, VkExtent2D extent);
    // Records the frame's colour (Res::color of the renderer's frame graph, after the frame in the same
    // command buffer) -> target (a swapchain image, its contents discarded) -> PRESENT_SRC layout.
    // The first access to `target` is at VK_PIPELINE_STAGE_2_COPY_BIT: wait for the acquire there.
    void record(const Context& ctx, VkCommandBuffer cmd, FrameGraph& graph, VkImage target, VkExtent2D target_extent);

private:
    Pipeline window_pass_;  // present.comp
    Image window_image_;    // the swapchain's size, RGBA8 holding the swapchain's byte order
    bool bgra_ = false;
};
