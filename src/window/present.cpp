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

void Presenter::record(const Context& ctx, VkCommandBuffer cmd, Image& color, VkImage target, VkExtent2D target_extent) {
    begin_label(ctx, cmd, "present");
    Image* source = &color;
    if (needs_swizzle_) {
        transition(cmd, color, VK_IMAGE_LAYOUT_GENERAL, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                   VK_ACCESS_2_SHADER_STORAGE_READ_BIT);
        transition(cmd, swizzled_, VK_IMAGE_LAYOUT_GENERAL, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                   VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT, true);
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, swizzle_.handle());
        Descriptors().storage_image(0, color.view).storage_image(1, swizzled_.view).push(cmd, swizzle_);
        vkCmdDispatch(cmd, (color.extent.width + 7) / 8, (color.extent.height + 7) / 8, 1);
        source = &swizzled_;
    }
    transition(cmd, *source, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_PIPELINE_STAGE_2_COPY_BIT,
               VK_ACCESS_2_TRANSFER_READ_BIT);
    image_barrier(cmd, target, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                  VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_NONE, VK_PIPELINE_STAGE_2_COPY_BIT,
                  VK_ACCESS_2_TRANSFER_WRITE_BIT);
    VkImageCopy region{};
    region.srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.extent = {std::min(source->extent.width, target_extent.width),
                     std::min(source->extent.height, target_extent.height), 1};
    vkCmdCopyImage(cmd, source->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, target, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1,
                   &region);
    image_barrier(cmd, target, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                  VK_IMAGE_LAYOUT_PRESENT_SRC_KHR, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                  VK_PIPELINE_STAGE_2_NONE, VK_ACCESS_2_NONE);
    end_label(ctx, cmd);
}
