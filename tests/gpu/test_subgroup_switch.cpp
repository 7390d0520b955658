// The switched shaders' twins (shaders/subgroup_switch.glsl) through the executable, validated:
// every pass that ballot, arithmetic or quad operations serve asked for its fallback, once with
// those operations masked, where the light cull, exposure and depth-pyramid passes load their
// NAME.no_subgroup SPIR-V (no subgroup capability, as a device lacking those operations needs), and
// once without, where they run NAME.switch with USE_SUBGROUP false. The oracle is the other run:
// the frame and the depth-pyramid view must be the same bytes, and the counters the same.
#include <gtest/gtest.h>

#include "gpu/harness.h"

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

}  // namespace
