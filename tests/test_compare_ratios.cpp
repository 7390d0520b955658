// The comparison matrix and its speed-up ratios, on synthetic runs (no GPU): which runs each
// ratio reads, how the in-forward quad mip is costed, and why a ratio is missing.
#include <gtest/gtest.h>

#include <set>

#include "app/compare.h"

namespace {

CompareRun timed(const std::string& name, std::initializer_list<std::pair<Pass, double>> medians) {
    CompareRun run;
    run.config.name = name;
    for (auto [pass, ms] : medians) {
        run.result.ran[size_t(pass)] = true;
        run.result.timings[size_t(pass)] = {ms, ms * 0.9, ms * 1.1};
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

const PassRatio& ratio(const std::array<PassRatio, 4>& ratios, const std::string& key) {
    for (const PassRatio& r : ratios)
        if (r.key == key) return r;
    throw std::runtime_error("no ratio " + key);
}

TEST(CompareMatrix, EachPassInEachVariantWithTheOthersAutoThenAllSubgroupAndAllFallback) {
    std::vector<CompareConfig> m = comparison_matrix();
    ASSERT_EQ(m.size(), 11u);
    std::set<std::string> names;
    for (const CompareConfig& c : m) names.insert(c.name);
    EXPECT_EQ(names.size(), m.size()) << "names are file names: they must be unique";
    int single = 0;
    for (const CompareConfig& c : m) {
        int explicit_requests = (c.cull != Request::automatic) + (c.light_cull != Request::automatic) + (c.mip != Request::automatic);
        if (explicit_requests == 1) {
            ++single;
            const char* pass = c.cull != Request::automatic ? "cull" : c.light_cull != Request::automatic ? "light-cull" : "mip";
            Request r = c.cull != Request::automatic ? c.cull : c.light_cull != Request::automatic ? c.light_cull : c.mip;
            EXPECT_EQ(c.name, std::string(pass) + "-" + std::string(request_name(r)));
        } else {
            ASSERT_EQ(explicit_requests, 3) << c.name;
            EXPECT_TRUE(c.cull == c.light_cull && c.light_cull == c.mip) << c.name;
            EXPECT_EQ(c.name, "all-" + std::string(request_name(c.cull)));
            EXPECT_NE(c.cull, Request::off);
        }
    }
    EXPECT_EQ(single, 9);
    EXPECT_TRUE(names.count("all-subgroup") && names.count("all-fallback"));
}

TEST(CompareRatios, FallbackMedianOverSubgroupMedianOfThePass) {
    std::vector<CompareRun> runs = {
        timed("cull-subgroup", {{Pass::cull, 0.5}, {Pass::frame, 9}}),
        timed("cull-fallback", {{Pass::cull, 1.5}, {Pass::frame, 10}}),
        timed("light-cull-subgroup", {{Pass::light_cull, 0.25}}),
        timed("light-cull-fallback", {{Pass::light_cull, 0.75}}),
        timed("mip-subgroup", {{Pass::forward, 3.1}}),  // quad mip inside forward: no mip pass
        timed("mip-fallback", {{Pass::forward, 3.0}, {Pass::mip, 0.4}}),
        timed("mip-off", {{Pass::forward, 3.0}}),
        timed("all-subgroup", {{Pass::frame, 8}}),
        timed("all-fallback", {{Pass::frame, 12}}),
    };
    auto ratios = compute_ratios(runs);
    EXPECT_DOUBLE_EQ(*ratio(ratios, "cull").ratio, 3.0);
    EXPECT_DOUBLE_EQ(ratio(ratios, "cull").fallback_ms, 1.5);
    EXPECT_DOUBLE_EQ(*ratio(ratios, "light_cull").ratio, 3.0);
    // The quad mip costs what it adds to forward over mip-off (0.1 ms); the fallback costs its pass.
    ASSERT_TRUE(ratio(ratios, "mip").ratio);
    EXPECT_NEAR(*ratio(ratios, "mip").ratio, 0.4 / 0.1, 1e-9);
    EXPECT_NEAR(ratio(ratios, "mip").subgroup_ms, 0.1, 1e-12);
    EXPECT_DOUBLE_EQ(*ratio(ratios, "frame").ratio, 1.5);
    for (const PassRatio& r : ratios) EXPECT_TRUE(r.reason.empty()) << r.key << ": " << r.reason;
}

TEST(CompareRatios, AMipPassTimedInTheSubgroupRunIsUsedDirectly) {
    std::vector<CompareRun> runs = {
        timed("mip-subgroup", {{Pass::forward, 5.0}, {Pass::mip, 0.05}}),
        timed("mip-fallback", {{Pass::forward, 3.0}, {Pass::mip, 0.4}}),
        timed("mip-off", {{Pass::forward, 3.0}}),
    };
    EXPECT_NEAR(*ratio(compute_ratios(runs), "mip").ratio, 8.0, 1e-9);
}

TEST(CompareRatios, MissingMeasurementsGiveNullWithTheReason) {
    std::vector<CompareRun> runs = {
        skipped("cull-subgroup", "--cull subgroup: compute stage lacks ballot"),
        timed("cull-fallback", {{Pass::cull, 1.0}}),
        timed("light-cull-subgroup", {{Pass::forward, 1.0}}),  // the pass did not run (not built)
        timed("light-cull-fallback", {{Pass::light_cull, 0.75}}),
        timed("mip-subgroup", {{Pass::forward, 2.9}}),  // faster than mip-off: noise
        timed("mip-fallback", {{Pass::mip, 0.4}}),
        timed("mip-off", {{Pass::forward, 3.0}}),
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
    EXPECT_NEAR(ratio(ratios, "mip").subgroup_ms, -0.1, 1e-12);
    EXPECT_FALSE(ratio(ratios, "cull").measured);
    EXPECT_NE(ratio(ratios, "frame").reason.find("not in this comparison"), std::string::npos) << ratio(ratios, "frame").reason;
}

}  // namespace
