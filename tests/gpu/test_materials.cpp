// Textures at their own sizes with full mip chains, sampled trilinearly and anisotropically where the
// device offers it (docs/scenes.md, "Textures"). The oracle of the filtering is supersampling: a
// finely checkered plane seen at a grazing angle, rendered small, against the same frame rendered at
// 4x the width and height and box-filtered 4x4 in linear light (16 samples a pixel of the same
// scene, whose own minification is 4x milder). Without mips the small frame aliases into moire (19.5
// dB at 320x180 with one level); with them it must come within 27 dB. The visibility path (quad-swap
// and analytic derivatives) must shade that plane as forward does, within 40 dB: with mips, its
// derivatives choose the levels. Generated scene (no file): one textured quad, no point lights.
#include <gtest/gtest.h>

#include <cmath>

#include "gpu/harness.h"
#include "gpu/light_frame.h"
#include "scene_test_helpers.h"  // above_camera
#include "render/tonemap.h"
#include "scene/texture_mips.h"

namespace materials_tests {

// A plane 400 x 400 units at y = 0, its texture repeating every 4 units: a 64 x 64 checker of
// 2-texel squares (1/8 unit each), white and dark grey.
Scene checkered_plane() {
    Scene scene;
    const float half = 200.0f, repeat = 4.0f;
    auto vertex = [&](float x, float z) { return Vertex{{x, 0.0f, z}, {0.0f, 1.0f, 0.0f}, {x / repeat, z / repeat}}; };
    scene.vertices = {vertex(-half, -half), vertex(-half, half), vertex(half, half), vertex(half, -half)};
    scene.indices = {0, 1, 2, 0, 2, 3};  // counter-clockwise seen from above: front faces
    scene.meshes.push_back({0, 6, 1});
    scene.materials.push_back(Material{});  // the default
    Material checker;
    checker.base_color_texture = 0;
    scene.materials.push_back(checker);
    scene.instances.push_back({0, glm::mat4(1.0f)});
    Texture t;
    t.width = t.height = 64;
    for (int y = 0; y < 64; ++y)
        for (int x = 0; x < 64; ++x) {
            uint8_t v = ((x / 2) + (y / 2)) % 2 ? 255 : 40;
            t.rgba.insert(t.rgba.end(), {v, v, v, 255});
        }
    scene.textures.push_back(t);
    update_bounds(scene);
    return scene;
}

// Eye 1.5 units above the plane, looking 6 degrees down: the plane runs from under the eye to the
// horizon, minified more and more, and more along the view than across it (anisotropy).
Camera grazing_camera() {
    Camera camera;
    camera.position = {0.0f, 1.5f, 0.0f};
    camera.target = camera.position + glm::vec3(std::sin(0.3f), -std::tan(glm::radians(6.0f)), -std::cos(0.3f));
    camera.near_plane = 0.1f;
    camera.far_plane = 400.0f;
    return camera;
}

enum class Path { forward, quads, analytic };

struct Frame {
    std::vector<float> hdr;  // linear RGBA
    std::vector<uint8_t> color;
    float exposure = 0.0f;
};

Frame render(const Scene& scene, Path path, VkExtent2D size, const Camera& camera = grazing_camera()) {
    const Context& ctx = test_context();
    PlanRequest request;
    request.shading = path == Path::forward ? Shading::forward : Shading::visibility;
    request[PassId::exposure] = Request::off;    // the fixed exposure in every frame
    request[PassId::ray_trace] = Request::off;   // nothing to trace: no occluder, no mirror
    // 0 lights, the sun and the sky only: smooth light, the texture is all the detail
    RendererConfig config = planned_config(ctx, request, size, 0);
    if (path == Path::analytic) config.plan.shading.derivatives = Variant::fallback;
    Renderer renderer(ctx, scene, config);
    VkCommandBuffer cmd = begin_one_shot(ctx);
    renderer.record(cmd, 0, 0, camera);
    end_one_shot(ctx, cmd);
    Frame f;
    f.hdr = halves_to_floats(renderer.read_hdr());
    f.color = renderer.read_color();
    f.exposure = renderer.read_exposure().exposure;
    EXPECT_EQ(config.plan.shading.shading, path == Path::forward ? Shading::forward : Shading::visibility);
    if (path == Path::quads) EXPECT_EQ(config.plan.shading.derivatives, Variant::subgroup) << config.plan.shading.reason;
    return f;
}

// The 4x frame box-filtered 4x4 in linear light, then through the resolve's display transform.
std::vector<uint8_t> supersampled(const Frame& big, VkExtent2D small) {
    std::vector<float> filtered(size_t(small.width) * small.height * 4, 0.0f);
    const uint32_t big_width = small.width * 4;
    for (uint32_t y = 0; y < small.height; ++y)
        for (uint32_t x = 0; x < small.width; ++x)
            for (int c = 0; c < 4; ++c) {
                float sum = 0.0f;
                for (uint32_t j = 0; j < 4; ++j)
                    for (uint32_t i = 0; i < 4; ++i) sum += big.hdr[((size_t(y) * 4 + j) * big_width + x * 4 + i) * 4 + c];
                filtered[(size_t(y) * small.width + x) * 4 + c] = sum / 16.0f;
            }
    return tonemap_rgba8(filtered, big.exposure);
}

constexpr VkExtent2D kSmall{320, 180};

const Scene& plane() {
    static Scene scene = checkered_plane();
    return scene;
}

const Frame& forward_small() {
    static Frame frame = render(plane(), Path::forward, kSmall);
    return frame;
}

TEST(Materials, MipmappedCheckerAtAGrazingAngleMatchesSupersampling) {
    REQUIRE_DRAWING();
    uint32_t messages = validation_message_count();
    const Frame& small = forward_small();
    Frame big = render(plane(), Path::forward, {kSmall.width * 4, kSmall.height * 4});
    // The frame as the resolve pass showed it is the CPU transform of its own HDR frame: the
    // reference goes through the same transform, so only the filtering differs.
    EXPECT_EQ(rgb_psnr(tonemap_rgba8(small.hdr, small.exposure), small.color), INFINITY);
    EXPECT_NOT_BLANK(small.color);
    double db = rgb_psnr(small.color, supersampled(big, kSmall));
    printf("checkered plane at a grazing angle, %ux%u against 4x supersampling: %.2f dB\n", kSmall.width, kSmall.height, db);
    EXPECT_GE(db, 27.0);
    EXPECT_EQ(validation_message_count(), messages);
}

TEST(Materials, VisibilityMatchesForwardOnTheMipmappedChecker) {
    REQUIRE_DRAWING();
    uint32_t messages = validation_message_count();
    const Frame& forward = forward_small();
    double quads = rgb_psnr(render(plane(), Path::quads, kSmall).color, forward.color);
    double analytic = rgb_psnr(render(plane(), Path::analytic, kSmall).color, forward.color);
    printf("checkered plane, visibility against forward: %.2f dB (quad-swap derivatives), %.2f dB (analytic)\n", quads, analytic);
    EXPECT_GE(quads, 40.0);
    EXPECT_GE(analytic, 40.0);
    EXPECT_EQ(validation_message_count(), messages);
}

// ---- Emission: emissiveFactor x KHR_materials_emissive_strength x the emissive texture ----------

// A 16 x 16 emissive texture of four 8 x 8 blocks: black, orange, black, cyan (sRGB).
Texture emissive_blocks() {
    Texture t;
    t.width = t.height = 16;
    for (int y = 0; y < 16; ++y)
        for (int x = 0; x < 16; ++x) {
            int block = (x / 8) + 2 * (y / 8);
            uint8_t c[4][3] = {{0, 0, 0}, {255, 128, 0}, {0, 0, 0}, {64, 255, 255}};
            t.rgba.insert(t.rgba.end(), {c[block][0], c[block][1], c[block][2], 255});
        }
    return t;
}

// Where pixel (x, y) sees the plane y = 0, as uv (the plane's uv is position / 4).
glm::dvec2 plane_uv(const Camera& camera, VkExtent2D size, uint32_t x, uint32_t y) {
    glm::dmat4 inverse = glm::inverse(glm::dmat4(camera.projection(float(size.width) / float(size.height))) * glm::dmat4(camera.view()));
    glm::dvec2 ndc((x + 0.5) / size.width * 2.0 - 1.0, (y + 0.5) / size.height * 2.0 - 1.0);
    glm::dvec4 a = inverse * glm::dvec4(ndc, 1.0, 1.0), b = inverse * glm::dvec4(ndc, 0.5, 1.0);
    glm::dvec3 p = glm::dvec3(a) / a.w, q = glm::dvec3(b) / b.w;
    glm::dvec3 hit = p + (q - p) * (p.y / (p.y - q.y));
    return glm::dvec2(hit.x, hit.z) / 4.0;
}

// Each covered pixel's HDR with emission minus without, against factor x strength x the texel
// (decoded from sRGB) on the CPU, where the pixel's uv lies at least one texel inside a block (the
// bilinear filter blends at block edges); black blocks must not change at all.
TEST(Materials, EmissionAddsFactorTimesStrengthTimesTexelWhereTheTexelSays) {
    REQUIRE_DRAWING();
    uint32_t messages = validation_message_count();
    Scene plain = checkered_plane();
    plain.textures[0] = emissive_blocks();  // base colour and emission from one image: the lit frame shows the blocks too
    Scene glowing = plain;
    glowing.materials[1].emissive = glm::vec3(1.0f, 0.5f, 0.25f) * 2.0f;  // emissiveFactor x emissiveStrength 2
    glowing.materials[1].emissive_texture = 0;
    const glm::vec3 factor(2.0f, 1.0f, 0.5f);
    Texture blocks = emissive_blocks();
    for (Path path : {Path::forward, Path::quads, Path::analytic}) {
        SCOPED_TRACE(int(path));
        Frame off = render(plain, path, kSmall, above_camera()), on = render(glowing, path, kSmall, above_camera());
        int lit = 0, dark = 0, wrong = 0;
        std::string first;
        for (uint32_t y = 0; y < kSmall.height; ++y)
            for (uint32_t x = 0; x < kSmall.width; ++x) {
                glm::dvec2 texel = plane_uv(above_camera(), kSmall, x, y) * 16.0;  // texel coordinates, repeating
                glm::dvec2 in_block = glm::mod(texel, 8.0);
                if (glm::any(glm::lessThan(in_block, glm::dvec2(1.0))) || glm::any(glm::greaterThan(in_block, glm::dvec2(7.0)))) continue;
                glm::ivec2 t = glm::ivec2(glm::mod(texel, 16.0));
                const uint8_t* c = &blocks.rgba[(size_t(t.y) * 16 + t.x) * 4];
                size_t at = (size_t(y) * kSmall.width + x) * 4;
                bool black = c[0] == 0 && c[1] == 0 && c[2] == 0;
                (black ? dark : lit)++;
                for (int k = 0; k < 3; ++k) {
                    double expected = factor[k] * srgb_to_linear(c[k] / 255.0f);
                    double got = double(on.hdr[at + k]) - double(off.hdr[at + k]);
                    bool ok = black ? got == 0.0 : std::abs(got - expected) <= 0.01 * expected + 2e-3;
                    if (!ok && wrong++ == 0)
                        first = "pixel (" + std::to_string(x) + ", " + std::to_string(y) + ") channel " + std::to_string(k) +
                                ": +" + std::to_string(got) + ", expected +" + std::to_string(expected);
                }
            }
        EXPECT_GE(lit, 2000);
        EXPECT_GE(dark, 2000);
        EXPECT_EQ(wrong, 0) << first;
        printf("emission (%s): %d pixels in glowing blocks, %d in black ones, %d channels off\n",
               path == Path::forward ? "forward" : path == Path::quads ? "visibility, quad-swap" : "visibility, analytic", lit, dark, wrong);
    }
    EXPECT_EQ(validation_message_count(), messages);
}

}  // namespace materials_tests
