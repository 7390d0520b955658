// The visibility word of --raster compute (shaders/raster.glsl, docs/raster.md) on the GPU: its
// order must be the depths' order clamped to [0, 1], whatever the float's bits. The CPU oracle
// is that order: a depth at or below 0 (-0 and -epsilon included) is the far plane, one at or past
// 1 the near plane; otherwise the nearer (larger) depth's word is the larger.
#include <cmath>
#include <limits>

#include "gpu_compute/compute_harness.h"
#include "vk/resources.h"

namespace {

TEST(RasterWordCompute, DepthsOutsideZeroOneSortAsTheirClamp) {
    ValidatedContext v;
    if (!v.ctx.features.int64_atomics) GTEST_SKIP() << "device lacks 64-bit integers: no compute rasterizer";
    const float inf = std::numeric_limits<float>::infinity();
    const std::vector<float> depths = {-0.0f, -1e-7f, -std::numeric_limits<float>::denorm_min(), -1.0f, -inf, 0.0f,
                                       std::numeric_limits<float>::denorm_min(), 1e-7f, 0.25f, 0.5f, 0.999999f, 1.0f,
                                       1.0000001f, 2.0f, inf};
    Buffer in = create_buffer_with_data(v.ctx, depths.data(), depths.size() * sizeof(float), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                        "probe depths");
    Buffer out = create_buffer(v.ctx, depths.size() * sizeof(uint64_t),
                               VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT, MemoryKind::device_local,
                               "probe words");
    Pipeline probe = create_compute_pipeline(
        v.ctx, {.shader = "raster_word_probe.comp.main",
                .layout = {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER}, VK_SHADER_STAGE_COMPUTE_BIT}});
    VkCommandBuffer cmd = begin_one_shot(v.ctx);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, probe.handle());
    Descriptors d;
    d.buffer(0, in).buffer(1, out);
    d.push(cmd, probe);
    vkCmdDispatch(cmd, 1, 1, 1);
    end_one_shot(v.ctx, cmd);
    std::vector<uint8_t> bytes = read_buffer(v.ctx, out);
    std::vector<uint64_t> words(depths.size());
    memcpy(words.data(), bytes.data(), words.size() * sizeof(uint64_t));

    auto clamped = [](float d) { return std::signbit(d) ? 0.0f : std::min(d, 1.0f); };
    for (size_t i = 0; i < depths.size(); ++i) {
        float depth;
        uint32_t high = uint32_t(words[i] >> 32);
        memcpy(&depth, &high, 4);
        EXPECT_EQ(depth, clamped(depths[i])) << "depth " << depths[i] << ": word 0x" << std::hex << words[i];
        EXPECT_FALSE(std::signbit(depth)) << "depth " << depths[i] << " keeps its sign bit in the word";
        EXPECT_EQ(uint32_t(words[i]), uint32_t(i) + 1u) << "the id";
        // Nearer in the clamped order is a larger word; equal clamped depths leave it to the id.
        for (size_t j = 0; j < depths.size(); ++j)
            if (clamped(depths[i]) > clamped(depths[j]))
                EXPECT_GT(words[i], words[j]) << "depth " << depths[i] << " must beat " << depths[j];
    }
    EXPECT_EQ(validation_message_count(), v.messages_before) << "validation messages (printed above)";
}

}  // namespace
