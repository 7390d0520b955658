// The foundation, end to end on the Vulkan device: a validated headless render of the default
// scene, its report, and an image check against what the camera must see.
#include <gtest/gtest.h>

#include "gpu/harness.h"

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

// Not blank, and geometry where the camera looks: the default camera aims at the scene's
// bounding-box centre, so the middle of the frame is lit geometry, not the clear colour.
TEST(Render, ScreenshotShowsLitGeometryAtTheCentre) {
    std::string dir = test_dir("image");
    DemoRun run = run_demo({"--headless", "--size", kSize, "--frames", "2", "--warmup", "1", "--screenshot", dir + "/s.png"});
    ASSERT_EQ(run.exit_code, 0) << run.output;
    Png png = read_png(dir + "/s.png");
    ASSERT_EQ(png.width, 256);
    ASSERT_EQ(png.height, 144);
    const uint8_t clear[3] = {png.at(0, 0)[0], png.at(0, 0)[1], png.at(0, 0)[2]};
    int geometry = 0, centre_geometry = 0, centre_total = 0;
    std::vector<int> histogram(256, 0);
    for (int y = 0; y < png.height; ++y)
        for (int x = 0; x < png.width; ++x) {
            const uint8_t* p = png.at(x, y);
            bool is_clear = p[0] == clear[0] && p[1] == clear[1] && p[2] == clear[2];
            geometry += !is_clear;
            histogram[(p[0] + p[1] + p[2]) / 3]++;
            if (std::abs(x - png.width / 2) < png.width / 8 && std::abs(y - png.height / 2) < png.height / 8) {
                centre_total++;
                centre_geometry += !is_clear;
            }
        }
    EXPECT_GT(geometry, png.width * png.height / 2) << "less than half the frame is geometry";
    EXPECT_EQ(centre_geometry, centre_total) << "the centre of the view is not covered by geometry";
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
