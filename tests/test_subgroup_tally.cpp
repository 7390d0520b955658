// Per-stage figures from the sizes that ran (passes/subgroup_tally.h), on synthetic counts of
// subgroups of mixed sizes: a stage whose subgroups ran at 32 and at 64 lanes, as a GPU that runs
// ray-tracing stages at any size between its minimum and maximum may produce. The expected values
// are worked out by hand from the subgroups below, not from the code under test.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "run/options.h"
#include "passes/debug_view_pass.h"
#include "passes/pass_table.h"
#include "passes/ray_trace_pass.h"
#include "passes/subgroup_tally.h"

namespace {

// Three subgroups of 32 lanes with 32, 16 and 8 active, one of 64 lanes with 40 active: 96 of the
// 3 * 32 + 64 = 160 lanes that ran are active, an occupancy of 0.6. Dividing by the device-wide size
// instead would give 96 / (4 * 64) = 0.375 at a reported 64, or 96 / (4 * 32) = 0.75 at 32.
SubgroupTally mixed_32_and_64() { return {4, 32 + 16 + 8 + 40, 3 * 32 + 64, 32 | 64}; }

TEST(SubgroupTally, OccupancyDividesByTheSizesThatRan) {
    std::optional<double> full = occupancy(mixed_32_and_64());
    ASSERT_TRUE(full.has_value());
    EXPECT_DOUBLE_EQ(*full, 0.6);
    EXPECT_FALSE(occupancy(SubgroupTally{}).has_value()) << "no subgroup ran: no occupancy";
    EXPECT_DOUBLE_EQ(*occupancy({2, 16, 16, 8}), 1.0);  // two full subgroups of 8
}

TEST(SubgroupTally, SizesNameOneSizeOrTheRange) {
    EXPECT_EQ(sizes_text(32), "subgroup size 32");
    EXPECT_EQ(sizes_text(32 | 64), "subgroup sizes 32-64");
    EXPECT_EQ(sizes_text(8 | 32), "subgroup sizes 8-32");
    EXPECT_EQ(sizes_text(128), "subgroup size 128");
    EXPECT_EQ(sizes_text(0), "");
    EXPECT_EQ(subgroup_sizes(8 | 16 | 32), (std::vector<uint32_t>{8, 16, 32}));
    EXPECT_TRUE(subgroup_sizes(0).empty());
    EXPECT_EQ(sizes_in_range(8, 8), 8u);
    EXPECT_EQ(sizes_in_range(32, 64), 32u | 64u);
    EXPECT_EQ(sizes_in_range(4, 128), 4u | 8u | 16u | 32u | 64u | 128u);
}

// The ray_trace pass's report and HUD line for a frame whose closest-hit subgroups ran at 32 and
// 64 lanes (the other stages did not run).
TEST(SubgroupTally, RayTracingOccupancyComesFromTheSizesThatRan) {
    Plan plan;
    plan[PassId::ray_trace].variant = Variant::subgroup;
    GpuCounters frame{};
    SubgroupTally t = mixed_32_and_64();
    const int closest_hit = 2;
    frame.rays.invocations[closest_hit] = uint32_t(t.lanes);
    frame.rays.subgroups[closest_hit] = uint32_t(t.subgroups);
    frame.ray_lane_slots[closest_hit] = uint32_t(t.lane_slots);
    frame.ray_sizes[closest_hit] = t.sizes;
    GpuCounters instrumented{};
    PassCounters c{plan, frame, instrumented, 0, 0, true};

    nlohmann::json counters;
    ray_trace_report_counters(counters, c);
    const nlohmann::json& stage = counters["ray_trace"]["stages"]["closest_hit"];
    EXPECT_DOUBLE_EQ(stage["occupancy"].get<double>(), 0.6) << stage.dump();
    EXPECT_EQ(stage["subgroup_sizes"], (nlohmann::json{32, 64}));
    EXPECT_DOUBLE_EQ(stage["lanes_per_subgroup"].get<double>(), 24.0);
    EXPECT_FALSE(counters["ray_trace"]["stages"]["raygen"].contains("occupancy")) << "raygen ran no subgroup";

    std::optional<HudLine> line = ray_trace_hud_line(c);
    ASSERT_TRUE(line.has_value());
    ASSERT_FALSE(line->spans.empty());
    EXPECT_NE(line->spans[0].text.find("ch 60"), std::string::npos) << line->spans[0].text;
    EXPECT_NE(line->spans[0].text.find("rg -"), std::string::npos) << line->spans[0].text;
}

// The legend of a view whose closest-hit subgroups ran at 32 and 64 lanes names both sizes and
// has a swatch for each lane of the larger; where one size ran, it names that one.
TEST(SubgroupTally, LegendNamesTheSizesThatRan) {
    ViewPlan plan{ViewMode::lane_id, Stage::closest_hit, Variant::subgroup, ""};
    EXPECT_EQ(view_legend_title(plan, mixed_32_and_64().sizes), "lane-id | closest-hit | subgroup sizes 32-64");
    EXPECT_EQ(legend_lanes(mixed_32_and_64().sizes), 64u);
    EXPECT_EQ(view_legend_title(plan, 32), "lane-id | closest-hit | subgroup size 32");
    EXPECT_EQ(legend_lanes(32), 32u);
    ViewPlan compute{ViewMode::active_lanes, Stage::compute, Variant::subgroup, ""};
    EXPECT_EQ(view_legend_title(compute, 8 | 16), "active-lanes | compute | subgroup sizes 8-16 | 16x16 groups");
}

// --subgroup-size N against the sizes a device offers (caps.h): lavapipe and NVIDIA have one size,
// AMD 32-64 with sizes required in compute, task and mesh.
TEST(SubgroupSizeRequest, RunsWhatTheDeviceOffersAndRefusesTheRestNamingTheRange) {
    SubgroupCaps lavapipe;
    lavapipe.size = lavapipe.min_size = lavapipe.max_size = 8;
    lavapipe.size_control = true;
    lavapipe.required_size_stages = bit(Stage::compute);
    uint32_t all = bit(Stage::compute) | bit(Stage::task) | bit(Stage::mesh);
    EXPECT_EQ(subgroup_size_refusal(lavapipe, 8, all), "") << "its one size runs, required or not";
    EXPECT_EQ(subgroup_size_refusal(lavapipe, 16, all), "this device offers subgroup size 8 only");
    EXPECT_EQ(subgroup_size_refusal(lavapipe, 4, bit(Stage::compute)), "this device offers subgroup size 8 only");
    EXPECT_EQ(required_subgroup_size(lavapipe, 8, Stage::compute), 0u) << "its one size runs unasked";

    SubgroupCaps amd;
    amd.size = 64;
    amd.min_size = 32;
    amd.max_size = 64;
    amd.size_control = true;
    amd.required_size_stages = all;
    EXPECT_EQ(subgroup_size_refusal(amd, 32, all), "");
    EXPECT_EQ(subgroup_size_refusal(amd, 64, all), "");
    EXPECT_EQ(subgroup_size_refusal(amd, 16, all), "this device offers subgroup sizes 32-64");
    EXPECT_EQ(subgroup_size_refusal(amd, 128, all), "this device offers subgroup sizes 32-64");
    EXPECT_EQ(required_subgroup_size(amd, 32, Stage::mesh), 32u);
    amd.required_size_stages = bit(Stage::compute);
    std::string refused = subgroup_size_refusal(amd, 32, all);
    EXPECT_NE(refused.find("subgroup sizes 32-64"), std::string::npos) << refused;
    EXPECT_NE(refused.find("task stage"), std::string::npos) << refused;
    EXPECT_EQ(subgroup_size_refusal(amd, 32, bit(Stage::compute)), "");
}

TEST(SubgroupSizeRequest, TheOptionTakesPowersOfTwoFrom1To128) {
    EXPECT_EQ(parse_options({"--headless", "--subgroup-size", "32"}).subgroup_size, 32u);
    EXPECT_EQ(parse_options({"--headless"}).subgroup_size, 0u);
    for (const char* bad : {"0", "3", "48", "256", "eight", "-8", ""})
        EXPECT_THROW(parse_options({"--headless", "--subgroup-size", bad}), UsageError) << bad;
    EXPECT_THROW(parse_options({"--headless", "--subgroup-size"}), UsageError);
}

}  // namespace
