// The HDR mip's compute fallback and the exposure reduction alone, in-process, at every lavapipe
// width (4, 8 and 16 lanes: these only dispatch compute, docs/testing.md). Inputs are uploaded:
// - the mip fallback reads a pseudo-random RGBA16F frame spanning the half-float range; oracle: the
//   CPU (a + b) + (c + d) in fp32, rounded to the nearest half (box_filter.glsl), bit for bit;
// - the exposure reduction reads a synthetic mip whose every texel's fixed-point log2 luminance is
//   known exactly (grey powers of two: log2 is an integer), so the sum is known; both variants
//   must give exactly that sum at sizes where workgroups and subgroups are partial. A dropped or
//   doubled subgroup (or workgroup) changes the sum by at least 256 per texel in it.
// Validation with synchronization validation must stay silent.
#include <gtest/gtest.h>

#include "gpu_compute/compute_harness.h"
#include "hdr_frame.h"

#include <bit>
#include <cmath>
#include <cstring>

#include "passes/exposure_pass.h"
#include "passes/mip_pass.h"
#include "passes/resolve_pass.h"
#include "render/exposure_reference.h"
#include "render/renderer.h"
#include "render/tonemap.h"

namespace {

using namespace hdr_frame;

// The fallback downsample of a pseudo-random HDR frame (each channel a half value between 2^-24
// and 2^15, exponents spread over the whole range, so the fp32 sums round: the order matters) is
// the CPU's (a + b) + (c + d) rounded to the nearest half, bit for bit, at an even and an odd size.
TEST(MipCompute, FallbackIsTheExactBoxFilterOfTheHdrFrame) {
    ValidatedContext v;
    ASSERT_EQ(v.ctx.subgroup.size, uint32_t(expected_subgroup_size()));
    PlanRequest request;
    request[PassId::mip] = Request::fallback;
    Plan plan = make_plan(v.ctx.subgroup, v.ctx.features, request);
    ASSERT_EQ(plan[PassId::mip].variant, Variant::fallback);
    for (VkExtent2D extent : {VkExtent2D{256, 144}, VkExtent2D{201, 111}}) {
        SCOPED_TRACE(std::to_string(extent.width) + "x" + std::to_string(extent.height));
        MipPass pass;
        pass.create(v.ctx, extent);
        PassFrame frame(v.ctx, extent);
        HdrImage hdr = random_hdr(extent, 12345);
        upload(v.ctx, frame.targets.hdr, hdr.rgba);
        frame.run(plan, 0, [&](FrameContext& f) { pass.record_downsample(f); });
        int order_matters = 0;
        int bad = box_filter_mismatches(hdr, download(v.ctx, frame.targets.mip), &order_matters);
        EXPECT_EQ(bad, 0);
        printf("[ mip ] %ux%u: texel channels where another summation order would round differently: %d\n", extent.width,
               extent.height, order_matters);
        EXPECT_GT(order_matters, 0) << "the frame does not exercise the summation order";
    }
    EXPECT_EQ(validation_message_count(), v.messages_before) << "validation messages (printed above)";
}

// The compute resolve (resolve.comp, the visibility path's) of a pseudo-random HDR frame, at an
// even and an odd size (partial tiles across the edge): its 8-bit frame is the CPU's tonemap of
// each pixel (src/render/tonemap.cpp, within one step: the GPU's pow and the CPU's may round
// apart), and every pixel is written (the image starts poisoned). The fragment resolve of the same
// frame is the bit-for-bit oracle in tests/gpu/test_resolve.cpp, where drawing works.
TEST(ResolveCompute, FrameIsTheTonemapOfEveryPixel) {
    ValidatedContext v;
    ASSERT_EQ(v.ctx.subgroup.size, uint32_t(expected_subgroup_size()));
    ResolvePass pass;
    pass.create(v.ctx);
    // The fixed exposure (exposure off) and a measured one (the exposure pass's state, as the
    // exposure pass leaves it: resolve.comp's `measured` branch).
    for (Request exposure : {Request::off, Request::fallback}) {
        PlanRequest request;
        request[PassId::exposure] = exposure;
        Plan plan = make_plan(v.ctx.subgroup, v.ctx.features, request);
        ASSERT_EQ(plan[PassId::exposure].variant, exposure == Request::off ? Variant::off : Variant::fallback);
        for (VkExtent2D extent : {VkExtent2D{256, 144}, VkExtent2D{201, 111}}) {
            SCOPED_TRACE(std::to_string(extent.width) + "x" + std::to_string(extent.height) + ", exposure " +
                         std::string(request_name(exposure)));
            PassFrame frame(v.ctx, extent);
            ExposureState state{};
            state.exposure = 1.75f;
            memcpy(frame.exposure_state.mapped, &state, sizeof(state));
            float applied = exposure == Request::off ? 1.0f : state.exposure;
            HdrImage hdr = random_hdr(extent, 777);
            for (float& value : hdr.rgba) value = round_to_half(value * 0.0009765625f);  // 2^-10: most below the shoulder
            upload(v.ctx, frame.targets.hdr, hdr.rgba);
            std::vector<uint8_t> poison(size_t(extent.width) * extent.height * 4, 0x5A);
            upload_image(v.ctx, frame.targets.color, poison.data(), 4);
            frame.run(plan, 0, [&](FrameContext& f) { pass.record_compute(f); });
            std::vector<uint8_t> color = read_image(v.ctx, frame.targets.color, 4);
            std::vector<uint8_t> want = tonemap_rgba8(hdr.rgba, applied);
            ASSERT_EQ(color.size(), want.size());
            int off = 0;
            for (size_t i = 0; i < color.size(); ++i)
                if (std::abs(int(color[i]) - int(want[i])) > 1 && ++off <= 5)
                    ADD_FAILURE() << "pixel " << (i / 4) % extent.width << "," << (i / 4) / extent.width << " channel " << i % 4
                                  << ": " << int(color[i]) << ", the CPU's " << int(want[i]);
            EXPECT_EQ(off, 0);
        }
    }
    EXPECT_EQ(validation_message_count(), v.messages_before) << "validation messages (printed above)";
}

// The exposure reduction over a mip of grey texels 2^e, e pseudo-random in [-15, 15]: each texel's
// fixed-point log2 luminance is exactly (e + 16) * 256 (at least 256), so the total is known on
// the CPU without any log2. Both variants must give exactly that total and texel count, at sizes
// with partial workgroups (16x16) and partial subgroups, from 1x1 up; one subgroup dropped or
// counted twice moves the total by at least 256. Then the adaptation matches the CPU's.
TEST(ExposureCompute, ReductionCountsEveryTexelOnceAndBothVariantsAgree) {
    ValidatedContext v;
    ASSERT_EQ(v.ctx.subgroup.size, uint32_t(expected_subgroup_size()));
    const PassInfo& info = pass_info(PassId::exposure);
    ASSERT_EQ(pass_missing(v.ctx.subgroup, v.ctx.features, PassId::exposure), "") << "lavapipe has subgroupAdd in compute";
    ExposurePass pass;
    pass.create(v.ctx);
    for (VkExtent2D mip : {VkExtent2D{160, 90}, VkExtent2D{37, 23}, VkExtent2D{1, 1}, VkExtent2D{300, 7}, VkExtent2D{3, 129}}) {
        SCOPED_TRACE(std::to_string(mip.width) + "x" + std::to_string(mip.height));
        PassFrame frame(v.ctx, {mip.width * 2, mip.height * 2});
        ASSERT_EQ(frame.targets.mip.extent.width, mip.width);
        std::vector<float> rgba(size_t(mip.width) * mip.height * 4);
        uint64_t known = 0;
        uint32_t state = mip.width * 7919u + mip.height;
        for (size_t i = 0; i < rgba.size(); i += 4) {
            int e = int(next_random(state) >> 27) - 15;  // -15 .. 16
            e = std::min(e, 15);
            float g = std::ldexp(1.0f, e);
            rgba[i] = rgba[i + 1] = rgba[i + 2] = g;
            rgba[i + 3] = 1.0f;
            known += uint64_t(e + 16) * 256u;
        }
        upload(v.ctx, frame.targets.mip, rgba);
        EXPECT_EQ(exposure::sum(rgba), known) << "CPU oracle";
        ExposureState results[2];
        for (int i = 0; i < 2; ++i) {
            PlanRequest request;
            request[PassId::exposure] = i == 0 ? Request::subgroup : Request::fallback;
            Plan plan = make_plan(v.ctx.subgroup, v.ctx.features, request);
            frame.run(plan, 0, [&](FrameContext& f) { pass.record(f); });
            results[i] = pass.read_state(v.ctx);
            EXPECT_EQ(results[i].sum(), known) << info.name << (i == 0 ? " subgroup" : " fallback") << ": the total";
            EXPECT_EQ(results[i].texels, mip.width * mip.height);
        }
        // Frame 0 jumps to the target: the same float arithmetic on the same integers.
        exposure::Adapted want = exposure::adapt(known, mip.width * mip.height, 0, 0.0f);
        for (const ExposureState& r : results) {
            EXPECT_NEAR(r.log2_average, want.log2_average, 1e-4);
            EXPECT_NEAR(r.exposure_log2, want.exposure_log2, 1e-4);
        }
        EXPECT_EQ(std::bit_cast<uint32_t>(results[0].exposure), std::bit_cast<uint32_t>(results[1].exposure))
            << "the variants' exposures differ";
    }
    EXPECT_EQ(validation_message_count(), v.messages_before) << "validation messages (printed above)";
}

// The adaptation over frames: frame n moves the exposure by max(1/16, 1/(n+1)) of the way to its
// target (in log2), from the previous frame's, as the CPU oracle computes; a frame with a brighter
// mip lowers the exposure.
TEST(ExposureCompute, AdaptationFollowsTheFrameIndex) {
    ValidatedContext v;
    ExposurePass pass;
    pass.create(v.ctx);
    PassFrame frame(v.ctx, {64, 64});
    PlanRequest request;
    request[PassId::exposure] = Request::fallback;
    Plan plan = make_plan(v.ctx.subgroup, v.ctx.features, request);
    float previous = 0.0f;
    for (uint32_t index = 0; index < 6; ++index) {
        float grey = std::ldexp(1.0f, index < 3 ? -6 : -2);  // brighter from frame 3 on
        upload(v.ctx, frame.targets.mip, std::vector<float>(32 * 32 * 4, grey));
        frame.run(plan, index, [&](FrameContext& f) { pass.record(f); });
        ExposureState s = pass.read_state(v.ctx);
        exposure::Adapted want = exposure::adapt(s.sum(), 32 * 32, index, previous);
        EXPECT_EQ(s.sum(), uint64_t((index < 3 ? 10 : 14) * 256) * 32 * 32);
        EXPECT_NEAR(s.exposure_log2, want.exposure_log2, 1e-4) << "frame " << index;
        if (index == 3) EXPECT_LT(s.exposure_log2, previous) << "a brighter frame lowers the exposure";
        previous = s.exposure_log2;
    }
    EXPECT_EQ(validation_message_count(), v.messages_before) << "validation messages (printed above)";
}

}  // namespace
