// The product's detection (src/vk/context.cpp: subgroup properties, features, extensions; the stage
// and operation names of src/caps/) against the checked-in record of the running driver
// (tests/known_drivers.h, from its vulkaninfo). A detection that drops a stage, an operation, mesh
// shaders or ray tracing on a CI driver fails here, instead of turning the tests of what it dropped
// into skips or "unsupported" hatches. Runs at every lavapipe width: it draws nothing.
#include <gtest/gtest.h>

#include "gpu_compute/compute_harness.h"
#include "known_drivers.h"
#include "plan/plan.h"

namespace {

TEST(KnownDriver, DetectionMatchesTheRecord) {
    std::optional<RunningDriver> running = running_driver();
    const KnownDriver* k = known_driver();
    if (!k)
        GTEST_SKIP() << "no record of this driver ("
                     << (running ? running->driver_name + " " + running->driver_info : std::string("not one device"))
                     << "): tests decide from the device's own answer";
    printf("record: %s, from %s\n", k->name, k->source);
    ValidatedContext v;
    const Context& ctx = v.ctx;
    // The same device: the driver the demo reports is the one the record names.
    EXPECT_NE(ctx.info.driver.find(running->driver_info), std::string::npos) << ctx.info.driver;

    const SubgroupCaps& caps = ctx.subgroup_unmasked;
    EXPECT_EQ(stage_names(caps.stages), k->subgroup_stages);
    EXPECT_EQ(op_names(caps.ops), k->subgroup_operations);
    EXPECT_EQ(caps.quad_in_all_stages, k->quad_in_all_stages);
    EXPECT_EQ(caps.size_control, k->size_control);
    EXPECT_EQ(caps.full_subgroups, k->full_subgroups);
    EXPECT_EQ(stage_names(caps.required_size_stages), k->required_size_stages);
    ASSERT_EQ(caps.size, uint32_t(expected_subgroup_size()));

    const DeviceFeatures& f = ctx.features;
    EXPECT_EQ(f.tessellation, k->tessellation);
    EXPECT_EQ(f.geometry, k->geometry);
    EXPECT_EQ(f.fragment_stores, k->fragment_stores);
    EXPECT_EQ(f.vertex_stores, k->vertex_stores);
    EXPECT_EQ(f.multi_draw_indirect, k->multi_draw_indirect);
    EXPECT_EQ(f.pipeline_statistics, k->pipeline_statistics);
    EXPECT_EQ(f.quad_control, k->quad_control);
    EXPECT_EQ(f.maximal_reconvergence, k->maximal_reconvergence);
    EXPECT_EQ(f.mesh_shader, k->mesh_shader) << "VK_EXT_mesh_shader";
    EXPECT_EQ(f.ray_tracing, k->ray_tracing) << "VK_KHR_ray_tracing_pipeline";
    EXPECT_EQ(f.descriptor_indexing, k->descriptor_indexing) << "runtimeDescriptorArray and the other three";

    // And the plan built on it: every debug view in every stage is supported exactly where the
    // record says (the views of the meshlet and ray-tracing stages included).
    for (const StageInfo& st : kStages)
        for (ViewMode mode : {ViewMode::lane_id, ViewMode::first_last_lane, ViewMode::active_lanes}) {
            std::string stage(stage_name(st.stage)), name(view_mode_name(mode));
            ViewPlan plan = plan_view(ctx.subgroup, ctx.features, mode, st.stage);
            EXPECT_EQ(plan.variant == Variant::subgroup, record_supports_view(*k, name, stage))
                << name << " in " << stage << ": " << plan.reason;
        }
    EXPECT_EQ(validation_message_count(), v.messages_before);
}

}  // namespace
