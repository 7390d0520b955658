// The foundation, end to end on the Vulkan device: a validated headless render of the default
// scene, its report, and an image check against what the camera must see.
#include <gtest/gtest.h>

#include "gpu/harness.h"
#include "scene/camera.h"
#include "scene/scene.h"

namespace {

constexpr const char* kSize = "256x144";

TEST(Render, DefaultSceneIsValidationCleanAndReportFollowsContract) {
    std::string dir = test_dir("render");
    DemoRun run = run_demo({"--headless", "--validate", "--size", kSize, "--frames", "3", "--warmup", "1",
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
    }
    if (int sg = expected_subgroup_size()) EXPECT_EQ(r["subgroup"]["size"], sg);
    EXPECT_EQ(r["outputs"]["screenshot"], dir + "/s.png");
}

// Not blank, and geometry where the camera looks. The oracle is the CPU projection of the
// scene's bounding box through the same default camera: every non-clear pixel must fall inside
// the projected box, and the box must be mostly covered.
TEST(Render, ScreenshotShowsLitGeometryWhereTheCameraLooks) {
    std::string dir = test_dir("image");
    DemoRun run = run_demo({"--headless", "--size", kSize, "--frames", "2", "--warmup", "1", "--screenshot", dir + "/s.png"});
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
