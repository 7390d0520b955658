// --shading's planner (plan_shading, make_plan) without a GPU: auto keeps forward unless a verdict
// measured on this device says visibility is faster, and says why; visibility's derivatives are
// the quad-swap ones exactly where compute has quad operations and full subgroups; requests the
// device or the geometry path cannot honour are refused (exit 2), never silently changed.
#include <gtest/gtest.h>

#include "caps_fixtures.h"
#include "plan/plan.h"

// A named namespace around the whole file: the unity batches share one translation unit.
namespace shading_plan_tests {

Plan plan_for(const SubgroupCaps& caps, const DeviceFeatures& features, std::optional<Shading> shading,
              Geometry geometry = Geometry::indexed) {
    PlanRequest request;
    request.shading = shading;
    request.geometry = geometry;
    return make_plan(caps, features, request);
}

SubgroupCaps quad_masked(SubgroupCaps caps) {
    caps.ops &= ~bit(Op::quad);
    caps.masked_ops |= bit(Op::quad);
    return caps;
}


TEST(ShadingPlan, AutoTakesForwardWithoutAVerdictAndSaysWhy) {
    Plan plan = plan_for(lavapipe_like_caps(), every_feature(), std::nullopt);
    EXPECT_EQ(plan.shading.shading, Shading::forward);
    EXPECT_EQ(plan.shading.derivatives, Variant::off);
    EXPECT_EQ(plan.shading.source, PlanSource::capabilities);
    EXPECT_NE(plan.shading.reason.find("no verdict"), std::string::npos) << plan.shading.reason;
    EXPECT_EQ(shading_request_name(plan.shading), "auto");
}

TEST(ShadingPlan, AutoFollowsAMeasuredVerdictEitherWay) {
    PlanRequest request;
    request.measured_shading = MeasuredPreference{Variant::subgroup, 1.7, "compare", "2026-11-27"};
    Plan faster = make_plan(lavapipe_like_caps(), every_feature(), request);
    EXPECT_EQ(faster.shading.shading, Shading::visibility);
    EXPECT_EQ(faster.shading.source, PlanSource::measured);
    EXPECT_NE(faster.shading.reason.find("1.70x"), std::string::npos) << faster.shading.reason;
    request.measured_shading->winner = Variant::fallback;
    request.measured_shading->ratio = 0.6;
    EXPECT_EQ(make_plan(lavapipe_like_caps(), every_feature(), request).shading.shading, Shading::forward);
    // A verdict never takes a path the device cannot run.
    request.measured_shading->winner = Variant::subgroup;
    DeviceFeatures no_geometry = every_feature();
    no_geometry.geometry = false;
    EXPECT_EQ(make_plan(lavapipe_like_caps(), no_geometry, request).shading.shading, Shading::forward);
}

// Under visibility the shading pass writes the quad mip and draws the compute stage's lane views;
// the plan says so (the report's reasons, the view's legend) and forward's plan does not.
TEST(ShadingPlan, VisibilityHostsTheQuadMipAndTheComputeLaneViews) {
    PlanRequest request;
    request.view = ViewMode::lane_id;
    request.view_stage = Stage::compute;
    request.shading = Shading::visibility;
    Plan visibility = make_plan(lavapipe_like_caps(), every_feature(), request);
    ASSERT_EQ(visibility[PassId::mip].variant, Variant::subgroup);
    const std::string& mip = visibility[PassId::mip].reason;
    EXPECT_NE(mip.find("written by the visibility shading pass"), std::string::npos) << mip;
    EXPECT_EQ(mip.find("resolve pass"), std::string::npos) << mip;
    EXPECT_TRUE(visibility.view.shading_pass);
    EXPECT_NE(visibility.view.reason.find("lanes numbered by subgroup"), std::string::npos) << visibility.view.reason;
    request.view_stage = Stage::fragment;
    EXPECT_FALSE(make_plan(lavapipe_like_caps(), every_feature(), request).view.shading_pass);
    request.view_stage = Stage::compute;
    request.shading = Shading::forward;
    Plan forward = make_plan(lavapipe_like_caps(), every_feature(), request);
    EXPECT_FALSE(forward.view.shading_pass);
    EXPECT_NE(forward[PassId::mip].reason.find("written by the resolve pass"), std::string::npos) << forward[PassId::mip].reason;
    // Where the HUD, the sheet and report.md say the hosted work ran.
    EXPECT_EQ(hosting_timer(pass_info(PassId::mip), forward), Timer::resolve);
    EXPECT_EQ(hosting_timer(pass_info(PassId::light_loop), forward), Timer::forward);
    EXPECT_EQ(hosting_timer(pass_info(PassId::mip), visibility), Timer::shade);
    EXPECT_EQ(hosting_timer(pass_info(PassId::light_loop), visibility), Timer::shade);
    EXPECT_EQ(hosting_timer(pass_info(PassId::cull), visibility), std::nullopt);
}

TEST(ShadingPlan, QuadSwapDerivativesExactlyWhereComputeHasQuadsAndFullSubgroups) {
    Plan plan = plan_for(lavapipe_like_caps(), every_feature(), Shading::visibility);
    EXPECT_EQ(plan.shading.shading, Shading::visibility);
    EXPECT_EQ(plan.shading.derivatives, Variant::subgroup);
    EXPECT_EQ(plan.shading.light_loop, plan[PassId::light_loop].variant);

    Plan masked = plan_for(quad_masked(lavapipe_like_caps()), every_feature(), Shading::visibility);
    EXPECT_EQ(masked.shading.derivatives, Variant::fallback);
    EXPECT_NE(masked.shading.reason.find("quad subgroup operations are not supported (masked by --mask-ops)"),
              std::string::npos)
        << masked.shading.reason;

    DeviceFeatures partial = every_feature();
    partial.compute_full_subgroups = false;
    Plan no_full = plan_for(lavapipe_like_caps(), partial, Shading::visibility);
    EXPECT_EQ(no_full.shading.derivatives, Variant::fallback);
    EXPECT_NE(no_full.shading.reason.find("computeFullSubgroups"), std::string::npos) << no_full.shading.reason;
}

// The comparison's shading-visibility rows force each derivative variant through the request:
// the quad swaps are refused where compute cannot run them (that row is skipped with the reason),
// the analytic ones run everywhere; either is reported as requested.
TEST(ShadingPlan, ARequestedDerivativeVariantIsHonouredOrRefused) {
    PlanRequest request;
    request.shading = Shading::visibility;
    request.derivatives = Request::fallback;
    Plan analytic = make_plan(lavapipe_like_caps(), every_feature(), request);
    EXPECT_EQ(analytic.shading.derivatives, Variant::fallback) << "the device could run quad swaps: the request wins";
    EXPECT_EQ(analytic.shading.derivatives_requested, Request::fallback);
    EXPECT_NE(analytic.shading.reason.find("requested analytic derivatives everywhere"), std::string::npos)
        << analytic.shading.reason;
    request.derivatives = Request::subgroup;
    Plan quads = make_plan(lavapipe_like_caps(), every_feature(), request);
    EXPECT_EQ(quads.shading.derivatives, Variant::subgroup);
    EXPECT_NE(quads.shading.reason.find("requested quad-broadcast derivatives"), std::string::npos) << quads.shading.reason;
    try {
        make_plan(quad_masked(lavapipe_like_caps()), every_feature(), request);
        ADD_FAILURE() << "quad-swap derivatives planned with quad operations masked";
    } catch (const UnsupportedRequest& e) {
        EXPECT_NE(std::string(e.what()).find("quad-swap derivatives: quad subgroup operations are not supported"),
                  std::string::npos)
            << e.what();
    }
    DeviceFeatures partial = every_feature();
    partial.compute_full_subgroups = false;
    EXPECT_THROW(make_plan(lavapipe_like_caps(), partial, request), UnsupportedRequest);
    // Masked, the analytic request still runs.
    request.derivatives = Request::fallback;
    EXPECT_EQ(make_plan(quad_masked(lavapipe_like_caps()), every_feature(), request).shading.derivatives, Variant::fallback);
}

// Auto's derivatives: capabilities first, then a measured winner, else the quad swaps; a request
// ignores the verdict.
TEST(ShadingPlan, AutoDerivativesFollowAMeasuredVerdictWhereTheDeviceCanRunIt) {
    PlanRequest request;
    request.shading = Shading::visibility;
    request.measured_derivatives = MeasuredPreference{Variant::fallback, 0.93, "compare", "2026-11-27"};
    Plan analytic = make_plan(lavapipe_like_caps(), every_feature(), request);
    EXPECT_EQ(analytic.shading.derivatives, Variant::fallback);
    EXPECT_NE(analytic.shading.reason.find("analytic derivatives everywhere: measured 0.93x on this device (compare of 2026-11-27)"),
              std::string::npos)
        << analytic.shading.reason;
    request.measured_derivatives->winner = Variant::subgroup;
    request.measured_derivatives->ratio = 1.2;
    Plan quads = make_plan(lavapipe_like_caps(), every_feature(), request);
    EXPECT_EQ(quads.shading.derivatives, Variant::subgroup);
    EXPECT_NE(quads.shading.reason.find("measured 1.20x"), std::string::npos) << quads.shading.reason;
    // A verdict for the quad swaps cannot choose them where compute lacks quads.
    Plan masked = make_plan(quad_masked(lavapipe_like_caps()), every_feature(), request);
    EXPECT_EQ(masked.shading.derivatives, Variant::fallback);
    EXPECT_EQ(masked.shading.reason.find("measured"), std::string::npos) << masked.shading.reason;
    // An explicit request is not overruled by a verdict.
    request.measured_derivatives->winner = Variant::fallback;
    request.derivatives = Request::subgroup;
    EXPECT_EQ(make_plan(lavapipe_like_caps(), every_feature(), request).shading.derivatives, Variant::subgroup);
    // Forward shades without visibility's derivatives, whatever was measured.
    request.shading = Shading::forward;
    EXPECT_EQ(make_plan(lavapipe_like_caps(), every_feature(), request).shading.derivatives, Variant::off);
}

TEST(ShadingPlan, RequestsThatCannotRunAreRefused) {
    DeviceFeatures no_geometry = every_feature();
    no_geometry.geometry = false;
    EXPECT_THROW(plan_for(lavapipe_like_caps(), no_geometry, Shading::visibility), UnsupportedRequest);
    // The meshlet path names triangles from its mesh shader, without gl_PrimitiveID: no geometry
    // shaders needed there.
    EXPECT_EQ(plan_for(lavapipe_like_caps(), no_geometry, Shading::visibility, Geometry::meshlet).shading.shading,
              Shading::visibility);
    // Auto keeps forward on the meshlet path too (no verdict), and forward is always possible.
    EXPECT_EQ(plan_for(every_subgroup_caps(), every_feature(), std::nullopt, Geometry::meshlet).shading.shading, Shading::forward);
    EXPECT_EQ(plan_for(every_subgroup_caps(), every_feature(), Shading::forward, Geometry::meshlet).shading.shading, Shading::forward);
    // The mip's forward variant is written by the forward pass, which visibility does not run.
    PlanRequest request;
    request.shading = Shading::visibility;
    request[PassId::mip] = Request::forward;
    EXPECT_THROW(make_plan(lavapipe_like_caps(), every_feature(), request), UnsupportedRequest);
}

}  // namespace shading_plan_tests

// --raster's planner (plan_raster in make_plan): auto keeps hardware unless a verdict says compute
// is faster, and never where the device lacks 64-bit atomics, shading is forward or a debug view
// draws; --raster compute is refused there (exit 2); the compute rasterizer's subgroup path exactly
// where compute has ballots; the meshlet path planned as the indexed one.
namespace raster_plan_tests {

// A request for the visibility path rasterized in compute.
PlanRequest visibility_in_compute() {
    PlanRequest request;
    request.shading = Shading::visibility;
    request.raster = Raster::compute;
    return request;
}

TEST(RasterPlan, AutoKeepsHardwareUnlessAVerdictSaysComputeAndSaysWhy) {
    PlanRequest request;
    request.shading = Shading::visibility;
    Plan plain = make_plan(lavapipe_like_caps(), every_feature(), request);
    EXPECT_EQ(plain.raster.raster, Raster::hardware);
    EXPECT_NE(plain.raster.reason.find("no verdict"), std::string::npos) << plain.raster.reason;
    request.measured_raster = MeasuredPreference{Variant::subgroup, 2.5, "tune", "2026-11-28"};
    Plan measured = make_plan(lavapipe_like_caps(), every_feature(), request);
    EXPECT_EQ(measured.raster.raster, Raster::compute);
    EXPECT_EQ(measured.raster.variant, Variant::subgroup);
    EXPECT_EQ(measured.raster.source, PlanSource::measured);
    EXPECT_NE(measured.raster.reason.find("2.50x"), std::string::npos) << measured.raster.reason;
    // Without the 64-bit atomics even the verdict keeps hardware, and says why.
    DeviceFeatures no_atomics = every_feature();
    no_atomics.int64_atomics = false;
    Plan lacking = make_plan(lavapipe_like_caps(), no_atomics, request);
    EXPECT_EQ(lacking.raster.raster, Raster::hardware);
    EXPECT_NE(lacking.raster.reason.find("shaderBufferInt64Atomics"), std::string::npos) << lacking.raster.reason;
    request.raster = Raster::compute;
    EXPECT_THROW(make_plan(lavapipe_like_caps(), no_atomics, request), UnsupportedRequest);
}

TEST(RasterPlan, ComputeNeedsTheVisibilityPathWithoutViews) {
    PlanRequest request;
    request.raster = Raster::compute;
    // --shading auto: the request for compute makes it visibility.
    Plan plan = make_plan(lavapipe_like_caps(), every_feature(), request);
    EXPECT_EQ(plan.shading.shading, Shading::visibility) << plan.shading.reason;
    EXPECT_EQ(plan.raster.raster, Raster::compute) << plan.raster.reason;
    request.shading = Shading::forward;
    EXPECT_THROW(make_plan(lavapipe_like_caps(), every_feature(), request), UnsupportedRequest);
    request.shading = Shading::visibility;
    request.view = ViewMode::light_count;
    EXPECT_THROW(make_plan(lavapipe_like_caps(), every_feature(), request), UnsupportedRequest);
    request.geometry = Geometry::meshlet;
    EXPECT_THROW(make_plan(lavapipe_like_caps(), every_feature(), request), UnsupportedRequest);
}

// The meshlet path rasterizes in compute as the indexed path does: asked for, or auto with a verdict
// for compute (the same stored verdict), with its path; the reason says how its meshlets are culled.
TEST(RasterPlan, TheMeshletPathRasterizesInComputeAsIndexedDoes) {
    PlanRequest request = visibility_in_compute();
    request.geometry = Geometry::meshlet;
    Plan compute = make_plan(lavapipe_like_caps(), every_feature(), request);
    EXPECT_EQ(compute.raster.raster, Raster::compute) << compute.raster.reason;
    EXPECT_EQ(compute.raster.variant, Variant::subgroup);
    EXPECT_NE(compute.raster.reason.find("the meshlet path's meshlets culled in compute"), std::string::npos) << compute.raster.reason;
    EXPECT_EQ(compute.raster.reason.find("keeps the hardware"), std::string::npos) << compute.raster.reason;
    EXPECT_NE(compute[PassId::cull].reason.find("meshlets culled in compute with the task shader's tests"), std::string::npos)
        << compute[PassId::cull].reason;
    request.raster.reset();
    EXPECT_EQ(make_plan(lavapipe_like_caps(), every_feature(), request).raster.raster, Raster::hardware);
    request.measured_raster = MeasuredPreference{Variant::subgroup, 1.4, "tune", "2026-12-06"};
    request.measured_raster_path = MeasuredPreference{Variant::fallback, 1.2, "tune", "2026-12-06"};
    Plan measured = make_plan(lavapipe_like_caps(), every_feature(), request);
    EXPECT_EQ(measured.raster.raster, Raster::compute) << measured.raster.reason;
    EXPECT_EQ(measured.raster.source, PlanSource::measured);
    EXPECT_EQ(measured.raster.variant, Variant::fallback) << measured.raster.reason;
    request.measured_raster = MeasuredPreference{Variant::fallback, 1.4, "tune", "2026-12-06"};
    EXPECT_EQ(make_plan(lavapipe_like_caps(), every_feature(), request).raster.raster, Raster::hardware);
}

// --view raster shows the compute rasterizer's words: it runs with compute, and where the plan
// takes hardware it is marked unsupported with the rasterizer's reason (the run refuses it).
TEST(RasterPlan, TheRasterViewNeedsTheComputeRasterizer) {
    PlanRequest request = visibility_in_compute();
    request.view = ViewMode::raster;
    Plan compute = make_plan(lavapipe_like_caps(), every_feature(), request);
    EXPECT_EQ(compute.raster.raster, Raster::compute) << compute.raster.reason;
    EXPECT_EQ(compute.view.variant, Variant::off) << compute.view.reason;
    request.raster = Raster::hardware;
    Plan hardware = make_plan(lavapipe_like_caps(), every_feature(), request);
    EXPECT_EQ(hardware.view.variant, Variant::unsupported);
    EXPECT_NE(hardware.view.reason.find("requested hardware"), std::string::npos) << hardware.view.reason;
    request.raster.reset();
    request.shading = Shading::forward;
    Plan forward = make_plan(lavapipe_like_caps(), every_feature(), request);
    EXPECT_EQ(forward.view.variant, Variant::unsupported);
    EXPECT_NE(forward.view.reason.find("forward shading"), std::string::npos) << forward.view.reason;
}

// The compute rasterizer snaps to kRasterSubPixelBits; where the device's hardware snaps otherwise,
// the two would disagree on the edges they share: auto keeps hardware even with a verdict for
// compute, says why, and --raster compute is refused.
TEST(RasterPlan, ComputeOnlyWhereTheDeviceSnapsToTheSameSubPixelBits) {
    PlanRequest request;
    request.shading = Shading::visibility;
    request.measured_raster = MeasuredPreference{Variant::subgroup, 2.5, "tune", "2026-11-28"};
    EXPECT_EQ(make_plan(lavapipe_like_caps(), every_feature(), request).raster.raster, Raster::compute);
    for (uint32_t bits : {4u, 6u, 10u}) {
        DeviceFeatures features = every_feature();
        features.sub_pixel_bits = bits;
        Plan plan = make_plan(lavapipe_like_caps(), features, request);
        EXPECT_EQ(plan.raster.raster, Raster::hardware) << bits;
        EXPECT_NE(plan.raster.reason.find("auto takes hardware: device snaps vertices to " + std::to_string(bits) + " sub-pixel bits"),
                  std::string::npos)
            << plan.raster.reason;
        PlanRequest compute = request;
        compute.raster = Raster::compute;
        EXPECT_THROW(make_plan(lavapipe_like_caps(), features, compute), UnsupportedRequest) << bits;
    }
}

TEST(RasterPlan, SubgroupPathExactlyWhereComputeHasBallots) {
    PlanRequest request;
    request.raster = Raster::compute;
    EXPECT_EQ(make_plan(lavapipe_like_caps(), every_feature(), request).raster.variant, Variant::subgroup);
    SubgroupCaps masked = lavapipe_like_caps();
    masked.ops &= ~bit(Op::ballot);
    masked.masked_ops |= bit(Op::ballot);
    Plan fallback = make_plan(masked, every_feature(), request);
    EXPECT_EQ(fallback.raster.variant, Variant::fallback);
    EXPECT_NE(fallback.raster.reason.find("masked by --mask-ops"), std::string::npos) << fallback.raster.reason;
    request.raster_variant = Request::subgroup;
    EXPECT_THROW(make_plan(masked, every_feature(), request), UnsupportedRequest);
    request.raster_variant = Request::fallback;
    EXPECT_EQ(make_plan(lavapipe_like_caps(), every_feature(), request).raster.variant, Variant::fallback);
}

}  // namespace raster_plan_tests
