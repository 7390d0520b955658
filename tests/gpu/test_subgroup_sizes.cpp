// The sizes the debug views' stages ran at, as the GPU counts them (GpuCounters::view_sizes,
// shaders/view_common.glsl) and as the legend then names them (Renderer::view_sizes): in every
// stage where this device runs the view, on the default scene. The oracle is the size this ctest
// instance runs lavapipe at (SGD_EXPECT_SUBGROUP), or else the device's range.
#include <gtest/gtest.h>

#include "gpu/harness.h"
#include "gpu/light_frame.h"
#include "passes/subgroup_tally.h"
#include "render/renderer.h"

namespace {

TEST(ViewSizes, EveryViewedStageCountsTheSizeItRanAtAndTheLegendNamesIt) {
    REQUIRE_DRAWING();
    const Context& ctx = test_context();
    uint32_t expected = expected_subgroup_size() ? uint32_t(expected_subgroup_size()) : 0;
    uint32_t offered = sizes_in_range(ctx.subgroup.min_size, ctx.subgroup.max_size);
    int viewed = 0;
    for (uint32_t s = 0; s < uint32_t(Stage::count); ++s) {
        Stage stage = Stage(s);
        PlanRequest request;
        request.view = ViewMode::lane_id;
        request.view_stage = stage;
        RendererConfig config;
        config.extent = {160, 90};
        config.lights = 16;
        config.plan = make_plan(ctx.subgroup, ctx.features, request);
        if (config.plan.view.variant != Variant::subgroup) continue;  // hatched: no lane ran a view
        Renderer renderer(ctx, default_scene(), config);
        EXPECT_EQ(renderer.view_sizes(), 0u) << "nothing has run yet";
        for (uint32_t frame = 0; frame < 2; ++frame) {
            VkCommandBuffer cmd = begin_one_shot(ctx);
            renderer.record(cmd, 0, frame, renderer.default_view());
            end_one_shot(ctx, cmd);
        }
        uint32_t sizes = renderer.read_counters().view_sizes;
        std::string name(stage_name(stage));
        if (expected) EXPECT_EQ(sizes, expected) << name;
        EXPECT_NE(sizes, 0u) << name;
        EXPECT_EQ(sizes & ~offered, 0u) << name << ": a size outside the device's range";
        EXPECT_EQ(renderer.view_sizes(), sizes) << name << ": the second frame's legend names what the first ran";
        ++viewed;
    }
    EXPECT_GE(viewed, 2) << "fragment and compute run the views on every device with subgroups";
    EXPECT_EQ(validation_message_count(), 0u);
}

}  // namespace
