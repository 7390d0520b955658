// Light culling on the Vulkan device against independent oracles: the CPU reference lists (same
// test in double precision from the same depth buffer), brute-force shading with every light,
// exact atomic counts, and the light-count view recomputed from the lists.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "gpu/harness.h"
#include "gpu/light_frame.h"

namespace {

// Compares one frame's GPU lists with the CPU reference, tile by tile, as sets.
struct ListCheck {
    uint64_t tiles_compared = 0;
    uint64_t stored = 0;          // entries in the lists
    uint64_t counted = 0;         // sum of the raw counts (stored + overflow)
    uint64_t expected_overflow_min = 0, expected_overflow_max = 0;
};

ListCheck check_lists_against_reference(const LightFrame& f, const ReferenceLists& ref) {
    ListCheck c;
    const uint32_t light_count = uint32_t(f.lights.size());
    EXPECT_EQ(f.tiles.size(), ref.tiles.size());
    for (size_t t = 0; t < std::min(f.tiles.size(), ref.tiles.size()); ++t) {
        const TileList& gpu = f.tiles[t];
        const ReferenceTile& cpu = ref.tiles[t];
        std::set<uint32_t> must(cpu.lights.begin(), cpu.lights.end());
        std::set<uint32_t> may(cpu.borderline.begin(), cpu.borderline.end());
        std::set<uint32_t> got;
        for (uint32_t light : gpu.lights) {
            EXPECT_LT(light, light_count) << "tile " << t << " holds a light index past the light count";
            EXPECT_TRUE(got.insert(light).second) << "tile " << t << " lists light " << light << " twice";
            EXPECT_TRUE(must.count(light) || may.count(light))
                << "tile " << t << " lists light " << light << ", which the reference says misses the tile";
        }
        EXPECT_EQ(gpu.lights.size(), std::min(gpu.count, f.layout.capacity)) << "tile " << t;
        // The raw count is every touching light: the reference's, plus borderline ones taken.
        EXPECT_GE(gpu.count, must.size()) << "tile " << t;
        EXPECT_LE(gpu.count, must.size() + may.size()) << "tile " << t;
        if (gpu.count <= f.layout.capacity) {
            for (uint32_t light : must)
                EXPECT_TRUE(got.count(light)) << "tile " << t << " misses light " << light << " that touches it";
        }
        if (!cpu.has_geometry) EXPECT_EQ(gpu.count, 0u) << "tile " << t << " has no geometry but lights";
        c.tiles_compared++;
        c.stored += gpu.lights.size();
        c.counted += gpu.count;
        auto over = [&](size_t n) { return n > f.layout.capacity ? n - f.layout.capacity : 0; };
        c.expected_overflow_min += over(must.size());
        c.expected_overflow_max += over(must.size() + may.size());
    }
    return c;
}

// Conservative at the pixel level, independently of the tile box: every light that reaches the
// surface point of a pixel (unprojected from the pixel centre and its depth) is in the pixel's
// tile list. Returns the number of (pixel, light) pairs checked.
uint64_t check_pixels_covered(const LightFrame& f) {
    const FrameUniforms& u = f.uniforms;
    const uint32_t w = u.sizes.x, h = u.sizes.y;
    const double n = u.projection.z, far = u.projection.w, tolerance = borderline_tolerance(u);
    glm::dmat4 view(u.view);
    std::vector<glm::dvec3> centers;
    for (const GpuLight& l : f.lights) centers.push_back(glm::dvec3(view * glm::dvec4(glm::dvec3(l.position_radius), 1.0)));
    std::vector<std::set<uint32_t>> lists(f.tiles.size());
    for (size_t t = 0; t < f.tiles.size(); ++t) lists[t].insert(f.tiles[t].lights.begin(), f.tiles[t].lights.end());
    uint64_t reached = 0, missing = 0;
    for (uint32_t y = 0; y < h; ++y)
        for (uint32_t x = 0; x < w; ++x) {
            double depth = f.depth[size_t(y) * w + x];
            if (depth <= 0.0) continue;
            double d = n * far / (depth * (far - n) + n);
            glm::dvec3 p((2.0 * (x + 0.5) / w - 1.0) * d / u.projection.x, (2.0 * (y + 0.5) / h - 1.0) * d / u.projection.y, -d);
            uint32_t tile = (y / kTileSize) * f.layout.tiles_x + x / kTileSize;
            for (uint32_t i = 0; i < centers.size(); ++i) {
                if (glm::length(p - centers[i]) >= f.lights[i].position_radius.w - tolerance) continue;
                ++reached;
                if (!lists[tile].count(i) && ++missing <= 5)
                    ADD_FAILURE() << "light " << i << " reaches pixel (" << x << ", " << y << ") but is not in tile " << tile;
            }
        }
    EXPECT_EQ(missing, 0u);
    return reached;
}

void expect_guard_intact(const std::vector<uint32_t>& words, const LightListLayout& layout) {
    ASSERT_EQ(words.size(), layout.words() + kLightListGuardWords);
    for (size_t i = layout.words(); i < words.size(); ++i)
        ASSERT_EQ(words[i], kLightListGuardValue) << "a write landed past the last list, at word " << i;
}

class LightCullLists : public testing::TestWithParam<Request> {};

// Per-tile lists equal the CPU reference as sets, for the subgroup and the fallback variant, at
// two light counts and two animation frames (different light positions).
TEST_P(LightCullLists, EqualCpuReferenceAsSets) {
    REQUIRE_DRAWING();
    for (auto [lights, frame] : {std::pair{256u, 0u}, std::pair{4096u, 37u}}) {
        SCOPED_TRACE("lights " + std::to_string(lights) + " frame " + std::to_string(frame));
        LightFrameRequest request{.lights = lights, .light_cull = GetParam(), .frame_index = frame};
        LightFrame f = render_light_frame(request);
        ASSERT_EQ(f.plan[PassId::light_cull].variant, GetParam() == Request::subgroup ? Variant::subgroup : Variant::fallback);
        ReferenceLists ref = reference_for(f);
        ASSERT_GT(ref.pairs, 200u) << "the scene should put lights in many tiles";
        // Borderline pairs are float-rounding ties; they must stay rare for the comparison to mean much.
        EXPECT_LT(ref.borderline_pairs * 100, ref.pairs) << "over 1% of pairs are within rounding of the boundary";
        ListCheck c = check_lists_against_reference(f, ref);
        EXPECT_EQ(c.tiles_compared, uint64_t(f.layout.tile_count()));
        EXPECT_EQ(f.counters.light_list_entries, c.stored);
        EXPECT_EQ(f.counters.light_list_overflow, c.counted - c.stored);
        EXPECT_EQ(f.counters.light_list_overflow, 0u) << "the default scene at this size fits the capacity";
        // Selective, not everything everywhere: well under a tenth of all (tile, light) pairs.
        EXPECT_LT(c.stored * 10, uint64_t(f.layout.tile_count()) * lights);
        if (lights <= 1024) EXPECT_GT(check_pixels_covered(f), 10000u) << "lights should reach many pixels";
        expect_guard_intact(f.words, f.layout);
    }
    EXPECT_EQ(validation_message_count(), 0u);
    if (int sg = expected_subgroup_size()) EXPECT_EQ(test_context().subgroup.size, uint32_t(sg));
}

INSTANTIATE_TEST_SUITE_P(Variants, LightCullLists, testing::Values(Request::subgroup, Request::fallback),
                         [](const auto& info) { return std::string(request_name(info.param)); });

// Light falloff is exactly 0 at the radius, so shading only the tile's list changes nothing but
// float rounding of the sum (and its order). Tolerance: every channel within 2 of 255, and at
// most 0.5% of pixels different at all.
TEST(LightCull, ShadedImageMatchesBruteForce) {
    REQUIRE_DRAWING();
    LightFrameRequest request{.lights = 1024, .light_cull = Request::off, .frame_index = 12};
    LightFrame brute = render_light_frame(request);
    ASSERT_EQ(brute.uniforms.tiles.z, 0u);
    for (Request variant : {Request::subgroup, Request::fallback}) {
        SCOPED_TRACE(std::string(request_name(variant)));
        request.light_cull = variant;
        LightFrame culled = render_light_frame(request);
        ASSERT_EQ(culled.color.size(), brute.color.size());
        int max_diff = 0;
        size_t differing = 0, lit = 0;
        for (size_t p = 0; p < brute.color.size(); p += 4) {
            int d = 0;
            for (int ch = 0; ch < 3; ++ch) d = std::max(d, std::abs(int(culled.color[p + ch]) - int(brute.color[p + ch])));
            max_diff = std::max(max_diff, d);
            differing += d > 0;
            lit += brute.color[p] + brute.color[p + 1] + brute.color[p + 2] > 20;  // tonemapped at the fixed exposure
        }
        size_t pixels = brute.color.size() / 4;
        printf("%s vs brute force: max channel difference %d, %zu of %zu pixels differ\n",
               std::string(request_name(variant)).c_str(), max_diff, differing, pixels);
        EXPECT_LE(max_diff, 2);
        EXPECT_LE(differing * 200, pixels) << differing << " of " << pixels << " pixels differ";
        // (The tonemap's toe takes the background to near black: geometry is about 45% of this frame.)
        EXPECT_GT(lit, pixels * 2 / 5) << "the comparison should cover a lit scene";
        EXPECT_GT(culled.counters.light_list_entries, 0u);
    }
    // Not vacuous: dropping the lists' lights (no point lights at all) changes the image a lot.
    request.light_cull = Request::off;
    request.lights = 0;
    LightFrame unlit = render_light_frame(request);
    size_t changed = 0;
    for (size_t p = 0; p < brute.color.size(); p += 4)
        changed += unlit.color[p] != brute.color[p] || unlit.color[p + 1] != brute.color[p + 1] ||
                   unlit.color[p + 2] != brute.color[p + 2];
    printf("the point lights change %zu pixels\n", changed);
    EXPECT_GT(changed, brute.color.size() / 4 / 50) << "the point lights should light a visible part of the frame";
    EXPECT_EQ(validation_message_count(), 0u);
}

// In the instrumented frame every atomic on a list counter is counted. Fallback: exactly one per
// touching (tile, light) pair. Subgroup: one per subgroup and round with a hit. The fallback /
// subgroup ratio is the mean number of lights one subgroup atomic appends, and two things cap it
// (docs/light-lists.md): the subgroup's lanes, and the lights of a tile, since every tile with a
// light costs at least one atomic whatever the subgroup size. The ballots must reach half of the
// smaller cap on the default scene (default light count).
TEST(LightCull, BallotCutsListAtomicsByHalfOfWhatTheTilesAllow) {
    REQUIRE_DRAWING();
    LightFrameRequest request{.lights = 256, .light_cull = Request::fallback, .instrument = true};
    LightFrame fallback = render_light_frame(request);
    request.light_cull = Request::subgroup;
    LightFrame subgroup = render_light_frame(request);

    ReferenceLists ref = reference_for(fallback);
    uint64_t pairs = fallback.counters.light_list_entries + fallback.counters.light_list_overflow;
    EXPECT_EQ(fallback.counters.light_atomics, pairs) << "fallback: one atomic per appended light";
    EXPECT_GE(pairs, ref.pairs);
    EXPECT_LE(pairs, ref.pairs + ref.borderline_pairs);

    uint64_t nonempty_tiles = 0;
    for (const TileList& t : subgroup.tiles) nonempty_tiles += t.count > 0;
    EXPECT_GE(subgroup.counters.light_atomics, nonempty_tiles) << "at least one atomic per tile with lights";
    ASSERT_GT(subgroup.counters.light_atomics, 0u);
    double ratio = double(fallback.counters.light_atomics) / double(subgroup.counters.light_atomics);
    double size = test_context().subgroup.size;
    RecordProperty("atomics_ratio", std::to_string(ratio));
    printf("list atomics: fallback %u, subgroup %u, ratio %.2f at subgroup size %.0f\n", fallback.counters.light_atomics,
           subgroup.counters.light_atomics, ratio, size);
    // The lights per lit tile from the CPU reference (not from the GPU's counts): 12 here
    // (docs/light-lists.md), so the bound is 2, 4 and 6 at lavapipe's 4, 8 and 16 lanes (measured
    // 5.6, 7.8, 9.8), and 6 from there up: from 32 lanes a subgroup's 8 * size lights per round
    // hold all 256 lights, each lit tile costs exactly one atomic, and the ratio is the 12 itself.
    // Half the subgroup size alone would ask 32 at 64 lanes and 64 at 128, beyond any tile here.
    uint64_t lit_tiles = 0;
    for (const ReferenceTile& t : ref.tiles) lit_tiles += !t.lights.empty();
    ASSERT_GT(lit_tiles, 0u);
    double lights_per_lit_tile = double(ref.pairs) / double(lit_tiles);
    double bound = std::min(size, lights_per_lit_tile) / 2.0;
    RecordProperty("atomics_bound", std::to_string(bound));
    printf("lights per lit tile (CPU reference) %.2f: the ratio must reach %.2f\n", lights_per_lit_tile, bound);
    EXPECT_GE(ratio, bound);
    // Both frames built the same lists, as multisets of (tile, light).
    ASSERT_EQ(subgroup.tiles.size(), fallback.tiles.size());
    for (size_t t = 0; t < subgroup.tiles.size(); ++t) {
        std::multiset<uint32_t> a(subgroup.tiles[t].lights.begin(), subgroup.tiles[t].lights.end());
        std::multiset<uint32_t> b(fallback.tiles[t].lights.begin(), fallback.tiles[t].lights.end());
        EXPECT_EQ(a, b) << "tile " << t;
    }
    // An uninstrumented frame counts nothing.
    request.instrument = false;
    EXPECT_EQ(render_light_frame(request).counters.light_atomics, 0u);
    EXPECT_EQ(validation_message_count(), 0u);
}

// 65536 lights at 320x180 put up to thousands of lights in a tile, past the capacity: the counts
// stay exact, the lists hold the first `capacity`, the overflow counter adds up the rest, nothing
// lands past the buffer, and validation stays clean.
class LightCullOverflow : public testing::TestWithParam<Request> {};

TEST_P(LightCullOverflow, IsCountedAndNeverWrittenOutOfBounds) {
    REQUIRE_DRAWING();
    LightFrameRequest request{.lights = 65536, .light_cull = GetParam()};
    LightFrame f = render_light_frame(request);
    ReferenceLists ref = reference_for(f);
    uint32_t overflowing = 0;
    for (const TileList& t : f.tiles) overflowing += t.count > f.layout.capacity;
    ASSERT_GT(overflowing, 0u) << "the test must drive some lists past the capacity";
    ListCheck c = check_lists_against_reference(f, ref);
    EXPECT_EQ(f.counters.light_list_entries, c.stored);
    EXPECT_EQ(f.counters.light_list_overflow, c.counted - c.stored);
    EXPECT_GE(f.counters.light_list_overflow, c.expected_overflow_min);
    EXPECT_LE(f.counters.light_list_overflow, c.expected_overflow_max);
    EXPECT_GT(f.counters.light_list_overflow, 0u);
    expect_guard_intact(f.words, f.layout);
    EXPECT_EQ(validation_message_count(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Variants, LightCullOverflow, testing::Values(Request::subgroup, Request::fallback),
                         [](const auto& info) { return std::string(request_name(info.param)); });

// The light-count view, recomputed on the CPU from the lists and the shaded frame: below the legend
// every pixel is mix(0.35 * scene, heat(count), 0.6) (no tint where a tile has no lights, magenta
// over the capacity, darker on tile borders); the legend's bar shows the same ramp.
TEST(LightCountView, HeatMapMatchesListsAndLegendShowsRamp) {
    REQUIRE_DRAWING();
    LightFrameRequest request{.lights = 16384, .frame_index = 5};
    LightFrame shaded = render_light_frame(request);
    request.view = ViewMode::light_count;
    LightFrame view = render_light_frame(request);
    ASSERT_EQ(view.plan.view.mode, ViewMode::light_count);
    ASSERT_EQ(view.tiles.size(), size_t(view.layout.tile_count()));

    const uint32_t w = kLightFrameSize.width, h = kLightFrameSize.height, capacity = view.layout.capacity;
    const uint32_t first_row = uint32_t(std::ceil(light_count_legend_height(kLightFrameSize))) + 1;
    int worst = 0;
    size_t overflow_pixels = 0, heat_pixels = 0, plain_pixels = 0;
    for (uint32_t y = first_row; y < h; ++y)
        for (uint32_t x = 0; x < w; ++x) {
            uint32_t tile = (y / kTileSize) * view.layout.tiles_x + x / kTileSize;
            uint32_t count = view.tiles[tile].count;
            const uint8_t* scene = &shaded.color[(size_t(y) * w + x) * 4];
            const uint8_t* got = &view.color[(size_t(y) * w + x) * 4];
            glm::vec3 expected = glm::vec3(scene[0], scene[1], scene[2]) / 255.0f * 0.35f;
            if (count > 0) {
                glm::vec3 heat = count > capacity ? glm::vec3(1, 0, 1)
                                                  : heat_color(std::log2(float(count) + 1.0f) / std::log2(float(capacity) + 1.0f));
                expected = glm::mix(expected, heat, 0.6f);
            }
            if (x % kTileSize == 0 || y % kTileSize == 0) expected *= 0.75f;
            for (int c = 0; c < 3; ++c) worst = std::max(worst, std::abs(int(got[c]) - int(std::lround(expected[c] * 255.0f))));
            overflow_pixels += count > capacity;
            heat_pixels += count > 0 && count <= capacity;
            plain_pixels += count == 0;
        }
    EXPECT_LE(worst, 2) << "the heat map differs from the lists by up to " << worst << " of 255";
    EXPECT_GT(overflow_pixels, 0u) << "16384 lights at 320x180 should overflow some tiles";
    EXPECT_GT(heat_pixels, size_t(w) * h / 4);
    EXPECT_GT(plain_pixels, 0u);

    // The legend's bar: 64 steps of the same ramp, opaque, from (10, 20), 160 x 8 pixels at this size.
    for (int i = 0; i < 64; i += 7) {
        uint32_t x = 10 + uint32_t((160.0f * (float(i) + 0.5f)) / 64.0f), y = 24;
        glm::vec3 want = heat_color((float(i) + 0.5f) / 64.0f) * 255.0f + 0.5f;
        const uint8_t* got = &view.color[(size_t(y) * w + x) * 4];
        for (int c = 0; c < 3; ++c) EXPECT_NEAR(int(got[c]), int(want[c]), 2) << "legend step " << i << " channel " << c;
    }
    EXPECT_EQ(validation_message_count(), 0u);
}

// The demo itself, the way a user runs it: every light-cull mode, with the shaded and the
// light-count view, and the overflow case, under --validate (exit 5 on any message).
TEST(LightCullDemo, EveryModeRunsValidationCleanAndReports) {
    REQUIRE_DRAWING();
    std::string dir = test_dir("modes");
    struct Case {
        const char* light_cull;
        const char* view;
        const char* lights;
    };
    for (Case c : {Case{"subgroup", "shaded", "256"}, Case{"fallback", "light-count", "256"}, Case{"off", "shaded", "256"},
                   Case{"off", "light-count", "256"}, Case{"subgroup", "light-count", "65536"}}) {
        std::string name = std::string(c.light_cull) + "-" + c.view + "-" + c.lights;
        SCOPED_TRACE(name);
        std::string report = dir + "/" + name + ".json";
        // One frame of the generated props scene: what is checked is each mode's plan, counters and
        // validation, which neither the bundled scene's 300k triangles nor more frames add to.
        DemoRun run = run_demo({"--headless", "--validate", "--size", "256x144", "--frames", "1", "--warmup", "0",
                                "--scene", SGD_TEST_SCENES "/props.gltf", "--light-cull", c.light_cull, "--view", c.view, "--lights", c.lights, "--report", report,
                                "--screenshot", dir + "/" + name + ".png"});
        ASSERT_EQ(run.exit_code, 0) << run.output.substr(0, 4000);
        EXPECT_EQ(validation_lines(run.output), 0);
        nlohmann::json r = read_json(report);
        ASSERT_TRUE(r.is_object());
        EXPECT_EQ(r["plan"]["light_cull"]["variant"], c.light_cull);
        const nlohmann::json& counters = r["counters"];
        bool off = std::string(c.light_cull) == "off";
        EXPECT_EQ(r["timings_ms"].contains("light_cull"), !off);
        if (off) {
            EXPECT_EQ(counters["light_list_entries"], 0);
            EXPECT_EQ(counters["light_atomics"], 0);
        } else {
            EXPECT_GT(counters["light_list_entries"].get<uint64_t>(), 0u);
            EXPECT_GT(counters["light_atomics"].get<uint64_t>(), 0u);
        }
        EXPECT_EQ(counters["light_list_overflow"].get<uint64_t>() > 0, std::string(c.lights) == "65536");
    }
}

// Asking for the ballot path without ballots is the contract's exit 2, naming what is missing;
// auto falls back.
TEST(LightCullDemo, SubgroupWithoutBallotIsRefusedAndAutoFallsBack) {
    DemoRun refused = run_demo({"--headless", "--size", "64x64", "--frames", "1", "--warmup", "0", "--light-cull",
                                "subgroup", "--mask-ops", "ballot"});
    EXPECT_EQ(refused.exit_code, 2) << refused.output;
    EXPECT_NE(refused.output.find("ballot"), std::string::npos) << refused.output;
    std::string dir = test_dir("masked");
    DemoRun fallback = run_demo({"--info", "--mask-ops", "ballot", "--report", dir + "/info.json"});
    ASSERT_EQ(fallback.exit_code, 0) << fallback.output;
    EXPECT_EQ(read_json(dir + "/info.json")["plan"]["light_cull"]["variant"], "fallback");
}

}  // namespace
