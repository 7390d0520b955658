// The comparison matrix and its speed-up ratios, on synthetic runs (no GPU): which runs each
// ratio reads, how the in-forward quad mip is costed, and why a ratio is missing.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "compare/compare.h"

namespace {

CompareRun timed(const std::string& name, std::initializer_list<std::pair<Timer, double>> medians) {
    CompareRun run;
    run.config.name = name;
    for (auto [pass, ms] : medians) {
        run.result.ran[size_t(pass)] = true;
        run.result.timings[size_t(pass)] = {ms, ms * 0.9, ms * 1.1};
    }
    return run;
}

// A run whose timers took `frames[t][r]` in round r (one frame a round); the medians follow.
CompareRun in_rounds(const std::string& name, std::initializer_list<std::pair<Timer, std::vector<double>>> frames) {
    CompareRun run;
    run.config.name = name;
    for (const auto& [pass, per_round] : frames) {
        run.result.ran[size_t(pass)] = true;
        for (double ms : per_round) run.result.rounds[size_t(pass)].push_back({ms});
        std::vector<double> sorted = per_round;
        std::sort(sorted.begin(), sorted.end());
        run.result.timings[size_t(pass)] = {median_of(per_round), sorted.front(), sorted.back()};
    }
    return run;
}

CompareRun skipped(const std::string& name, const std::string& reason) {
    CompareRun run;
    run.config.name = name;
    run.skipped = true;
    run.skip_reason = reason;
    return run;
}

// A row with a ratio, `ratio`, measured between the runs and sides it names.
void expect_measured(const PassRatio& row, const std::string& key, double ratio, const std::string& fallback_run,
                     const std::string& subgroup_run, const std::string& fallback_side, const std::string& subgroup_side) {
    EXPECT_EQ(row.key, key);
    ASSERT_TRUE(row.ratio) << row.reason;
    EXPECT_DOUBLE_EQ(*row.ratio, ratio);
    EXPECT_EQ(row.fallback_run, fallback_run);
    EXPECT_EQ(row.subgroup_run, subgroup_run);
    EXPECT_EQ(row.fallback_side, fallback_side);
    EXPECT_EQ(row.subgroup_side, subgroup_side);
}

const PassRatio& ratio(const PassRatios& ratios, const std::string& key) {
    for (const PassRatio& r : ratios)
        if (r.key == key) return r;
    throw std::runtime_error("no ratio " + key);
}

TEST(CompareMatrix, EachPassInEachVariantWithTheOthersAutoThenAllSubgroupAndAllFallback) {
    std::vector<CompareConfig> m = comparison_matrix();
    // Every variant each pass of the table offers, once, the meshlet path's three, the shading
    // rows' four (forward, visibility with quad-swap and analytic derivatives, visibility with
    // nonuniformEXT materials), the rasterizer's three (hardware, compute, compute's fallback), then
    // the two all-* rows.
    size_t offered = 0;
    for (const PassInfo& pass : kPasses)
        for (Request r : {Request::subgroup, Request::forward, Request::fallback, Request::off}) offered += offers(pass, r);
    ASSERT_EQ(m.size(), offered + 3 + 4 + 3 + 2);
    std::set<std::string> names;
    for (const CompareConfig& c : m) names.insert(c.name);
    EXPECT_EQ(names.size(), m.size()) << "names are file names: they must be unique";
    // The contract's passes, each in subgroup, fallback and off.
    for (const char* pass : {"cull", "light-cull", "mip"})
        for (const char* v : {"-subgroup", "-fallback", "-off"}) EXPECT_TRUE(names.count(std::string(pass) + v)) << pass << v;
    // The mip's shading-time variant, and the exposure pass.
    EXPECT_TRUE(names.count("mip-forward"));
    EXPECT_FALSE(names.count("cull-forward"));
    for (const char* v : {"-subgroup", "-fallback", "-off"}) EXPECT_TRUE(names.count(std::string("exposure") + v)) << v;
    // The light loop offers no off.
    EXPECT_TRUE(names.count("light-loop-subgroup") && names.count("light-loop-fallback"));
    EXPECT_FALSE(names.count("light-loop-off"));
    size_t single = 0, meshlet = 0, shading = 0, raster = 0;
    for (const CompareConfig& c : m) {
        if (c.shading) {
            // --shading with every pass at auto; visibility's derivatives forced each way; the
            // rasterizer's rows shade with visibility too (--raster hardware, compute, its fallback).
            ++(c.name.rfind("raster-", 0) == 0 ? raster : shading);
            for (const PassInfo& pass : kPasses) EXPECT_EQ(c[pass.id], Request::automatic) << c.name;
            EXPECT_EQ(c.geometry, Geometry::indexed) << c.name;
            PlanRequest request = plan_request(c, false);
            EXPECT_EQ(request.shading, c.shading) << c.name;
            EXPECT_EQ(request.derivatives, c.derivatives) << c.name;
            EXPECT_EQ(request.materials, c.materials) << c.name;
            EXPECT_FALSE(request.lod);
            continue;
        }
        EXPECT_FALSE(c.shading) << c.name << ": the other rows shade as auto does";
        EXPECT_EQ(c.derivatives, Request::automatic) << c.name;
        if (c.geometry == Geometry::meshlet) {
            // --geometry meshlet with only --cull given: its culling in that variant.
            ++meshlet;
            EXPECT_EQ(c.name, "meshlet-" + std::string(request_name(c[PassId::cull])));
            for (const PassInfo& pass : kPasses)
                if (pass.id != PassId::cull) EXPECT_EQ(c[pass.id], Request::automatic) << c.name;
            continue;
        }
        size_t explicit_requests = 0;
        for (Request r : c.requests) explicit_requests += r != Request::automatic;
        if (explicit_requests == 1) {
            ++single;
            for (const PassInfo& pass : kPasses)
                if (c[pass.id] != Request::automatic)
                    EXPECT_EQ(c.name, std::string(pass.name) + "-" + std::string(request_name(c[pass.id])));
        } else {
            // The all-* rows set every pass the table puts in them; the others stay at auto.
            size_t in_rows = 0;
            for (const PassInfo& pass : kPasses) {
                in_rows += pass.in_all_rows;
                if (!pass.in_all_rows) EXPECT_EQ(c[pass.id], Request::automatic) << c.name << " " << pass.name;
            }
            ASSERT_EQ(explicit_requests, in_rows) << c.name;
            Request all = c[kPasses.front().id];
            for (const PassInfo& pass : kPasses)
                if (pass.in_all_rows) EXPECT_EQ(c[pass.id], all) << c.name;
            EXPECT_EQ(c.name, "all-" + std::string(request_name(all)));
            EXPECT_NE(all, Request::off);
        }
    }
    EXPECT_EQ(single, offered);
    EXPECT_EQ(meshlet, 3u);
    EXPECT_EQ(shading, 4u);
    EXPECT_EQ(raster, 3u);
    auto row = [&](const std::string& name) {
        auto it = std::find_if(m.begin(), m.end(), [&](const CompareConfig& c) { return c.name == name; });
        EXPECT_NE(it, m.end()) << name;
        return it == m.end() ? CompareConfig{} : *it;
    };
    EXPECT_EQ(row("shading-forward").shading, Shading::forward);
    EXPECT_EQ(row("shading-forward").derivatives, Request::automatic);
    EXPECT_EQ(row("shading-visibility").shading, Shading::visibility);
    EXPECT_EQ(row("shading-visibility").derivatives, Request::subgroup);
    EXPECT_EQ(row("shading-visibility-fallback").shading, Shading::visibility);
    EXPECT_EQ(row("shading-visibility-fallback").derivatives, Request::fallback);
    // The material pair: nonuniformEXT against the waterfall auto takes in shading-visibility; and
    // the all-* rows set the materials too (under visibility: the waterfall, or nonuniformEXT).
    EXPECT_EQ(row("shading-visibility").materials, Request::automatic);
    EXPECT_EQ(row("shading-visibility-materials-fallback").shading, Shading::visibility);
    EXPECT_EQ(row("shading-visibility-materials-fallback").derivatives, Request::automatic);
    EXPECT_EQ(row("shading-visibility-materials-fallback").materials, Request::fallback);
    EXPECT_EQ(plan_request(row("shading-visibility-materials-fallback"), false).materials, Request::fallback);
    EXPECT_EQ(row("all-subgroup").materials, Request::subgroup);
    EXPECT_EQ(row("all-fallback").materials, Request::fallback);
    EXPECT_EQ(plan_request(row("all-fallback"), false).materials, Request::fallback);
    // all-fallback stays last (the run-to-run repeat and the progress lines count on it).
    EXPECT_EQ(m.back().name, "all-fallback");
    EXPECT_TRUE(names.count("meshlet-subgroup") && names.count("meshlet-fallback") && names.count("meshlet-off"));
    EXPECT_TRUE(names.count("all-subgroup") && names.count("all-fallback"));
}

TEST(CompareRatios, MeshletCullAndGeometryRatios) {
    std::vector<CompareRun> runs = {
        timed("cull-subgroup", {{Timer::cull, 0.5}, {Timer::depth, 1}, {Timer::frame, 9}}),
        timed("meshlet-subgroup", {{Timer::depth, 2}, {Timer::frame, 6}}),
        timed("meshlet-fallback", {{Timer::depth, 3}, {Timer::frame, 7}}),
    };
    std::array<PassRatio, 2> r = compute_meshlet_ratios(runs);
    EXPECT_EQ(r[0].key, "meshlet_cull");
    ASSERT_TRUE(r[0].ratio.has_value()) << r[0].reason;
    EXPECT_DOUBLE_EQ(*r[0].ratio, 1.5);  // depth: 3 / 2
    EXPECT_EQ(r[1].key, "geometry");
    ASSERT_TRUE(r[1].ratio.has_value()) << r[1].reason;
    EXPECT_DOUBLE_EQ(*r[1].ratio, 1.5);  // frame: indexed 9 / meshlet 6
    // Without mesh shaders the meshlet runs are skipped: no ratios, with the reason.
    runs[1].skipped = runs[2].skipped = true;
    runs[1].skip_reason = runs[2].skip_reason = "--geometry meshlet: device lacks VK_EXT_mesh_shader";
    r = compute_meshlet_ratios(runs);
    EXPECT_FALSE(r[0].ratio.has_value());
    EXPECT_NE(r[1].reason.find("VK_EXT_mesh_shader"), std::string::npos) << r[1].reason;
}

// shading: forward's frame over visibility's (the quad-swap row, or the analytic row where the
// quad-swap row was skipped: what auto runs on that device); derivatives: the visibility shade
// pass in the analytic row over the same in the quad-swap row.
TEST(CompareRatios, ShadingAndDerivativesRatios) {
    std::vector<CompareRun> runs = {
        timed("shading-forward", {{Timer::forward, 4.0}, {Timer::frame, 9.0}}),
        timed("shading-visibility", {{Timer::shade, 0.5}, {Timer::frame, 6.0}}),
        timed("shading-visibility-fallback", {{Timer::shade, 0.6}, {Timer::frame, 6.5}}),
        timed("all-subgroup", {{Timer::frame, 7.0}}),
    };
    ShadingRatios r = compute_shading_ratios(runs);
    expect_measured(r[0], "shading", 9.0 / 6.0, "shading-forward", "shading-visibility", "forward", "visibility");
    EXPECT_TRUE(r[0].graphics_vs_compute) << "fragment shading against compute shading: the probe belongs beside it";
    EXPECT_EQ(r[1].key, "derivatives");
    ASSERT_TRUE(r[1].ratio) << r[1].reason;
    EXPECT_DOUBLE_EQ(*r[1].ratio, 0.6 / 0.5);
    EXPECT_DOUBLE_EQ(r[1].subgroup_ms, 0.5);
    EXPECT_FALSE(r[1].graphics_vs_compute);
    EXPECT_NE(r[1].measured_as.find("visibility shade pass median"), std::string::npos) << r[1].measured_as;

    // Without compute quads the quad-swap row is skipped: shading is measured on the analytic row,
    // derivatives has no ratio and says why.
    runs[1] = skipped("shading-visibility", "visibility's quad-swap derivatives: quad subgroup operations are not supported");
    r = compute_shading_ratios(runs);
    ASSERT_TRUE(r[0].ratio) << r[0].reason;
    EXPECT_DOUBLE_EQ(*r[0].ratio, 9.0 / 6.5);
    EXPECT_EQ(r[0].subgroup_run, "shading-visibility-fallback");
    EXPECT_FALSE(r[1].ratio);
    EXPECT_NE(r[1].reason.find("shading-visibility was skipped: visibility's quad-swap derivatives"), std::string::npos)
        << r[1].reason;

    // Without the visibility path (no geometryShader) both visibility rows are skipped.
    runs[2] = skipped("shading-visibility-fallback", "--shading visibility: device lacks the geometryShader feature");
    runs[1].skip_reason = runs[2].skip_reason;
    r = compute_shading_ratios(runs);
    EXPECT_FALSE(r[0].ratio || r[1].ratio);
    EXPECT_NE(r[0].reason.find("geometryShader"), std::string::npos) << r[0].reason;
    EXPECT_NE(r[1].reason.find("geometryShader"), std::string::npos) << r[1].reason;
    // A visibility row whose shading pass did not run (a forward frame) gives no derivatives ratio.
    runs[1] = timed("shading-visibility", {{Timer::forward, 4.0}, {Timer::frame, 9.0}});
    runs[2] = timed("shading-visibility-fallback", {{Timer::shade, 0.6}, {Timer::frame, 6.5}});
    r = compute_shading_ratios(runs);
    EXPECT_NE(r[1].reason.find("the shade pass recorded no GPU time in shading-visibility"), std::string::npos) << r[1].reason;
}

TEST(CompareRatios, FallbackMedianOverSubgroupMedianOfThePass) {
    std::vector<CompareRun> runs = {
        timed("cull-subgroup", {{Timer::cull, 0.5}, {Timer::frame, 9}}),
        timed("cull-fallback", {{Timer::cull, 1.5}, {Timer::frame, 10}}),
        timed("light-cull-subgroup", {{Timer::light_cull, 0.25}}),
        timed("light-cull-fallback", {{Timer::light_cull, 0.75}}),
        // quad mip inside the resolve pass: no mip pass
        timed("mip-subgroup", {{Timer::resolve, 0.62}}),
        timed("mip-fallback", {{Timer::resolve, 0.5}, {Timer::mip, 0.4}}),
        timed("mip-off", {{Timer::resolve, 0.5}}),
        timed("light-loop-subgroup", {{Timer::forward, 2.0}, {Timer::light_cull, 0.3}}),
        timed("light-loop-fallback", {{Timer::forward, 2.5}, {Timer::light_cull, 0.25}}),
        timed("all-subgroup", {{Timer::frame, 8}}),
        timed("all-fallback", {{Timer::frame, 12}}),
    };
    auto ratios = compute_ratios(runs);
    // The light loop has no off variant and no timer of its own: forward in its fallback run over
    // forward in its subgroup run.
    ASSERT_TRUE(ratio(ratios, "light_loop").ratio) << ratio(ratios, "light_loop").reason;
    EXPECT_DOUBLE_EQ(*ratio(ratios, "light_loop").ratio, 2.5 / 2.0);
    EXPECT_NE(ratio(ratios, "light_loop").measured_as.find("forward pass median"), std::string::npos);
    EXPECT_DOUBLE_EQ(*ratio(ratios, "cull").ratio, 3.0);
    EXPECT_DOUBLE_EQ(ratio(ratios, "cull").fallback_ms, 1.5);
    EXPECT_DOUBLE_EQ(*ratio(ratios, "light_cull").ratio, 3.0);
    // The quad mip costs what it adds to the resolve pass over mip-off (0.12 ms); the fallback
    // costs its pass.
    ASSERT_TRUE(ratio(ratios, "mip").ratio);
    EXPECT_NEAR(*ratio(ratios, "mip").ratio, 0.4 / 0.12, 1e-9);
    EXPECT_NEAR(ratio(ratios, "mip").subgroup_ms, 0.12, 1e-9);
    EXPECT_NE(ratio(ratios, "mip").measured_as.find("resolve pass median in mip-subgroup"), std::string::npos)
        << ratio(ratios, "mip").measured_as;
    EXPECT_DOUBLE_EQ(*ratio(ratios, "frame").ratio, 1.5);
    for (const char* key : {"cull", "light_cull", "mip", "frame"})
        EXPECT_TRUE(ratio(ratios, key).reason.empty()) << key << ": " << ratio(ratios, key).reason;
}

TEST(CompareRatios, AMipPassTimedInTheSubgroupRunIsUsedDirectly) {
    std::vector<CompareRun> runs = {
        timed("mip-subgroup", {{Timer::forward, 5.0}, {Timer::mip, 0.05}}),
        timed("mip-fallback", {{Timer::forward, 3.0}, {Timer::mip, 0.4}}),
        timed("mip-off", {{Timer::forward, 3.0}}),
    };
    EXPECT_NEAR(*ratio(compute_ratios(runs), "mip").ratio, 8.0, 1e-9);
}

TEST(CompareRatios, MissingMeasurementsGiveNullWithTheReason) {
    std::vector<CompareRun> runs = {
        skipped("cull-subgroup", "--cull subgroup: compute stage lacks ballot"),
        timed("cull-fallback", {{Timer::cull, 1.0}}),
        timed("light-cull-subgroup", {{Timer::forward, 1.0}}),  // the pass did not run (not built)
        timed("light-cull-fallback", {{Timer::light_cull, 0.75}}),
        timed("mip-subgroup", {{Timer::resolve, 0.45}}),  // faster than mip-off: noise
        timed("mip-fallback", {{Timer::mip, 0.4}}),
        timed("mip-off", {{Timer::resolve, 0.5}}),
        skipped("light-loop-subgroup", "--light-loop subgroup: fragment stage lacks arithmetic"),
        timed("light-loop-fallback", {{Timer::forward, 2.0}}),
        // all-subgroup and all-fallback are absent
    };
    auto ratios = compute_ratios(runs);
    for (const PassRatio& r : ratios) EXPECT_FALSE(r.ratio) << r.key;
    EXPECT_NE(ratio(ratios, "cull").reason.find("cull-subgroup was skipped: --cull subgroup: compute stage lacks ballot"),
              std::string::npos)
        << ratio(ratios, "cull").reason;
    EXPECT_NE(ratio(ratios, "light_cull").reason.find("no GPU time in light-cull-subgroup"), std::string::npos)
        << ratio(ratios, "light_cull").reason;
    EXPECT_NE(ratio(ratios, "mip").reason.find("not above the run-to-run noise"), std::string::npos)
        << ratio(ratios, "mip").reason;
    EXPECT_TRUE(ratio(ratios, "mip").measured);
    EXPECT_NEAR(ratio(ratios, "mip").subgroup_ms, -0.05, 1e-9);
    EXPECT_FALSE(ratio(ratios, "cull").measured);
    EXPECT_NE(ratio(ratios, "light_loop").reason.find("light-loop-subgroup was skipped"), std::string::npos)
        << ratio(ratios, "light_loop").reason;
    EXPECT_NE(ratio(ratios, "frame").reason.find("not in this comparison"), std::string::npos) << ratio(ratios, "frame").reason;
}

// The quad mip's cost is measured in the resolve pass: a subgroup run without that timing gives no ratio.
TEST(CompareRatios, QuadMipWithoutItsResolveTimingHasNoRatio) {
    std::vector<CompareRun> runs = {
        timed("mip-subgroup", {{Timer::forward, 3.1}}),
        timed("mip-fallback", {{Timer::resolve, 0.5}, {Timer::mip, 0.4}}),
        timed("mip-off", {{Timer::resolve, 0.5}}),
    };
    PassRatio r = ratio(compute_ratios(runs), "mip");
    EXPECT_FALSE(r.ratio);
    EXPECT_NE(r.reason.find("the resolve pass recorded no GPU time in mip-subgroup"), std::string::npos) << r.reason;
}

// The interval is a bootstrap over the rounds of both sides together, and the word follows from it:
// a cull twice as fast in every round (with drift shared by the round) is faster; a light cull
// whose sides swap places from round to round is level; the quad mip's interval is of its hosted
// cost (resolve in mip-subgroup less resolve in mip-off, round by round).
TEST(CompareRatios, IntervalsComeFromTheRoundsAndTheWordFromTheInterval) {
    std::vector<double> drift = {1.0, 1.3, 0.9, 1.2, 1.1, 1.0, 1.4, 0.95};
    std::vector<double> fallback, subgroup, a, b, host, off;
    for (size_t r = 0; r < drift.size(); ++r) {
        fallback.push_back(2.0 * drift[r]);
        subgroup.push_back(drift[r] * (r % 2 ? 1.02 : 0.98));
        a.push_back(r % 2 ? 1.0 : 1.1);
        b.push_back(r % 2 ? 1.1 : 1.0);
        off.push_back(0.5);
        host.push_back(0.6 + 0.001 * double(r));  // the quad mip adds 0.1 ms, against a 0.4 ms fallback
    }
    std::vector<CompareRun> runs = {
        in_rounds("cull-subgroup", {{Timer::cull, subgroup}}),
        in_rounds("cull-fallback", {{Timer::cull, fallback}}),
        in_rounds("light-cull-subgroup", {{Timer::light_cull, a}}),
        in_rounds("light-cull-fallback", {{Timer::light_cull, b}}),
        in_rounds("mip-subgroup", {{Timer::resolve, host}}),
        in_rounds("mip-fallback", {{Timer::mip, std::vector<double>(drift.size(), 0.4)}}),
        in_rounds("mip-off", {{Timer::resolve, off}}),
    };
    PassRatios ratios = compute_ratios(runs);
    const PassRatio& cull = ratio(ratios, "cull");
    ASSERT_TRUE(cull.ratio && cull.ci95);
    EXPECT_NEAR(*cull.ratio, 2.0 * median_of(drift) / median_of(subgroup), 1e-12);
    EXPECT_GT(cull.ci95->lo, 1.5);
    EXPECT_LE(cull.ci95->lo, *cull.ratio);
    EXPECT_GE(cull.ci95->hi, *cull.ratio);
    EXPECT_EQ(cull.verdict, Verdict::faster);
    const PassRatio& light = ratio(ratios, "light_cull");
    ASSERT_TRUE(light.ratio && light.ci95);
    EXPECT_LT(light.ci95->lo, 1.0);
    EXPECT_GT(light.ci95->hi, 1.0);
    EXPECT_EQ(light.verdict, Verdict::level);
    const PassRatio& mip = ratio(ratios, "mip");
    ASSERT_TRUE(mip.ratio && mip.ci95) << mip.reason;
    EXPECT_NEAR(*mip.ratio, 0.4 / (median_of(host) - 0.5), 1e-9);
    EXPECT_GT(mip.ci95->lo, 3.5);  // the hosted cost is 0.100 to 0.107 ms in every round
    EXPECT_LT(mip.ci95->hi, 4.01);
    EXPECT_EQ(mip.verdict, Verdict::faster);
    EXPECT_TRUE(mip.graphics_vs_compute);
    EXPECT_FALSE(cull.graphics_vs_compute);
    // One round: a ratio, no interval, and level (the noise is unknown).
    std::vector<CompareRun> one = {in_rounds("cull-subgroup", {{Timer::cull, {1.0}}}),
                                   in_rounds("cull-fallback", {{Timer::cull, {3.0}}})};
    PassRatios single_ratios = compute_ratios(one);  // kept alive: ratio() returns a reference into it
    const PassRatio& single = ratio(single_ratios, "cull");
    ASSERT_TRUE(single.ratio);
    EXPECT_FALSE(single.ci95);
    EXPECT_EQ(single.verdict, Verdict::level);
}

// The comparison's adaptive rule: the cull pair, 2x apart every round, is decided and stops; the
// light-cull pair, alternating 10% either way, holds 1 and reaches past the 2% floor, so both its
// rows go on; the quad mip's cost is its host's time less mip-off's, so while the mip is
// undecided its off row goes on too; rows no ratio reads stop.
TEST(CompareRatios, AdaptiveRoundsGoOnOnlyForTheRowsOfUndecidedRatios) {
    std::vector<double> a = {1.0, 1.0, 1.0, 1.0, 1.0, 1.0}, b = {2.0, 2.0, 2.0, 2.0, 2.0, 2.0};
    std::vector<double> wobble = {0.9, 1.1, 0.9, 1.1, 0.9, 1.1}, wobble2 = {1.1, 0.9, 1.1, 0.9, 1.1, 0.9};
    std::vector<CompareRun> runs = {
        in_rounds("cull-subgroup", {{Timer::cull, a}}),
        in_rounds("cull-fallback", {{Timer::cull, b}}),
        in_rounds("light-cull-subgroup", {{Timer::light_cull, wobble}}),
        in_rounds("light-cull-fallback", {{Timer::light_cull, wobble2}}),
        in_rounds("mip-subgroup", {{Timer::resolve, {1.5, 1.7, 1.5, 1.7, 1.5, 1.7}}}),
        in_rounds("mip-fallback", {{Timer::mip, {0.6, 0.4, 0.6, 0.4, 0.6, 0.4}}}),
        in_rounds("mip-off", {{Timer::resolve, {1.0, 1.0, 1.0, 1.0, 1.0, 1.0}}}),
        in_rounds("exposure-off", {{Timer::frame, a}}),
    };
    std::vector<bool> keep = rounds_needed(runs);
    EXPECT_EQ(keep, (std::vector<bool>{false, false, true, true, true, true, true, false}));
    // A floor as wide as the wobble decides the light cull (level within it).
    keep = rounds_needed(runs, 0.25);
    EXPECT_FALSE(keep[2] || keep[3]);
}

}  // namespace

// The materials pair: the visibility shade pass with nonuniformEXT materials over the same with the
// waterfall that auto runs in shading-visibility; where that row ran no waterfall (compute without
// ballot, or no descriptor indexing), no ratio and the plan's reason.
TEST(CompareRatios, MaterialsRatioIsNonuniformOverTheWaterfallsShadePass) {
    std::vector<CompareRun> runs = {
        timed("shading-visibility", {{Timer::shade, 0.5}, {Timer::frame, 6.0}}),
        timed("shading-visibility-materials-fallback", {{Timer::shade, 0.65}, {Timer::frame, 6.2}}),
    };
    runs[0].plan.shading.materials = Variant::subgroup;
    ShadingRatios r = compute_shading_ratios(runs);
    expect_measured(r[4], "materials", 0.65 / 0.5, "shading-visibility-materials-fallback", "shading-visibility", "nonuniform",
                    "waterfall");
    runs[0].plan.shading.materials = Variant::fallback;
    runs[0].plan.shading.reason = "materials indexed nonuniformEXT (no waterfall): ballot masked";
    r = compute_shading_ratios(runs);
    EXPECT_FALSE(r[4].ratio);
    EXPECT_FALSE(r[4].measured);
    EXPECT_NE(r[4].reason.find("shading-visibility ran no waterfall: materials indexed nonuniformEXT"), std::string::npos) << r[4].reason;
    // The pair's frames are compared in the difference panel.
    std::vector<DifferencePair> pairs = difference_pairs();
    EXPECT_TRUE(std::any_of(pairs.begin(), pairs.end(), [](const DifferencePair& p) {
        return p.subgroup_run == "shading-visibility" && p.fallback_run == "shading-visibility-materials-fallback";
    }));
}
