// The compute rasterizer's pieces of `depth` and `late_depth` (docs/raster.md, "Counters":
// counters.raster.dispatch_ms) against the timers they split, which write timestamps of their own.
// In every frame the pieces add up to no more than the timer (their timestamps lie within its), and
// to less only by the cost of the timestamps themselves (a piece's work, moved outside, would show);
// none is negative; and each is recorded in exactly the frames its work is: the late phase's in
// those late_depth ran in, the meshlet culling on the meshlet path, occlusion's merge on the indexed
// one. The street of a 2 x 2 grid under occlusion, the camera stepping (every frame runs phase 2),
// then a frame with the cull frozen (no phase 2); 192x108, validated.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "gpu/harness.h"
#include "gpu/light_frame.h"  // test_context, validation_message_count
#include "gpu/street.h"
#include "render/renderer.h"

namespace raster_pieces_tests {

constexpr VkExtent2D kSize{192, 108};
constexpr uint32_t kFrames = 4;  // then one with the cull frozen
// What the timestamps themselves may take from the pieces' sum, over the median frame: the timer's
// begin and the first piece's start (the last piece's end and the timer's end) are written one
// after the other. On lavapipe a timestamp costs about 15 microseconds, the least piece of work
// (the split of 192x108 words) 200.
constexpr double kTimestampsMs = 0.1;

Plan pieces_plan(Geometry geometry) {
    PlanRequest request;
    request.geometry = geometry;
    request.shading = Shading::visibility;
    request.raster = Raster::compute;
    request[PassId::occlusion] = Request::fallback;
    request[PassId::ray_trace] = Request::off;
    request[PassId::exposure] = Request::off;
    return make_plan(test_context().subgroup, test_context().features, request);
}

// Renders kFrames frames down the street and one with the cull frozen, and checks each one's
// pieces against its timers.
void expect_pieces_add_up(Geometry geometry) {
    const Context& ctx = test_context();
    const Scene& grid = street_grid();
    uint32_t messages = validation_message_count();
    RendererConfig config;
    config.extent = kSize;
    config.lights = 16;
    config.plan = pieces_plan(geometry);
    ASSERT_EQ(config.plan.raster.raster, Raster::compute);
    Renderer renderer(ctx, grid, config);
    const bool meshlets = geometry == Geometry::meshlet;
    Camera view = camera_for(CameraView::street, grid.bounds_min, grid.bounds_max, grid.grid);
    uint32_t two_phase = 0, one_phase = 0;
    std::vector<double> left_out[kPiecedTimers.size()];  // per timer and frame: the timer's time the pieces leave out
    for (uint32_t frame = 0; frame <= kFrames; ++frame) {
        if (frame == kFrames) renderer.set_cull_frozen(true);  // (the device is idle)
        VkCommandBuffer cmd = begin_one_shot(ctx);
        renderer.record(cmd, 0, frame, view);
        end_one_shot(ctx, cmd);
        view = step_down_the_street(view, 0.012f);
        std::array<double, kTimerCount> timers = renderer.read_timings(0);
        PieceTimes pieces = renderer.read_raster_pieces(0);
        ASSERT_GE(timers[size_t(Timer::depth)], 0.0) << "frame " << frame;
        (timers[size_t(Timer::late_depth)] >= 0 ? two_phase : one_phase) += 1;
        for (size_t t = 0; t < kPiecedTimers.size(); ++t) {
            const Timer timer = kPiecedTimers[t];
            const bool late = timer == Timer::late_depth;
            const double timed = timers[size_t(timer)];
            double sum = 0.0;
            std::string line;
            for (size_t p = 0; p < kRasterPieceCount; ++p) {
                const RasterPiece piece = RasterPiece(p);
                // Where the piece's work was recorded: in every frame its timer ran, save the late
                // phase's own pieces and the one geometry path's.
                bool expected = timed >= 0;
                if (piece == RasterPiece::late_cull) expected = expected && late;
                if (piece == RasterPiece::merge) expected = expected && late && !meshlets;
                if (piece == RasterPiece::meshlet_cull) expected = expected && meshlets;
                const std::string key(kRasterPieceKeys[p]);
                EXPECT_EQ(pieces[t][p] >= 0, expected) << "frame " << frame << ", " << timer_info(timer).key << "." << key << ": "
                                                        << pieces[t][p] << " ms";
                if (pieces[t][p] < 0) continue;
                sum += pieces[t][p];
                line += " " + key + " " + std::to_string(pieces[t][p]);
            }
            if (timed < 0) continue;
            EXPECT_LE(sum, timed + 1e-9) << "frame " << frame << ": the pieces of " << timer_info(timer).key << " outside its timestamps";
            left_out[t].push_back(timed - sum);
            printf("frame %u, %s %.3f ms, pieces %.3f:%s\n", frame, std::string(timer_info(timer).key).c_str(), timed, sum, line.c_str());
        }
    }
    EXPECT_EQ(two_phase, kFrames) << "frames that ran occlusion phase 2";
    EXPECT_EQ(one_phase, 1u) << "the frozen cull's frame ran phase 2";
    for (size_t t = 0; t < kPiecedTimers.size(); ++t) {
        double median = summarize(left_out[t]).median;
        EXPECT_LE(median, kTimestampsMs) << "the pieces of " << timer_info(kPiecedTimers[t]).key
                                         << " leave out more of it than their timestamps cost, in the median frame";
        printf("%s, %s: the pieces leave out %.4f ms in the median frame\n", meshlets ? "meshlet" : "indexed",
               std::string(timer_info(kPiecedTimers[t]).key).c_str(), median);
    }
    EXPECT_EQ(validation_message_count(), messages);
}

}  // namespace raster_pieces_tests

using raster_pieces_tests::expect_pieces_add_up;

TEST(RasterPieces, IndexedPiecesAddUpToTheirTimersInEveryFrame) {
    REQUIRE_DRAWING();
    REQUIRE_COMPUTE_RASTER();
    expect_pieces_add_up(Geometry::indexed);
}

TEST(RasterPieces, MeshletPiecesAddUpToTheirTimersInEveryFrame) {
    REQUIRE_DRAWING();
    REQUIRE_COMPUTE_RASTER();
    if (const std::string why_not = no_mesh_shaders_reason(); !why_not.empty()) GTEST_SKIP() << why_not;
    expect_pieces_add_up(Geometry::meshlet);
}

// The report's counters.raster.dispatch_ms, through the program: per timer, each piece recorded
// there (in the indexed path's frame order: no meshlet culling, the late cull and the merge only in
// late_depth) with a median no less than 0 and no more than the timer's largest frame, over the
// frames the timer ran in (the pieces and the timers count their frames apart).
TEST(RasterPieces, ReportGivesEachPiecesMedianAndFrames) {
    REQUIRE_DRAWING();
    REQUIRE_COMPUTE_RASTER();
    std::string dir = test_dir("raster-pieces");
    DemoRun run = run_demo({"--headless", "--size", "192x108", "--frames", "5", "--warmup", "1", "--instances", "2", "--camera",
                            "street", "--shading", "visibility", "--raster", "compute", "--occlusion", "fallback", "--ray-trace",
                            "off", "--validate", "--report", dir + "/r.json"});
    ASSERT_EQ(run.exit_code, 0) << run.output;
    nlohmann::json report = read_json(dir + "/r.json");
    const nlohmann::json& pieces = report["counters"]["raster"]["dispatch_ms"];
    ASSERT_TRUE(pieces.is_object()) << report["counters"]["raster"].dump();
    const std::vector<std::string> first = {"setup", "chunks", "tile_bins", "hardware", "split"};
    const std::vector<std::string> late = {"late_cull", "setup", "chunks", "tile_bins", "hardware", "merge", "split"};
    EXPECT_EQ(pieces.size(), 2u) << pieces.dump();
    for (const auto& [timer, keys] : {std::pair{std::string("depth"), first}, std::pair{std::string("late_depth"), late}}) {
        const nlohmann::json& timed = report["timings_ms"][timer];
        ASSERT_TRUE(pieces.contains(timer) && timed.is_object()) << timer;
        EXPECT_EQ(pieces[timer].size(), keys.size()) << pieces[timer].dump();
        for (const std::string& key : keys) {
            ASSERT_TRUE(pieces[timer].contains(key)) << timer << "." << key;
            const nlohmann::json& piece = pieces[timer][key];
            EXPECT_EQ(piece["frames"], timed["frames"]) << timer << "." << key;
            EXPECT_GE(piece["median"].get<double>(), 0.0) << timer << "." << key;
            EXPECT_LE(piece["median"].get<double>(), timed["max"].get<double>()) << timer << "." << key;
        }
    }
    EXPECT_EQ(validation_lines(run.output), 0) << run.output;
}
