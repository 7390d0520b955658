// Two-phase occlusion culling (docs/occlusion.md), end to end. The oracle is the same frame with
// --occlusion off: occlusion only removes triangles that no pixel can show, so the frame must be
// byte-identical, at both cameras, for both pyramid variants, validated (synchronization
// validation included). At the street camera, where buildings hide most of the grid, the
// counters must show triangles rejected in both phases and fewer triangles drawn than without.
#include <gtest/gtest.h>

#include "gpu/harness.h"

namespace {

struct OcclusionRun {
    nlohmann::json report;
    Png image;
};

OcclusionRun run_occlusion(const std::string& dir, const std::string& camera, const std::string& occlusion,
                           const std::string& geometry = "indexed") {
    std::string tag = camera + "-" + occlusion + "-" + geometry;
    // Three frames: the last one's phase 1 has the previous frame's pyramid.
    DemoRun run = run_demo({"--headless", "--validate", "--size", "192x108", "--frames", "2", "--warmup", "1", "--instances",
                            "2", "--camera", camera, "--occlusion", occlusion, "--geometry", geometry, "--report",
                            dir + "/" + tag + ".json", "--screenshot", dir + "/" + tag + ".png"});
    EXPECT_EQ(run.exit_code, 0) << run.output.substr(0, 4000);
    EXPECT_EQ(validation_lines(run.output), 0) << run.output.substr(0, 4000);
    return {read_json(dir + "/" + tag + ".json"), read_png(dir + "/" + tag + ".png")};
}

}  // namespace

TEST(Occlusion, FramesAreByteIdenticalToOcclusionOffAndTheStreetRejects) {
    REQUIRE_DRAWING();
    std::string dir = test_dir("occlusion");
    for (const std::string camera : {"overview", "street"}) {
        SCOPED_TRACE(camera);
        OcclusionRun off = run_occlusion(dir, camera, "off");
        EXPECT_NOT_BLANK(off.image.rgba);
        EXPECT_EQ(off.report["counters"]["occlusion"]["triangles_rejected_phase2"], nullptr);
        for (const std::string variant : {"subgroup", "fallback"}) {
            SCOPED_TRACE(variant);
            OcclusionRun on = run_occlusion(dir, camera, variant);
            EXPECT_EQ(on.report["plan"]["occlusion"]["variant"], variant);
            EXPECT_EQ(on.report["scene"]["camera"], camera);
            EXPECT_EQ(differing_pixels(on.image, off.image), 0) << "the frame changed with occlusion culling";
            EXPECT_TRUE(on.image.rgba == off.image.rgba);
            const nlohmann::json& c = on.report["counters"]["occlusion"];
            uint64_t visible_on = on.report["counters"]["triangles_visible"], visible_off = off.report["counters"]["triangles_visible"];
            uint64_t rejected = c["triangles_rejected_phase2"];
            // Phase 2's rejections are exactly what the frame no longer draws.
            EXPECT_EQ(visible_on + rejected, visible_off);
            if (camera == "street") {
                EXPECT_GT(c["triangles_rejected_phase1"].get<uint64_t>(), 0u);
                EXPECT_GT(rejected, visible_off / 10) << "the street hides less than a tenth of what it draws";
            }
        }
    }
}
