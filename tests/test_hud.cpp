// The window's HUD laid out without a GPU (it is text and rectangles in an Overlay): at the window
// sizes users run, with the longest strings the pass table and the plan can produce, no two pieces
// of text overlap and none leaves the frame.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "passes/cull_pass.h"
#include "window/hud.h"
#include "passes/debug_view_pass.h"
#include "passes/subgroup_tally.h"

namespace {

HudState worst_case_hud(VkExtent2D extent, bool help, const std::string& stage_reason) {
    HudState hud;
    hud.device = "NVIDIA H200 NVL with a very long marketing name (discrete GPU)";
    hud.subgroup_size = 128;
    hud.extent = extent;
    hud.present_mode = "IMMEDIATE";
    // Every pass on subgroup: forward's row then lists everything it hosts ("+ quad mip + light loop").
    for (PassPlan& p : hud.plan.passes) p.variant = Variant::subgroup;
    hud.plan.view = {ViewMode::first_last_lane, Stage::intersection, Variant::unsupported, stage_reason};
    for (double& ms : hud.gpu.ms) ms = 12345.678;
    std::array<double, kTimerCount> sample;
    sample.fill(3.5);
    for (size_t i = 0; i < FrameHistory::kFrames + 7; ++i) hud.history.add(sample);
    hud.cpu_frame_ms = 999.9;
    hud.counters.triangles_visible = 4000000000u;
    hud.counters.light_list_entries = 4000000000u;
    hud.counters.light_list_overflow = 4000000000u;
    hud.triangles_total = 40000000000ull;
    for (uint32_t l = 0; l < kMaxLodLevels; ++l)  // every level drawn, with the largest counts
        hud.counters.lod_draws[l] = hud.counters.lod_triangles[l] = hud.counters.lod_meshlets[l] = 4000000000u;
    hud.lights = 65536;
    hud.animation_frame = 4000000000u;
    hud.paused = true;
    hud.help = help;
    hud.notes = {"skipped mip subgroup: quad subgroup operations are not supported (masked by --mask-ops) on this device",
                 "screenshot: subgroup-demo_cull-subgroup_light-subgroup_mip-subgroup_loop-subgroup_view-first-last-lane-intersection-unsupported_1920x1080.png",
                 "comparison: [13/13] all-fallback running (120 s elapsed, about 10 s left)"};
    return hud;
}

TEST(Hud, NoTwoTextsOverlapAndNoneLeavesTheFrameAtCommonSizes) {
    const std::string reason = "intersection stage has subgroups on this device, but this build has no "
                               "first-last-lane view in it (masked by --mask-stages)";
    for (VkExtent2D extent : {VkExtent2D{640, 360}, VkExtent2D{960, 540}, VkExtent2D{1920, 1080}})
        for (bool help : {false, true})
            for (bool legend : {false, true}) {
                HudState hud = worst_case_hud(extent, help, reason);
                Overlay overlay;
                // What the view drew first; its widest title names a range of sizes.
                if (legend) add_view_legend(overlay, extent, hud.plan.view, sizes_in_range(4, hud.subgroup_size));
                OverlayBox taken = overlay.bounds();
                std::vector<HudText> texts;
                draw_hud(overlay, hud, &texts);
                std::string where = std::to_string(extent.width) + "x" + std::to_string(extent.height) +
                                    (help ? " help" : "") + (legend ? " legend" : "");
                ASSERT_GT(texts.size(), 10u) << where;
                for (size_t i = 0; i < texts.size(); ++i) {
                    const OverlayBox& a = texts[i].box;
                    EXPECT_GE(a.x0, 0) << where << ": " << texts[i].text;
                    EXPECT_GE(a.y0, 0) << where << ": " << texts[i].text;
                    EXPECT_LE(a.x1, float(extent.width)) << where << ": " << texts[i].text;
                    EXPECT_LE(a.y1, float(extent.height)) << where << ": " << texts[i].text;
                    if (legend) EXPECT_FALSE(a.overlaps(taken)) << where << ": '" << texts[i].text << "' covers the legend";
                    for (size_t j = i + 1; j < texts.size(); ++j)
                        EXPECT_FALSE(a.overlaps(texts[j].box))
                            << where << ": '" << texts[i].text << "' overlaps '" << texts[j].text << "'";
                }
            }
}

TEST(Hud, ForwardRowNamesEverythingItHostsAndLongTextIsCutWithAnEllipsis) {
    HudState hud = worst_case_hud({1920, 1080}, false, "r");
    Overlay overlay;
    std::vector<HudText> texts;
    draw_hud(overlay, hud, &texts);
    bool forward = false, resolve = false;
    for (const HudText& t : texts) forward |= t.text == "+ light loop", resolve |= t.text == "+ quad mip";
    EXPECT_TRUE(forward) << "forward's row should read '+ light loop'";
    EXPECT_TRUE(resolve) << "resolve's row should read '+ quad mip'";

    EXPECT_EQ(fit_text("short", 1000, 1), "short");
    std::string cut = fit_text("a rather long line of text", Overlay::text_width("a rather", 1), 1);
    EXPECT_EQ(cut.substr(cut.size() - 3), "...");
    EXPECT_LE(Overlay::text_width(cut, 1), Overlay::text_width("a rather", 1));
}

// Under visibility the shading pass hosts the quad mip and the light loop: its row says so after
// its derivatives' variant, and resolve's row no longer claims the mip.
TEST(Hud, VisibilityShadeRowNamesWhatItHosts) {
    HudState hud = worst_case_hud({1920, 1080}, false, "r");
    hud.plan.shading.shading = Shading::visibility;
    hud.plan.shading.derivatives = Variant::subgroup;
    hud.plan.shading.quad_mip = true;
    Overlay overlay;
    std::vector<HudText> texts;
    draw_hud(overlay, hud, &texts);
    bool shade = false, resolve_mip = false, forward = false;
    for (const HudText& t : texts) {
        shade |= t.text == "subgroup + quad mip + light loop";
        resolve_mip |= t.text == "+ quad mip";
        forward |= t.text == "forward";
    }
    EXPECT_TRUE(shade) << "the visibility shade row should read 'subgroup + quad mip + light loop'";
    EXPECT_FALSE(resolve_mip) << "resolve's row claims the quad mip the shading pass wrote";
    EXPECT_FALSE(forward) << "no forward row under visibility";
}

// Under visibility the depth row says who rasterizes the pre-pass (--raster, the X key): the
// compute rasterizer's path, marked where auto took a measured verdict, or hardware.
TEST(Hud, VisibilityDepthRowNamesTheRasterizer) {
    auto depth_row = [](const Plan& plan) {
        HudState hud = worst_case_hud({1920, 1080}, false, "r");
        hud.plan.shading.shading = plan.shading.shading;
        hud.plan.raster = plan.raster;
        Overlay overlay;
        std::vector<HudText> texts;
        draw_hud(overlay, hud, &texts);
        for (size_t i = 0; i + 1 < texts.size(); ++i)
            if (texts[i].text == "depth") return texts[i + 1].text;
        return std::string("(no depth row)");
    };
    Plan plan;
    plan.shading.shading = Shading::visibility;
    EXPECT_EQ(depth_row(plan), "hardware");
    plan.raster.raster = Raster::compute;
    plan.raster.variant = Variant::subgroup;
    plan.raster.source = PlanSource::measured;
    EXPECT_EQ(depth_row(plan), "compute/subgroup*");
    plan.raster.variant = Variant::fallback;
    plan.raster.source = PlanSource::requested;
    EXPECT_EQ(depth_row(plan), "compute/fallback");
}

TEST(Hud, FrameHistoryKeepsTheLastFramesInOrder) {
    FrameHistory h;
    std::array<double, kTimerCount> sample{};
    for (int i = 0; i < int(FrameHistory::kFrames) + 5; ++i) {
        sample[size_t(Timer::frame)] = i;
        h.add(sample);
    }
    ASSERT_EQ(h.count, FrameHistory::kFrames);
    EXPECT_EQ(h.at(0)[size_t(Timer::frame)], 5.0f);
    EXPECT_EQ(h.at(FrameHistory::kFrames - 1)[size_t(Timer::frame)], float(FrameHistory::kFrames + 4));
}

}  // namespace

// The per-level counters in the triangles line: levels 0 up to the coarsest any draw chose, where a
// pass chose the levels (the meshlet path always; the indexed path where its cull pass ran, and
// with --cull off, where its level choice alone runs).
TEST(Hud, TrianglesLineListsDrawsAndTrianglesPerLevel) {
    Plan plan;
    plan.passes[size_t(PassId::cull)].variant = Variant::subgroup;
    GpuCounters frame{}, none{};
    frame.lod_draws[0] = 3, frame.lod_draws[2] = 1200;
    frame.lod_triangles[0] = 4500, frame.lod_triangles[2] = 20;
    frame.lod_meshlets[0] = 70, frame.lod_meshlets[2] = 1;
    EXPECT_EQ(lod_levels_text({plan, frame, none, 10000, 0, true}), ": draws 3 0 1,200, tris 4,500 0 20 per level");
    EXPECT_EQ(lod_levels_text({plan, frame, none, 10000, 0, false}), "") << "indexed, the cull pass did not run";
    plan.passes[size_t(PassId::cull)].variant = Variant::off;
    EXPECT_EQ(lod_levels_text({plan, frame, none, 10000, 0, false}), ": draws 3 0 1,200, tris 4,500 0 20 per level")
        << "indexed with --cull off: the levels are chosen all the same";
    plan.geometry = Geometry::meshlet;
    EXPECT_EQ(lod_levels_text({plan, frame, none, 10000, 0, false}),
              ": draws 3 0 1,200, tris 4,500 0 20, meshlets 70 0 1 per level");
    std::optional<HudLine> line = lod_hud_line({plan, frame, none, 10000, 0, false});
    ASSERT_TRUE(line);
    EXPECT_EQ(line->label, "LOD");
    EXPECT_EQ(line->spans.back().text, "draws 3 0 1,200, tris 4,500 0 20, meshlets 70 0 1 per level");
    EXPECT_TRUE(line->spans.back().within_panel) << "the list never widens the HUD";
}
