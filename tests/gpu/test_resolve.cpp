// The resolve pass's two forms on the same HDR frame, in-process: the full-screen fragment pass
// (forward shading's) and the compute dispatch (resolve.comp, the visibility path's,
// docs/visibility.md) must write the same 8-bit frame, bit for bit, whether or not the fragment
// form also writes the quad mip, with and without the exposure pass's exposure applied, into a
// poisoned target, and that frame is the CPU's tonemap at that exposure. The frame is pseudo-random
// half values at an odd size, so the compute tiles are partial.
// (tests/gpu_compute/test_exposure_compute.cpp holds the compute form against the CPU's box filter
// and tonemap at every width; this needs drawing, so not at 16 lanes.)
#include <gtest/gtest.h>

#include "gpu/harness.h"
#include "gpu/light_frame.h"  // test_context()
#include "hdr_frame.h"
#include "passes/resolve_pass.h"
#include "plan/plan.h"

namespace {

using namespace hdr_frame;

TEST(Resolve, ComputeWritesTheFragmentPassesFrameBitForBit) {
    REQUIRE_DRAWING();
    const Context& ctx = test_context();
    uint32_t messages = validation_message_count();
    ResolvePass pass;
    pass.create(ctx);
    ASSERT_TRUE(pass.mip) << "the fragment quad mip is supported on lavapipe";
    const VkExtent2D extent{203, 117};
    PassFrame frame(ctx, extent);
    HdrImage hdr = random_hdr(extent, 4242);
    for (float& value : hdr.rgba) value = round_to_half(value * 0.0009765625f);  // most below the shoulder
    upload(ctx, frame.targets.hdr, hdr.rgba);
    // An exposure the state buffer holds (the exposure pass's layout: exposure_pass.h), applied
    // when the plan measures it.
    ExposureState state{};
    state.exposure = 1.75f;
    memcpy(frame.exposure_state.mapped, &state, sizeof(state));
    // (The exposure pass measures the mip: without a mip, no measured exposure.)
    for (auto [mip, exposure] : {std::pair{Request::subgroup, Request::fallback}, std::pair{Request::subgroup, Request::off},
                                 std::pair{Request::off, Request::off}}) {
        PlanRequest request;
        request[PassId::mip] = mip;
        request[PassId::exposure] = exposure;
        Plan plan = make_plan(ctx.subgroup, ctx.features, request);
        SCOPED_TRACE("mip " + std::string(request_name(mip)) + ", exposure " + std::string(request_name(exposure)));
        // The target poisoned before each resolve: a resolve that skips a store shows the poison,
        // not the other resolve's pixel.
        std::vector<uint8_t> poison(size_t(extent.width) * extent.height * 4, 0x5A);
        auto resolve = [&](bool compute) {
            upload_image(ctx, frame.targets.color, poison.data(), 4);
            frame.run(plan, 0, [&](FrameContext& f) { compute ? pass.record_compute(f) : pass.record(f); });
            return read_image(ctx, frame.targets.color, 4);
        };
        std::vector<uint8_t> fragment_color = resolve(false);
        EXPECT_TRUE(resolve(true) == fragment_color) << "the 8-bit frames differ";
        // And both are the CPU's tonemap at the exposure the plan applies (within a rounding step).
        float applied = plan[PassId::exposure].variant == Variant::off ? 1.0f : state.exposure;
        std::vector<uint8_t> want = tonemap_rgba8(hdr.rgba, applied);
        int off = 0;
        for (size_t i = 0; i < want.size(); ++i) off += std::abs(int(fragment_color[i]) - int(want[i])) > 1;
        EXPECT_EQ(off, 0) << "channels off the CPU's tonemap at exposure " << applied;
        // Not a flat frame that any two writers would agree on.
        EXPECT_GT(std::set<uint8_t>(fragment_color.begin(), fragment_color.end()).size(), 64u);
    }
    EXPECT_EQ(validation_message_count(), messages) << "validation messages (printed above)";
}

}  // namespace
