#include "window/present.h"

#include <algorithm>

#include "render/frame.h"

bool is_rgba8(VkFormat f) { return f == VK_FORMAT_R8G8B8A8_UNORM || f == VK_FORMAT_R8G8B8A8_SRGB; }
bool is_bgra8(VkFormat f) { return f == VK_FORMAT_B8G8R8A8_UNORM || f == VK_FORMAT_B8G8R8A8_SRGB; }

void Presenter::create(const Context& ctx) {
    ComputeDesc desc;
    desc.shader = "present.comp.swizzle";
    desc.layout = {{VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE}};
    swizzle_ = create_compute_pipeline(ctx, desc);
}

void Presenter::resize(const Context& ctx, VkFormat swapchain_format, VkExtent2D extent) {
    needs_swizzle_ = is_bgra8(swapchain_format);
    swizzled_.reset();
    if (needs_swizzle_)
        swizzled_ = create_image(ctx, extent, kColorFormat, VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                                 "present swizzled");
}

void Presenter::record(const Context& ctx, VkCommandBuffer cmd, FrameGraph& graph, VkImage target, VkExtent2D target_extent) {
    begin_label(ctx, cmd, "present");
    // The frame's colour after the frame's last use of it (the graph's), swizzled or as it is.
    const Image& color = graph.image(Res::color);
    Res source = Res::color;
    if (needs_swizzle_) {
        graph.bind(Res::present_swizzled, swizzled_);
        graph.pass(cmd, {reads(Res::color, kComputeStage, kStorageRead, VK_IMAGE_LAYOUT_GENERAL),
                         writes(Res::present_swizzled, kComputeStage, kStorageWrite, VK_IMAGE_LAYOUT_GENERAL, true)});
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, swizzle_.handle());
        Descriptors().storage_image(0, color.view).storage_image(1, swizzled_.view).push(cmd, swizzle_);
        vkCmdDispatch(cmd, (color.extent.width + 7) / 8, (color.extent.height + 7) / 8, 1);
        source = Res::present_swizzled;
    }
    graph.pass(cmd, {reads(source, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_READ_BIT, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL)});
    const Image& copied = graph.image(source);
    // Hand-written: the swapchain image is the window's, acquired before the frame (no Image, no name).
    image_barrier(cmd, target, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                  VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_NONE, VK_PIPELINE_STAGE_2_CLEAR_BIT | VK_PIPELINE_STAGE_2_COPY_BIT,
                  VK_ACCESS_2_TRANSFER_WRITE_BIT);
    if (copied.extent.width < target_extent.width || copied.extent.height < target_extent.height) {
        // A frame smaller than the window (a resize past a device limit, window.cpp): the rest dark
        // grey, so that the frame's own black edges stay visible as the frame's.
        VkClearColorValue outside{{kOutsideTheFrame / 255.0f, kOutsideTheFrame / 255.0f, kOutsideTheFrame / 255.0f, 1.0f}};
        VkImageSubresourceRange all{VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
        vkCmdClearColorImage(cmd, target, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &outside, 1, &all);
        // Hand-written: the copy writes over the clear (the swapchain image is not the graph's).
        image_barrier(cmd, target, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                      VK_PIPELINE_STAGE_2_CLEAR_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_2_COPY_BIT,
                      VK_ACCESS_2_TRANSFER_WRITE_BIT);
    }
    VkImageCopy region{};
    region.srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.extent = {std::min(copied.extent.width, target_extent.width),
                     std::min(copied.extent.height, target_extent.height), 1};
    vkCmdCopyImage(cmd, copied.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, target, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1,
                   &region);
    // Hand-written: the swapchain image goes to the presentation engine after the frame.
    image_barrier(cmd, target, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                  VK_IMAGE_LAYOUT_PRESENT_SRC_KHR, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                  VK_PIPELINE_STAGE_2_NONE, VK_ACCESS_2_NONE);
    end_label(ctx, cmd);
}
