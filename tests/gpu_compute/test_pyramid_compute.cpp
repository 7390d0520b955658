// The depth pyramid (docs/occlusion.md) alone, in-process, at every lavapipe width (4, 8 and 16
// lanes). A pseudo-random depth image is uploaded; the oracle is the CPU's minimum over each
// texel's whole footprint in the depth image (pixels [x, x+1) * 2^(k+1), clipped to the image),
// taken directly from the pixels rather than level by level, so it shares no reduction order with
// the shaders. Both variants must equal it bit for bit at every level, at sizes that are even,
// odd, one tile, one pixel, and large enough for the single pass's tail (levels past 5, reduced by
// its last workgroup); twice in a row, so the finished-workgroup counter must have been reset.
// Validation (with synchronization validation) must stay silent.
#include <gtest/gtest.h>

#include "gpu_compute/compute_harness.h"

#include <algorithm>
#include <bit>
#include <limits>

#include "passes/occlusion_pass.h"
#include "render/frame.h"

namespace {

// Reversed-Z depth in [0, 1], a quarter of it 0 (the far plane, sky) and values from a small set
// so that equal depths (ties) occur.
std::vector<float> random_depth(VkExtent2D extent, uint32_t seed) {
    std::vector<float> depth(size_t(extent.width) * extent.height);
    for (float& d : depth) {
        uint32_t r = next_random(seed) >> 8;
        d = (r & 3u) == 0 ? 0.0f : float(r % 4099u) / 4098.0f;
    }
    return depth;
}

// Level k texel (x, y): the minimum over its footprint, straight from the pixels.
float reference_texel(const std::vector<float>& depth, VkExtent2D extent, uint32_t level, uint32_t x, uint32_t y) {
    uint32_t span = 2u << level;
    float d = std::numeric_limits<float>::infinity();
    for (uint32_t py = y * span; py < std::min(extent.height, (y + 1) * span); ++py)
        for (uint32_t px = x * span; px < std::min(extent.width, (x + 1) * span); ++px)
            d = std::min(d, depth[size_t(py) * extent.width + px]);
    return d;
}

// Builds the pyramids of `variants` from random depth images at every test size, twice, and
// compares each level with the reference.
void expect_reference_pyramids(ValidatedContext& v, std::vector<Variant> variants) {
    for (VkExtent2D extent : {VkExtent2D{64, 64}, VkExtent2D{97, 61}, VkExtent2D{1, 1}, VkExtent2D{3, 130},
                              VkExtent2D{300, 131}, VkExtent2D{640, 360}}) {
        SCOPED_TRACE(std::to_string(extent.width) + "x" + std::to_string(extent.height));
        // The layout: ceil halving from half the image down to 1x1.
        std::vector<PyramidLevel> levels = pyramid_levels(extent);
        uint32_t w = extent.width, h = extent.height;
        for (const PyramidLevel& l : levels) {
            w = (w + 1) / 2, h = (h + 1) / 2;
            ASSERT_EQ(l.width, w);
            ASSERT_EQ(l.height, h);
        }
        ASSERT_EQ(levels.back().width * levels.back().height, 1u);

        OcclusionPass pass;
        pass.create(v.ctx, extent);
        Image depth = create_image(v.ctx, extent, kDepthFormat,
                                   VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT, "test depth");
        for (uint32_t round = 0; round < 2; ++round) {
            std::vector<float> pixels = random_depth(extent, 77u + round * 1000u + extent.width);
            upload_image(v.ctx, depth, pixels.data(), 4, VK_IMAGE_ASPECT_DEPTH_BIT);
            for (Variant variant : variants) {
                SCOPED_TRACE(std::string(variant_name(variant)) + ", round " + std::to_string(round));
                VkCommandBuffer cmd = begin_one_shot(v.ctx);
                FrameGraph graph;  // the pass declares its uses: the graph records its barriers
                graph.bind(Res::depth, depth);
                graph.bind(Res::pyramid, pass.pyramid);
                pass.build(cmd, graph, variant);
                end_one_shot(v.ctx, cmd);
                depth.last_stage = VK_PIPELINE_STAGE_2_NONE;  // the one-shot's queue wait covers the read
                depth.last_access = VK_ACCESS_2_NONE;
                std::vector<float> got = pass.read(v.ctx);
                ASSERT_EQ(got.size(), size_t(pyramid_texels(extent)));
                int bad = 0;
                for (uint32_t k = 0; k < levels.size(); ++k)
                    for (uint32_t y = 0; y < levels[k].height; ++y)
                        for (uint32_t x = 0; x < levels[k].width; ++x) {
                            float want = reference_texel(pixels, extent, k, x, y);
                            float have = got[levels[k].offset + y * levels[k].width + x];
                            if (std::bit_cast<uint32_t>(have) != std::bit_cast<uint32_t>(want) && ++bad <= 5)
                                ADD_FAILURE() << "level " << k << " texel " << x << "," << y << ": " << have << ", want " << want;
                        }
                EXPECT_EQ(bad, 0);
            }
        }
    }
}

}  // namespace

TEST(PyramidCompute, EveryLevelIsTheFarthestDepthUnderEachTexelInBothVariants) {
    ValidatedContext v;
    ASSERT_EQ(v.ctx.subgroup.size, uint32_t(expected_subgroup_size()));
    PlanRequest request;
    Plan plan = make_plan(v.ctx.subgroup, v.ctx.features, request);
    ASSERT_EQ(plan[PassId::occlusion].variant, Variant::subgroup) << plan[PassId::occlusion].reason;
    expect_reference_pyramids(v, {Variant::subgroup, Variant::fallback});
    EXPECT_EQ(validation_message_count(), v.messages_before) << "validation messages (printed above)";
}

// With quad operations masked, as on a device without them, the pass runs the fallback's twin
// without subgroup operations (pyramid.comp.no_subgroup): the same reference pyramids.
TEST(PyramidCompute, WithoutQuadOperationsTheFallbacksTwinBuildsTheSamePyramids) {
    ContextOptions options;
    options.mask_ops = bit(Op::quad);
    ValidatedContext v(options);
    PlanRequest request;
    Plan plan = make_plan(v.ctx.subgroup, v.ctx.features, request);
    ASSERT_EQ(plan[PassId::occlusion].variant, Variant::fallback) << plan[PassId::occlusion].reason;
    expect_reference_pyramids(v, {Variant::fallback});
    EXPECT_EQ(validation_message_count(), v.messages_before) << "validation messages (printed above)";
}
