// The foundation, end to end on the Vulkan device: a validated headless render of the default
// scene, its report, and an image check against what the camera must see.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "gpu/harness.h"
#include "scoped_env.h"
#include "scene/camera.h"
#include "scene/scene.h"

namespace {

constexpr const char* kSizeArgument = "256x144";

TEST(Render, DefaultSceneIsValidationCleanAndReportFollowsContract) {
    REQUIRE_DRAWING();
    std::string dir = test_dir("render");
    DemoRun run = run_demo({"--headless", "--validate", "--size", kSizeArgument, "--frames", "3", "--warmup", "1",
                            "--report", dir + "/r.json", "--screenshot", dir + "/s.png"});
    ASSERT_EQ(run.exit_code, 0) << run.output;
    EXPECT_EQ(validation_lines(run.output), 0) << run.output;

    nlohmann::json r = read_json(dir + "/r.json");
    ASSERT_TRUE(r.is_object()) << "report is not JSON";
    EXPECT_EQ(r["schema"], 1);
    for (const char* key : {"device", "subgroup", "plan", "scene", "frame", "timings_ms", "counters", "validation", "outputs"})
        EXPECT_TRUE(r.contains(key)) << key;
    EXPECT_EQ(r["validation"]["enabled"], true);
    EXPECT_EQ(r["validation"]["messages"], 0);
    EXPECT_EQ(r["frame"]["width"], 256);
    EXPECT_EQ(r["frame"]["frames"], 3);
    EXPECT_GT(r["scene"]["triangles"].get<uint64_t>(), 100000u);
    for (const char* pass : {"depth", "forward", "frame"}) {
        ASSERT_TRUE(r["timings_ms"].contains(pass)) << pass;
        const auto& t = r["timings_ms"][pass];
        EXPECT_LE(t["min"].get<double>(), t["median"].get<double>());
        EXPECT_LE(t["median"].get<double>(), t["max"].get<double>());
        EXPECT_GT(t["max"].get<double>(), 0.0);
        // The measured frames it ran in: every one, for these passes (at most the frames rendered).
        EXPECT_EQ(t["frames"], r["timings_ms"]["frame"]["frames"]) << pass;
        EXPECT_GE(t["frames"].get<int>(), 1) << pass;
        EXPECT_LE(t["frames"].get<int>(), 3) << pass;
    }
    if (int sg = expected_subgroup_size()) EXPECT_EQ(r["subgroup"]["size"], sg);
    EXPECT_EQ(r["outputs"]["screenshot"], dir + "/s.png");
}

// Not blank, and geometry where the camera looks. The oracle is the CPU projection of the
// scene's bounding box through the same default camera: every non-clear pixel must fall inside
// the projected box, and the box must be mostly covered.
TEST(Render, ScreenshotShowsLitGeometryWhereTheCameraLooks) {
    REQUIRE_DRAWING();
    std::string dir = test_dir("image");
    DemoRun run = run_demo({"--headless", "--size", kSizeArgument, "--frames", "2", "--warmup", "1", "--screenshot", dir + "/s.png"});
    ASSERT_EQ(run.exit_code, 0) << run.output;
    Png png = read_png(dir + "/s.png");
    ASSERT_EQ(png.width, 256);
    ASSERT_EQ(png.height, 144);

    Scene scene = load_scene(SGD_DEFAULT_SCENE);
    Camera camera = default_camera(scene.bounds_min, scene.bounds_max);
    glm::mat4 view_proj = camera.projection(256.0f / 144.0f) * camera.view();
    glm::vec2 lo(1e9f), hi(-1e9f);
    for (int corner = 0; corner < 8; ++corner) {
        glm::vec3 p((corner & 1) ? scene.bounds_max.x : scene.bounds_min.x, (corner & 2) ? scene.bounds_max.y : scene.bounds_min.y,
                    (corner & 4) ? scene.bounds_max.z : scene.bounds_min.z);
        glm::vec4 clip = view_proj * glm::vec4(p, 1.0f);
        ASSERT_GT(clip.w, 0.0f) << "the default camera is inside the scene's box";
        glm::vec2 pixel = (glm::vec2(clip) / clip.w * 0.5f + 0.5f) * glm::vec2(256, 144);
        lo = glm::min(lo, pixel);
        hi = glm::max(hi, pixel);
    }

    const uint8_t* clear = png.at(0, 0);
    int outside = 0, inside_total = 0, inside_geometry = 0;
    std::vector<int> histogram(256, 0);
    for (int y = 0; y < png.height; ++y)
        for (int x = 0; x < png.width; ++x) {
            const uint8_t* p = png.at(x, y);
            bool geometry = p[0] != clear[0] || p[1] != clear[1] || p[2] != clear[2];
            bool in_box = x + 0.5f >= lo.x - 1 && x + 0.5f <= hi.x + 1 && y + 0.5f >= lo.y - 1 && y + 0.5f <= hi.y + 1;
            outside += geometry && !in_box;
            inside_total += in_box;
            inside_geometry += geometry && in_box;
            histogram[(p[0] + p[1] + p[2]) / 3]++;
        }
    EXPECT_EQ(outside, 0) << "geometry outside the projected scene bounds";
    EXPECT_GT(inside_geometry, inside_total / 2) << "the projected scene box is mostly empty";
    int distinct = 0;
    for (int h : histogram) distinct += h > 0;
    EXPECT_GT(distinct, 40) << "the image has too few brightness levels to be a lit, textured scene";
}

// The bundled scene with every pass on its subgroup path (cull, light culling, light loop, exposure,
// occlusion's depth pyramid, mip; ray tracing stays at auto, the fallback on lavapipe, whose six ray-tracing stages have no
// subgroups: RayTrace.* cover it), validated (synchronization validation included), against the
// same frame with every pass on its fallback. Oracles: the plan says what
// was asked; both runs cull the same triangles and build light lists with the same number of
// entries (subgroup and fallback compute the same sets); the frames agree within what the order
// of a tile's light list changes in float sums (max 2 steps per channel, mean well under 1). The
// quad mip is exact (docs/quad-mip.md): a third run, every pass on subgroup but the mip on the
// fallback, draws the same frame, so its mip dump must equal the subgroup run's byte for byte.
TEST(Render, EverySubgroupPathDrawsTheBundledSceneLikeEveryFallback) {
    REQUIRE_DRAWING();
    std::string dir = test_dir("paths");
    nlohmann::json reports[3];
    Png frames[3], mips[3];
    const char* variants[3] = {"subgroup", "fallback", "subgroup-mip-fallback"};
    for (int i = 0; i < 3; ++i) {
        std::string v = variants[i], passes = i == 2 ? "subgroup" : v, mip = i == 2 ? "fallback" : v;
        DemoRun run = run_demo({"--headless", "--validate", "--size", kSizeArgument, "--frames", "2", "--warmup", "1", "--cull", passes,
                                "--light-cull", passes, "--light-loop", passes, "--exposure", passes, "--occlusion", passes, "--mip", mip,
                                "--report", dir + "/" + v + ".json", "--screenshot", dir + "/" + v + ".png", "--mip-dump",
                                dir + "/" + v + "_mip.png"});
        ASSERT_EQ(run.exit_code, 0) << run.output;  // 5 would mean validation messages
        EXPECT_EQ(validation_lines(run.output), 0) << run.output;
        reports[i] = read_json(dir + "/" + v + ".json");
        ASSERT_TRUE(reports[i].is_object());
        EXPECT_EQ(reports[i]["validation"]["enabled"], true);
        EXPECT_EQ(reports[i]["validation"]["messages"], 0);
        for (const char* pass : {"cull", "light_cull", "light_loop", "exposure", "occlusion"})
            EXPECT_EQ(reports[i]["plan"][pass]["variant"], passes) << pass;
        EXPECT_EQ(reports[i]["plan"]["mip"]["variant"], mip);
        if (int sg = expected_subgroup_size()) EXPECT_EQ(reports[i]["subgroup"]["size"], sg);
        frames[i] = read_png(dir + "/" + v + ".png");
        mips[i] = read_png(dir + "/" + v + "_mip.png");
        ASSERT_EQ(frames[i].width, 256);
        ASSERT_EQ(mips[i].width, 128);
    }
    const nlohmann::json &sub = reports[0]["counters"], &fall = reports[1]["counters"];
    EXPECT_EQ(sub["triangles_in"], fall["triangles_in"]);
    EXPECT_EQ(sub["triangles_visible"], fall["triangles_visible"]);
    EXPECT_LT(sub["triangles_visible"].get<uint64_t>(), sub["triangles_in"].get<uint64_t>());
    EXPECT_GT(sub["triangles_visible"].get<uint64_t>(), 0u);
    EXPECT_EQ(sub["light_list_entries"], fall["light_list_entries"]);
    EXPECT_GT(sub["light_list_entries"].get<uint64_t>(), 0u);
    EXPECT_EQ(sub["light_list_overflow"], fall["light_list_overflow"]);

    double sum = 0;
    int worst = 0;
    for (size_t k = 0; k < frames[0].rgba.size(); ++k) {
        if (k % 4 == 3) continue;
        int d = std::abs(int(frames[0].rgba[k]) - int(frames[1].rgba[k]));
        worst = std::max(worst, d);
        sum += d;
    }
    double mean = sum / (double(frames[0].width) * frames[0].height * 3);
    EXPECT_LE(worst, 2) << "frames differ by more than light-list order can explain";
    EXPECT_LT(mean, 0.05);

    printf("[ paths ] frame: max %d, mean %.4f steps\n", worst, mean);
    EXPECT_NOT_BLANK(frames[0].rgba);

    // The quad mip against the fallback's on the same frame: equal, and not blank.
    EXPECT_TRUE(frames[2].rgba == frames[0].rgba) << "the mip variant changed the frame";
    EXPECT_TRUE(mips[2].rgba == mips[0].rgba) << differing_pixels(mips[2], mips[0]) << " mip texels differ";
    EXPECT_NOT_BLANK(mips[0].rgba);
}

// Pipelines compiled ahead on threads of their own (SGD_PIPELINE_COMPILE=ahead, vk/resources.h
// compile_ahead) draw the frame compiled at first use draws, byte for byte, validation clean (the
// layer checks the creates from several threads); the report says which way they were
// compiled, and ahead starts more compiles than the frame uses (every variant made). Without the
// variable a CPU device compiles at first use and a GPU ahead (Context::compile_ahead): the first
// run here is the default's. Visibility shading: graphics (the pre-pass), compute and ray-tracing
// pipelines in one frame.
TEST(Render, PipelinesCompiledAheadDrawTheFrameCompiledAtFirstUse) {
    REQUIRE_DRAWING();
    std::string dir = test_dir("compile-ahead");
    Png frames[2];
    for (int ahead = 0; ahead < 2; ++ahead) {
        ScopedEnv mode("SGD_PIPELINE_COMPILE", ahead ? "ahead" : "");
        std::string name = dir + (ahead ? "/ahead" : "/default");
        DemoRun run = run_demo({"--headless", "--validate", "--size", kSizeArgument, "--frames", "2", "--warmup", "1",
                                "--shading", "visibility", "--report", name + ".json", "--screenshot", name + ".png"});
        ASSERT_EQ(run.exit_code, 0) << run.output;
        EXPECT_EQ(validation_lines(run.output), 0) << run.output;
        nlohmann::json report = read_json(name + ".json");
        nlohmann::json pipelines = report["pipelines"];
        std::string expected = ahead ? "ahead" : report["device"]["type"] == "cpu" ? "first-use" : "ahead";
        ASSERT_EQ(pipelines["compile"], expected) << report["device"];
        EXPECT_GT(pipelines["compiled"].get<int>(), 5);
        if (pipelines["compile"] == "ahead")
            EXPECT_GT(pipelines["started_ahead"].get<int>(), pipelines["compiled"].get<int>());
        else
            EXPECT_EQ(pipelines["started_ahead"], 0);
        frames[ahead] = read_png(name + ".png");
    }
    if (read_json(dir + "/default.json")["pipelines"]["compile"] != "first-use")
        GTEST_SKIP() << "this device compiles ahead by default: no first-use frame to compare";
    EXPECT_NOT_BLANK(frames[0].rgba);
    EXPECT_TRUE(frames[1].rgba == frames[0].rgba) << differing_pixels(frames[1], frames[0]) << " pixels differ";
}

TEST(Info, ReportsLavapipeSubgroupSize) {
    std::string dir = test_dir("info");
    DemoRun run = run_demo({"--info", "--report", dir + "/info.json"});
    ASSERT_EQ(run.exit_code, 0) << run.output;
    EXPECT_NE(run.output.find("Subgroup    size"), std::string::npos) << run.output;
    nlohmann::json r = read_json(dir + "/info.json");
    ASSERT_TRUE(r.is_object());
    if (int sg = expected_subgroup_size()) {
        EXPECT_EQ(r["subgroup"]["size"], sg);
        EXPECT_NE(run.output.find("size " + std::to_string(sg)), std::string::npos) << run.output;
    }
    EXPECT_TRUE(r["plan"].contains("cull"));
}

}  // namespace
