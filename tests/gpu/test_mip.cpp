// The half-resolution mip (docs/quad-mip.md): the quad path written by the forward fragment shader,
// the compute fallback, --mip-dump, the `mip` view and the plan's switch to the fallback.
//
// Oracle: the CPU 2x2 box filter of the finished frame (the colour target's stored 8-bit values).
// The quad mip's alpha is its coverage (real pixels of the storing triangle / 4, 0 where no
// triangle stored), read back directly from the GPU image: the PNG dump is written opaque.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "gpu/harness.h"
#include "passes/mip_pass.h"
#include "render/renderer.h"
#include "scene/scene.h"

namespace {

// Scenes the build generates (tools/gen_scene.cpp --test-scenes): props (textured, several
// primitives per mesh, large triangles: mostly whole quads) and knot (a dense closed mesh: mostly
// quads split along edges). The Khronos truck and Suzanne, where present, are the samples suite.
const std::string kProps = SGD_TEST_SCENES "/props.gltf";
const std::string kKnot = SGD_TEST_SCENES "/knot.gltf";
const std::string kTruck = SGD_GLTF_SAMPLES_DIR "/CesiumMilkTruck/glTF/CesiumMilkTruck.gltf";
const std::string kSuzanne = SGD_GLTF_SAMPLES_DIR "/Suzanne/glTF/Suzanne.gltf";
const std::string kDefaultScene = SGD_DEFAULT_SCENE;
// The forward pass's clear colour as stored (0.05, 0.06, 0.08 in UNORM8).
constexpr uint8_t kClear[3] = {13, 15, 20};
// Separator colour of the mip view (mip_view.comp: 1.0, 0.8, 0.1).
constexpr uint8_t kSeparator[3] = {255, 204, 26};
// Lower bound for the PSNR of the quad mip against the fallback over the whole image (RGB). The
// two differ only on texels whose quad is split between triangles (alpha < 1), where the quad mip
// holds one triangle's partial average. Those texels are a larger share of a small frame: measured
// at these test sizes, 26.5 dB (default scene), 29.8-30.2 dB (props), 27.2-29.0 dB (knot grid), and in
// the samples suite 27.3-27.5 dB (truck), 32-34 dB (Suzanne grid); the
// default scene reaches 29.5 dB at 640x360 and 32.4 dB at 1280x720 (docs/quad-mip.md).
constexpr double kMinPsnrDb = 24.0;

struct Image8 {
    uint32_t width = 0, height = 0;
    std::vector<uint8_t> rgba;
    const uint8_t* at(uint32_t x, uint32_t y) const { return &rgba[(size_t(y) * width + x) * 4]; }
};

struct Frame {
    Image8 color, mip;
};

// Renders one frame with the real Renderer (warm-up frame first, as a headless run does) and reads
// back the colour target and the mip with its alpha.
Frame render(const Context& ctx, const Scene& scene, VkExtent2D extent, const Plan& plan) {
    RendererConfig config;
    config.extent = extent;
    config.lights = 64;
    config.plan = plan;
    Renderer renderer(ctx, scene, config);
    VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    alloc.commandPool = ctx.command_pool;
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = 1;
    VkCommandBuffer cmd;
    VK_CHECK(vkAllocateCommandBuffers(ctx.device, &alloc, &cmd));
    for (uint32_t frame = 0; frame < 2; ++frame) {
        VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
        begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
        VK_CHECK(vkBeginCommandBuffer(cmd, &begin));
        renderer.record(cmd, 0, frame, renderer.default_view());
        VK_CHECK(vkEndCommandBuffer(cmd));
        VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
        submit.commandBufferCount = 1;
        submit.pCommandBuffers = &cmd;
        VK_CHECK(vkQueueSubmit(ctx.queue, 1, &submit, VK_NULL_HANDLE));
        VK_CHECK(vkQueueWaitIdle(ctx.queue));
    }
    vkFreeCommandBuffers(ctx.device, ctx.command_pool, 1, &cmd);
    Frame f;
    f.color = {extent.width, extent.height, renderer.read_color()};
    f.mip = {std::max(1u, extent.width / 2), std::max(1u, extent.height / 2), renderer.read_mip()};
    return f;
}

Plan plan_with_mip(const Context& ctx, Request mip) {
    PlanRequest request;
    request[PassId::mip] = mip;
    return make_plan(ctx.subgroup, ctx.features, request);
}

bool is_clear(const uint8_t* p) { return p[0] == kClear[0] && p[1] == kClear[1] && p[2] == kClear[2]; }

// The four frame pixels of mip texel (x, y).
std::array<const uint8_t*, 4> quad_pixels(const Image8& color, uint32_t x, uint32_t y) {
    return {color.at(2 * x, 2 * y), color.at(2 * x + 1, 2 * y), color.at(2 * x, 2 * y + 1), color.at(2 * x + 1, 2 * y + 1)};
}

// Whether `value` is the average of some `k` of the 4 pixels, within 1 per RGB channel.
bool is_average_of_some(const std::array<const uint8_t*, 4>& pixels, int k, const uint8_t* value) {
    for (uint32_t subset = 1; subset < 16; ++subset) {
        if (std::popcount(subset) != k) continue;
        bool match = true;
        for (int c = 0; c < 3 && match; ++c) {
            double sum = 0;
            for (int i = 0; i < 4; ++i)
                if (subset & (1u << i)) sum += pixels[i][c];
            match = std::abs(sum / k - value[c]) <= 1.0;
        }
        if (match) return true;
    }
    return false;
}

// |box filter - texel| in 8-bit steps, worst RGB channel. The box filter of 8-bit values is a
// multiple of 1/4 step; a correct mip stores it rounded to the nearest step, so this is <= 0.5
// (ties may round either way). That is tighter than the required 1/255 and catches a mip that
// averages unquantized colours (off by up to one more half step).
double rgb_difference_to_box_filter(const Image8& color, const Image8& mip, uint32_t x, uint32_t y) {
    auto pixels = quad_pixels(color, x, y);
    double worst = 0;
    for (int c = 0; c < 3; ++c) {
        double box = (pixels[0][c] + pixels[1][c] + pixels[2][c] + pixels[3][c]) / 4.0;
        worst = std::max(worst, std::abs(box - mip.at(x, y)[c]));
    }
    return worst;
}

constexpr double kRounding = 0.5;  // steps; see rgb_difference_to_box_filter

double psnr_rgb(const Image8& a, const Image8& b) {
    double squared = 0;
    for (size_t i = 0; i < a.rgba.size(); ++i)
        if (i % 4 != 3) squared += double(int(a.rgba[i]) - int(b.rgba[i])) * (int(a.rgba[i]) - int(b.rgba[i]));
    double mse = squared / (double(a.width) * a.height * 3);
    return mse == 0 ? INFINITY : 10.0 * std::log10(255.0 * 255.0 / mse);
}

struct MipCase {
    const char* name;
    const std::string* scene;
    uint32_t instances;
    VkExtent2D extent;
    bool edge_heavy;  // small triangles: most geometry texels are split between triangles
};

void PrintTo(const MipCase& c, std::ostream* out) {
    *out << c.name << " " << c.extent.width << "x" << c.extent.height;
}

class QuadMip : public testing::TestWithParam<MipCase> {};

// The quad mip against the CPU box filter of the frame it was shaded with, texel by texel:
// - alpha 1 (one triangle covered all four pixels): equals the box filter within half a step
//   (the required 1/255, and tight enough to catch averaging unquantized colours);
// - alpha k/4 < 1 (a quad split along an edge): the average of some k of the four frame pixels;
// - alpha 0 (no triangle stored): all four pixels are background, and the texel is the clear;
// so no texel where the frame has geometry is left unwritten.
// Then the fallback of the same frame: identical frame, box filter everywhere, and the PSNR.
TEST_P(QuadMip, MatchesBoxFilterOfTheFrameAndTheFallback) {
    REQUIRE_DRAWING();
    const MipCase& param = GetParam();
    // The generated scenes are always built; the samples suite is only registered where the
    // samples exist, so a missing file here is a failure, not a skip.
    ASSERT_TRUE(std::filesystem::exists(*param.scene)) << *param.scene << " not found";
    Context ctx;
    ContextOptions options;
    options.validate = true;
    create_context(ctx, options);
    uint32_t messages_before = validation_message_count();
    if (int sg = expected_subgroup_size()) ASSERT_EQ(ctx.subgroup.size, uint32_t(sg));
    Plan plan = plan_with_mip(ctx, Request::subgroup);
    ASSERT_EQ(plan[PassId::mip].variant, Variant::subgroup) << plan[PassId::mip].reason;

    Scene scene = load_scene(*param.scene);
    if (param.instances > 1) replicate_grid(scene, param.instances);
    Frame quad = render(ctx, scene, param.extent, plan);
    ASSERT_EQ(quad.mip.width, param.extent.width / 2);
    ASSERT_EQ(quad.mip.height, param.extent.height / 2);

    uint32_t full = 0, partial = 0, background = 0, geometry_texels = 0;
    for (uint32_t y = 0; y < quad.mip.height; ++y)
        for (uint32_t x = 0; x < quad.mip.width; ++x) {
            auto pixels = quad_pixels(quad.color, x, y);
            bool geometry = !is_clear(pixels[0]) || !is_clear(pixels[1]) || !is_clear(pixels[2]) || !is_clear(pixels[3]);
            geometry_texels += geometry;
            const uint8_t* texel = quad.mip.at(x, y);
            uint8_t alpha = texel[3];
            if (alpha == 255) {
                ++full;
                ASSERT_LE(rgb_difference_to_box_filter(quad.color, quad.mip, x, y), kRounding) << "texel " << x << "," << y;
            } else if (alpha == 0) {
                ++background;
                ASSERT_FALSE(geometry) << "texel " << x << "," << y << " unwritten, but the frame has geometry there";
                ASSERT_TRUE(is_clear(texel)) << "background texel " << x << "," << y << " is not the clear colour";
            } else {
                ++partial;
                int covered = (alpha * 4 + 127) / 255;
                ASSERT_TRUE(covered >= 1 && covered <= 3 && std::abs(covered * 255 / 4.0 - alpha) <= 1.0)
                    << "alpha " << int(alpha) << " is not a quarter step";
                ASSERT_TRUE(is_average_of_some(pixels, covered, texel))
                    << "edge texel " << x << "," << y << " is not the average of " << covered << " of its pixels";
            }
        }
    printf("[ mip ] %s %ux%u, subgroup size %u: %u texels covered by one triangle, %u split along edges, %u background\n",
           param.name, param.extent.width, param.extent.height, ctx.subgroup.size, full, partial, background);
    // Not vacuous: both kinds of texel occur, in the proportion the scene is chosen for.
    EXPECT_GT(full, 0u);
    EXPECT_GT(partial, 0u);
    if (param.edge_heavy)
        EXPECT_GT(partial, geometry_texels / 2);
    else
        EXPECT_GT(full, geometry_texels / 2);
    EXPECT_GT(geometry_texels, quad.mip.width * quad.mip.height / 10);

    Frame fallback = render(ctx, scene, param.extent, plan_with_mip(ctx, Request::fallback));
    ASSERT_EQ(fallback.color.rgba, quad.color.rgba) << "the frame differs between the mip variants";
    for (uint32_t y = 0; y < fallback.mip.height; ++y)
        for (uint32_t x = 0; x < fallback.mip.width; ++x) {
            ASSERT_LE(rgb_difference_to_box_filter(fallback.color, fallback.mip, x, y), kRounding) << "fallback texel " << x << "," << y;
            ASSERT_EQ(fallback.mip.at(x, y)[3], 255);
        }
    double psnr = psnr_rgb(quad.mip, fallback.mip);
    printf("[ mip ] %s %ux%u: PSNR quad mip vs fallback %.2f dB (bound %.1f dB)\n", param.name, param.extent.width,
           param.extent.height, psnr, kMinPsnrDb);
    EXPECT_GT(psnr, kMinPsnrDb);
    EXPECT_EQ(validation_message_count(), messages_before) << "validation messages (printed above)";
}

INSTANTIATE_TEST_SUITE_P(Scenes, QuadMip,
                         testing::Values(MipCase{"default_scene", &kDefaultScene, 1, {256, 144}, true},
                                         MipCase{"props", &kProps, 1, {256, 144}, false},
                                         MipCase{"props_odd", &kProps, 1, {255, 143}, false},
                                         MipCase{"knot_grid", &kKnot, 2, {320, 180}, true},
                                         MipCase{"knot_grid_odd", &kKnot, 2, {201, 111}, true}),
                         [](const auto& info) { return std::string(info.param.name); });
// The samples suite (ctest label "samples", registered where ../shared/gltf-samples exists):
// the same checks on third-party models the generator did not make.
INSTANTIATE_TEST_SUITE_P(Samples, QuadMip,
                         testing::Values(MipCase{"truck", &kTruck, 1, {256, 144}, false},
                                         MipCase{"truck_odd", &kTruck, 1, {255, 143}, false},
                                         MipCase{"suzanne_grid", &kSuzanne, 3, {320, 180}, true},
                                         MipCase{"suzanne_grid_odd", &kSuzanne, 3, {201, 111}, true}),
                         [](const auto& info) { return std::string(info.param.name); });

// Through the executable: --mip-dump writes the mip of the final frame (the fallback's, exactly
// the box filter of --screenshot), validation clean in every variant; --mip off refuses a dump.
TEST(MipCommandLine, DumpIsTheBoxFilterOfTheScreenshotAndOffRefusesIt) {
    REQUIRE_DRAWING();
    std::string dir = test_dir("dump");
    for (const char* variant : {"subgroup", "fallback", "off"}) {
        std::string v = variant;
        std::vector<std::string> args = {"--headless", "--validate", "--scene", kProps, "--size", "255x143",
                                         "--frames", "2", "--warmup", "1", "--mip", v, "--report", dir + "/" + v + ".json",
                                         "--screenshot", dir + "/" + v + ".png"};
        if (v != "off") {
            args.push_back("--mip-dump");
            args.push_back(dir + "/" + v + "_mip.png");
        }
        DemoRun run = run_demo(args);
        ASSERT_EQ(run.exit_code, 0) << run.output;
        EXPECT_EQ(validation_lines(run.output), 0) << run.output;
        nlohmann::json r = read_json(dir + "/" + v + ".json");
        EXPECT_EQ(r["plan"]["mip"]["variant"], v);
        EXPECT_EQ(r["timings_ms"].contains("mip"), v == "fallback") << "only the fallback is a pass of its own";
        EXPECT_TRUE(r["timings_ms"].contains("forward"));
        if (v == "off") continue;
        EXPECT_EQ(r["outputs"]["mip"], dir + "/" + v + "_mip.png");
        Png frame = read_png(dir + "/" + v + ".png");
        Png mip = read_png(dir + "/" + v + "_mip.png");
        ASSERT_EQ(mip.width, 127);
        ASSERT_EQ(mip.height, 71);
        if (v != "fallback") continue;
        Image8 color{uint32_t(frame.width), uint32_t(frame.height), frame.rgba};
        Image8 half{uint32_t(mip.width), uint32_t(mip.height), mip.rgba};
        for (uint32_t y = 0; y < half.height; ++y)
            for (uint32_t x = 0; x < half.width; ++x)
                ASSERT_LE(rgb_difference_to_box_filter(color, half, x, y), kRounding) << "texel " << x << "," << y;
    }
    DemoRun refused = run_demo({"--headless", "--scene", kProps, "--size", "64x64", "--frames", "1", "--warmup", "0",
                                "--mip", "off", "--mip-dump", dir + "/never.png"});
    EXPECT_EQ(refused.exit_code, 2) << refused.output;
    EXPECT_NE(refused.output.find("--mip off"), std::string::npos) << refused.output;
    EXPECT_FALSE(std::filesystem::exists(dir + "/never.png"));
}

// Without quad operations in the fragment stage, auto picks the fallback and says why; asking for
// the subgroup path there is a usage error that names what is missing.
TEST(MipCommandLine, MaskingQuadOpsOrFragmentStageSwitchesToFallback) {
    REQUIRE_DRAWING();
    std::string dir = test_dir("mask");
    struct Mask {
        const char* flag;
        const char* value;
        const char* reason;
    };
    for (Mask m : {Mask{"--mask-ops", "quad", "quad"}, Mask{"--mask-stages", "fragment", "fragment"}}) {
        std::string report = dir + "/" + m.value + ".json";
        DemoRun run = run_demo({"--headless", "--validate", "--scene", kProps, "--size", "128x72", "--frames", "2",
                                "--warmup", "1", m.flag, m.value, "--report", report, "--screenshot", dir + "/s.png",
                                "--mip-dump", dir + "/m.png"});
        ASSERT_EQ(run.exit_code, 0) << run.output;
        EXPECT_EQ(validation_lines(run.output), 0) << run.output;
        nlohmann::json r = read_json(report);
        EXPECT_EQ(r["plan"]["mip"]["requested"], "auto");
        EXPECT_EQ(r["plan"]["mip"]["variant"], "fallback");
        std::string reason = r["plan"]["mip"]["reason"];
        EXPECT_NE(reason.find(m.reason), std::string::npos) << reason;
        EXPECT_NE(reason.find("masked"), std::string::npos) << reason;
        EXPECT_TRUE(r["timings_ms"].contains("mip")) << "the fallback pass did not run";
        Png frame = read_png(dir + "/s.png");
        Png mip = read_png(dir + "/m.png");
        Image8 color{uint32_t(frame.width), uint32_t(frame.height), frame.rgba};
        Image8 half{uint32_t(mip.width), uint32_t(mip.height), mip.rgba};
        for (uint32_t y = 0; y < half.height; ++y)
            for (uint32_t x = 0; x < half.width; ++x)
                ASSERT_LE(rgb_difference_to_box_filter(color, half, x, y), kRounding) << "texel " << x << "," << y;

        DemoRun refused = run_demo({"--headless", "--scene", kProps, "--size", "64x64", "--frames", "1", "--warmup", "0", "--mip",
                                    "subgroup", m.flag, m.value});
        EXPECT_EQ(refused.exit_code, 2) << refused.output;
        EXPECT_NE(refused.output.find(m.reason), std::string::npos) << refused.output;
    }
}

// The `mip` view: left of the split the frame as shaded, a 2-pixel separator, right of it the mip
// upscaled 2x (nearest): compared with the same frame's --screenshot and --mip-dump without the view
// (below the labels' rows).
TEST(MipCommandLine, ViewShowsTheFrameAndTheUpscaledMip) {
    REQUIRE_DRAWING();
    std::string dir = test_dir("view");
    for (const char* variant : {"subgroup", "fallback"}) {
        std::string v = variant;
        std::vector<std::string> common = {"--headless", "--validate", "--scene", kProps, "--size", "255x143",
                                           "--frames", "2", "--warmup", "1", "--mip", v};
        std::vector<std::string> plain = common, view = common;
        plain.insert(plain.end(), {"--screenshot", dir + "/frame.png", "--mip-dump", dir + "/mip.png"});
        view.insert(view.end(), {"--view", "mip", "--screenshot", dir + "/view.png"});
        DemoRun a = run_demo(plain), b = run_demo(view);
        ASSERT_EQ(a.exit_code, 0) << a.output;
        ASSERT_EQ(b.exit_code, 0) << b.output;
        EXPECT_EQ(validation_lines(a.output) + validation_lines(b.output), 0) << a.output << b.output;
        Png frame = read_png(dir + "/frame.png"), mip = read_png(dir + "/mip.png"), shown = read_png(dir + "/view.png");
        ASSERT_EQ(shown.width, 255);
        int split = shown.width / 2;
        int labels = int(MipPass::label_rows({uint32_t(shown.width), uint32_t(shown.height)}));
        ASSERT_LT(labels, shown.height / 4);
        for (int y = labels; y < shown.height; ++y)
            for (int x = 0; x < shown.width; ++x) {
                const uint8_t* want = x < split       ? frame.at(x, y)
                                      : x < split + 2 ? kSeparator
                                                      : mip.at(std::min(x / 2, mip.width - 1), std::min(y / 2, mip.height - 1));
                const uint8_t* got = shown.at(x, y);
                ASSERT_TRUE(got[0] == want[0] && got[1] == want[1] && got[2] == want[2])
                    << v << ": pixel " << x << "," << y << " is " << int(got[0]) << "," << int(got[1]) << "," << int(got[2]);
            }
    }
    DemoRun refused = run_demo({"--headless", "--scene", kProps, "--size", "64x64", "--frames", "1", "--warmup", "0", "--mip", "off",
                                "--view", "mip"});
    EXPECT_EQ(refused.exit_code, 2) << refused.output;
}

}  // namespace
