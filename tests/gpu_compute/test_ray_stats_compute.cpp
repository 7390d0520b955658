// The ray tracer's subgroup variant counts its statistics into stripes (shaders/raytrace_stats.glsl,
// "The stripes"), which ray_stats_fold.comp adds up into the frame's counters after the launches.
// Lavapipe has no subgroups in the ray-tracing stages, so no trace writes the stripes there; the
// fold alone runs in compute, at every lavapipe width. Oracle: the CPU's fold of pseudo-random
// stripes (counts added, the subgroup-size masks OR-ed) into counters that already hold values,
// the meshlet pass's two words between the ray words and every word outside them untouched.
// Validation with synchronization validation must stay silent.
#include <gtest/gtest.h>

#include "gpu_compute/compute_harness.h"

#include <cstddef>

#include "passes/ray_trace_pass.h"

namespace {

TEST(RayStatsFoldCompute, AddsEveryStripeIntoTheCounters) {
    ValidatedContext v;
    uint32_t seed = 12345;
    auto next = [&] {  // below 2^24: the sum of 64 stays below 2^32
        seed = seed * 1664525u + 1013904223u;
        return seed >> 8;
    };
    constexpr uint32_t kFirst = offsetof(GpuCounters, rays) / 4, kSizes = offsetof(GpuCounters, ray_sizes) / 4;
    constexpr uint32_t kMeshlets = offsetof(GpuCounters, meshlets_in) / 4, kEnd = kSizes + 6;
    std::vector<uint32_t> stripes(size_t(kRayStatStripes) * kRayStatStripeWords);
    for (uint32_t s = 0; s < kRayStatStripes; ++s)
        for (uint32_t w = 0; w < kRayStatStripeWords; ++w)
            stripes[s * kRayStatStripeWords + w] = kFirst + w >= kSizes && kFirst + w < kEnd ? 1u << (next() % 8) : next();
    std::vector<uint32_t> counters(sizeof(GpuCounters) / 4);
    for (uint32_t& c : counters) c = next();
    for (uint32_t w = kSizes; w < kEnd; ++w) counters[w] = 0;  // the sizes a frame starts with

    std::vector<uint32_t> expected = counters;
    for (uint32_t w = kFirst; w < kEnd; ++w) {
        if (w == kMeshlets || w == kMeshlets + 1) continue;
        for (uint32_t s = 0; s < kRayStatStripes; ++s) {
            uint32_t value = stripes[s * kRayStatStripeWords + w - kFirst];
            expected[w] = w >= kSizes ? expected[w] | value : expected[w] + value;
        }
    }

    Buffer stripe_buffer = create_buffer_with_data(v.ctx, stripes.data(), kRayStatStripesBytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                                   "ray stat stripes");
    Buffer counter_buffer = create_buffer_with_data(v.ctx, counters.data(), sizeof(GpuCounters),
                                                    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT, "counters");
    Pipeline fold = create_compute_pipeline(
        v.ctx, {"ray_stats_fold.comp.main", {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER}, VK_SHADER_STAGE_COMPUTE_BIT}});
    VkCommandBuffer cmd = begin_one_shot(v.ctx);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, fold.handle());
    Descriptors().buffer(0, stripe_buffer).buffer(1, counter_buffer).push(cmd, fold);
    dispatch(v.ctx, cmd, 1);
    end_one_shot(v.ctx, cmd);
    std::vector<uint8_t> bytes = read_buffer(v.ctx, counter_buffer);
    ASSERT_EQ(bytes.size(), sizeof(GpuCounters));
    std::vector<uint32_t> folded(counters.size());
    memcpy(folded.data(), bytes.data(), bytes.size());
    int wrong = 0;
    for (size_t w = 0; w < folded.size(); ++w)
        if (folded[w] != expected[w]) {
            if (++wrong <= 8) ADD_FAILURE() << "counter word " << w << ": " << folded[w] << ", expected " << expected[w];
        }
    EXPECT_EQ(wrong, 0);
    EXPECT_EQ(validation_message_count(), v.messages_before) << "validation messages (printed above)";
}

}  // namespace
