// What the in-process compute tests share: the subgroup size ctest expects at this lavapipe
// width and a Vulkan context with validation whose message count is taken at creation; image
// upload and readback and a pseudo-random sequence come from image_transfer.h.
#pragma once

#include <cstdlib>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "vk/context.h"
#include "vk/resources.h"
#include "image_transfer.h"

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

// Zeroes the first `size` bytes of `buffer` (counters), the zeros visible to the compute shaders
// recorded next, as a frame does.
inline void zero_before_compute(VkCommandBuffer cmd, const Buffer& buffer, VkDeviceSize size) {
    vkCmdFillBuffer(cmd, buffer.buffer, 0, size, 0);
    memory_barrier(cmd, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                   VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
}

struct ValidatedContext {
    Context ctx;
    uint32_t messages_before = 0;
    // `options` (validation always on): --mask-stages / --mask-ops, for the passes' fallbacks.
    explicit ValidatedContext(ContextOptions options = {}) {
        options.validate = true;
        create_context(ctx, options);
        messages_before = validation_message_count();
    }
};

