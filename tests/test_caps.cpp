// The capability plan under masks: pure functions, checked against what each pass needs.
#include <gtest/gtest.h>

#include <algorithm>

#include "caps_fixtures.h"
#include "plan/plan.h"
#include "passes/occlusion_pass.h"
#include "passes/pass_table.h"

namespace {

TEST(Plan, AutoPicksSubgroupWhereSupported) {
    Plan p = make_plan(lavapipe_like_caps(), every_feature(), {});
    EXPECT_EQ(p[PassId::cull].variant, Variant::subgroup);
    EXPECT_EQ(p[PassId::light_cull].variant, Variant::subgroup);
    EXPECT_EQ(p[PassId::mip].variant, Variant::subgroup);
    EXPECT_EQ(p.view.variant, Variant::off);  // shaded is not a subgroup view
}

TEST(Plan, MaskingComputeSendsComputePassesToFallbackWithReason) {
    SubgroupCaps c = lavapipe_like_caps();
    apply_masks(c, bit(Stage::compute), 0);
    Plan p = make_plan(c, every_feature(), {});
    EXPECT_EQ(p[PassId::cull].variant, Variant::fallback);
    EXPECT_EQ(p[PassId::light_cull].variant, Variant::fallback);
    EXPECT_EQ(p[PassId::mip].variant, Variant::subgroup);
    EXPECT_NE(p[PassId::cull].reason.find("compute stage has no subgroup support"), std::string::npos) << p[PassId::cull].reason;
    EXPECT_NE(p[PassId::cull].reason.find("--mask-stages"), std::string::npos) << p[PassId::cull].reason;
}

TEST(Plan, MaskingQuadSendsMipToFallback) {
    SubgroupCaps c = every_subgroup_caps();
    apply_masks(c, 0, bit(Op::quad));
    EXPECT_FALSE(c.quad_in_all_stages);
    Plan p = make_plan(c, every_feature(), {});
    EXPECT_EQ(p[PassId::mip].variant, Variant::fallback);
    EXPECT_NE(p[PassId::mip].reason.find("quad"), std::string::npos);
    EXPECT_EQ(p[PassId::cull].variant, Variant::subgroup);
}

TEST(Plan, EachOperationACullPassNeedsIsRequired) {
    for (Op op : {Op::basic, Op::arithmetic, Op::ballot}) {
        SubgroupCaps c = every_subgroup_caps();
        apply_masks(c, 0, bit(op));
        EXPECT_EQ(make_plan(c, every_feature(), {})[PassId::cull].variant, Variant::fallback) << op_name(op);
    }
    SubgroupCaps c = every_subgroup_caps();
    apply_masks(c, 0, bit(Op::clustered) | bit(Op::shuffle));  // not used by cull
    EXPECT_EQ(make_plan(c, every_feature(), {})[PassId::cull].variant, Variant::subgroup);
}

TEST(Plan, ExplicitSubgroupWhereUnsupportedIsAnError) {
    SubgroupCaps c = lavapipe_like_caps();
    apply_masks(c, 0, bit(Op::ballot));
    PlanRequest r;
    r[PassId::light_cull] = Request::subgroup;
    try {
        make_plan(c, every_feature(), r);
        FAIL() << "expected UnsupportedRequest";
    } catch (const UnsupportedRequest& e) {
        EXPECT_NE(std::string(e.what()).find("ballot"), std::string::npos) << e.what();
    }
}

TEST(Plan, ExplicitFallbackAndOffAreHonoured) {
    PlanRequest r;
    r[PassId::cull] = Request::fallback;
    r[PassId::mip] = Request::off;
    Plan p = make_plan(every_subgroup_caps(), every_feature(), r);
    EXPECT_EQ(p[PassId::cull].variant, Variant::fallback);
    EXPECT_EQ(p[PassId::mip].variant, Variant::off);
    EXPECT_EQ(p[PassId::light_cull].variant, Variant::subgroup);
}

// The light loop's table entry: subgroup and fallback only (forward always runs a loop), hosted by
// the forward pass's timer with no work of its own, its subgroup path in the fragment stage.
TEST(LightLoopEntry, NoOffHostedInForwardFragmentOps) {
    const PassInfo& p = pass_info(PassId::light_loop);
    EXPECT_EQ(find_pass_by_name("light-loop"), PassId::light_loop);
    EXPECT_EQ(p.key, "light_loop");
    EXPECT_EQ(p.window_key, '4');
    EXPECT_TRUE(offers(p, Request::subgroup));
    EXPECT_TRUE(offers(p, Request::fallback));
    EXPECT_FALSE(offers(p, Request::off));
    EXPECT_EQ(p.stage, Stage::fragment);
    EXPECT_EQ(p.ops, bit(Op::basic) | bit(Op::vote) | bit(Op::arithmetic) | bit(Op::ballot));
    ASSERT_TRUE(p.host_timer);
    EXPECT_EQ(*p.host_timer, Timer::forward);
    EXPECT_FALSE(has_own_timer(p));
    EXPECT_TRUE(has_own_timer(pass_info(PassId::mip)));
    // Window keys are distinct digits.
    for (const PassInfo& a : kPasses)
        for (const PassInfo& b : kPasses)
            if (a.id != b.id) EXPECT_NE(a.window_key, b.window_key) << a.name << " " << b.name;
}

TEST(LightLoopEntry, AutoIsSubgroupWithFragmentOpsElseFallbackWithReason) {
    EXPECT_EQ(make_plan(lavapipe_like_caps(), every_feature(), {})[PassId::light_loop].variant, Variant::subgroup);
    EXPECT_EQ(make_plan(every_subgroup_caps(), every_feature(), {})[PassId::light_loop].variant, Variant::subgroup);
    // Each operation it uses is needed; one it does not use is not.
    for (Op op : {Op::basic, Op::vote, Op::arithmetic, Op::ballot}) {
        SubgroupCaps c = lavapipe_like_caps();
        apply_masks(c, 0, bit(op));
        PassPlan p = make_plan(c, every_feature(), {})[PassId::light_loop];
        EXPECT_EQ(p.variant, Variant::fallback) << op_name(op);
        EXPECT_NE(p.reason.find(op_name(op)), std::string::npos) << p.reason;
    }
    SubgroupCaps c = lavapipe_like_caps();
    apply_masks(c, 0, bit(Op::quad) | bit(Op::shuffle));
    EXPECT_EQ(make_plan(c, every_feature(), {})[PassId::light_loop].variant, Variant::subgroup);
    // The fragment stage masked: fallback, saying so; subgroup requested there is refused.
    c = lavapipe_like_caps();
    apply_masks(c, bit(Stage::fragment), 0);
    PassPlan p = make_plan(c, every_feature(), {})[PassId::light_loop];
    EXPECT_EQ(p.variant, Variant::fallback);
    EXPECT_NE(p.reason.find("fragment stage has no subgroup support"), std::string::npos) << p.reason;
    PlanRequest r;
    r[PassId::light_loop] = Request::subgroup;
    EXPECT_THROW(make_plan(c, every_feature(), r), UnsupportedRequest);
    r[PassId::light_loop] = Request::off;
    EXPECT_THROW(make_plan(lavapipe_like_caps(), every_feature(), r), UnsupportedRequest);
    r[PassId::light_loop] = Request::fallback;
    EXPECT_EQ(make_plan(lavapipe_like_caps(), every_feature(), r)[PassId::light_loop].variant, Variant::fallback);
}

TEST(Plan, MipNeedsFragmentStores) {
    DeviceFeatures f = every_feature();
    f.fragment_stores = false;
    Plan p = make_plan(every_subgroup_caps(), f, {});
    EXPECT_EQ(p[PassId::mip].variant, Variant::fallback);
    EXPECT_NE(p[PassId::mip].reason.find("fragmentStoresAndAtomics"), std::string::npos);
}

TEST(Plan, ViewsOnLavapipeAreUnsupportedOutsideFragmentAndCompute) {
    for (uint32_t s = 0; s < uint32_t(Stage::count); ++s)
        for (ViewMode m : {ViewMode::lane_id, ViewMode::first_last_lane, ViewMode::active_lanes}) {
            ViewPlan v = plan_view(lavapipe_like_caps(), every_feature(), m, Stage(s));
            bool supported = Stage(s) == Stage::fragment || Stage(s) == Stage::compute;
            EXPECT_EQ(v.variant, supported ? Variant::subgroup : Variant::unsupported) << stage_name(Stage(s));
            if (!supported) EXPECT_NE(v.reason.find("no subgroup support"), std::string::npos) << v.reason;
        }
}

TEST(Plan, ViewStageMissingDeviceFeatureSaysSo) {
    DeviceFeatures f = every_feature();
    f.geometry = false;
    ViewPlan v = plan_view(every_subgroup_caps(), f, ViewMode::lane_id, Stage::geometry);
    EXPECT_EQ(v.variant, Variant::unsupported);
    EXPECT_NE(v.reason.find("geometryShader"), std::string::npos);
}

// active-lanes counts its subgroups with atomics, which vertex-pipeline and fragment stages may
// only make with the store features; lane-id (no store) runs without them.
TEST(Plan, ActiveLanesNeedsStoresInTheStageUnderView) {
    DeviceFeatures f = every_feature();
    f.vertex_stores = f.fragment_stores = false;
    for (Stage s : {Stage::vertex, Stage::tess_control, Stage::tess_eval, Stage::geometry}) {
        ViewPlan v = plan_view(every_subgroup_caps(), f, ViewMode::active_lanes, s);
        EXPECT_EQ(v.variant, Variant::unsupported);
        EXPECT_NE(v.reason.find("vertexPipelineStoresAndAtomics"), std::string::npos) << v.reason;
        EXPECT_EQ(plan_view(every_subgroup_caps(), f, ViewMode::lane_id, s).variant, Variant::subgroup);
    }
    ViewPlan fragment = plan_view(every_subgroup_caps(), f, ViewMode::active_lanes, Stage::fragment);
    EXPECT_EQ(fragment.variant, Variant::unsupported);
    EXPECT_NE(fragment.reason.find("fragmentStoresAndAtomics"), std::string::npos) << fragment.reason;
    for (Stage s : {Stage::compute, Stage::task, Stage::mesh})
        EXPECT_EQ(plan_view(every_subgroup_caps(), f, ViewMode::active_lanes, s).variant, Variant::subgroup) << stage_name(s);
}

TEST(Plan, MeshAndRayTracingStagesWithoutTheirExtensionsSaySo) {
    SubgroupCaps c = every_subgroup_caps();  // subgroups in all fourteen stages
    DeviceFeatures f = every_feature();
    f.mesh_shader = f.ray_tracing = false;
    for (Stage s : {Stage::task, Stage::mesh}) {
        ViewPlan v = plan_view(c, f, ViewMode::lane_id, s);
        EXPECT_EQ(v.variant, Variant::unsupported);
        EXPECT_NE(v.reason.find("VK_EXT_mesh_shader"), std::string::npos) << v.reason;
    }
    for (Stage s : {Stage::raygen, Stage::any_hit, Stage::closest_hit, Stage::miss, Stage::intersection, Stage::callable}) {
        ViewPlan v = plan_view(c, f, ViewMode::active_lanes, s);
        EXPECT_EQ(v.variant, Variant::unsupported);
        EXPECT_NE(v.reason.find("VK_KHR_ray_tracing_pipeline"), std::string::npos) << v.reason;
    }
    // With the features, the view runs wherever this build draws views in the stage; where it does
    // not, the reason says so instead of blaming the device.
    for (Stage s : {Stage::task, Stage::mesh, Stage::raygen, Stage::callable}) {
        ViewPlan v = plan_view(c, every_feature(), ViewMode::lane_id, s);
        if (stage_info(s).view_built) {
            EXPECT_EQ(v.variant, Variant::subgroup) << v.reason;
        } else {
            EXPECT_EQ(v.variant, Variant::unsupported);
            EXPECT_NE(v.reason.find("this build has no lane-id view"), std::string::npos) << v.reason;
        }
    }
}

TEST(Plan, BallotMaskedBreaksBallotViewsButNotLaneId) {
    SubgroupCaps c = every_subgroup_caps();
    apply_masks(c, 0, bit(Op::ballot));
    EXPECT_EQ(plan_view(c, every_feature(), ViewMode::lane_id, Stage::vertex).variant, Variant::subgroup);
    EXPECT_EQ(plan_view(c, every_feature(), ViewMode::active_lanes, Stage::vertex).variant, Variant::unsupported);
}

TEST(Names, RoundTrip) {
    for (uint32_t i = 0; i < uint32_t(Stage::count); ++i) EXPECT_EQ(parse_stage(stage_name(Stage(i))), Stage(i));
    for (uint32_t i = 0; i < uint32_t(Op::count); ++i) EXPECT_EQ(parse_op(op_name(Op(i))), Op(i));
    EXPECT_FALSE(parse_op("quads").has_value());
}

// The debug labels RenderDoc shows: the HUD's words from the tables, "<label>: <variant>" and the
// detail in parentheses; each pass's variants are told apart.
TEST(Names, DebugLabelsFollowOneSchemeFromTheTables) {
    EXPECT_EQ(debug_label(PassId::light_cull, Variant::subgroup), "light cull: subgroup");
    EXPECT_EQ(debug_label(PassId::mip, Variant::fallback, "2x2 downsample"), "mip: fallback (2x2 downsample)");
    EXPECT_EQ(debug_label(Timer::resolve, "quad mip"), "resolve (quad mip)");
    EXPECT_EQ(debug_label(Timer::depth), "depth");
    EXPECT_EQ(debug_label(plan_view(lavapipe_like_caps(), every_feature(), ViewMode::lane_id, Stage::fragment)), "view: lane-id (fragment)");
    EXPECT_EQ(debug_label(plan_view(lavapipe_like_caps(), every_feature(), ViewMode::active_lanes, Stage::vertex)),
              "view: active-lanes (vertex, unsupported)");
    EXPECT_EQ(debug_label(plan_view(lavapipe_like_caps(), every_feature(), ViewMode::mip, Stage::fragment)), "view: mip");
    std::vector<std::string> labels;
    for (const PassInfo& pass : kPasses)
        for (Variant v : {Variant::subgroup, Variant::fallback, Variant::forward})
            if (pass.variants & bit(v)) {
                labels.push_back(debug_label(pass.id, v));
                EXPECT_EQ(labels.back().rfind(std::string(pass.label) + ": ", 0), 0u) << labels.back();
            }
    std::sort(labels.begin(), labels.end());
    EXPECT_EQ(std::adjacent_find(labels.begin(), labels.end()), labels.end());
}

}  // namespace

// The depth pyramid's single pass takes its 2x2 minimums with quad swaps in compute: a device
// without quad operations there (here: --mask-ops quad) builds it with the fallback, and says why.
TEST(Plan, MaskingQuadSendsThePyramidToItsFallbackWithReason) {
    SubgroupCaps caps = lavapipe_like_caps();
    EXPECT_EQ(make_plan(caps, every_feature(), {})[PassId::occlusion].variant, Variant::subgroup);
    apply_masks(caps, 0, bit(Op::quad));
    Plan p = make_plan(caps, every_feature(), {});
    EXPECT_EQ(p[PassId::occlusion].variant, Variant::fallback);
    EXPECT_NE(p[PassId::occlusion].reason.find("quad"), std::string::npos) << p[PassId::occlusion].reason;
    DeviceFeatures no_full = every_feature();
    no_full.compute_full_subgroups = false;
    Plan q = make_plan(lavapipe_like_caps(), no_full, {});
    EXPECT_EQ(q[PassId::occlusion].variant, Variant::fallback);
    EXPECT_NE(q[PassId::occlusion].reason.find("computeFullSubgroups"), std::string::npos) << q[PassId::occlusion].reason;
}

// Occlusion culls with the cull pass, in both geometry paths. With --cull off nothing culls by a
// pyramid: auto builds none (a default pass must not cost a frame it saves nothing in), and says
// why; asked for by name, it is built and the reason says it culls nothing.
// Occlusion auto's rest rule against counts worked by hand: of what passed every other test (drawn
// plus what phase 2 finally rejected), under an eighth removed rests; the meshlet path counts
// meshlets, the indexed path triangles, each ignoring the other's counters.
TEST(Plan, OcclusionAutoRestsWhereItRemovesUnderAnEighth) {
    GpuCounters c{};
    c.triangles_visible = 700;
    c.occlusion_triangles.rejected_phase2 = 99;   // 99 / 799 = 12.39%: rests
    c.meshlets_visible = 70;
    c.occlusion_meshlets.rejected_phase2 = 10;    // 10 / 80 = 12.5%: pays
    EXPECT_TRUE(occlusion_removes_little(c, Geometry::indexed));
    EXPECT_FALSE(occlusion_removes_little(c, Geometry::meshlet));
    c.occlusion_triangles.rejected_phase2 = 100;  // 100 / 800 = 12.5%: pays
    c.occlusion_meshlets.rejected_phase2 = 9;     // 9 / 79 = 11.4%: rests
    EXPECT_FALSE(occlusion_removes_little(c, Geometry::indexed));
    EXPECT_TRUE(occlusion_removes_little(c, Geometry::meshlet));
    GpuCounters nothing{};  // nothing drawn, nothing removed: nothing to pay for
    EXPECT_TRUE(occlusion_removes_little(nothing, Geometry::indexed));
}

TEST(Plan, OcclusionAutoBuildsNoPyramidWhereNothingCullsByIt) {
    for (Geometry geometry : {Geometry::indexed, Geometry::meshlet}) {
        PlanRequest request;
        request.geometry = geometry;
        Plan on = make_plan(lavapipe_like_caps(), every_feature(), request);
        EXPECT_EQ(on[PassId::occlusion].variant, Variant::subgroup);
        EXPECT_NE(on[PassId::occlusion].reason.find("phase 2 re-tests only"), std::string::npos) << on[PassId::occlusion].reason;
        EXPECT_NE(on[PassId::occlusion].reason.find("rests 60 frames"), std::string::npos) << on[PassId::occlusion].reason;
        request[PassId::cull] = Request::off;
        Plan off = make_plan(lavapipe_like_caps(), every_feature(), request);
        EXPECT_EQ(off[PassId::occlusion].variant, Variant::off);
        EXPECT_NE(off[PassId::occlusion].reason.find("--cull off"), std::string::npos) << off[PassId::occlusion].reason;
        request[PassId::occlusion] = Request::fallback;
        Plan asked = make_plan(lavapipe_like_caps(), every_feature(), request);
        EXPECT_EQ(asked[PassId::occlusion].variant, Variant::fallback);
        EXPECT_NE(asked[PassId::occlusion].reason.find("culls nothing"), std::string::npos) << asked[PassId::occlusion].reason;
    }
}
