// The window's logic without a window: key cycling over the plan (skipping what the device cannot
// run), screenshot names, the orbit camera, swapchain choices and the HUD's smoothing.
#include <gtest/gtest.h>

#include <glm/gtc/matrix_transform.hpp>

#include "window/camera_control.h"
#include "caps_fixtures.h"
#include "window/controls.h"
#include "window/hud.h"
#include "window/swapchain.h"

namespace {

DeviceFeatures all_features() {
    DeviceFeatures f;
    f.tessellation = f.geometry = f.fragment_stores = f.vertex_stores = f.multi_draw_indirect = true;
    return f;
}

TEST(WindowControls, RequestsCycleInBothDirections) {
    std::vector<Request> forward;
    Request r = Request::automatic;
    for (int i = 0; i < 5; ++i) forward.push_back(r = next_request(r, 1));
    EXPECT_EQ(forward, (std::vector<Request>{Request::subgroup, Request::forward, Request::fallback, Request::off,
                                             Request::automatic}));
    EXPECT_EQ(next_request(Request::automatic, -1), Request::off);
    EXPECT_EQ(next_request(Request::subgroup, -1), Request::automatic);
    EXPECT_EQ(next_view_mode(ViewMode::light_count, 1), ViewMode::lod);
    EXPECT_EQ(next_view_mode(ViewMode::lod, 1), ViewMode::depth_pyramid);
    EXPECT_EQ(next_view_mode(ViewMode::depth_pyramid, 1), ViewMode::raster);
    EXPECT_EQ(next_view_mode(ViewMode::raster, 1), ViewMode::materials);
    // V steps through every view once, in kViewNames' order, and wraps from the last to shaded.
    const ViewMode last = ViewMode(uint32_t(ViewMode::count) - 1);
    EXPECT_EQ(next_view_mode(last, 1), ViewMode::shaded);
    EXPECT_EQ(next_view_mode(ViewMode::shaded, -1), last);
    ViewMode m = ViewMode::shaded;
    for (size_t i = 1; i <= kViewNames.size(); ++i) {
        m = next_view_mode(m, 1);
        EXPECT_EQ(view_mode_name(m), kViewNames[i % kViewNames.size()]);
    }
    EXPECT_EQ(next_stage(Stage::compute, 1), Stage::task);
    EXPECT_EQ(next_stage(Stage::callable, 1), Stage::vertex);
    EXPECT_EQ(next_stage(Stage::vertex, -1), Stage::callable);
}

TEST(WindowControls, CyclingVisitsEveryVariantTheDeviceRuns) {
    SubgroupCaps caps = lavapipe_like_caps();
    PlanRequest request;
    std::vector<Variant> seen;
    for (int i = 0; i < 4; ++i) {
        PlanChange c = cycle_pass(caps, all_features(), request, PassId::cull, 1);
        EXPECT_EQ(c.note, "");
        seen.push_back(c.plan[PassId::cull].variant);
        request = c.request;
    }
    // subgroup, fallback, off, then auto, which resolves to subgroup on this device.
    EXPECT_EQ(seen, (std::vector<Variant>{Variant::subgroup, Variant::fallback, Variant::off, Variant::subgroup}));
    EXPECT_EQ(request[PassId::cull], Request::automatic);
}

TEST(WindowControls, UnsupportedSubgroupRequestIsSkippedWithANote) {
    SubgroupCaps caps = lavapipe_like_caps();
    apply_masks(caps, 0, bit(Op::quad));
    PlanRequest subgroup_mip;
    subgroup_mip[PassId::mip] = Request::subgroup;
    ASSERT_THROW(make_plan(caps, all_features(), subgroup_mip), UnsupportedRequest);  // the oracle: the plan refuses it

    PlanChange forward = cycle_pass(caps, all_features(), PlanRequest{}, PassId::mip, 1);
    EXPECT_EQ(forward.request[PassId::mip], Request::fallback);
    EXPECT_EQ(forward.plan[PassId::mip].variant, Variant::fallback);
    EXPECT_NE(forward.note.find("skipped mip subgroup"), std::string::npos) << forward.note;
    EXPECT_NE(forward.note.find("quad"), std::string::npos) << forward.note;
    EXPECT_EQ(forward.note.find("use auto"), std::string::npos) << "command-line advice has no place on screen";

    PlanChange back = cycle_pass(caps, all_features(), forward.request, PassId::mip, -1);
    EXPECT_EQ(back.request[PassId::mip], Request::automatic);
    EXPECT_EQ(back.plan[PassId::mip].variant, Variant::fallback);  // auto falls back on this device
    EXPECT_FALSE(back.note.empty());

    // The other passes are untouched by a mip key.
    EXPECT_EQ(forward.request[PassId::cull], Request::automatic);
    EXPECT_EQ(forward.plan[PassId::cull].variant, Variant::subgroup);
}

// `text` holds `parts` in this order (other passes of the table may stand between them).
::testing::AssertionResult spells(const std::string& text, std::initializer_list<std::string> parts) {
    size_t at = 0;
    for (const std::string& part : parts) {
        size_t found = text.find(part, at);
        if (found == std::string::npos) return ::testing::AssertionFailure() << "'" << part << "' missing from " << text;
        at = found + part.size();
    }
    return ::testing::AssertionSuccess();
}

TEST(WindowControls, ViewStagesWithoutSupportAreShownNotSkipped) {
    PlanRequest request;
    request.view = ViewMode::lane_id;
    request.view_stage = Stage::callable;
    PlanChange c = cycle_view_stage(lavapipe_like_caps(), all_features(), request, 1);
    EXPECT_EQ(c.request.view_stage, Stage::vertex);
    EXPECT_EQ(c.plan.view.variant, Variant::unsupported);
    EXPECT_EQ(c.note, "");
    EXPECT_TRUE(spells(plan_tag(c.plan), {"cull-subgroup_light-subgroup_mip-subgroup_", "view-lane-id-vertex-unsupported"}));
}

TEST(WindowControls, LodKeyTogglesAutoAndOffAndKeepsTheRest) {
    PlanRequest request;
    request[PassId::cull] = Request::fallback;
    ASSERT_TRUE(request.lod) << "--lod auto is the default";
    PlanChange off = toggle_lod(lavapipe_like_caps(), all_features(), request);
    EXPECT_FALSE(off.request.lod);
    EXPECT_FALSE(off.plan.lod);
    EXPECT_EQ(off.plan[PassId::cull].variant, Variant::fallback);
    PlanChange back = toggle_lod(lavapipe_like_caps(), all_features(), off.request);
    EXPECT_TRUE(back.plan.lod);
}

// X: hardware <> compute from what the plan rasterizes with (auto is hardware without a verdict),
// keeping every pass's request; compute takes the visibility path with it; where compute cannot run
// (the device lacks the 64-bit atomics, or forward shading was asked for) it stays, with the reason.
TEST(WindowControls, RasterKeyTogglesHardwareAndComputeAndSkipsWhereItCannot) {
    DeviceFeatures features = all_features();
    features.int64_atomics = true;
    PlanRequest request;
    request[PassId::cull] = Request::fallback;
    PlanChange compute = toggle_raster(lavapipe_like_caps(), features, request);
    EXPECT_EQ(compute.note, "");
    EXPECT_EQ(compute.plan.raster.raster, Raster::compute);
    EXPECT_EQ(compute.plan.shading.shading, Shading::visibility);
    EXPECT_EQ(compute.plan[PassId::cull].variant, Variant::fallback);
    PlanChange hardware = toggle_raster(lavapipe_like_caps(), features, compute.request);
    EXPECT_EQ(hardware.plan.raster.raster, Raster::hardware);
    EXPECT_EQ(toggle_raster(lavapipe_like_caps(), features, hardware.request).plan.raster.raster, Raster::compute);
    PlanChange lacking = toggle_raster(lavapipe_like_caps(), all_features(), request);
    EXPECT_EQ(lacking.plan.raster.raster, Raster::hardware);
    EXPECT_NE(lacking.note.find("skipped raster compute: device lacks shaderBufferInt64Atomics"), std::string::npos) << lacking.note;
    request.shading = Shading::forward;
    PlanChange forward = toggle_raster(lavapipe_like_caps(), features, request);
    EXPECT_EQ(forward.plan.raster.raster, Raster::hardware);
    EXPECT_NE(forward.note.find("skipped raster compute"), std::string::npos) << forward.note;
}

// I: forward <> visibility from what the plan shades with (auto is forward without a verdict),
// keeping every pass's request, on both geometry paths; without geometry shaders the indexed path's
// visibility is skipped with the planner's reason.
TEST(WindowControls, ShadingKeyTogglesForwardAndVisibilityAndSkipsWhereItCannot) {
    PlanRequest request;
    request[PassId::cull] = Request::fallback;
    PlanChange visibility = toggle_shading(lavapipe_like_caps(), all_features(), request);
    EXPECT_EQ(visibility.note, "");
    EXPECT_EQ(visibility.plan.shading.shading, Shading::visibility);
    EXPECT_EQ(visibility.plan[PassId::cull].variant, Variant::fallback);
    PlanChange forward = toggle_shading(lavapipe_like_caps(), all_features(), visibility.request);
    EXPECT_EQ(forward.plan.shading.shading, Shading::forward);
    request.geometry = Geometry::meshlet;
    DeviceFeatures mesh = all_features();
    mesh.mesh_shader = true;
    PlanChange meshlet = toggle_shading(lavapipe_like_caps(), mesh, request);
    EXPECT_EQ(meshlet.note, "");
    EXPECT_EQ(meshlet.plan.shading.shading, Shading::visibility);
    EXPECT_EQ(meshlet.plan.geometry, Geometry::meshlet);
    EXPECT_EQ(toggle_shading(lavapipe_like_caps(), mesh, meshlet.request).plan.shading.shading, Shading::forward);
    request.geometry = Geometry::indexed;
    DeviceFeatures no_geometry = all_features();
    no_geometry.geometry = false;
    PlanChange skipped = toggle_shading(lavapipe_like_caps(), no_geometry, request);
    EXPECT_EQ(skipped.plan.shading.shading, Shading::forward);
    EXPECT_NE(skipped.note.find("skipped shading visibility"), std::string::npos) << skipped.note;
}

// P: from another view it shows the depth-pyramid view at the level it had; then it steps the level
// around the pyramid's levels, both ways, and the plan carries the level to the view.
TEST(WindowControls, PyramidKeyShowsTheViewThenStepsItsLevelRound) {
    PlanRequest request;
    PlanChange shown = step_pyramid_level(lavapipe_like_caps(), all_features(), request, 1, 4);
    EXPECT_EQ(shown.plan.view.mode, ViewMode::depth_pyramid);
    EXPECT_EQ(shown.plan.view.level, 0u);
    std::vector<uint32_t> levels;
    for (int i = 0; i < 4; ++i) {
        shown = step_pyramid_level(lavapipe_like_caps(), all_features(), shown.request, 1, 4);
        levels.push_back(shown.plan.view.level);
    }
    EXPECT_EQ(levels, (std::vector<uint32_t>{1, 2, 3, 0}));
    EXPECT_TRUE(spells(screenshot_name(step_pyramid_level(lavapipe_like_caps(), all_features(), shown.request, 1, 4).plan, 320, 180),
                       {"view-depth-pyramid-level-1_320x180.png"}));
    EXPECT_EQ(step_pyramid_level(lavapipe_like_caps(), all_features(), shown.request, -1, 4).plan.view.level, 3u);
    PlanRequest beyond = shown.request;
    beyond.view_level = 9;  // a level of a larger frame, after a resize: the last one of this frame, then on
    EXPECT_EQ(step_pyramid_level(lavapipe_like_caps(), all_features(), beyond, 1, 4).plan.view.level, 0u);
}

TEST(WindowControls, ScreenshotNameSpellsTheConfiguration) {
    PlanRequest request;
    request[PassId::light_cull] = Request::fallback;
    request.view = ViewMode::lane_id;
    Plan plan = make_plan(lavapipe_like_caps(), all_features(), request);
    std::string name = screenshot_name(plan, 1280, 720);
    EXPECT_TRUE(spells(name, {"subgroup-demo_cull-subgroup_light-fallback_mip-subgroup_", "view-lane-id-fragment_1280x720.png"}));
    EXPECT_NE(name.find("_loop-subgroup_"), std::string::npos) << name;  // the light loop's tag
    EXPECT_EQ(name.find_first_of(" /=:"), std::string::npos) << "a file name: " << name;
    request.view = ViewMode::mip;
    request[PassId::cull] = Request::off;
    plan = make_plan(lavapipe_like_caps(), all_features(), request);
    EXPECT_TRUE(spells(screenshot_name(plan, 320, 180), {"subgroup-demo_cull-off_light-fallback_mip-subgroup_", "view-mip_320x180.png"}));
    EXPECT_TRUE(spells(request_tag(request), {"cull=off light-cull=fallback mip=auto ", "view=mip stage=fragment"}));
    EXPECT_NE(request_tag(request).find(" light-loop=auto "), std::string::npos) << request_tag(request);
    // The plan-level choices appear where they are not the defaults: a screenshot after I or M
    // does not overwrite the one before.
    EXPECT_EQ(screenshot_name(plan, 320, 180).find("shading"), std::string::npos);
    request.shading = Shading::visibility;
    plan = make_plan(lavapipe_like_caps(), all_features(), request);
    EXPECT_TRUE(spells(screenshot_name(plan, 320, 180), {"_occl-", "_shading-visibility_view-mip_320x180.png"}));
    EXPECT_NE(request_tag(request).find(" shading=visibility view=mip"), std::string::npos) << request_tag(request);
}

TEST(OrbitCamera, ResetGivesTheDefaultViewExactlyAndItsAngles) {
    glm::vec3 lo(-10, 0, -6), hi(10, 8, 6);
    Camera home = default_camera(lo, hi);
    OrbitCamera c;
    c.reset(home, lo, hi);
    Camera now = c.camera();
    EXPECT_EQ(now.position, home.position);
    EXPECT_EQ(now.target, home.target);
    EXPECT_EQ(now.near_plane, home.near_plane);
    EXPECT_EQ(now.far_plane, home.far_plane);
    // The angles reproduce the home position (default_camera uses 35 and 25 degrees).
    EXPECT_NEAR(glm::degrees(c.yaw), 35.0f, 1e-3f);
    EXPECT_NEAR(glm::degrees(c.pitch), 25.0f, 1e-3f);
    EXPECT_LT(glm::length(c.position() - home.position), 1e-4f * c.distance);
}

TEST(OrbitCamera, OrbitKeepsTheTargetAndDistanceAndUndoes) {
    glm::vec3 lo(-1), hi(1);
    OrbitCamera c;
    c.reset(default_camera(lo, hi), lo, hi);
    glm::vec3 start = c.position();
    c.orbit(120, -40);
    EXPECT_TRUE(c.moved);
    Camera moved = c.camera();
    EXPECT_NEAR(glm::length(moved.position - moved.target), c.distance, 1e-4f);
    EXPECT_GT(glm::length(moved.position - start), 0.1f);
    c.orbit(-120, 40);
    EXPECT_LT(glm::length(c.position() - start), 1e-4f);
    // Tilting far past the pole stops short of it, so the view matrix stays defined.
    c.orbit(0, 1e6f);
    EXPECT_LT(c.pitch, glm::radians(89.01f));
    glm::mat4 view = c.camera().view();
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) EXPECT_TRUE(std::isfinite(view[i][j]));
}

TEST(OrbitCamera, ZoomPanAndFlyMoveAsDocumented) {
    glm::vec3 lo(-2), hi(2);
    OrbitCamera c;
    c.reset(default_camera(lo, hi), lo, hi);
    float d = c.distance;
    c.zoom(1);
    EXPECT_NEAR(c.distance, d * 0.85f, 1e-5f);
    c.zoom(-1);
    EXPECT_NEAR(c.distance, d, 1e-4f);

    glm::vec3 target = c.target;
    c.pan(50, 20, 720);
    EXPECT_NEAR(glm::dot(c.target - target, c.forward()), 0.0f, 1e-5f) << "panning moves across the view";
    EXPECT_GT(glm::length(c.target - target), 0.0f);

    target = c.target;
    glm::vec3 forward = c.forward();
    c.fly(glm::vec3(0, 0, 1), 2.0f);  // two seconds forward at half a scene radius per second
    EXPECT_LT(glm::length(c.target - (target + forward * c.scene_radius)), 1e-4f);
    c.fly(glm::vec3(0, 1, 0), 1.0f);
    EXPECT_NEAR(c.target.y - (target + forward * c.scene_radius).y, 0.5f * c.scene_radius, 1e-4f);
}

TEST(OrbitCamera, DepthRangeEnclosesTheSceneFromAnywhere) {
    glm::vec3 lo(-5), hi(5);
    OrbitCamera c;
    c.reset(default_camera(lo, hi), lo, hi);
    for (float steps : {-20.0f, 5.0f, 30.0f}) {
        c.zoom(steps);
        Camera cam = c.camera();
        float d = glm::length(cam.position - c.scene_center);
        EXPECT_GT(cam.near_plane, 0.0f);
        EXPECT_LT(cam.near_plane, cam.far_plane);
        EXPECT_GE(cam.far_plane, d + c.scene_radius) << "the far side of the scene is clipped";
        if (d > 1.5f * c.scene_radius) EXPECT_LE(cam.near_plane, d - c.scene_radius) << "the near side is clipped";
    }
}

TEST(Swapchain, PresentModeIsFifoUnlessVsyncIsOff) {
    std::vector<VkPresentModeKHR> all = {VK_PRESENT_MODE_IMMEDIATE_KHR, VK_PRESENT_MODE_MAILBOX_KHR, VK_PRESENT_MODE_FIFO_KHR};
    EXPECT_EQ(choose_present_mode(all, false), VK_PRESENT_MODE_FIFO_KHR);
    EXPECT_EQ(choose_present_mode(all, true), VK_PRESENT_MODE_MAILBOX_KHR);
    EXPECT_EQ(choose_present_mode({VK_PRESENT_MODE_FIFO_KHR, VK_PRESENT_MODE_IMMEDIATE_KHR}, true),
              VK_PRESENT_MODE_IMMEDIATE_KHR);
    EXPECT_EQ(choose_present_mode({VK_PRESENT_MODE_FIFO_KHR}, true), VK_PRESENT_MODE_FIFO_KHR);
}

TEST(Swapchain, FormatIsAnEightBitRgbaOrBgraInTheSrgbSpace) {
    auto fmt = [](VkFormat f, VkColorSpaceKHR s = VK_COLOR_SPACE_SRGB_NONLINEAR_KHR) { return VkSurfaceFormatKHR{f, s}; };
    EXPECT_EQ(choose_surface_format({fmt(VK_FORMAT_B8G8R8A8_SRGB), fmt(VK_FORMAT_B8G8R8A8_UNORM)}).format,
              VK_FORMAT_B8G8R8A8_UNORM);
    EXPECT_EQ(choose_surface_format({fmt(VK_FORMAT_B8G8R8A8_UNORM), fmt(VK_FORMAT_R8G8B8A8_UNORM)}).format,
              VK_FORMAT_R8G8B8A8_UNORM);
    EXPECT_EQ(choose_surface_format({fmt(VK_FORMAT_B8G8R8A8_SRGB)}).format, VK_FORMAT_B8G8R8A8_SRGB);
    EXPECT_EQ(choose_surface_format({fmt(VK_FORMAT_A2B10G10R10_UNORM_PACK32)}).format, VK_FORMAT_UNDEFINED);
    EXPECT_EQ(choose_surface_format({fmt(VK_FORMAT_B8G8R8A8_UNORM, VK_COLOR_SPACE_EXTENDED_SRGB_LINEAR_EXT)}).format,
              VK_FORMAT_UNDEFINED);
}

TEST(Swapchain, ExtentFollowsTheSurfaceOrClampsTheFramebuffer) {
    VkSurfaceCapabilitiesKHR caps{};
    caps.currentExtent = {800, 600};
    EXPECT_EQ(choose_extent(caps, {1, 1}).width, 800u);
    caps.currentExtent = {UINT32_MAX, UINT32_MAX};
    caps.minImageExtent = {16, 16};
    caps.maxImageExtent = {4096, 4096};
    VkExtent2D e = choose_extent(caps, {8, 5000});
    EXPECT_EQ(e.width, 16u);
    EXPECT_EQ(e.height, 4096u);
}

TEST(Hud, TimesAreSmoothedAndPassesThatStopShowAsNotRun) {
    SmoothedTimes t;
    std::array<double, kTimerCount> sample;
    sample.fill(-1.0);
    sample[size_t(Timer::forward)] = 10.0;
    t.add(sample);
    EXPECT_EQ(t.ms[size_t(Timer::forward)], 10.0);  // the first sample is taken as it is
    EXPECT_LT(t.ms[size_t(Timer::cull)], 0.0);
    sample[size_t(Timer::forward)] = 20.0;
    t.add(sample);
    EXPECT_DOUBLE_EQ(t.ms[size_t(Timer::forward)], 10.0 * (1 - SmoothedTimes::kWeight) + 20.0 * SmoothedTimes::kWeight);
    sample[size_t(Timer::forward)] = -1.0;
    t.add(sample);
    EXPECT_LT(t.ms[size_t(Timer::forward)], 0.0);
}

}  // namespace

#include "run/options.h"

namespace {

TEST(WindowOptions, SoakFramesBelongToTheWindow) {
    Options o = parse_options({"--soak-frames", "3000", "--size", "320x180"});
    EXPECT_EQ(o.mode, Mode::window);
    EXPECT_EQ(o.soak_frames, 3000u);
    EXPECT_THROW(parse_options({"--headless", "--soak-frames", "10"}), UsageError);
    EXPECT_THROW(parse_options({"--soak-frames", "0"}), UsageError);
    EXPECT_THROW(parse_options({"--soak-frames"}), UsageError);
}

}  // namespace
