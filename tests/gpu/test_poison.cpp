// Reads before writes (issue 31): with SGD_POISON_ALLOCATIONS=1 every new buffer and image starts
// out as garbage (src/vk/fault_injection.h) instead of whatever the memory held. A renderer that
// reads nothing it did not write first draws the same frame either way; one that reads a buffer or
// image before writing it (a counter never cleared, a list read past what was stored, a target
// loaded instead of cleared) draws NaN or garbage into it. On a GPU such a read picks up what an
// earlier renderer of the same process left in reused memory: `--compare`'s pairs then differ
// where separate processes agree.
// - the switch itself: new buffers and images hold the documented pattern (so the comparison
//   below can fail);
// - the same command with and without poison: byte-identical screenshot, mip, cull dump, and equal
//   counters, for the default pipeline, the meshlet path, every pass on its fallback, the quad mip
//   in the forward pass and --shading visibility; the poisoned run under --validate (the clears
//   stay validation-clean).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "gpu/harness.h"
#include "known_drivers.h"
#include "vk/context.h"
#include "vk/resources.h"

namespace {

// The pattern docs/testing.md promises: every 32-bit word of a new buffer, and the clear of a new
// float or integer image.
constexpr uint32_t kPoisonWord = 0x7fc0dead;

struct ScopedPoison {
    ScopedPoison() { setenv("SGD_POISON_ALLOCATIONS", "1", 1); }
    ~ScopedPoison() { unsetenv("SGD_POISON_ALLOCATIONS"); }
};

}  // namespace

// The switch does what the other test relies on: a device-local buffer, a mapped one, and images
// of every kind of format the renderer uses start out as the pattern, not as zeros or old contents.
TEST(PoisonedAllocations, NewBuffersAndImagesHoldThePattern) {
    Context ctx;
    ContextOptions options;
    options.validate = true;  // the clears themselves must be validation-clean
    create_context(ctx, options);
    uint32_t messages_before = validation_message_count();
    ScopedPoison poison;

    Buffer device = create_buffer(ctx, 4100, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                  MemoryKind::device_local, "test device buffer");
    std::vector<uint8_t> bytes = read_buffer(ctx, device);
    ASSERT_EQ(bytes.size(), 4100u);
    int wrong = 0;
    for (size_t i = 0; i + 4 <= bytes.size(); i += 4) {
        uint32_t word;
        memcpy(&word, &bytes[i], 4);
        wrong += word != kPoisonWord;
    }
    EXPECT_EQ(wrong, 0) << "device-local words that are not 0x7fc0dead";
    float as_float;
    memcpy(&as_float, &kPoisonWord, 4);
    EXPECT_TRUE(std::isnan(as_float)) << "the pattern must read as a NaN float";

    Buffer mapped = create_buffer(ctx, 256, VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, MemoryKind::host_upload, "test mapped buffer");
    wrong = 0;
    for (size_t i = 0; i < 256; i += 4) wrong += memcmp(static_cast<uint8_t*>(mapped.mapped) + i, &kPoisonWord, 4) != 0;
    EXPECT_EQ(wrong, 0) << "mapped words that are not 0x7fc0dead";

    // HDR targets: every half a NaN (exponent all ones, mantissa not zero).
    Image hdr = create_image(ctx, {13, 7}, VK_FORMAT_R16G16B16A16_SFLOAT, VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                             "test hdr");
    std::vector<uint8_t> halves = read_image(ctx, hdr, 8, VK_IMAGE_ASPECT_COLOR_BIT);
    wrong = 0;
    for (size_t i = 0; i < halves.size(); i += 2) {
        uint16_t h = uint16_t(halves[i] | halves[i + 1] << 8);
        wrong += !((h & 0x7c00) == 0x7c00 && (h & 0x03ff) != 0);
    }
    EXPECT_EQ(wrong, 0) << "HDR halves that are not NaN";
    // Integer targets: the pattern itself.
    Image flags = create_image(ctx, {13, 7}, VK_FORMAT_R32_UINT, VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                               "test flags");
    std::vector<uint8_t> words = read_image(ctx, flags, 4, VK_IMAGE_ASPECT_COLOR_BIT);
    wrong = 0;
    for (size_t i = 0; i < words.size(); i += 4) wrong += memcmp(&words[i], &kPoisonWord, 4) != 0;
    EXPECT_EQ(wrong, 0) << "R32_UINT texels that are not 0x7fc0dead";
    // 8-bit colour: (0.93, 0.11, 0.71, 0.37), an odd colour no frame starts from.
    Image color = create_image(ctx, {13, 7}, VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                               "test color");
    std::vector<uint8_t> rgba = read_image(ctx, color, 4, VK_IMAGE_ASPECT_COLOR_BIT);
    const int expected[4] = {237, 28, 181, 94};  // round(255 x)
    wrong = 0;
    for (size_t i = 0; i < rgba.size(); ++i) wrong += std::abs(int(rgba[i]) - expected[i % 4]) > 1;
    EXPECT_EQ(wrong, 0) << "RGBA8 channels off the poison colour";
    // Depth: 0.37, in front of the far plane the frame clears to (reversed Z: 0).
    Image depth = create_image(ctx, {13, 7}, VK_FORMAT_D32_SFLOAT,
                               VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT, "test depth");
    std::vector<uint8_t> depths = read_image(ctx, depth, 4, VK_IMAGE_ASPECT_DEPTH_BIT);
    wrong = 0;
    for (size_t i = 0; i < depths.size(); i += 4) {
        float d;
        memcpy(&d, &depths[i], 4);
        wrong += d != 0.37f;
    }
    EXPECT_EQ(wrong, 0) << "depth texels that are not 0.37";
    EXPECT_EQ(validation_message_count() - messages_before, 0u);
}

struct PoisonCase {
    const char* name;
    std::vector<std::string> args;
    bool meshlet = false;
};

// ctest names each case by this (the default prints the struct's bytes, pointers included).
void PrintTo(const PoisonCase& c, std::ostream* out) { *out << c.name; }

class PoisonedFrame : public testing::TestWithParam<PoisonCase> {};

// The same command with and without poisoned allocations: the same frame, mip, drawn triangles and
// counters, byte for byte. The frames are deterministic (issue 31: order-preserving compaction,
// sorted light lists, integer exposure sums), so any difference is a read of memory the renderer
// did not write first.
TEST_P(PoisonedFrame, FrameMipCullDumpAndCountersAreUnchanged) {
    REQUIRE_DRAWING();
    const PoisonCase& param = GetParam();
    if (param.meshlet) {
        std::string why_not = no_mesh_shaders_reason();
        if (!why_not.empty()) {
            const KnownDriver* k = known_driver();
            if (k && k->mesh_shader) FAIL() << why_not << ", but the record of " << k->name << " has VK_EXT_mesh_shader";
            GTEST_SKIP() << why_not;
        }
    }
    std::string dir = test_dir(param.name);
    auto render = [&](const std::string& tag, bool poisoned) {
        std::vector<std::string> args = {"--headless", "--size", "160x90", "--frames", "3", "--warmup", "1", "--instances", "2",
                                         "--lights", "300", "--screenshot", dir + "/" + tag + ".png", "--mip-dump",
                                         dir + "/" + tag + "-mip.png", "--cull-dump", dir + "/" + tag + "-cull.txt", "--report",
                                         dir + "/" + tag + ".json"};
        args.insert(args.end(), param.args.begin(), param.args.end());
        if (!poisoned) return run_demo(args);
        args.push_back("--validate");
        ScopedPoison poison;
        return run_demo(args);
    };
    DemoRun plain = render("plain", false);
    ASSERT_EQ(plain.exit_code, 0) << plain.output;
    DemoRun poisoned = render("poisoned", true);
    ASSERT_EQ(poisoned.exit_code, 0) << poisoned.output;
    EXPECT_NE(poisoned.output.find("note: poisoning every new buffer and image"), std::string::npos) << poisoned.output;
    EXPECT_EQ(plain.output.find("note: poisoning"), std::string::npos) << plain.output;
    EXPECT_EQ(validation_lines(poisoned.output), 0) << poisoned.output;

    Png a = read_png(dir + "/plain.png"), b = read_png(dir + "/poisoned.png");
    ASSERT_EQ(a.width, 160);
    EXPECT_NOT_BLANK(a.rgba);
    EXPECT_EQ(differing_pixels(a, b), 0) << "the frame changed under poisoned allocations: something is read before it is written";
    Png mip_a = read_png(dir + "/plain-mip.png"), mip_b = read_png(dir + "/poisoned-mip.png");
    ASSERT_EQ(mip_a.width, 80);
    EXPECT_NOT_BLANK(mip_a.rgba);
    EXPECT_EQ(differing_pixels(mip_a, mip_b), 0) << "the mip changed under poisoned allocations";
    std::string dump = file_bytes(dir + "/plain-cull.txt");
    EXPECT_FALSE(dump.empty());
    EXPECT_TRUE(dump == file_bytes(dir + "/poisoned-cull.txt")) << "the drawn triangles changed under poisoned allocations";
    nlohmann::json counters_a = read_json(dir + "/plain.json")["counters"], counters_b = read_json(dir + "/poisoned.json")["counters"];
    // The one counter that depends on how lavapipe's threads interleaved, not on what memory held:
    // how often the cull's look-back counted a predecessor itself (docs/culling.md).
    counters_a.erase("cull_lookback_fallbacks");
    counters_b.erase("cull_lookback_fallbacks");
    // Rays per second divide by the measured ray_trace time: a timing, not a count.
    counters_a["ray_trace"].erase("rays_per_second");
    counters_b["ray_trace"].erase("rays_per_second");
    EXPECT_GT(counters_a["triangles_visible"].get<uint64_t>(), 0u);
    auto occlusion = std::find(param.args.begin(), param.args.end(), "--occlusion");
    if (occlusion != param.args.end() && occlusion + 1 != param.args.end() && occlusion[1] == "subgroup")
        EXPECT_GT(counters_a["occlusion"]["triangles_rejected_phase1"].get<uint64_t>(), 0u) << "phase 2 had nothing to test";
    EXPECT_EQ(counters_a, counters_b) << "counters changed under poisoned allocations";
}

INSTANTIATE_TEST_SUITE_P(Paths, PoisonedFrame,
                         testing::Values(PoisonCase{"indexed", {}},
                                         PoisonCase{"meshlet", {"--geometry", "meshlet"}, true},
                                         PoisonCase{"fallbacks",
                                                    {"--cull", "fallback", "--light-cull", "fallback", "--light-loop", "fallback",
                                                     "--mip", "fallback", "--exposure", "fallback"}},
                                         PoisonCase{"quad_mip_in_forward", {"--mip", "forward"}},
                                         // --shading visibility: with occlusion on at the street, where
                                         // phase 1 rejects much (auto rests at the overview), phase 2's
                                         // lists and the merged list whose ids ScenePass::record_ids
                                         // writes into the visibility image after its clear; with
                                         // occlusion off, the ids the pre-pass writes after its clear.
                                         PoisonCase{"visibility",
                                                    {"--shading", "visibility", "--occlusion", "subgroup", "--camera", "street"}},
                                         PoisonCase{"visibility_occlusion_off", {"--shading", "visibility", "--occlusion", "off"}}),
                         [](const testing::TestParamInfo<PoisonCase>& info) { return std::string(info.param.name); });
