#include "window/present.h"

#include <algorithm>

#include "render/frame.h"

bool is_rgba8(VkFormat f) { return f == VK_FORMAT_R8G8B8A8_UNORM || f == VK_FORMAT_R8G8B8A8_SRGB; }
bool is_bgra8(VkFormat f) { return f == VK_FORMAT_B8G8R8A8_UNORM || f == VK_FORMAT_B8G8R8A8_SRGB; }

// present.comp's push constants.
struct WindowPush {
    uint32_t bgra;  // reorder the bytes for a BGRA swapchain
    float grey;     // outside the frame: kOutsideTheFrame / 255
};

void Presenter::create(const Context& ctx) {
    window_pass_ = create_compute_pipeline(ctx, {"present.comp.main"});  // its layout: present.comp's
}

void Presenter::resize(const Context& ctx, VkFormat swapchain_format, VkExtent2D extent) {
    bgra_ = is_bgra8(swapchain_format);
    window_image_ = create_image(ctx, extent, kColorFormat, VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                                 "window image");
}

void Presenter::record(const Context& ctx, VkCommandBuffer cmd, FrameGraph& graph, VkImage target, VkExtent2D target_extent) {
    begin_label(ctx, cmd, "present");
    // The frame's colour after the frame's last use of it (the graph's); through the window image
    // where its bytes need reordering or it does not fill the window.
    const Image& color = graph.image(Res::color);
    bool fills = color.extent.width >= target_extent.width && color.extent.height >= target_extent.height;
    Res source = Res::color;
    if (bgra_ || !fills) {
        graph.bind(Res::window_image, window_image_);
        graph.pass(cmd, {reads(Res::color, kComputeStage, kStorageRead, VK_IMAGE_LAYOUT_GENERAL),
                         writes(Res::window_image, kComputeStage, kStorageWrite, VK_IMAGE_LAYOUT_GENERAL, true)});
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, window_pass_.handle());
        Descriptors().storage_image(0, color.view).storage_image(1, window_image_.view).push(cmd, window_pass_);
        WindowPush push{bgra_, kOutsideTheFrame / 255.0f};
        push_constants(cmd, window_pass_, &push, sizeof(push));
        vkCmdDispatch(cmd, (target_extent.width + 7) / 8, (target_extent.height + 7) / 8, 1);
        source = Res::window_image;
    }
    graph.pass(cmd, {reads(source, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_READ_BIT, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL)});
    const Image& copied = graph.image(source);
    // Hand-written: the swapchain image is the window's, acquired before the frame (no Image, no name).
    image_barrier(cmd, target, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                  VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_NONE, VK_PIPELINE_STAGE_2_COPY_BIT,
                  VK_ACCESS_2_TRANSFER_WRITE_BIT);
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
