// The forward pass's light loop (--light-loop, docs/light-lists.md): the subgroup loop walks the
// union of its lanes' sorted tile lists, the fallback each lane's own list. Oracles: the fallback's
// image (same lights per pixel, another summation order), the lists' contents, and counts that
// follow from the lists alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "gpu/harness.h"
#include "gpu/light_frame.h"

namespace {

// Tolerance of subgroup against fallback: both add the same lights per pixel, in another order
// (sorted lists against append order), so the sums differ by float rounding only (relative 1e-6
// for a few dozen positive terms). After tone mapping and 8-bit quantization that flips a channel
// by at most 1 where a value sits on a rounding boundary: every channel within 1 of 255, and at
// most 0.5% of pixels different at all.
struct ImageDiff {
    int max_diff = 0;
    size_t differing = 0, pixels = 0;
};

ImageDiff compare(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
    ImageDiff d;
    EXPECT_EQ(a.size(), b.size());
    d.pixels = std::min(a.size(), b.size()) / 4;
    for (size_t p = 0; p < d.pixels * 4; p += 4) {
        int m = 0;
        for (int ch = 0; ch < 3; ++ch) m = std::max(m, std::abs(int(a[p + ch]) - int(b[p + ch])));
        d.max_diff = std::max(d.max_diff, m);
        d.differing += m > 0;
    }
    return d;
}

void expect_within_tolerance(const ImageDiff& d, const char* what) {
    printf("%s: max channel difference %d, %zu of %zu pixels differ\n", what, d.max_diff, d.differing, d.pixels);
    EXPECT_LE(d.max_diff, 1) << what;
    EXPECT_LE(d.differing * 200, d.pixels) << what << ": " << d.differing << " of " << d.pixels << " pixels differ";
}

LightFrame render(uint32_t lights, Request light_cull, Request light_loop, bool split_tiles = false) {
    LightFrameRequest r;
    r.extent = kLightFrameSize;
    r.lights = lights;
    r.frame_index = 7;
    r.light_cull = light_cull;
    r.light_loop = light_loop;
    r.split_tiles = split_tiles;
    r.instrument = true;
    return render_light_frame(r);
}

// Sum over pixels that were shaded (depth > 0: the pre-pass wrote them) of their tile's list length.
uint64_t expected_lane_trips(const LightFrame& f, bool split_tiles) {
    uint64_t trips = 0;
    const uint32_t tiles_x = f.layout.tiles_x, tile_count = f.layout.tile_count();
    for (uint32_t y = 0; y < kLightFrameSize.height; ++y)
        for (uint32_t x = 0; x < kLightFrameSize.width; ++x) {
            if (f.depth[size_t(y) * kLightFrameSize.width + x] <= 0.0f) continue;
            uint32_t tile = (y / kTileSize) * tiles_x + x / kTileSize;
            if (split_tiles) tile = (tile + (x & 1)) % tile_count;
            trips += f.tiles[tile].lights.size();
        }
    return trips;
}

uint64_t shaded_pixels(const LightFrame& f) {
    return uint64_t(std::count_if(f.depth.begin(), f.depth.end(), [](float d) { return d > 0.0f; }));
}

void print_loop_counters(const char* what, const GpuCounters& c) {
    printf("%s: %u lanes, %u lane trips, %u subgroups, %u subgroup trips, %u longest-lane trips, tiles spanned "
           "1/2/3/4+: %u/%u/%u/%u\n",
           what, c.loop_lanes, c.loop_lane_trips, c.loop_subgroups, c.loop_subgroup_trips, c.loop_max_lane_trips,
           c.loop_tiles_spanned[0], c.loop_tiles_spanned[1], c.loop_tiles_spanned[2], c.loop_tiles_spanned[3]);
}

class LightLoopImage : public testing::TestWithParam<uint32_t> {};

// The bundled scene, 256 and 4096 lights: same image within the tolerance, lists the same sets
// (sorted for the subgroup loop), and trip counts that follow from the lists.
TEST_P(LightLoopImage, SubgroupMatchesFallbackAndCountsTrips) {
    REQUIRE_DRAWING();
    const uint32_t lights = GetParam();
    LightFrame fallback = render(lights, Request::automatic, Request::fallback);
    LightFrame subgroup = render(lights, Request::automatic, Request::subgroup);
    ASSERT_EQ(subgroup.plan[PassId::light_loop].variant, Variant::subgroup) << subgroup.plan[PassId::light_loop].reason;
    ASSERT_EQ(fallback.plan[PassId::light_loop].variant, Variant::fallback);
    ASSERT_EQ(subgroup.tiles.size(), fallback.tiles.size());
    EXPECT_NOT_BLANK(fallback.color);
    expect_within_tolerance(compare(subgroup.color, fallback.color), "subgroup vs fallback loop");

    // Lists: sorted ascending (strictly: no duplicates) whatever the loop, so the same lists, entry
    // by entry, under both variants (the light cull sorts the atomic append order away).
    for (size_t t = 0; t < subgroup.tiles.size(); ++t) {
        const std::vector<uint32_t>& s = subgroup.tiles[t].lights;
        for (size_t i = 1; i < s.size(); ++i) ASSERT_LT(s[i - 1], s[i]) << "tile " << t << " is not sorted";
        EXPECT_EQ(s, fallback.tiles[t].lights) << "tile " << t;
    }

    // Trips. Every shaded lane walks its tile's list once: lanes = shaded pixels, lane trips = sum of
    // their list lengths, in both variants (helper lanes run the loop too but their adds do nothing).
    print_loop_counters("fallback", fallback.counters);
    print_loop_counters("subgroup", subgroup.counters);
    for (const LightFrame* f : {&fallback, &subgroup}) {
        EXPECT_EQ(f->counters.loop_lanes, shaded_pixels(*f));
        EXPECT_EQ(f->counters.loop_lane_trips, expected_lane_trips(*f, false));
    }
    EXPECT_GT(subgroup.counters.loop_lane_trips, subgroup.counters.loop_lanes) << "the lists should not be empty";
    const GpuCounters& c = subgroup.counters;
    uint32_t spanned = c.loop_tiles_spanned[0] + c.loop_tiles_spanned[1] + c.loop_tiles_spanned[2] + c.loop_tiles_spanned[3];
    EXPECT_EQ(spanned, c.loop_subgroups);
    EXPECT_GE(c.loop_subgroups * uint64_t(expected_subgroup_size() ? expected_subgroup_size() : 128), c.loop_lanes);
    // The union of the lanes' lists is at least the longest list; in a one-tile subgroup it is that list.
    EXPECT_GE(c.loop_subgroup_trips, c.loop_max_lane_trips);
    if (c.loop_tiles_spanned[0] == c.loop_subgroups) EXPECT_EQ(c.loop_subgroup_trips, c.loop_max_lane_trips);
    EXPECT_EQ(fallback.counters.loop_subgroups, 0u) << "the fallback counts no subgroups";
    EXPECT_EQ(validation_message_count(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Lights, LightLoopImage, testing::Values(256u, 4096u),
                         [](const auto& info) { return std::to_string(info.param); });

// Lavapipe shades 4x4 blocks, which never leave a 16x16 tile, so above every subgroup takes the
// one-tile path. Here odd pixel columns read the next tile's list (a test hook, FrameContext), so
// subgroups span two or more tiles and the union walk runs, partially covered subgroups and helper
// lanes included: the images must still agree, and the walk must take between the longest list
// and the sum of the lists' lengths trips.
TEST(LightLoop, UnionWalkAcrossTilesMatchesFallback) {
    REQUIRE_DRAWING();
    for (uint32_t lights : {256u, 4096u}) {
        SCOPED_TRACE(lights);
        LightFrame fallback = render(lights, Request::automatic, Request::fallback, true);
        LightFrame subgroup = render(lights, Request::automatic, Request::subgroup, true);
        EXPECT_NOT_BLANK(fallback.color);
        expect_within_tolerance(compare(subgroup.color, fallback.color), "split tiles: subgroup vs fallback loop");
        const GpuCounters& c = subgroup.counters;
        print_loop_counters("split tiles, subgroup", c);
        EXPECT_EQ(c.loop_lane_trips, expected_lane_trips(subgroup, true));
        EXPECT_EQ(fallback.counters.loop_lane_trips, expected_lane_trips(fallback, true));
        // Many of lavapipe's subgroups hold one or two lanes (small triangles): a quarter spanning two
        // tiles or more is plenty of union walks (about a third do at 320x180).
        EXPECT_GT((c.loop_subgroups - c.loop_tiles_spanned[0]) * 4, c.loop_subgroups) << "few subgroups span several tiles";
        EXPECT_GE(c.loop_subgroup_trips, c.loop_max_lane_trips);
        EXPECT_GT(c.loop_subgroup_trips, c.loop_max_lane_trips) << "two tiles' lists differ somewhere";
        EXPECT_LE(c.loop_subgroup_trips, c.loop_lane_trips);
    }
    EXPECT_EQ(validation_message_count(), 0u);
}

// --light-cull off: no lists; both variants run the same uniform loop over every light.
TEST(LightLoop, WithoutListsBothVariantsLoopOverEveryLight) {
    REQUIRE_DRAWING();
    const uint32_t lights = 64;
    LightFrame fallback = render(lights, Request::off, Request::fallback);
    LightFrame subgroup = render(lights, Request::off, Request::subgroup);
    ASSERT_EQ(subgroup.uniforms.tiles.z, 0u);
    EXPECT_NOT_BLANK(fallback.color);
    ImageDiff d = compare(subgroup.color, fallback.color);
    EXPECT_EQ(d.differing, 0u) << "the same loop in the same order";
    const GpuCounters& c = subgroup.counters;
    EXPECT_EQ(c.loop_lanes, shaded_pixels(subgroup));
    EXPECT_EQ(uint64_t(c.loop_lane_trips), uint64_t(c.loop_lanes) * lights);
    EXPECT_EQ(uint64_t(c.loop_subgroup_trips), uint64_t(c.loop_subgroups) * lights);
    EXPECT_EQ(c.loop_max_lane_trips, c.loop_subgroup_trips);
    EXPECT_EQ(uint64_t(fallback.counters.loop_lane_trips), uint64_t(fallback.counters.loop_lanes) * lights);
    EXPECT_EQ(validation_message_count(), 0u);
}

// The executable: the option, its report counter, validation clean; no `off`; masked operations.
TEST(LightLoopDemo, OptionReportAndRefusals) {
    REQUIRE_DRAWING();
    std::string dir = test_dir("light-loop");
    for (const char* v : {"subgroup", "fallback"}) {
        SCOPED_TRACE(v);
        std::string report = dir + "/" + v + ".json";
        DemoRun run = run_demo({"--headless", "--validate", "--size", "256x144", "--frames", "2", "--warmup", "1",
                                "--lights", "512", "--light-loop", v, "--report", report});
        ASSERT_EQ(run.exit_code, 0) << run.output.substr(0, 4000);
        nlohmann::json r = read_json(report);
        EXPECT_EQ(r["plan"]["light_loop"]["variant"], v);
        const nlohmann::json& it = r["counters"]["light_loop_iterations"];
        EXPECT_EQ(it["variant"], v);
        EXPECT_GT(it["lanes"].get<uint64_t>(), 0u);
        EXPECT_GT(it["lane_trips"].get<uint64_t>(), 0u);
        EXPECT_EQ(it["subgroup_trips"].is_null(), std::string(v) == "fallback");
        EXPECT_TRUE(r["timings_ms"].contains("forward"));
    }
    DemoRun off = run_demo({"--headless", "--size", "64x64", "--frames", "1", "--warmup", "0", "--light-loop", "off"});
    EXPECT_EQ(off.exit_code, 2) << off.output;
    DemoRun refused = run_demo({"--headless", "--size", "64x64", "--frames", "1", "--warmup", "0", "--light-loop",
                                "subgroup", "--mask-ops", "arithmetic"});
    EXPECT_EQ(refused.exit_code, 2) << refused.output;
    EXPECT_NE(refused.output.find("arithmetic"), std::string::npos) << refused.output;
    DemoRun info = run_demo({"--info", "--mask-stages", "fragment", "--report", dir + "/info.json"});
    ASSERT_EQ(info.exit_code, 0) << info.output;
    EXPECT_EQ(read_json(dir + "/info.json")["plan"]["light_loop"]["variant"], "fallback");
}

}  // namespace
