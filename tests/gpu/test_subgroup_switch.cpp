// The switched shaders' twins (shaders/subgroup_switch.glsl) through the executable, validated:
// every pass that ballot, arithmetic or quad operations serve asked for its fallback, once with
// those operations masked, where the light cull, exposure and depth-pyramid passes load their
// NAME.no_subgroup SPIR-V (no subgroup capability, as a device lacking those operations needs), and
// once without, where they run NAME.switch with USE_SUBGROUP false. The oracle is the other run:
// the frame and the depth-pyramid view must be the same bytes, and the counters the same.
#include <gtest/gtest.h>

#include "gpu/harness.h"
#include "scoped_env.h"

namespace {

struct SwitchRun {
    nlohmann::json report;
    std::string png;
};

SwitchRun run_switch_case(const std::string& dir, const std::string& name, std::vector<std::string> extra) {
    std::vector<std::string> args = {"--headless", "--validate", "--scene", SGD_TEST_SCENES "/props.gltf", "--size", "160x90",
                                     "--frames", "3", "--warmup", "0", "--lights", "64",
                                     "--report", dir + "/" + name + ".json", "--screenshot", dir + "/" + name + ".png"};
    args.insert(args.end(), extra.begin(), extra.end());
    DemoRun r = run_demo(args);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(validation_lines(r.output), 0) << r.output;
    if (r.exit_code != 0) return {};
    return {read_json(dir + "/" + name + ".json"), file_bytes(dir + "/" + name + ".png")};
}

TEST(SubgroupSwitch, TwinsWithoutSubgroupOperationsDrawWhatTheSwitchedFallbacksDraw) {
    REQUIRE_DRAWING();
    std::string dir = test_dir("subgroup_switch");
    // Every pass those masks move to its fallback, asked for by name in both runs.
    const std::vector<std::string> fallbacks = {"--cull", "fallback", "--light-cull", "fallback", "--mip", "fallback",
                                                "--light-loop", "fallback", "--exposure", "fallback", "--occlusion", "fallback"};
    for (std::string view : {"", "depth-pyramid"}) {
        SCOPED_TRACE(view.empty() ? "frame" : view);
        std::vector<std::string> extra;
        if (!view.empty()) extra = {"--view", view};
        std::vector<std::string> masked_args = fallbacks, asked_args = fallbacks;
        masked_args.insert(masked_args.end(), {"--mask-ops", "ballot,arithmetic,quad"});
        masked_args.insert(masked_args.end(), extra.begin(), extra.end());
        asked_args.insert(asked_args.end(), extra.begin(), extra.end());
        SwitchRun masked = run_switch_case(dir, "masked" + view, masked_args);
        SwitchRun asked = run_switch_case(dir, "asked" + view, asked_args);
        ASSERT_FALSE(masked.png.empty());
        ASSERT_FALSE(asked.png.empty());
        for (const char* pass : {"cull", "light_cull", "mip", "light_loop", "exposure", "occlusion"}) {
            EXPECT_EQ(masked.report["plan"][pass]["variant"], "fallback") << pass;
            EXPECT_EQ(asked.report["plan"][pass]["variant"], "fallback") << pass;
        }
        EXPECT_EQ(masked.report["subgroup"]["masked_operations"].size(), 3u);
        Png frame = read_png(dir + "/masked" + view + ".png");
        EXPECT_NOT_BLANK(frame.rgba);
        EXPECT_TRUE(masked.png == asked.png) << "the twins' image differs from the switched fallbacks' in "
                                             << differing_pixels(frame, read_png(dir + "/asked" + view + ".png")) << " pixels";
        for (SwitchRun* r : {&masked, &asked}) r->report["counters"]["ray_trace"].erase("rays_per_second");  // a timing
        EXPECT_EQ(masked.report["counters"], asked.report["counters"]);
    }
}

// Each switched shader's two paths, from the same SPIR-V, and its twin: the cull's test and scans
// (cull.comp, cull_scan.comp) on the indexed path, the meshlet path's late list
// (meshlet_late_list.comp), both with occlusion so that the scans run, the dense ray launch's
// lists (ray_lists.comp, SGD_RAY_LISTS) on the visibility path's surfaces and the forward path's
// camera surface, and the compute rasterizer (raster.comp, SGD_RASTER_PATH) on both geometries.
// One run plans every switched pass's subgroup path, one its fallback (NAME.switch with
// USE_SUBGROUP false), one the fallback with the operations masked (the twins, NAME.no_subgroup);
// the other passes those masks move are asked for their fallback in all three. Each path keeps
// the same triangles or meshlets in the same order, lists the same rays and writes the same
// visibility words, so the frame and the counters must be the same bytes in all three.
TEST(SubgroupSwitch, EachSwitchedSubgroupPathDrawsWhatItsFallbackAndTwinDraw) {
    REQUIRE_DRAWING();
    std::string dir = test_dir("subgroup_switch_paths");
    const char* passes[] = {"cull", "occlusion"};
    struct Case {
        std::string geometry, shading;
        bool compute_raster;
    };
    for (const Case& c : {Case{"indexed", "visibility", true}, Case{"meshlet", "forward", false}, Case{"meshlet", "visibility", true}}) {
        std::string name = c.geometry + "-" + c.shading;
        SCOPED_TRACE(name);
        if (c.geometry == "meshlet" && !no_mesh_shaders_reason().empty()) continue;  // MeshletGpu.* say why
        std::vector<SwitchRun> runs;
        for (std::string path : {"subgroup", "fallback", "twin"}) {
            std::string variant = path == "twin" ? "fallback" : path;
            ScopedEnv lists("SGD_RAY_LISTS", variant);
            ScopedEnv raster_path("SGD_RASTER_PATH", c.compute_raster ? variant : "auto");
            std::vector<std::string> args = {"--geometry", c.geometry, "--shading", c.shading};
            for (const char* pass : passes) args.insert(args.end(), {std::string("--") + pass, variant});
            args.insert(args.end(), {"--light-cull", "fallback", "--light-loop", "fallback", "--exposure", "fallback"});
            if (c.shading == "visibility") args.insert(args.end(), {"--materials", "fallback"});  // visibility shading's
            if (c.compute_raster) args.insert(args.end(), {"--raster", "compute"});
            if (path == "twin") args.insert(args.end(), {"--mask-ops", "ballot,arithmetic"});
            runs.push_back(run_switch_case(dir, name + "-" + path, args));
            ASSERT_FALSE(runs.back().png.empty()) << path;
            nlohmann::json& plan = runs.back().report["plan"];
            for (const char* pass : passes) EXPECT_EQ(plan[pass]["variant"], variant) << path << " " << pass;
            EXPECT_EQ(plan["ray_trace"]["lists"], variant) << path;
            nlohmann::json& counters = runs.back().report["counters"];
            counters["ray_trace"].erase("rays_per_second");  // a timing
            if (c.compute_raster) {
                EXPECT_EQ(plan["raster"]["variant"], variant) << path;
                EXPECT_EQ(counters["raster"]["compute_path"], variant) << path;
                counters["raster"].erase("compute_path");
                counters["raster"].erase("dispatch_ms");  // timings
            }
        }
        EXPECT_NOT_BLANK(read_png(dir + "/" + name + "-subgroup.png").rgba);
        EXPECT_GT(runs[0].report["counters"]["ray_trace"]["rays"].value("shadow", 0), 0) << "no ray listed";
        if (c.compute_raster) EXPECT_GT(runs[0].report["counters"]["raster"].value("triangles_compute", 0), 0) << "nothing rasterized in compute";
        for (size_t i = 1; i < runs.size(); ++i) {
            EXPECT_TRUE(runs[i].png == runs[0].png) << (i == 1 ? "fallback" : "twin") << " differs from the subgroup path";
            EXPECT_EQ(runs[i].report["counters"], runs[0].report["counters"]) << (i == 1 ? "fallback" : "twin");
        }
    }
}

}  // namespace
