// What the in-process compute tests share: the subgroup size ctest expects at this lavapipe
// width, a Vulkan context with validation whose message count is taken at creation, image
// upload and readback, and a pseudo-random sequence.
#pragma once

#include <cstdlib>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "vk/context.h"
#include "vk/resources.h"

// SGD_EXPECT_SUBGROUP, else LP_NATIVE_VECTOR_WIDTH / 32 (ctest sets both; gtest_discover_tests may
// pass only the first). Neither set (the binary run by hand): a failure naming them, and 0, which
// no device's size equals, so the size checks fail instead of silently disappearing.
inline int expected_subgroup_size() {
    if (const char* sg = getenv("SGD_EXPECT_SUBGROUP")) return atoi(sg);
    if (const char* width = getenv("LP_NATIVE_VECTOR_WIDTH")) return atoi(width) / 32;
    ADD_FAILURE() << "set SGD_EXPECT_SUBGROUP (or LP_NATIVE_VECTOR_WIDTH) to the subgroup size this run expects; "
                     "ctest does (tests/CMakeLists.txt)";
    return 0;
}

// A linear congruential generator: the next pseudo-random number from `state`, which it advances.
inline uint32_t next_random(uint32_t& state) { return state = state * 1664525u + 1013904223u; }

struct ValidatedContext {
    Context ctx;
    uint32_t messages_before = 0;
    ValidatedContext() {
        ContextOptions options;
        options.validate = true;
        create_context(ctx, options);
        messages_before = validation_message_count();
    }
};

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

// The whole colour image's texels (texel_bytes each), tightly packed.
inline std::vector<uint8_t> read_image(const Context& ctx, Image& image, uint32_t texel_bytes) {
    VkDeviceSize bytes = VkDeviceSize(image.extent.width) * image.extent.height * texel_bytes;
    Buffer readback = create_buffer(ctx, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryKind::host_readback, "readback");
    VkCommandBuffer cmd = begin_one_shot(ctx);
    transition(cmd, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_READ_BIT);
    VkBufferImageCopy region{};
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = {image.extent.width, image.extent.height, 1};
    vkCmdCopyImageToBuffer(cmd, image.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, readback.buffer, 1, &region);
    end_one_shot(ctx, cmd);
    std::vector<uint8_t> texels(bytes);
    memcpy(texels.data(), readback.mapped, bytes);
    return texels;
}
