// Tuned auto: the planning rule (capabilities first, then the measured winner, else subgroup) and
// the tuning file (written, read back, and ignored with a reason when it does not fit).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "compare/tuning.h"
#include "caps_fixtures.h"
#include <unistd.h>
#include "plan/plan.h"

namespace {

MeasuredPreference measured(Variant winner, double ratio) { return {winner, ratio, "compare", "2026-11-25"}; }

// A request with `t`'s verdicts for the passes (its shading verdict left out, so the shading is asked).
PlanRequest pass_verdicts_of(const LoadedTuning& t) {
    PlanRequest request;
    set_measured(request, &t);
    request.measured_shading.reset();
    return request;
}

// The pass runs `variant`, and its reason quotes `text` (the verdict's ratio).
void expect_pass(const Plan& p, PassId pass, Variant variant, const std::string& text) {
    EXPECT_EQ(p[pass].variant, variant) << p[pass].reason;
    EXPECT_NE(p[pass].reason.find(text), std::string::npos) << p[pass].reason;
}

TEST(TunedPlan, AutoTakesTheMeasuredWinnerAndSaysWhere) {
    PlanRequest request;
    request.measured[size_t(PassId::mip)] = measured(Variant::fallback, 0.14);
    request.measured[size_t(PassId::cull)] = measured(Variant::subgroup, 2.5);
    Plan p = make_plan(every_subgroup_caps(), every_feature(), request);
    EXPECT_EQ(p[PassId::mip].variant, Variant::fallback);
    EXPECT_EQ(p[PassId::mip].source, PlanSource::measured);
    EXPECT_EQ(p[PassId::mip].reason, "measured 0.14x on this device (compare of 2026-11-25)");
    EXPECT_EQ(p[PassId::cull].variant, Variant::subgroup);
    EXPECT_EQ(p[PassId::cull].source, PlanSource::measured);
    // Without a measurement: today's rule, from the capabilities.
    EXPECT_EQ(p[PassId::light_cull].variant, Variant::subgroup);
    EXPECT_EQ(p[PassId::light_cull].source, PlanSource::capabilities);
    // The same request without measurements is the untuned plan.
    Plan untuned = make_plan(every_subgroup_caps(), every_feature(), {});
    EXPECT_EQ(untuned[PassId::mip].variant, Variant::subgroup);
    EXPECT_EQ(untuned[PassId::mip].source, PlanSource::capabilities);
}

TEST(TunedPlan, CapabilitiesComeFirst) {
    PlanRequest request;
    request.measured[size_t(PassId::cull)] = measured(Variant::subgroup, 3.0);
    request.measured[size_t(PassId::mip)] = measured(Variant::subgroup, 3.0);
    // A device (or a mask) without subgroups in compute cannot run the subgroup cull: the
    // measurement from elsewhere does not choose it.
    SubgroupCaps masked = every_subgroup_caps();
    apply_masks(masked, bit(Stage::compute), bit(Op::quad));
    Plan p = make_plan(masked, every_feature(), request);
    EXPECT_EQ(p[PassId::cull].variant, Variant::fallback);
    EXPECT_EQ(p[PassId::cull].source, PlanSource::capabilities);
    EXPECT_NE(p[PassId::cull].reason.find("masked by --mask-stages"), std::string::npos) << p[PassId::cull].reason;
    EXPECT_EQ(p[PassId::mip].variant, Variant::fallback);
    EXPECT_NE(p[PassId::mip].reason.find("masked by --mask-ops"), std::string::npos) << p[PassId::mip].reason;
    // A pass the device cannot run at all stays off, whatever was measured.
    request.measured[size_t(PassId::ray_trace)] = measured(Variant::fallback, 0.5);
    DeviceFeatures no_rt = every_feature();
    no_rt.ray_tracing = false;
    EXPECT_EQ(make_plan(every_subgroup_caps(), no_rt, request)[PassId::ray_trace].variant, Variant::off);
}

TEST(TunedPlan, ExplicitRequestsAndTheMeshletCullIgnoreMeasurements) {
    PlanRequest request;
    request.measured[size_t(PassId::cull)] = measured(Variant::fallback, 0.5);
    request[PassId::cull] = Request::subgroup;
    Plan p = make_plan(every_subgroup_caps(), every_feature(), request);
    EXPECT_EQ(p[PassId::cull].variant, Variant::subgroup);
    EXPECT_EQ(p[PassId::cull].source, PlanSource::requested);
    // The cull was measured as the indexed path's compute cull, not the task/mesh culling.
    request[PassId::cull] = Request::automatic;
    request.geometry = Geometry::meshlet;
    p = make_plan(every_subgroup_caps(), every_feature(), request);
    EXPECT_EQ(p[PassId::cull].variant, Variant::subgroup);
    EXPECT_EQ(p[PassId::cull].source, PlanSource::capabilities);
}

DeviceInfo device() {
    DeviceInfo d;
    d.name = "NVIDIA H100 80GB HBM3";
    d.driver = "NVIDIA 570.86.15";
    d.vendor_id = 0x10de;
    d.device_id = 0x2330;
    return d;
}

// Ratios as a comparison gives them: cull faster, mip slower, light loop level, the rest unmeasured.
PassRatios ratios() {
    PassRatios r;
    r[size_t(PassId::cull)].ratio = 2.0, r[size_t(PassId::cull)].ci95 = Interval{1.8, 2.2};
    r[size_t(PassId::cull)].verdict = Verdict::faster;
    r[size_t(PassId::mip)].ratio = 0.14, r[size_t(PassId::mip)].ci95 = Interval{0.12, 0.16};
    r[size_t(PassId::mip)].verdict = Verdict::slower;
    r[size_t(PassId::light_loop)].ratio = 0.97, r[size_t(PassId::light_loop)].ci95 = Interval{0.9, 1.05};
    r[size_t(PassId::light_loop)].verdict = Verdict::level;
    r[size_t(PassId::ray_trace)].reason = "ray-trace-subgroup was skipped";
    return r;
}

// The visibility path's two, as a comparison gives them: visibility faster than forward (forward
// over visibility 1.9x), the analytic derivatives faster than the quad swaps (0.95x, slower).
ShadingRatios shading_ratios(Verdict shading = Verdict::faster, Verdict derivatives = Verdict::slower) {
    ShadingRatios r;
    r[0].key = "shading", r[1].key = "derivatives";
    r[0].ratio = shading == Verdict::faster ? 1.9 : 0.7;
    r[0].ci95 = shading == Verdict::faster ? Interval{1.7, 2.1} : Interval{0.6, 0.8};
    r[0].verdict = shading;
    r[1].ratio = derivatives == Verdict::slower ? 0.95 : 1.02;
    r[1].ci95 = derivatives == Verdict::slower ? Interval{0.93, 0.97} : Interval{0.98, 1.06};
    r[1].verdict = derivatives;
    return r;
}

std::string file_text(const DeviceInfo& d, const ShadingRatios& shading = shading_ratios(Verdict::level, Verdict::level)) {
    return tuning_json(d, "tune", "2026-11-25", {1920, 1080}, ratios(), shading).dump();
}

TEST(TuningFile, SignificantVerdictsBecomePreferences) {
    LoadedTuning t = parse_tuning(file_text(device()), device(), {1920, 1080});
    EXPECT_TRUE(t.ignored.empty()) << t.ignored;
    ASSERT_EQ(t.count(), 2u);
    ASSERT_TRUE(t.measured[size_t(PassId::cull)]);
    EXPECT_EQ(t.measured[size_t(PassId::cull)]->winner, Variant::subgroup);
    ASSERT_TRUE(t.measured[size_t(PassId::mip)]);
    EXPECT_EQ(t.measured[size_t(PassId::mip)]->winner, Variant::fallback);
    EXPECT_DOUBLE_EQ(t.measured[size_t(PassId::mip)]->ratio, 0.14);
    EXPECT_EQ(t.measured[size_t(PassId::mip)]->date, "2026-11-25");
    EXPECT_EQ(t.measured[size_t(PassId::mip)]->made_by, "tune");
    EXPECT_FALSE(t.measured[size_t(PassId::light_loop)]) << "level: the interval holds 1.0";
    EXPECT_FALSE(t.measured[size_t(PassId::ray_trace)]) << "no ratio";
}

// The shading verdict picks --shading auto's path and the derivatives verdict visibility's
// derivatives, both only where significant; a format-1 file from before they were stored has none.
TEST(TuningFile, ShadingAndDerivativesVerdictsBecomePreferences) {
    LoadedTuning t = parse_tuning(file_text(device(), shading_ratios()), device(), {1920, 1080});
    EXPECT_TRUE(t.ignored.empty()) << t.ignored;
    EXPECT_EQ(t.count(), 4u);  // cull, mip, shading, derivatives
    ASSERT_TRUE(t.shading);
    EXPECT_EQ(t.shading->winner, Variant::subgroup) << "faster: visibility wins";
    EXPECT_DOUBLE_EQ(t.shading->ratio, 1.9);
    EXPECT_EQ(t.shading->made_by, "tune");
    ASSERT_TRUE(t.derivatives);
    EXPECT_EQ(t.derivatives->winner, Variant::fallback) << "slower: the analytic derivatives win";
    EXPECT_DOUBLE_EQ(t.derivatives->ratio, 0.95);
    EXPECT_FALSE(parse_tuning(file_text(device()), device(), {1920, 1080}).shading) << "level: the interval holds 1.0";
    // A file written before the visibility verdicts were kept: the passes still count.
    nlohmann::json older = nlohmann::json::parse(file_text(device(), shading_ratios()));
    older.erase("visibility");
    LoadedTuning o = parse_tuning(older.dump(), device(), {1920, 1080});
    EXPECT_TRUE(o.ignored.empty()) << o.ignored;
    EXPECT_FALSE(o.shading || o.derivatives);
    EXPECT_EQ(o.count(), 2u);

    // Into a request (what auto consults), and out again (--no-tuning, the window's T key off).
    PlanRequest request;
    set_measured(request, &t);
    EXPECT_TRUE(has_measured(request));
    Plan p = make_plan(lavapipe_like_caps(), every_feature(), request);
    EXPECT_EQ(p.shading.shading, Shading::visibility);
    EXPECT_EQ(p.shading.source, PlanSource::measured);
    EXPECT_NE(p.shading.reason.find("visibility measured 1.90x on this device (tune of 2026-11-25)"), std::string::npos)
        << p.shading.reason;
    EXPECT_EQ(p.shading.derivatives, Variant::fallback);
    EXPECT_NE(p.shading.reason.find("analytic derivatives everywhere: measured 0.95x"), std::string::npos) << p.shading.reason;
    set_measured(request, nullptr);
    EXPECT_FALSE(has_measured(request));
    EXPECT_EQ(make_plan(lavapipe_like_caps(), every_feature(), request).shading.shading, Shading::forward);
    // A shading verdict alone is a tuned request too.
    request.measured_shading = t.shading;
    EXPECT_TRUE(has_measured(request));
}

TEST(TuningFile, AFileThatDoesNotFitIsIgnoredWithWhy) {
    auto ignored = [](const std::string& text) {
        LoadedTuning t = parse_tuning(text, device(), {1920, 1080});
        EXPECT_EQ(t.count(), 0u);
        return t.ignored;
    };
    DeviceInfo other = device();
    other.name = "AMD Radeon RX 7900 XTX", other.vendor_id = 0x1002, other.device_id = 0x744c;
    EXPECT_NE(ignored(file_text(other)).find("another device (AMD Radeon RX 7900 XTX)"), std::string::npos);
    DeviceInfo same_name_other_id = device();
    same_name_other_id.device_id = 0x2331;
    EXPECT_NE(ignored(file_text(same_name_other_id)).find("another device"), std::string::npos);
    DeviceInfo new_driver = device();
    new_driver.driver = "NVIDIA 580.1";
    EXPECT_NE(ignored(file_text(new_driver)).find("another driver (NVIDIA 580.1)"), std::string::npos);
    nlohmann::json old = nlohmann::json::parse(file_text(device()));
    old["format"] = kTuningFormat - 1;
    EXPECT_NE(ignored(old.dump()).find("tuning format " + std::to_string(kTuningFormat - 1)), std::string::npos);
    EXPECT_NE(ignored("{ \"format\": 1, \"device\": ").find("corrupt"), std::string::npos);
    EXPECT_NE(ignored("[1, 2]").find("corrupt"), std::string::npos);
    EXPECT_NE(ignored("{}").find("no format version"), std::string::npos);
    nlohmann::json wrong_types = nlohmann::json::parse(file_text(device()));
    wrong_types["device"]["vendor_id"] = "nvidia";
    EXPECT_NE(ignored(wrong_types.dump()).find("not a valid tuning file"), std::string::npos);
    // Measured at 1920x1080 (up to 1920x1080): not at 3840x2160 or 320x180, and a file without its size is not used.
    LoadedTuning at_4k = parse_tuning(file_text(device()), device(), {3840, 2160});
    EXPECT_EQ(at_4k.count(), 0u);
    EXPECT_EQ(at_4k.ignored, "measured at 1920x1080 (up to 1920x1080), this run is 3840x2160 (above 1920x1080): another size class");
    EXPECT_NE(parse_tuning(file_text(device()), device(), {320, 180}).ignored.find("another size class"), std::string::npos);
    EXPECT_TRUE(parse_tuning(file_text(device()), device(), {1280, 720}).usable());
    nlohmann::json no_size = nlohmann::json::parse(file_text(device()));
    no_size.erase("size");
    EXPECT_NE(ignored(no_size.dump()).find("no size"), std::string::npos);
    // A pass entry of the wrong shape is skipped, not an error: the others still count.
    nlohmann::json odd_pass = nlohmann::json::parse(file_text(device()));
    odd_pass["passes"]["cull"] = "fast";
    odd_pass["passes"]["mip"]["ratio"] = -1;
    LoadedTuning t = parse_tuning(odd_pass.dump(), device(), {1920, 1080});
    EXPECT_TRUE(t.ignored.empty());
    EXPECT_EQ(t.count(), 0u);
}

// The build is part of the key: another build's file (or one without a build id) is re-measured.
TEST(TuningFile, AnotherBuildsFileIsIgnored) {
    nlohmann::json j = nlohmann::json::parse(file_text(device()));
    EXPECT_EQ(j["build"], current_build_id());
    EXPECT_EQ(current_build_id().size(), 16u);
    EXPECT_TRUE(parse_tuning(j.dump(), device(), {1920, 1080}).usable());
    LoadedTuning other = parse_tuning(j.dump(), device(), {1920, 1080}, "0123456789abcdef");
    EXPECT_FALSE(other.usable());
    EXPECT_NE(other.ignored.find("another build of subgroup-demo (" + current_build_id() + ")"), std::string::npos) << other.ignored;
    EXPECT_EQ(other.count(), 0u);
    j.erase("build");
    EXPECT_NE(parse_tuning(j.dump(), device(), {1920, 1080}).ignored.find("no build id"), std::string::npos);
    // The id follows the executable's bytes.
    std::string dir = (std::filesystem::temp_directory_path() / ("build-id." + std::to_string(getpid()))).string();
    std::filesystem::create_directories(dir + "/shaders");
    std::ofstream(dir + "/demo") << "one";
    std::string first = build_id(dir + "/demo");
    EXPECT_EQ(build_id(dir + "/demo"), first);
    std::ofstream(dir + "/demo") << "two";
    EXPECT_NE(build_id(dir + "/demo"), first);
    // And its shaders'.
    std::string second = build_id(dir + "/demo");
    std::ofstream(dir + "/shaders/a.spv") << "spirv";
    EXPECT_NE(build_id(dir + "/demo"), second);
    std::filesystem::remove_all(dir);
}

// Every verdict names where it was measured; the mip's under visibility comes from the shading
// rows (visibility.mip) and is the only mip verdict used there.
TEST(TuningFile, VerdictsNameTheirConfigurationAndApplyOnlyThere) {
    PassRatio vis_mip;
    vis_mip.ratio = 0.5, vis_mip.ci95 = Interval{0.4, 0.6}, vis_mip.verdict = Verdict::slower;  // the downsample wins under visibility
    PassRatios under_visibility;
    under_visibility[size_t(PassId::mip)] = vis_mip;
    nlohmann::json j = tuning_json(device(), "tune", "2026-11-25", {1920, 1080}, ratios(), shading_ratios(), under_visibility);
    EXPECT_EQ(j["passes"]["mip"]["measured_in"], (nlohmann::json{{"geometry", "indexed"}, {"shading", "forward"}}));
    EXPECT_EQ(j["visibility"]["mip"]["measured_in"], (nlohmann::json{{"geometry", "indexed"}, {"shading", "visibility"}}));
    EXPECT_EQ(j["visibility"]["shading"]["measured_in"]["geometry"], "indexed");
    LoadedTuning t = parse_tuning(j.dump(), device(), {1920, 1080});
    ASSERT_TRUE(t.measured_visibility[size_t(PassId::mip)]);
    EXPECT_EQ(t.measured_visibility[size_t(PassId::mip)]->in.shading, Shading::visibility);
    EXPECT_EQ(t.measured[size_t(PassId::mip)]->in.shading, Shading::forward);

    // Forward's mip verdict (fallback 0.14x) against visibility's (fallback 0.5x): each in its own plan.
    PlanRequest request = pass_verdicts_of(t);
    expect_pass(make_plan(every_subgroup_caps(), every_feature(), request), PassId::mip, Variant::fallback, "0.14x");
    request.shading = Shading::visibility;
    Plan visibility = make_plan(every_subgroup_caps(), every_feature(), request);
    expect_pass(visibility, PassId::mip, Variant::fallback, "0.50x");
    // Without a visibility verdict, forward's does not choose there: the capabilities do (the quad mip).
    request.measured_visibility = {};
    visibility = make_plan(every_subgroup_caps(), every_feature(), request);
    EXPECT_EQ(visibility[PassId::mip].variant, Variant::subgroup);
    EXPECT_EQ(visibility[PassId::mip].source, PlanSource::capabilities);
    EXPECT_TRUE(visibility.shading.quad_mip);
    // Forward's light-loop verdict does not choose the shading pass's loop either.
    request.measured[size_t(PassId::light_loop)] = measured(Variant::fallback, 0.5);
    EXPECT_EQ(make_plan(every_subgroup_caps(), every_feature(), request)[PassId::light_loop].source, PlanSource::capabilities);
    request.shading.reset();
    EXPECT_EQ(make_plan(every_subgroup_caps(), every_feature(), request)[PassId::light_loop].source, PlanSource::measured);
    // The shading verdict was measured on the indexed path: the meshlet path does not follow it.
    request.measured_shading = t.shading;
    EXPECT_EQ(make_plan(every_subgroup_caps(), every_feature(), request).shading.shading, Shading::visibility);
    request.geometry = Geometry::meshlet;
    EXPECT_EQ(make_plan(every_subgroup_caps(), every_feature(), request).shading.shading, Shading::forward);
}

// The compute rasterizer's path is a stored decision: a raster_path verdict of "slower" (the
// per-lane fallback faster) is written under visibility.raster_path, read back, and auto's compute
// rasterizer takes the fallback with the verdict as its reason; "faster" keeps subgroup, and a
// typed path or missing ballots win over either.
TEST(TuningFile, TheRasterPathIsStoredAndFollowed) {
    ShadingRatios visibility = shading_ratios();
    visibility[2].key = "raster", visibility[2].ratio = 1.6, visibility[2].ci95 = Interval{1.5, 1.7};
    visibility[2].verdict = Verdict::faster;  // the compute rasterizer's frame is faster
    visibility[3].key = "raster_path", visibility[3].ratio = 0.8, visibility[3].ci95 = Interval{0.75, 0.85};
    visibility[3].verdict = Verdict::slower;  // its fallback path is faster
    nlohmann::json j = tuning_json(device(), "quick", "2026-12-01", {1920, 1080}, ratios(), visibility);
    EXPECT_EQ(j["visibility"]["raster_path"]["verdict"], "slower");
    EXPECT_EQ(j["visibility"]["raster_path"]["measured_in"]["shading"], "visibility");
    LoadedTuning t = parse_tuning(j.dump(), device(), {1920, 1080});
    ASSERT_TRUE(t.raster_path);
    EXPECT_EQ(t.raster_path->winner, Variant::fallback);
    EXPECT_EQ(t.count(), 6u);  // cull, mip, shading, derivatives, raster, raster_path

    PlanRequest request;
    set_measured(request, &t);
    ASSERT_TRUE(request.measured_raster_path);
    Plan p = make_plan(lavapipe_like_caps(), every_feature(), request);
    EXPECT_EQ(p.shading.shading, Shading::visibility);
    EXPECT_EQ(p.raster.raster, Raster::compute);
    EXPECT_EQ(p.raster.variant, Variant::fallback);
    EXPECT_NE(p.raster.reason.find("fallback measured 0.80x on this device (quick of 2026-12-01)"), std::string::npos)
        << p.raster.reason;
    // Typed: the comparison's raster-compute row asks for the subgroup path and gets it.
    request.raster_variant = Request::subgroup;
    EXPECT_EQ(make_plan(lavapipe_like_caps(), every_feature(), request).raster.variant, Variant::subgroup);
    request.raster_variant = Request::automatic;
    // A "faster" verdict keeps the subgroup path and says so.
    request.measured_raster_path->winner = Variant::subgroup, request.measured_raster_path->ratio = 1.25;
    p = make_plan(lavapipe_like_caps(), every_feature(), request);
    EXPECT_EQ(p.raster.variant, Variant::subgroup);
    EXPECT_NE(p.raster.reason.find("subgroup measured 1.25x"), std::string::npos) << p.raster.reason;
    // Untuned: subgroup from the capabilities; the verdict alone is a tuned request.
    set_measured(request, nullptr);
    EXPECT_FALSE(has_measured(request));
    request.measured_raster_path = t.raster_path;
    EXPECT_TRUE(has_measured(request));
}

// The ray tracer's verdict holds under the shading it was measured under: forward's (passes.ray_trace,
// the fallback faster there) chooses only the forward plan, visibility's (visibility.ray_trace, the
// subgroup path faster) only the visibility plan, each read back from the file.
TEST(TuningFile, TheRayTracersVerdictIsKeptPerShading) {
    PassRatios forward = ratios();
    PassRatio& fr = forward[size_t(PassId::ray_trace)];
    fr.ratio = 0.92, fr.ci95 = Interval{0.9, 0.94}, fr.verdict = Verdict::slower, fr.reason.clear();
    PassRatios under_visibility;
    PassRatio& vr = under_visibility[size_t(PassId::ray_trace)];
    vr.ratio = 1.3, vr.ci95 = Interval{1.2, 1.4}, vr.verdict = Verdict::faster;
    nlohmann::json j = tuning_json(device(), "quick", "2026-12-01", {1920, 1080}, forward, shading_ratios(), under_visibility);
    EXPECT_EQ(j["visibility"]["ray_trace"]["measured_in"]["shading"], "visibility");
    EXPECT_EQ(j["passes"]["ray_trace"]["measured_in"]["shading"], "forward");
    LoadedTuning t = parse_tuning(j.dump(), device(), {1920, 1080});
    ASSERT_TRUE(t.measured_visibility[size_t(PassId::ray_trace)]);
    PlanRequest request = pass_verdicts_of(t);
    expect_pass(make_plan(every_subgroup_caps(), every_feature(), request), PassId::ray_trace, Variant::fallback, "0.92x");
    request.shading = Shading::visibility;
    Plan p = make_plan(every_subgroup_caps(), every_feature(), request);
    expect_pass(p, PassId::ray_trace, Variant::subgroup, "1.30x");
    EXPECT_EQ(p[PassId::ray_trace].source, PlanSource::measured);
    // Without a verdict measured under visibility, forward's does not choose there.
    request.measured_visibility[size_t(PassId::ray_trace)].reset();
    EXPECT_EQ(make_plan(every_subgroup_caps(), every_feature(), request)[PassId::ray_trace].source, PlanSource::capabilities);
    // And a verdict whose entry says it was measured under visibility does not choose under forward.
    request.shading = Shading::forward;
    request.measured[size_t(PassId::ray_trace)]->in.shading = Shading::visibility;
    EXPECT_EQ(make_plan(every_subgroup_caps(), every_feature(), request)[PassId::ray_trace].source, PlanSource::capabilities);
}

// Under visibility the shading pass writes the quad mip in compute: a masked fragment stage does
// not send the mip to the compute downsample.
TEST(TunedPlan, UnderVisibilityTheMipIsPlannedAgainstCompute) {
    SubgroupCaps caps = every_subgroup_caps();
    apply_masks(caps, bit(Stage::fragment), 0);
    PlanRequest request;
    request.shading = Shading::visibility;
    Plan p = make_plan(caps, every_feature(), request);
    EXPECT_EQ(p[PassId::mip].variant, Variant::subgroup) << p[PassId::mip].reason;
    EXPECT_TRUE(p.shading.quad_mip);
    request[PassId::mip] = Request::subgroup;  // typed, too
    EXPECT_TRUE(make_plan(caps, every_feature(), request).shading.quad_mip);
    // Forward still needs the fragment stage.
    request.shading = Shading::forward;
    EXPECT_THROW(make_plan(caps, every_feature(), request), UnsupportedRequest);
    request[PassId::mip] = Request::automatic;
    EXPECT_EQ(make_plan(caps, every_feature(), request)[PassId::mip].variant, Variant::fallback);
    // Compute without quads under visibility: the fragment resolve writes it, where it can.
    SubgroupCaps no_compute_quads = every_subgroup_caps();
    apply_masks(no_compute_quads, bit(Stage::compute), 0);
    request.shading = Shading::visibility;
    Plan q = make_plan(no_compute_quads, every_feature(), request);
    EXPECT_EQ(q[PassId::mip].variant, Variant::subgroup);
    EXPECT_FALSE(q.shading.quad_mip);
}

// A typed request constrains auto and never loses to a stored verdict: every pairing of a typed
// request (each pass's variants, --shading) with stored verdicts for the other side (each pass's,
// under forward and visibility, shading's and the derivatives') plans what the untuned plan plans
// for it, or what auto takes where it is auto, never an error the untuned plan does not make.
TEST(TunedPlan, ATypedRequestNeverLosesToAStoredVerdict) {
    int pairings = 0;
    for (Variant winner : {Variant::subgroup, Variant::fallback})
        for (const PassInfo& pass : kPasses)
            for (Request typed : {Request::subgroup, Request::forward, Request::fallback, Request::off})
                for (std::optional<Shading> shading : {std::optional<Shading>{}, std::optional<Shading>{Shading::forward},
                                                       std::optional<Shading>{Shading::visibility}}) {
                    if (!offers(pass, typed)) continue;
                    PlanRequest untuned;
                    untuned[pass.id] = typed;
                    untuned.shading = shading;
                    PlanRequest tuned = untuned;
                    for (const PassInfo& other : kPasses) {
                        tuned.measured[size_t(other.id)] = measured(winner, winner == Variant::subgroup ? 2.0 : 0.5);
                        tuned.measured_visibility[size_t(other.id)] = tuned.measured[size_t(other.id)];
                        tuned.measured_visibility[size_t(other.id)]->in.shading = Shading::visibility;
                    }
                    tuned.measured_shading = measured(winner, winner == Variant::subgroup ? 2.0 : 0.5);
                    tuned.measured_derivatives = tuned.measured_shading;
                    std::string what = std::string(pass.name) + " " + std::string(request_name(typed)) + ", shading " +
                                       (shading ? std::string(shading_name(*shading)) : "auto") + ", verdicts " +
                                       std::string(variant_name(winner));
                    Plan plain;
                    try {
                        plain = make_plan(lavapipe_like_caps(), every_feature(), untuned);
                    } catch (const UnsupportedRequest&) {
                        continue;  // refused without any verdict: the request itself cannot run here
                    }
                    ++pairings;
                    Plan p;
                    ASSERT_NO_THROW(p = make_plan(lavapipe_like_caps(), every_feature(), tuned)) << what;
                    EXPECT_EQ(p[pass.id].variant, plain[pass.id].variant) << what;
                    EXPECT_EQ(p[pass.id].source, PlanSource::requested) << what;
                    if (shading) EXPECT_EQ(p.shading.shading, *shading) << what;
                }
    EXPECT_GT(pairings, 40);
    // The case: a stored "visibility is faster" and --mip forward: auto shades forward and says why.
    PlanRequest request;
    request[PassId::mip] = Request::forward;
    request.measured_shading = measured(Variant::subgroup, 1.9);
    Plan p = make_plan(lavapipe_like_caps(), every_feature(), request);
    EXPECT_EQ(p.shading.shading, Shading::forward);
    EXPECT_EQ(p[PassId::mip].variant, Variant::forward);
    EXPECT_EQ(p.shading.source, PlanSource::requested);
    EXPECT_NE(p.shading.reason.find("--mip forward"), std::string::npos) << p.shading.reason;
    EXPECT_NE(p.shading.reason.find("not the stored verdict: visibility measured 1.90x"), std::string::npos) << p.shading.reason;
    // Both typed: still the user's own conflict, an error.
    request.shading = Shading::visibility;
    EXPECT_THROW(make_plan(lavapipe_like_caps(), every_feature(), request), UnsupportedRequest);
}

// The scene classes: triangles up to 1M, 16M, 256M ... and lights up to 256, 4K, 64K ..., each band
// holding its bound.
TEST(TuningFile, SceneClassesAreBandsOfTrianglesAndLights) {
    EXPECT_EQ(scene_class(0, 0), scene_class(1'048'576, 256));
    EXPECT_EQ(scene_class(1'048'576, 256).name(), "up to 1M triangles and 256 lights");
    EXPECT_EQ(scene_class(1'048'577, 257).name(), "up to 16M triangles and 4K lights");
    EXPECT_EQ(scene_class(16'777'216, 4096).tag(), "to16Mtri-to4Klights");
    EXPECT_EQ(scene_class(16'777'217, 4097).tag(), "to256Mtri-to64Klights");
    EXPECT_EQ(scene_class(UINT64_MAX, UINT32_MAX).max_triangles, 1ull << 60) << "the last band holds every count";
}

// A verdict measured on one scene is not applied to a scene of another class: its triangles or its
// lights in another band give the reason and no preferences; a scene in the same bands reads it.
TEST(TuningFile, AVerdictOfAnotherSceneClassIsIgnored) {
    nlohmann::json j = nlohmann::json::parse(
        tuning_json(device(), "quick", "2026-12-06", {1920, 1080, 300'068, 256}, ratios(), shading_ratios()).dump());
    EXPECT_EQ(j["scene"], (nlohmann::json{{"triangles", 300'068}, {"lights", 256}}));
    LoadedTuning same = parse_tuning(j.dump(), device(), {1280, 720, 4000, 16});
    EXPECT_TRUE(same.usable()) << same.ignored;
    EXPECT_GT(same.count(), 0u);
    EXPECT_EQ(same.measured_for.triangles, 300'068u);
    LoadedTuning more_triangles = parse_tuning(j.dump(), device(), {1920, 1080, 7'501'700, 256});
    EXPECT_EQ(more_triangles.count(), 0u);
    EXPECT_EQ(more_triangles.ignored, "measured on a scene of 300,068 triangles and 256 lights (up to 1M triangles and 256 lights), "
                                      "this one has 7,501,700 and 256 (up to 16M triangles and 256 lights): another scene class");
    LoadedTuning more_lights = parse_tuning(j.dump(), device(), {1920, 1080, 300'068, 4096});
    EXPECT_EQ(more_lights.count(), 0u);
    EXPECT_NE(more_lights.ignored.find("another scene class"), std::string::npos) << more_lights.ignored;
    j.erase("scene");
    EXPECT_NE(parse_tuning(j.dump(), device(), {1920, 1080}).ignored.find("no scene"), std::string::npos);
    // --info's line names both classes.
    EXPECT_NE(tuning_summary(same, false).find("applies to 1280x720, 4,000 triangles, 16 lights: the same size class, up to 1920x1080, "
                                               "and scene class, up to 1M triangles and 256 lights"),
              std::string::npos) << tuning_summary(same, false);
}

TEST(TuningFile, SavedByRenamingAWholeFile) {
    std::string saved_xdg = getenv("XDG_CACHE_HOME") ? getenv("XDG_CACHE_HOME") : "";
    std::string dir = (std::filesystem::temp_directory_path() / ("save-tuning." + std::to_string(getpid()))).string();
    std::filesystem::remove_all(dir);
    setenv("XDG_CACHE_HOME", dir.c_str(), 1);
    std::string path = save_tuning(device(), "quick", {320, 180}, ratios(), shading_ratios(), {}, {{"seconds", 1.5}});
    std::string second = save_tuning(device(), "tune", {320, 180}, ratios(), shading_ratios());
    EXPECT_EQ(path, second);
    size_t files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(tuning_folder())) files += entry.is_regular_file();
    EXPECT_EQ(files, 1u) << "no temporary file left";
    std::ifstream in(path);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    LoadedTuning t = parse_tuning(text, device(), {320, 180});
    EXPECT_TRUE(t.usable()) << t.ignored;
    EXPECT_EQ(t.made_by, "tune");
    std::filesystem::remove_all(dir);
    if (saved_xdg.empty()) unsetenv("XDG_CACHE_HOME");
    else setenv("XDG_CACHE_HOME", saved_xdg.c_str(), 1);
}

TEST(TuningFile, LivesInTheCacheFolderPerDeviceAndDriver) {
    std::string saved_xdg = getenv("XDG_CACHE_HOME") ? getenv("XDG_CACHE_HOME") : "";
    std::string saved_home = getenv("HOME") ? getenv("HOME") : "";
    setenv("XDG_CACHE_HOME", "/tmp/xdg", 1);
    EXPECT_EQ(tuning_folder(), "/tmp/xdg/subgroup-demo");
    EXPECT_EQ(tuning_path(device(), {1920, 1080}),
              "/tmp/xdg/subgroup-demo/tuning-10de-2330-NVIDIA-570.86.15-to1920x1080-to1Mtri-to256lights.json");
    EXPECT_EQ(tuning_path(device(), {3840, 2160, 7'501'700, 4096}),
              "/tmp/xdg/subgroup-demo/tuning-10de-2330-NVIDIA-570.86.15-above1920x1080-to16Mtri-to4Klights.json");
    DeviceInfo new_driver = device();
    new_driver.driver = "NVIDIA 580.1";
    EXPECT_NE(tuning_path(new_driver, {1920, 1080}), tuning_path(device(), {1920, 1080}));
    // One file per size class: 320x180 and 640x360 share one, 1280x720 and 1920x1080 another, 4K a third.
    EXPECT_EQ(tuning_path(device(), {320, 180}), tuning_path(device(), {640, 360}));
    EXPECT_EQ(tuning_path(device(), {1280, 720}), tuning_path(device(), {1920, 1080}));
    EXPECT_NE(tuning_path(device(), {320, 180}), tuning_path(device(), {1280, 720}));
    EXPECT_NE(tuning_path(device(), {1920, 1080}), tuning_path(device(), {3840, 2160}));
    EXPECT_NE(tuning_path(device(), {1920, 1080}), tuning_path(device(), {1921, 1080}));
    // And one per scene class: the bands of triangles and of lights, each a factor of 16 past the first.
    EXPECT_EQ(tuning_path(device(), {1920, 1080, 4000, 16}), tuning_path(device(), {1920, 1080, 300'068, 256}));
    EXPECT_NE(tuning_path(device(), {1920, 1080, 300'068, 256}), tuning_path(device(), {1920, 1080, 300'068, 257}));
    EXPECT_NE(tuning_path(device(), {1920, 1080, 1'048'576, 256}), tuning_path(device(), {1920, 1080, 1'048'577, 256}));
    unsetenv("XDG_CACHE_HOME");
    setenv("HOME", "/home/someone", 1);
    EXPECT_EQ(tuning_folder(), "/home/someone/.cache/subgroup-demo");
    if (!saved_xdg.empty()) setenv("XDG_CACHE_HOME", saved_xdg.c_str(), 1);
    setenv("HOME", saved_home.c_str(), 1);
}

}  // namespace
