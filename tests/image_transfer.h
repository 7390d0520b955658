// Image upload for in-process tests (tests/gpu_compute and tests/gpu; the readback is read_image,
// vk/resources.h), and a pseudo-random sequence.
#pragma once

#include <cstring>
#include <vector>

#include "vk/context.h"
#include "vk/resources.h"

// A linear congruential generator: the next pseudo-random number from `state`, which it advances.
inline uint32_t next_random(uint32_t& state) { return state = state * 1664525u + 1013904223u; }

// Uploads tightly packed texels (texel_bytes each) into the whole image, leaving it in TRANSFER_DST.
inline void upload_image(const Context& ctx, Image& image, const void* texels, uint32_t texel_bytes,
                         VkImageAspectFlags aspect = VK_IMAGE_ASPECT_COLOR_BIT) {
    VkDeviceSize bytes = VkDeviceSize(image.extent.width) * image.extent.height * texel_bytes;
    Buffer staging = create_buffer(ctx, bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, MemoryKind::host_upload, "staging");
    memcpy(staging.mapped, texels, bytes);
    VkCommandBuffer cmd = begin_one_shot(ctx);
    transition(cmd, image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
               true);
    VkBufferImageCopy region{};
    region.imageSubresource = {aspect, 0, 0, 1};
    region.imageExtent = {image.extent.width, image.extent.height, 1};
    vkCmdCopyBufferToImage(cmd, staging.buffer, image.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
    end_one_shot(ctx, cmd);
}
