// The command line of the contract.
#include <gtest/gtest.h>

#include <algorithm>

#include "run/options.h"
#include "scoped_env.h"

namespace {

Options parse(std::vector<std::string> args) { return parse_options(args); }

TEST(Options, Defaults) {
    Options o = parse({});
    EXPECT_EQ(o.mode, Mode::window);
    EXPECT_EQ(o.width, 1280u);
    EXPECT_EQ(o.height, 720u);
    EXPECT_EQ(o.lights, 256u);
    EXPECT_EQ(o.frames, 60u);
    EXPECT_EQ(o.warmup, 10u);
    EXPECT_EQ(o.instances, 1u);
    EXPECT_EQ(o.plan[PassId::cull], Request::automatic);
    EXPECT_EQ(o.plan.view, ViewMode::shaded);
    EXPECT_EQ(o.plan.view_stage, Stage::fragment);
}

TEST(Options, ParsesEverything) {
    Options o = parse({"--headless", "--size", "640x360", "--lights", "4096", "--cull", "fallback", "--light-cull", "off",
                       "--mip", "subgroup", "--view", "first-last-lane", "--view-stage", "tess-eval", "--mask-stages",
                       "vertex,geometry", "--mask-ops", "quad,ballot", "--instances", "4", "--device", "1", "--light-loop", "fallback",
                       "--unique-meshes"});
    EXPECT_EQ(o.mode, Mode::headless);
    EXPECT_EQ(o.width, 640u);
    EXPECT_EQ(o.height, 360u);
    EXPECT_EQ(o.lights, 4096u);
    EXPECT_EQ(o.plan[PassId::cull], Request::fallback);
    EXPECT_EQ(o.plan[PassId::light_cull], Request::off);
    EXPECT_EQ(o.plan[PassId::mip], Request::subgroup);
    EXPECT_EQ(o.plan.view, ViewMode::first_last_lane);
    EXPECT_EQ(o.plan.view_stage, Stage::tess_eval);
    EXPECT_EQ(o.mask_stages, bit(Stage::vertex) | bit(Stage::geometry));
    EXPECT_EQ(o.mask_ops, bit(Op::quad) | bit(Op::ballot));
    EXPECT_EQ(o.instances, 4u);
    EXPECT_EQ(o.device, 1u);
    EXPECT_EQ(o.plan[PassId::light_loop], Request::fallback);
    EXPECT_TRUE(o.unique_meshes);
    EXPECT_FALSE(parse({"--headless"}).unique_meshes);
    EXPECT_EQ(parse({"--headless"}).plan[PassId::light_loop], Request::automatic);
}

TEST(Options, RejectsBadInput) {
    const std::vector<std::vector<std::string>> bad = {
        {"--bogus"},           {"--size", "12x"},        {"--size", "0x0"},      {"--size", "99999x10"},
        {"--frames", "-3"},    {"--frames"},             {"--cull", "fast"},     {"--view", "lanes"},
        {"--mask-ops", "x"},   {"--mask-stages", "vertex,"}, {"--lights", "70000"}, {"--instances", "0"},
        {"--headless", "--info"}, {"--compare"},         {"--out", "x"},         {"--headless", "--frames", "5", "--warmup", "5"},
        {"--light-loop", "off"}, {"--light-loop", "scalar"}, {"--light-loop"},
    };
    for (const auto& args : bad) EXPECT_THROW(parse(args), UsageError) << args[0];
}

}  // namespace

namespace {

// The usage error parsing `args` throws; "" where they are accepted.
std::string usage_error(const std::vector<std::string>& args) {
    try {
        parse_options(args);
    } catch (const UsageError& e) {
        return e.what();
    }
    return "";
}

// The ray tracer's refit from the environment (docs/ray-tracing.md, "Refitting"; tools/gpu_bench.sh's
// refit suite): on or unset refits, off forces the full rebuild, anything else is one usage error.
TEST(Options, RayRefitFromTheEnvironment) {
    EXPECT_TRUE(parse({}).plan.ray_refit);
    {
        ScopedEnv refit("SGD_RAY_REFIT", "off");
        EXPECT_FALSE(parse({}).plan.ray_refit);
    }
    {
        ScopedEnv refit("SGD_RAY_REFIT", "on");
        EXPECT_TRUE(parse({}).plan.ray_refit);
    }
    ScopedEnv refit("SGD_RAY_REFIT", "0");
    std::string error = usage_error({});
    EXPECT_NE(error.find("SGD_RAY_REFIT must be on or off, not '0'"), std::string::npos) << error;
}

// The compute rasterizer's path from the environment (docs/raster.md; tools/gpu_bench.sh's raster
// suite): subgroup or fallback for the rasterizer alone, auto or unset leaves it to the plan, and
// anything else is one clear usage error.
TEST(Options, RasterPathFromTheEnvironment) {
    EXPECT_EQ(parse({}).plan.raster_variant, Request::automatic);
    {
        ScopedEnv path("SGD_RASTER_PATH", "fallback");
        EXPECT_EQ(parse({}).plan.raster_variant, Request::fallback);
    }
    {
        ScopedEnv path("SGD_RASTER_PATH", "subgroup");
        EXPECT_EQ(parse({}).plan.raster_variant, Request::subgroup);
    }
    {
        ScopedEnv path("SGD_RASTER_PATH", "auto");
        EXPECT_EQ(parse({}).plan.raster_variant, Request::automatic);
    }
    ScopedEnv path("SGD_RASTER_PATH", "ballot");
    std::string error = usage_error({});
    EXPECT_NE(error.find("SGD_RASTER_PATH must be auto, subgroup or fallback"), std::string::npos) << error;
}

}  // namespace

TEST(Options, UnknownOptionNamesTheClosestOne) {
    EXPECT_NE(usage_error({"--sise", "640x360"}).find("did you mean --size?"), std::string::npos);
    EXPECT_NE(usage_error({"--light-cul", "off"}).find("did you mean --light-cull?"), std::string::npos);
    EXPECT_NE(usage_error({"--screnshot", "a.png"}).find("did you mean --screenshot?"), std::string::npos);
    EXPECT_NE(usage_error({"--vaildate"}).find("did you mean --validate?"), std::string::npos);
    // Nothing close: no guess, only the pointer to --help.
    std::string far = usage_error({"--frobnicate"});
    EXPECT_NE(far.find("unknown option '--frobnicate'"), std::string::npos);
    EXPECT_EQ(far.find("did you mean"), std::string::npos) << far;
}

TEST(Options, EveryDocumentedOptionIsKnownAndParses) {
    // The suggestion list is read from --help: it must hold every pass option and the modes.
    std::vector<std::string> known = known_options();
    for (const char* name : {"--headless", "--info", "--compare", "--size", "--view-stage", "--cull", "--light-cull",
                             "--mip", "--light-loop", "--help", "--version", "--soak-frames"})
        EXPECT_NE(std::find(known.begin(), known.end(), name), known.end()) << name;
    for (const std::string& name : known) EXPECT_EQ(closest_option(name), name);
}

TEST(Options, ProbeGoesWithInfoOnly) {
    EXPECT_TRUE(parse_options({"--info", "--probe"}).probe);
    EXPECT_FALSE(parse_options({"--info"}).probe);
    std::vector<std::string> known = known_options();
    EXPECT_NE(std::find(known.begin(), known.end(), "--probe"), known.end());
    for (const char* mode : {"--headless", "--compare"}) {
        std::vector<std::string> args = {mode, "--probe"};
        if (std::string(mode) == "--compare") args.insert(args.end(), {"--out", "x"});
        EXPECT_NE(usage_error(args).find("--probe is only used with --info"), std::string::npos) << mode;
    }
}
