// --raster compute (docs/raster.md) against --raster hardware, its oracle: the same scene, camera
// and plan, the triangle each pixel names and the shaded frame. Where the two name different
// triangles, a CPU reference (the top-left rule in 8-bit sub-pixel fixed point, the depth plane at
// the pixel centre) must find both triangles covering the pixel at the same depth: a tie, which the
// two rasterizers may break differently only through their depths' last bits. The subgroup and
// fallback rasterizers must write the same 64-bit words. Scenes: a generated one with every kind
// of triangle the rasterizer sorts (sub-pixel, mid-sized, screen-filling, crossing the near plane,
// alpha-masked, double-sided, and a grid whose shared edges run through pixel centres, where only
// the fill rule decides), and the bundled scene. Renders are 192x108 and validated.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>

#include "run/options.h"
#include "app/run.h"
#include "gpu/harness.h"
#include "scene_test_helpers.h"  // add_mesh
#include "gpu/light_frame.h"
#include "gpu/raster_oracle.h"
#include "gpu/street.h"
#include "passes/raster_pass.h"
#include "render/renderer.h"
#include "render/visibility_id.h"
#include "scoped_env.h"

namespace raster_tests {

constexpr VkExtent2D kSize{192, 108};

struct Shot {
    std::vector<uint8_t> color;
    std::vector<uint32_t> ids;  // (draw, primitive) pairs (Renderer::read_visibility), primitive indexing `drawn`
    std::vector<uint64_t> words;
    std::array<uint32_t, 4> bins{};  // the tile bins' dispatch (x, y, z) and entries, last rasterization
    std::vector<float> depth;  // what the later passes read (--raster compute: taken from the words)
    // Per draw, the list the ids name (Renderer::read_named_indices): --raster hardware's, the list
    // the pre-pass drew; --raster compute's, the source indices of each draw's level.
    std::vector<std::vector<uint32_t>> drawn;
    std::vector<std::vector<uint32_t>> listed;  // instrumented_shot: what raster.comp's lanes took (read_drawn_indices)
    glm::mat4 view_proj{1.0f};
    Plan plan;
    GpuCounters counters{};
};

Plan raster_plan(Raster raster, Request variant, Request occlusion = Request::off, ViewMode view = ViewMode::shaded,
                 Request ray_trace = Request::automatic, bool lod = false) {
    const Context& ctx = test_context();
    PlanRequest request;
    request[PassId::ray_trace] = ray_trace;
    request.view = view;
    request.shading = Shading::visibility;
    request.raster = raster;
    request.raster_variant = variant;
    request.lod = lod;
    request[PassId::occlusion] = occlusion;
    request[PassId::exposure] = Request::off;
    return make_plan(ctx.subgroup, ctx.features, request);
}

// `camera`: nullopt for the scene's default view. `frames` > 1: the last one steps the camera
// sideways, so that occlusion phase 2 re-admits what the nearest buildings hid.
Shot render(const Scene& scene, Raster raster, std::optional<Camera> camera = std::nullopt, Request variant = Request::automatic,
            bool top_left = true, Request occlusion = Request::off, uint32_t frames = 1,
            const std::function<void(Renderer&)>& prepare = {}, const Context* context = nullptr) {
    const Context& ctx = context ? *context : test_context();
    RendererConfig config;
    config.extent = kSize;
    config.lights = 16;
    config.plan = raster_plan(raster, variant, occlusion);
    Renderer renderer(ctx, scene, config);
    renderer.set_raster_top_left(top_left);
    if (prepare) prepare(renderer);
    Camera view = camera ? *camera : renderer.default_view();
    for (uint32_t i = 0; i < frames; ++i) {
        if (i == frames - 1 && i > 0) view = step_down_the_street(view, 0.04f);
        VkCommandBuffer cmd = begin_one_shot(ctx);
        renderer.record(cmd, 0, i, view);
        end_one_shot(ctx, cmd);
    }
    Shot s;
    s.counters = renderer.read_counters();
    s.plan = config.plan;
    s.color = renderer.read_color();
    s.ids = renderer.read_visibility();
    s.words = renderer.read_raster_words();
    s.bins = renderer.read_raster_bins();
    s.depth = renderer.read_depth();
    s.drawn = renderer.read_named_indices();
    s.view_proj = view.projection(float(kSize.width) / float(kSize.height)) * view.view();
    return s;
}

// Whether two shots name the same triangle at pixel p: the same draw and the same three vertex
// indices, in order (the two rasterizers' ids index different lists: a place in the culled list,
// an index in the draw's level).
bool same_triangle(const Shot& a, const Shot& b, size_t p) {
    uint32_t ad = a.ids[2 * p], bd = b.ids[2 * p];
    if (ad != bd) return false;
    if (ad == kNoTriangle) return true;
    uint32_t ap = a.ids[2 * p + 1], bp = b.ids[2 * p + 1];
    for (uint32_t i = 0; i < 3; ++i)
        if (a.drawn[ad][3 * ap + i] != b.drawn[bd][3 * bp + i]) return false;
    return true;
}

// The CPU reference (raster_oracle.h): whether triangle (draw, primitive) covers pixel p's centre,
// and its depth there.
Cover cover(const Scene& scene, const Shot& s, uint32_t draw, uint32_t primitive, int px, int py) {
    glm::vec4 clip[3];
    for (int i = 0; i < 3; ++i)
        clip[i] = s.view_proj * (scene.instances[draw].transform * glm::vec4(scene.vertices[s.drawn[draw][3 * primitive + i]].position, 1.0f));
    return cover_at(clip, kSize.width, kSize.height, px, py);
}

// The CPU reference of raster.comp's clip_near: the part of a triangle in front of the near plane
// (z <= w), clipped as Mesa's clipper does (each edge in order, the new vertex interpolated from
// the vertex outside), in window coordinates computed in floats as the shader computes them.
// Returns the polygon's vertex count: 3 or 4 (fewer: wholly behind the plane).
int clip_near(const glm::vec4 clip[3], glm::vec3 p[4]) {
    const glm::vec2 half(0.5f * float(kSize.width), 0.5f * float(kSize.height));
    int n = 0;
    for (int i = 0; i < 3; ++i) {
        glm::vec4 a = clip[i], b = clip[(i + 1) % 3];
        float da = a.w - a.z, db = b.w - b.z;
        if (da >= 0.0f) p[n++] = glm::vec3(glm::vec2(a) / a.w * half + half, a.z / a.w);
        if ((da >= 0.0f) == (db >= 0.0f)) continue;
        glm::vec4 outside = da < 0.0f ? a : b, inside = da < 0.0f ? b : a;
        float d_out = std::min(da, db), d_in = std::max(da, db);
        float t = d_out / (d_out - d_in);
        glm::vec4 v = outside + t * (inside - outside);
        float inverse_w = 1.0f / v.w;
        p[n++] = glm::vec3(glm::vec2(v) * inverse_w * half + half, v.z * inverse_w);
    }
    return n;
}

// The CPU reference of raster.comp's sorting (docs/raster.md, "Which rasterizer draws a
// triangle"), from the same float window positions.
enum Path { kNobody, kPerLane, kSplit, kTileBin, kHardware, kPaths };
// `guard`: the pixels past the frame's edge that compute takes (SGD_RASTER_GUARD_BAND's).
int classify(const Scene& scene, const Shot& s, uint32_t draw, uint32_t primitive, float guard = float(kRasterDefaultGuardBand)) {
    const Material& material = scene.materials[scene.meshes[scene.instances[draw].mesh].material];
    glm::vec4 clip[3];
    bool crosses_near = false, past_far = false;
    for (int i = 0; i < 3; ++i) {
        const Vertex& v = scene.vertices[s.drawn[draw][3 * primitive + i]];
        clip[i] = s.view_proj * (scene.instances[draw].transform * glm::vec4(v.position, 1.0f));
        crosses_near = crosses_near || clip[i].z > clip[i].w;
        past_far = past_far || clip[i].z < 0.0f;
    }
    if (material.alpha_cutoff > 0.0f || past_far) return kHardware;
    glm::vec3 p[4];
    int n = clip_near(clip, p);  // (the triangle itself where it does not cross the plane)
    if (n < 3) return kNobody;
    glm::vec2 lo(INFINITY), hi(-INFINITY);
    for (int i = 0; i < n; ++i) lo = glm::min(lo, glm::vec2(p[i])), hi = glm::max(hi, glm::vec2(p[i]));
    glm::vec2 frame(float(kSize.width), float(kSize.height));
    const bool large = crosses_near || hi.x - lo.x > float(kRasterMaxExtent) || hi.y - lo.y > float(kRasterMaxExtent);
    if (hi.x < 0 || hi.y < 0 || lo.x > frame.x || lo.y > frame.y) return kNobody;
    if (!(lo.x >= -guard && lo.y >= -guard && hi.x <= frame.x + guard && hi.y <= frame.y + guard)) return kHardware;
    int64_t f[4][2];
    for (int i = 0; i < n; ++i)
        for (int c = 0; c < 2; ++c) f[i][c] = int64_t(std::nearbyint(double(p[i][c]) * 256.0));
    auto floor_div = [](int64_t a) { return a >= 0 ? a / 256 : -((-a + 255) / 256); };
    int64_t pixels = 1;  // in the box of pixel centres
    for (int c = 0; c < 2; ++c) {
        int64_t f_lo = f[0][c], f_hi = f[0][c];
        for (int i = 1; i < n; ++i) f_lo = std::min(f_lo, f[i][c]), f_hi = std::max(f_hi, f[i][c]);
        int64_t first = std::max<int64_t>(floor_div(f_lo - 128 + 255), 0);
        int64_t last = std::min<int64_t>(floor_div(f_hi - 128), int64_t(c ? kSize.height : kSize.width) - 1);
        if (last < first) return kNobody;
        pixels *= last - first + 1;
    }
    // Drawn where a triangle of the polygon's fan (0, i - 1, i) is front-facing with an area.
    bool front = false;
    for (int i = 2; i < n; ++i)
        front = front || (f[i - 1][0] - f[0][0]) * (f[i][1] - f[0][1]) - (f[i - 1][1] - f[0][1]) * (f[i][0] - f[0][0]) < 0;
    if (!front) return kNobody;
    return large ? kTileBin : pixels <= int64_t(kRasterTinyPixels) ? kPerLane : kSplit;
}

// Whether the compute rasterizer takes the triangle although it reaches past the frame's edge (in
// the guard band), where lavapipe's hardware clips it: the clipped edges' new vertices snap on their
// own, so a few pixels along its edges may name its neighbour (docs/raster.md, "The frame's edge").
bool crosses_the_frame(const Scene& scene, const Shot& s, uint32_t draw, uint32_t primitive) {
    return classify(scene, s, draw, primitive, 0.0f) == kHardware && classify(scene, s, draw, primitive) != kHardware;
}

Comparison compare(const Scene& scene, const Shot& hardware, const Shot& compute) {
    const Shot* shots[2] = {&hardware, &compute};
    return compare_ids(
        hardware.ids, compute.ids, kSize.width, [&](size_t p) { return same_triangle(hardware, compute, p); },
        [&](int side, uint32_t draw, uint32_t name, int x, int y) { return cover(scene, *shots[side], draw, name, x, y); },
        [&](int side, uint32_t draw, uint32_t name) { return crosses_the_frame(scene, *shots[side], draw, name); });
}

std::string precise(double value) {
    char text[32];
    snprintf(text, sizeof(text), "%.9g", value);
    return text;
}

// One quad facing +z (counter-clockwise seen from +z), corners in world space.
void add_quad(Scene& scene, glm::vec3 a, glm::vec3 b, glm::vec3 c, glm::vec3 d, std::vector<uint32_t>& indices, bool both_sides = false) {
    uint32_t base = uint32_t(scene.vertices.size());
    glm::vec2 uv[4] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
    glm::vec3 corners[4] = {a, b, c, d};
    for (int i = 0; i < 4; ++i) scene.vertices.push_back({corners[i], glm::vec3(0.0f, 0.0f, 1.0f), uv[i]});
    for (uint32_t i : {0u, 1u, 2u, 0u, 2u, 3u}) indices.push_back(base + i);
    if (both_sides)  // the back, as glTF's doubleSided is drawn here: the same corners wound the other way
        for (uint32_t i : {0u, 2u, 1u, 0u, 3u, 2u}) indices.push_back(base + i);
}

// The generated scene's camera: at the origin, looking down -z.
Camera generated_camera() {
    Camera c;
    c.position = {0.0f, 0.0f, 0.0f};
    c.target = {0.0f, 0.0f, -1.0f};
    c.near_plane = 0.1f;
    c.far_plane = 100.0f;
    return c;
}

// The world point at distance d in front of generated_camera() that lands on window position (x, y).
glm::vec3 at_window(double x, double y, float d) {
    glm::mat4 p = generated_camera().projection(float(kSize.width) / float(kSize.height));
    double nx = x / kSize.width * 2.0 - 1.0, ny = y / kSize.height * 2.0 - 1.0;
    return {float(nx * d / p[0][0]), float(ny * d / p[1][1]), -d};
}

// Every kind of triangle the compute rasterizer sorts, in front of generated_camera().
Scene generated_scene() {
    Scene scene;
    std::vector<uint32_t> back, grid, small, big, large, near, masked, sides;
    // Screen-filling: a wall behind everything (two triangles, each far larger than the threshold).
    add_quad(scene, {-100, -60, -40}, {100, -60, -40}, {100, 60, -40}, {-100, 60, -40}, back);
    add_mesh(scene, back, {0.5f, 0.5f, 0.6f, 1.0f});
    // Mid-sized, their shared edges (and diagonals) through pixel centres: an 8 x 6 grid of 6-pixel
    // quads from window (20.5, 20.5), so the fill rule alone decides every pixel on an edge.
    for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 6; ++j) {
            double x0 = 20.5 + 6 * i, y0 = 20.5 + 6 * j, x1 = x0 + 6, y1 = y0 + 6;
            // Window y points down: (x0, y1) is the bottom left; counter-clockwise seen from +z.
            add_quad(scene, at_window(x0, y1, 10), at_window(x1, y1, 10), at_window(x1, y0, 10), at_window(x0, y0, 10), grid);
        }
    add_mesh(scene, grid, {0.2f, 0.7f, 0.3f, 1.0f});
    // Sub-pixel: a field of triangles about a third of a pixel across.
    for (int i = 0; i < 30; ++i)
        for (int j = 0; j < 20; ++j) {
            double x = 80.3 + 1.7 * i, y = 60.2 + 1.9 * j;
            add_quad(scene, at_window(x, y + 0.35, 8), at_window(x + 0.35, y + 0.35, 8), at_window(x + 0.35, y, 8),
                     at_window(x, y, 8), small);
        }
    add_mesh(scene, small, {0.9f, 0.8f, 0.2f, 1.0f});
    // Larger than the threshold: 50 pixels across.
    add_quad(scene, at_window(120, 50, 12), at_window(170, 50, 12), at_window(170, 5, 12), at_window(120, 5, 12), big);
    add_mesh(scene, big, {0.8f, 0.3f, 0.2f, 1.0f});
    // Large, inside the frame (the tile bins): a 100 x 40-pixel quad behind the grid, its corners
    // off the 32-pixel tiles, and a sliver 170 pixels long across the frame, two pixels tall at one
    // end, crossing many tiles of its box without covering them (both windings: one is drawn).
    add_quad(scene, at_window(14, 70, 20), at_window(114, 70, 20), at_window(114, 30, 20), at_window(14, 30, 20), large);
    {
        uint32_t base = uint32_t(scene.vertices.size());
        for (glm::dvec2 corner : {glm::dvec2(6.3, 74.2), glm::dvec2(176.6, 103.7), glm::dvec2(6.1, 76.4)})
            scene.vertices.push_back({at_window(corner.x, corner.y, 14), glm::vec3(0, 0, 1), glm::vec2(0)});
        for (uint32_t i : {0u, 1u, 2u, 0u, 2u, 1u}) large.push_back(base + i);
    }
    add_mesh(scene, large, {0.7f, 0.5f, 0.9f, 1.0f});
    // Crossing the near plane: from behind the camera to 3 units in front, low on the screen.
    add_quad(scene, {-1.0f, -0.6f, 1.0f}, {1.0f, -0.6f, 1.0f}, {1.0f, -0.6f, -3.0f}, {-1.0f, -0.6f, -3.0f}, near, true);
    add_mesh(scene, near, {0.3f, 0.3f, 0.9f, 1.0f});
    // Alpha-masked (every texel kept: the plain texture's alpha 1 times 0.8 is above the cutoff),
    // small enough for the compute rasterizer, which leaves it to the hardware.
    add_quad(scene, at_window(10, 100, 9), at_window(18, 100, 9), at_window(18, 92, 9), at_window(10, 92, 9), masked);
    add_mesh(scene, masked, {0.9f, 0.2f, 0.9f, 0.8f}, 0.5f);
    // Double-sided, tilted so both faces show across the frame: a strip of small quads turning.
    for (int i = 0; i < 10; ++i) {
        float a0 = 0.7f * float(i), a1 = a0 + 0.7f;
        glm::vec3 c(2.0f + 0.45f * float(i), 0.8f, -9.0f);
        add_quad(scene, c + glm::vec3(-0.2f * std::cos(a0), -0.2f, 0.2f * std::sin(a0)),
                 c + glm::vec3(0.2f * std::cos(a1), -0.2f, -0.2f * std::sin(a1)),
                 c + glm::vec3(0.2f * std::cos(a1), 0.2f, -0.2f * std::sin(a1)),
                 c + glm::vec3(-0.2f * std::cos(a0), 0.2f, 0.2f * std::sin(a0)), sides, true);
    }
    add_mesh(scene, sides, {0.2f, 0.8f, 0.8f, 1.0f});
    update_bounds(scene);
    return scene;
}

// Slivers one sub-pixel unit (1/256 pixel) wide, each with an edge along a row (or column) of pixel
// centres, which the fill rule gives it, and the third vertex much nearer than the other two. The
// float positions sit 0.3 units off the snapped ones (well inside a rounding, so the snap is
// certain), on alternating sides: the float triangle is then another sliver, tilted across the
// centres, and a plane through it puts the centres up to a third of the triangle's depth range off.
Scene sliver_scene() {
    Scene scene;
    std::vector<uint32_t> indices;
    constexpr double u = 1.0 / 256.0;  // a sub-pixel unit, in pixels
    auto sliver = [&](glm::dvec2 a, glm::dvec2 b, glm::dvec2 c, glm::dvec3 offsets, glm::vec3 distances) {
        uint32_t base = uint32_t(scene.vertices.size());
        glm::dvec2 corners[3] = {a, b, c};
        for (int i = 0; i < 3; ++i) {
            glm::dvec2 off = offsets[i] * u * glm::dvec2(b.y == a.y ? 0.0 : 1.0, b.y == a.y ? 1.0 : 0.0);  // across the sliver
            scene.vertices.push_back({at_window(corners[i].x + off.x, corners[i].y + off.y, distances[i]), glm::vec3(0, 0, 1), glm::vec2(0)});
        }
        // Both windings: the front one draws (which one depends on the corners' order).
        for (uint32_t i : {0u, 1u, 2u, 0u, 2u, 1u}) indices.push_back(base + i);
    };
    for (int row = 0; row < 18; ++row)
        for (int column = 0; column < 4; ++column) {
            double x0 = 6.0 + 46.0 * column, y = 4.5 + 5.0 * row;  // y: a row of pixel centres
            double sign = (row + column) % 2 ? 1.0 : -1.0;
            glm::vec3 distances(10.0f + float(column), 12.0f - float(row % 3), 5.0f);
            if (row % 6 == 5) {  // a column of centres instead: the left edge x = x0 + 0.5, the third vertex right of it
                double x = x0 + 20.5;
                sliver({x, y - 3.0}, {x, y + 17.0}, {x + u, y + 17.0}, {0.3 * sign, -0.3 * sign, -0.3 * sign}, distances);
            } else {  // the top edge along the row, the third vertex below it
                sliver({x0, y}, {x0 + 20.0, y}, {x0 + 20.0, y + u}, {0.3 * sign, -0.3 * sign, -0.3 * sign}, distances);
            }
        }
    add_mesh(scene, indices, {0.9f, 0.6f, 0.2f, 1.0f});
    update_bounds(scene);
    return scene;
}

struct Coverage {
    Shot hardware, compute;
};

// `shots`: where given, the hardware's and the subgroup path's shots for the caller's own checks.
void expect_compute_names_the_hardwares_triangles(const Scene& scene, std::optional<Camera> camera, const char* name,
                                                  Coverage* shots = nullptr) {
    uint32_t messages = validation_message_count();
    Shot hardware = render(scene, Raster::hardware, camera);
    Shot compute = render(scene, Raster::compute, camera, Request::subgroup);
    Shot fallback = render(scene, Raster::compute, camera, Request::fallback);
    ASSERT_EQ(compute.plan.raster.raster, Raster::compute) << compute.plan.raster.reason;
    ASSERT_EQ(compute.plan.raster.variant, Variant::subgroup) << compute.plan.raster.reason;
    ASSERT_EQ(fallback.plan.raster.variant, Variant::fallback);
    EXPECT_NOT_BLANK(hardware.color);
    Comparison c = compare(scene, hardware, compute);
    EXPECT_EQ(c.untied, "") << name;
    EXPECT_GE(c.covered, int(kSize.width * kSize.height / 4)) << name << ": too few covered pixels";
    EXPECT_GE(double(c.same), 0.999 * c.covered) << name;
    double frame_psnr = rgb_psnr(compute.color, hardware.color);
    EXPECT_GE(frame_psnr, 60.0) << name;
    // The subgroup and fallback rasterizers: the same words, bit for bit.
    ASSERT_EQ(compute.words.size(), size_t(kSize.width) * kSize.height);
    EXPECT_TRUE(compute.words == fallback.words) << name << ": the subgroup and fallback rasterizers' words differ";
    printf("%s: %d covered pixels, %d name the hardware's triangle, %d depth ties, %d on the edge of a triangle reaching past the "
           "frame's; frame %.2f dB against --raster hardware\n",
           name, c.covered, c.same, c.ties, c.frame_edge, frame_psnr);
    EXPECT_EQ(validation_message_count(), messages) << name;
    if (shots) *shots = {std::move(hardware), std::move(compute)};
}

TEST(Raster, GeneratedSceneComputeNamesTheHardwaresTriangles) {
    REQUIRE_DRAWING();
    REQUIRE_COMPUTE_RASTER();
    static const Scene scene = generated_scene();
    Coverage shots;
    expect_compute_names_the_hardwares_triangles(scene, generated_camera(), "the generated scene", &shots);
    if (HasFatalFailure()) return;
    // The quad crossing the near plane (draw 5) is clipped in compute: the reference sorts its
    // front faces to the tile bins, and its pixels are the hardware's.
    constexpr uint32_t kNearQuad = 5;
    const Shot &hardware = shots.hardware, &compute = shots.compute;
    int clipped = 0;
    for (uint32_t t = 0; t < compute.drawn[kNearQuad].size() / 3; ++t) {
        bool crosses = false;
        for (int i = 0; i < 3; ++i) {
            glm::vec4 clip = compute.view_proj * glm::vec4(scene.vertices[compute.drawn[kNearQuad][3 * t + i]].position, 1.0f);
            crosses = crosses || clip.z > clip.w;
        }
        clipped += crosses && classify(scene, compute, kNearQuad, t) == kTileBin;
    }
    EXPECT_GE(clipped, 1) << "no triangle of the near-plane quad crosses the plane and goes to compute";
    int near_pixels = 0, near_same = 0;
    for (size_t p = 0; p < hardware.ids.size() / 2; ++p) {
        if (hardware.ids[2 * p] != kNearQuad) continue;
        ++near_pixels;
        near_same += same_triangle(hardware, compute, p);
    }
    EXPECT_GE(near_pixels, 1000) << "the near-plane quad should cover the bottom of the frame";
    EXPECT_GE(double(near_same), 0.995 * near_pixels) << "the near-plane quad's pixels";
    printf("the near-plane quad: %d triangles clipped in compute; %d of its %d pixels the hardware's triangle\n", clipped, near_same,
           near_pixels);
}

TEST(Raster, BundledSceneComputeNamesTheHardwaresTriangles) {
    REQUIRE_DRAWING();
    REQUIRE_COMPUTE_RASTER();
    expect_compute_names_the_hardwares_triangles(default_scene(), std::nullopt, "the bundled scene");
}

// The depth of a covered pixel is the plane through the snapped vertices at its centre, clamped to
// the triangle's depth range: on slivers whose float and snapped triangles differ, against the CPU
// reference (cover()), within a thousandth of the triangle's depth range, for both paths.
TEST(Raster, SliverDepthIsTheSnappedPlaneClampedToTheTriangle) {
    REQUIRE_DRAWING();
    REQUIRE_COMPUTE_RASTER();
    static const Scene scene = sliver_scene();
    uint32_t messages = validation_message_count();
    for (Request variant : {Request::subgroup, Request::fallback}) {
        Shot shot = render(scene, Raster::compute, generated_camera(), variant);
        int covered = 0, off = 0;
        std::string first;
        for (size_t p = 0; p < shot.ids.size() / 2; ++p) {
            uint32_t draw = shot.ids[2 * p], primitive = shot.ids[2 * p + 1];
            if (draw == kNoTriangle) continue;
            ++covered;
            int x = int(p % kSize.width), y = int(p / kSize.width);
            Cover c = cover(scene, shot, draw, primitive, x, y);
            // The triangle's depth range, from the CPU's window positions.
            double lo = 1.0, hi = 0.0;
            for (int i = 0; i < 3; ++i) {
                const Vertex& v = scene.vertices[shot.drawn[draw][3 * primitive + i]];
                glm::vec4 clip = shot.view_proj * glm::vec4(v.position, 1.0f);
                lo = std::min(lo, double(clip.z) / clip.w);
                hi = std::max(hi, double(clip.z) / clip.w);
            }
            float depth;
            uint32_t high = uint32_t(shot.words[p] >> 32);
            memcpy(&depth, &high, 4);
            if (c.covered && std::abs(depth - c.depth) <= 1e-3 * (hi - lo) + 1e-7) continue;
            if (off++ == 0)
                first = "pixel (" + std::to_string(x) + ", " + std::to_string(y) + "), triangle (" + std::to_string(draw) + ", " +
                        std::to_string(primitive) + "): " + (c.covered ? "" : "not covered by the CPU reference, ") + "depth " +
                        std::to_string(depth) + ", reference " + std::to_string(c.depth) + ", range [" + std::to_string(lo) +
                        ", " + std::to_string(hi) + "]";
        }
        EXPECT_GE(covered, 1200) << "the slivers should cover a row of about 20 centres each";
        EXPECT_EQ(off, 0) << variant_name(variant == Request::subgroup ? Variant::subgroup : Variant::fallback) << ": " << off
                          << " of " << covered << " pixels off the snapped plane, first " << first;
        printf("slivers (%s): %d covered pixels, %d off the snapped plane\n", variant == Request::subgroup ? "subgroup" : "fallback",
               covered, off);
    }
    EXPECT_EQ(validation_message_count(), messages);
}

// Occlusion's two phases (a street of a 2 x 2 grid, the camera stepping sideways): phase 1 and the
// late draw both rasterize in compute and add to the same words, which are the frame's (the ids
// name source triangles); the pyramid between them is built from the words' depth. At least 99.9%
// of the covered pixels name the hardware's triangle, and where one does not, its triangle and the
// hardware's meet there.
TEST(Raster, OcclusionPhaseTwoMatchesHardware) {
    REQUIRE_DRAWING();
    REQUIRE_COMPUTE_RASTER();
    const Scene& grid = street_grid();
    uint32_t messages = validation_message_count();
    auto street = [&](Raster raster) {
        Camera view = camera_for(CameraView::street, grid.bounds_min, grid.bounds_max, grid.grid);
        return render(grid, raster, view, Request::automatic, true, Request::fallback, 3);
    };
    Shot hardware = street(Raster::hardware), compute = street(Raster::compute);
    ASSERT_EQ(compute.plan.raster.raster, Raster::compute);
    ASSERT_GT(compute.counters.occlusion_triangles.readmitted_phase2, 0u) << "no late draw to test";
    EXPECT_EQ(compute.counters.occlusion_triangles.readmitted_phase2, hardware.counters.occlusion_triangles.readmitted_phase2);
    EXPECT_NOT_BLANK(hardware.color);
    // Where the two differ, the two triangles must meet at the pixel: the depths the later passes
    // read (the hardware's depth image, the words') within 1e-6, or within the depth's change over
    // 1/32 pixel there (the slope from the hardware's image): the compute rasterizer's plane is the
    // snapped triangle's, lavapipe's the float one's, and snapping moves the vertices by up to
    // 1/512 pixel, which a thin triangle's plane amplifies. (On lavapipe: 1 pixel of 20736, (10,
    // 58), on an edge of the ground shared by two of its triangles at a grazing angle: depths
    // 5.4e-7 apart, the slope 6.4e-5 a pixel, so 2.2/256 pixel's worth.)
    int covered = 0, differ = 0;
    std::string apart;
    // Per axis the smaller of the two neighbours' differences, so that an edge of another surface
    // on one side does not count.
    auto slope = [&](size_t p) {
        int x = int(p % kSize.width), y = int(p / kSize.width);
        auto step = [&](int dx, int dy) {
            int nx = x + dx, ny = y + dy;
            if (nx < 0 || ny < 0 || nx >= int(kSize.width) || ny >= int(kSize.height)) return INFINITY;
            return std::abs(hardware.depth[size_t(ny) * kSize.width + size_t(nx)] - hardware.depth[p]);
        };
        float gx = std::min(step(1, 0), step(-1, 0)), gy = std::min(step(0, 1), step(0, -1));
        return (std::isinf(gx) ? 0.0f : gx) + (std::isinf(gy) ? 0.0f : gy);
    };
    int frame_edge = 0;
    for (size_t p = 0; p < hardware.ids.size() / 2; ++p) {
        if (hardware.ids[2 * p] != kNoTriangle) ++covered;
        if (same_triangle(compute, hardware, p)) continue;
        ++differ;
        uint32_t hd = hardware.ids[2 * p], cd = compute.ids[2 * p];
        printf("differing pixel (%zu, %zu): hardware (%u, %u), compute (%u, %u), depths %s apart, slope %s a pixel\n", p % kSize.width,
               p / kSize.width, hd, hardware.ids[2 * p + 1], cd, compute.ids[2 * p + 1],
               precise(std::abs(hardware.depth[p] - compute.depth[p])).c_str(), precise(slope(p)).c_str());
        // (Counted: an edge of a triangle the hardware clips at the frame's edge. The two must still meet.)
        frame_edge += (hd != kNoTriangle && crosses_the_frame(grid, hardware, hd, hardware.ids[2 * p + 1])) ||
                      (cd != kNoTriangle && crosses_the_frame(grid, compute, cd, compute.ids[2 * p + 1]));
        float tolerance = std::max(1e-6f * std::max(hardware.depth[p], 1e-3f), slope(p) / 32.0f);
        if (std::abs(hardware.depth[p] - compute.depth[p]) > tolerance && apart.empty())
            apart = "pixel (" + std::to_string(p % kSize.width) + ", " + std::to_string(p / kSize.width) + "): depth " +
                    precise(hardware.depth[p]) + " (hardware), " + precise(compute.depth[p]) + " (compute), slope " +
                    precise(slope(p));
    }
    EXPECT_EQ(apart, "") << "a pixel whose triangle differs from the hardware's where the two do not meet";
    EXPECT_LE(double(differ), 0.001 * covered);
    EXPECT_GE(rgb_psnr(compute.color, hardware.color), 60.0);
    printf("occlusion: %u triangles re-admitted, %d covered pixels, %d name another triangle than the hardware's (%d on the edge of "
           "a triangle reaching past the frame's)\n",
           compute.counters.occlusion_triangles.readmitted_phase2, covered, differ, frame_edge);
    EXPECT_EQ(validation_message_count(), messages);
}

// A camera moving down the street of a 2 x 2 grid under occlusion, 20 frames: in every frame the
// words that phase 1 and the late draw wrote (each triangle named by its draw and its index in the
// draw's level, so the two phases' words need no second rasterization) are, bit for bit, those of
// one rasterization of the visible triangles: --occlusion off at the same camera, whose list holds
// every triangle the cull keeps, the occluded ones too (they lose every pixel they cover). The late
// draw must have re-admitted triangles in some of the frames, and the two renderers must agree on
// the frame's triangles drawn at all.
TEST(Raster, OcclusionPhasesWriteTheWordsOfOneRasterizationInEveryFrame) {
    REQUIRE_DRAWING();
    REQUIRE_COMPUTE_RASTER();
    const Scene& grid = street_grid();
    const Context& ctx = test_context();
    uint32_t messages = validation_message_count();
    auto make = [&](Request occlusion) {
        RendererConfig config;
        config.extent = kSize;
        config.lights = 16;
        // (No ray tracer: the words are the pre-pass's, and 40 frames on lavapipe stay short.)
        config.plan = raster_plan(Raster::compute, Request::automatic, occlusion, ViewMode::shaded, Request::off);
        return std::make_unique<Renderer>(ctx, grid, config);
    };
    std::unique_ptr<Renderer> occluded = make(Request::fallback), reference = make(Request::off);
    uint32_t without_late = 0;
    // The late draw's dispatches: the chunks' grid and the split's where phase 2 re-admitted
    // something, no workgroup where it did not (within the device's limits either way).
    auto late_dispatches = [&](uint32_t i, uint32_t late) {
        std::array<uint32_t, 8> dispatches = occluded->read_raster_late_dispatches();
        const uint32_t* most = ctx.properties.limits.maxComputeWorkGroupCount;
        uint32_t chunk_groups = dispatches[0] * dispatches[1], split_groups = dispatches[4] * dispatches[5];
        EXPECT_TRUE(dispatches[0] <= most[0] && dispatches[1] <= most[1] && dispatches[2] == 1 && dispatches[6] == 1) << "frame " << i;
        if (late == 0) {
            ++without_late;
            EXPECT_EQ(chunk_groups + split_groups, 0u) << "frame " << i << ": the late draw launched workgroups where nothing was re-admitted";
        } else {
            EXPECT_GE(uint64_t(chunk_groups), raster_chunk_count(grid)) << "frame " << i << ": the late draw's chunks";
            EXPECT_EQ(split_groups, ((kSize.width + 7) / 8) * ((kSize.height + 7) / 8)) << "frame " << i << ": the late draw's split";
        }
    };
    constexpr uint32_t kFrames = 20;
    StreetWords w = expect_street_words_of_one_rasterization(
        ctx, *occluded, *reference, kFrames, "triangles",
        [](Renderer& r) { return r.read_counters().occlusion_triangles.readmitted_phase2; }, late_dispatches);
    printf("occlusion, moving camera: %u of %u frames' words identical to --occlusion off's; %u frames re-admitted %u triangles, %u "
           "nothing (their late draw launched no workgroup)\n",
           w.identical, kFrames, w.with_late, w.readmitted, without_late);
    EXPECT_EQ(validation_message_count(), messages);
}

// Levels of detail (--lod auto): the compute rasterizer's ids name a triangle by its index in the
// level the cull chose for its draw this frame, which the decoders find in that level's command
// (CullPass::level_indirect, written by the cull). On the bundled scene from its default view, where
// many draws take a coarser level: every covered pixel names the hardware's triangle or a confirmed
// tie (the triangle read through each path's own list), and the shaded frame is the hardware's.
TEST(Raster, CoarserLevelsOfDetailNameTheHardwaresTriangles) {
    REQUIRE_DRAWING();
    REQUIRE_COMPUTE_RASTER();
    static const Scene scene = load_requested_scene(Options{});  // the bundled scene with its levels, as the program loads it
    const Context& ctx = test_context();
    uint32_t messages = validation_message_count();
    auto shoot = [&](Raster raster) {
        RendererConfig config;
        config.extent = kSize;
        config.lights = 16;
        config.plan = raster_plan(raster, Request::automatic, Request::off, ViewMode::shaded, Request::off, true);
        Renderer renderer(ctx, scene, config);
        Camera view = renderer.default_view();
        VkCommandBuffer cmd = begin_one_shot(ctx);
        renderer.record(cmd, 0, 0, view);
        end_one_shot(ctx, cmd);
        Shot s;
        s.plan = config.plan;
        s.counters = renderer.read_counters();
        s.color = renderer.read_color();
        s.ids = renderer.read_visibility();
        s.drawn = renderer.read_named_indices();
        s.view_proj = view.projection(float(kSize.width) / float(kSize.height)) * view.view();
        return s;
    };
    Shot hardware = shoot(Raster::hardware), compute = shoot(Raster::compute);
    ASSERT_EQ(compute.plan.raster.raster, Raster::compute) << compute.plan.raster.reason;
    ASSERT_TRUE(compute.plan.lod);
    uint32_t coarser = 0;
    for (uint32_t level = 1; level < kMaxLodLevels; ++level) coarser += compute.counters.lod_draws[level];
    EXPECT_GE(coarser, 40u) << "draws should take coarser levels from the default view (60 of 152 on lavapipe)";
    Comparison c = compare(scene, hardware, compute);
    EXPECT_EQ(c.untied, "");
    EXPECT_GE(c.covered, int(kSize.width * kSize.height / 4));
    EXPECT_GE(double(c.same), 0.999 * c.covered);
    double frame_psnr = rgb_psnr(compute.color, hardware.color);
    EXPECT_GE(frame_psnr, 60.0);
    printf("levels of detail: %u draws at a coarser level, %u at level 0; %d covered pixels, %d the hardware's triangle, %d ties; "
           "frame %.2f dB\n", coarser, compute.counters.lod_draws[0], c.covered, c.same, c.ties, frame_psnr);
    EXPECT_EQ(validation_message_count(), messages);
}

// Without the fill rule's top-left condition (a centre on an edge belongs to neither triangle),
// the grid's shared edges lose their pixels: the comparison must find them, as no tie explains them.
TEST(Raster, DroppingTheTopLeftConditionIsCaught) {
    REQUIRE_DRAWING();
    REQUIRE_COMPUTE_RASTER();
    static const Scene scene = generated_scene();
    Shot hardware = render(scene, Raster::hardware, generated_camera());
    Shot dropped = render(scene, Raster::compute, generated_camera(), Request::subgroup, false);
    Comparison c = compare(scene, hardware, dropped);
    EXPECT_NE(c.untied, "") << "the comparison did not notice the missing top-left condition";
    printf("top-left condition dropped: %s\n", c.untied.c_str());
}

// A hardware list too small for the frame's hardware triangles (2 slots; the generated scene
// without a guard band lists the wall's, the alpha-masked quad's and the near-plane quad's): the
// count runs on past the capacity, and the hardware draw must stop at the
// capacity. The slots past it hold a guard id, the wall's first triangle with the late bit (which
// the compute rasterizer never writes): a draw reading them would put that id in every wall pixel,
// as it beats the wall's own at equal depth.
TEST(Raster, HardwareDrawStopsAtTheListsCapacity) {
    REQUIRE_DRAWING();
    REQUIRE_COMPUTE_RASTER();
    static const Scene scene = generated_scene();
    uint32_t messages = validation_message_count();
    const uint32_t guard = visibility_id_indexed(0, 0, true, uint32_t(scene.instances.size()));
    for (Request variant : {Request::subgroup, Request::fallback}) {
        auto unguarded = [](Renderer& r) { r.set_raster_guard_band(0); };  // (the wall the hardware's)
        Shot full = render(scene, Raster::compute, generated_camera(), variant, true, Request::off, 1, unguarded);
        Shot small = render(scene, Raster::compute, generated_camera(), variant, true, Request::off, 1, [&](Renderer& r) {
            r.set_raster_guard_band(0);
            r.set_raster_list_capacity(2, guard);
        });
        int late = 0, wall = 0, lost = 0;
        for (size_t p = 0; p < small.words.size(); ++p) {
            uint32_t id = uint32_t(small.words[p]) - 1u;
            late += small.words[p] != 0 && visibility_id_late(id);
            wall += full.ids[2 * p] == 0;
            lost += small.words[p] != full.words[p];
        }
        EXPECT_GT(wall, 1000) << "the wall should fill the background";
        EXPECT_GT(lost, 0) << "the small list should have lost some hardware triangles";
        EXPECT_EQ(late, 0) << late << " pixels name the guard id: the hardware draw read past the list's capacity";
    }
    EXPECT_EQ(validation_message_count(), messages);
}

// More draws than the device's maxComputeWorkGroupCount, which SGD_MASK_LIMITS lowers to 64 in a
// context of the test's own: 300 quads of their own draw (about 6 pixels, the compute
// rasterizer's), a 96-triangle mesh (two chunks), two large quads behind them (tile bins: 78
// entries) and the wall (past the frame's edge, in the guard band: 48 entries). The rasterizer's workgroups (a chunk of 64 triangles each, 304) and the
// tile bins' (one per entry, an indirect dispatch) must fold into rows of 64 (a dispatch past the
// limit is a validation error, vk/resources.h dispatch(); the indirect one is sized by
// raster_bin_args.comp), and write the words of the unlimited context, bit for bit.
TEST(Raster, MoreChunksThanTheWorkgroupLimitFoldIntoRows) {
    REQUIRE_DRAWING();
    REQUIRE_COMPUTE_RASTER();
    static const Scene scene = [] {
        Scene scene;
        std::vector<uint32_t> back, fan;
        add_quad(scene, {-100, -60, -40}, {100, -60, -40}, {100, 60, -40}, {-100, 60, -40}, back);
        add_mesh(scene, back, {0.5f, 0.5f, 0.6f, 1.0f});
        for (int i = 0; i < 20; ++i)
            for (int j = 0; j < 15; ++j) {
                std::vector<uint32_t> quad;
                double x = 8.0 + 9.0 * i, y = 8.0 + 6.5 * j;
                add_quad(scene, at_window(x, y + 5, 10), at_window(x + 6, y + 5, 10), at_window(x + 6, y, 10), at_window(x, y, 10), quad);
                add_mesh(scene, quad, {0.2f + 0.03f * float(i), 0.7f, 0.2f + 0.05f * float(j), 1.0f});
            }
        for (int k = 0; k < 48; ++k) {  // 48 quads of one mesh in a strip along the bottom: 96 triangles
            double x = 4.0 + 3.8 * k;
            add_quad(scene, at_window(x, 106, 9), at_window(x + 3, 106, 9), at_window(x + 3, 103, 9), at_window(x, 103, 9), fan);
        }
        add_mesh(scene, fan, {0.9f, 0.3f, 0.3f, 1.0f});
        std::vector<uint32_t> large;  // boxes over tiles 0-5 x 0-3 (24 entries a triangle) and 1-5 x 1-3 (15)
        add_quad(scene, at_window(6, 104, 30), at_window(186, 104, 30), at_window(186, 4, 30), at_window(6, 4, 30), large);
        add_quad(scene, at_window(40, 100, 20), at_window(180, 100, 20), at_window(180, 40, 20), at_window(40, 40, 20), large);
        add_mesh(scene, large, {0.4f, 0.4f, 0.8f, 1.0f});
        update_bounds(scene);
        return scene;
    }();
    ASSERT_EQ(raster_chunk_count(scene), 304u);
    ScopedEnv mask("SGD_MASK_LIMITS", "maxComputeWorkGroupCount=64");
    Context limited;
    ContextOptions options;
    options.validate = true;
    create_context(limited, options);
    ASSERT_EQ(limited.properties.limits.maxComputeWorkGroupCount[0], 64u);
    uint32_t messages = validation_message_count();
    for (Request variant : {Request::subgroup, Request::fallback}) {
        Shot reference = render(scene, Raster::compute, generated_camera(), variant);
        Shot folded = render(scene, Raster::compute, generated_camera(), variant, true, Request::off, 1, {}, &limited);
        ASSERT_EQ(folded.plan.raster.raster, Raster::compute);
        int covered = 0;
        for (uint64_t word : folded.words) covered += uint32_t(word) != 0;
        EXPECT_GT(covered, 300 * 20) << "the quads should cover about 30 pixels each";
        EXPECT_EQ(folded.bins[3], 78u + 48u) << "the large quads' tiles and the wall's (in the guard band)";
        EXPECT_LE(folded.bins[0], 64u) << "the tile bins' dispatch past the limit";
        EXPECT_GE(uint64_t(folded.bins[0]) * folded.bins[1], folded.bins[3]) << "the tile bins' dispatch misses entries";
        EXPECT_TRUE(folded.words == reference.words) << "the folded grid's words differ from the unlimited one's";
    }
    EXPECT_EQ(validation_message_count(), messages) << "a dispatch past the limit (printed above)";
}

const char* path_name(int path) {
    static const char* names[kPaths] = {"nobody", "per lane", "split", "tile bin", "hardware"};
    return names[path];
}

// The instrumented frame of the generated scene (counters, visibility, the listed triangles) and,
// with `view`, its --view raster frame.
Shot instrumented_shot(const Scene& scene, Request variant, bool view, const std::function<void(Renderer&)>& prepare = {}) {
    const Context& ctx = test_context();
    RendererConfig config;
    config.extent = kSize;
    config.lights = 16;
    config.view_legend = false;
    config.plan = raster_plan(Raster::compute, variant, Request::off, view ? ViewMode::raster : ViewMode::shaded);
    Renderer renderer(ctx, scene, config);
    if (prepare) prepare(renderer);
    VkCommandBuffer cmd = begin_one_shot(ctx);
    renderer.record(cmd, 0, 0, generated_camera(), true);
    end_one_shot(ctx, cmd);
    Shot shot;
    shot.plan = config.plan;
    shot.counters = renderer.read_counters();
    shot.color = renderer.read_color();
    shot.ids = renderer.read_visibility();
    shot.words = renderer.read_raster_words();
    shot.drawn = renderer.read_named_indices();
    shot.listed = renderer.read_drawn_indices();
    Camera camera = generated_camera();
    shot.view_proj = camera.projection(float(kSize.width) / float(kSize.height)) * camera.view();
    return shot;
}

// The report's raster counters (the instrumented frame) against the CPU: the triangles of each
// path (per lane, split, tile bin, hardware), by the reference sorting of every listed triangle,
// and the pixels: every covered one, and of them those whose triangle (from the visibility image)
// the reference gives each path. The generated scene fills every path.
TEST(Raster, CountersSayWhoRasterizedEachTriangleAndWroteEachPixel) {
    REQUIRE_DRAWING();
    REQUIRE_COMPUTE_RASTER();
    static const Scene scene = generated_scene();
    uint32_t messages = validation_message_count();
    for (Request variant : {Request::subgroup, Request::fallback}) {
        Shot shot = instrumented_shot(scene, variant, false);
        const GpuCounters& counters = shot.counters;
        uint32_t triangles[kPaths] = {}, pixels[kPaths] = {}, covered = 0;
        Shot lanes = shot;
        lanes.drawn = shot.listed;
        for (uint32_t draw = 0; draw < lanes.drawn.size(); ++draw)
            for (uint32_t t = 0; t < lanes.drawn[draw].size() / 3; ++t) ++triangles[classify(scene, lanes, draw, t)];
        for (size_t p = 0; p < shot.ids.size() / 2; ++p) {
            if (shot.ids[2 * p] == kNoTriangle) continue;
            ++covered;
            ++pixels[classify(scene, shot, shot.ids[2 * p], shot.ids[2 * p + 1])];
        }
        EXPECT_EQ(pixels[kNobody], 0u) << "covered pixels named by a triangle the reference draws nowhere";
        for (int path = kPerLane; path < kPaths; ++path) {
            EXPECT_GT(triangles[path], 0u) << path_name(path) << ": the generated scene should fill every path";
            EXPECT_GT(pixels[path], 50u) << path_name(path);
        }
        const uint32_t path_triangles[kPaths] = {0, counters.raster_path_triangles[0], counters.raster_path_triangles[1],
                                                 counters.raster_path_triangles[2], counters.raster_triangles[1]};
        const uint32_t path_pixels[kPaths] = {0, counters.raster_path_pixels[0], counters.raster_path_pixels[1],
                                              counters.raster_path_pixels[2], counters.raster_pixels_hardware};
        for (int path = kPerLane; path < kPaths; ++path) {
            EXPECT_EQ(path_triangles[path], triangles[path]) << path_name(path) << " triangles";
            EXPECT_EQ(path_pixels[path], pixels[path]) << path_name(path) << " pixels";
        }
        EXPECT_EQ(counters.raster_triangles[0], triangles[kPerLane] + triangles[kSplit] + triangles[kTileBin]) << "compute triangles";
        EXPECT_EQ(counters.raster_pixels_covered, covered);
        printf("%s: triangles per lane %u, split %u, tile bin %u, hardware %u, nobody %u; of %u covered pixels per lane %u, split %u, "
               "tile bin %u, hardware %u\n",
               variant == Request::subgroup ? "subgroup" : "fallback", triangles[kPerLane], triangles[kSplit], triangles[kTileBin],
               triangles[kHardware], triangles[kNobody], covered, pixels[kPerLane], pixels[kSplit], pixels[kTileBin], pixels[kHardware]);
    }
    EXPECT_EQ(validation_message_count(), messages);
}

// The instrumented frame's pixels per path in a two-phase frame are those of one phase
// (--occlusion off at the same camera: the same words, and the occluded triangles it adds win no
// pixel). The classifying passes must bin the merged list again: the late phase replaces phase 1's
// tile bins with its own, which counted (and --view raster painted) only the late phase's pixels.
TEST(Raster, TwoPhaseFramesCountEachPathsPixelsAsOnePhase) {
    REQUIRE_DRAWING();
    REQUIRE_COMPUTE_RASTER();
    const Scene& scene = default_scene();
    uint32_t messages = validation_message_count();
    auto counted = [&](Request occlusion) {
        const Context& ctx = test_context();
        RendererConfig config;
        config.extent = kSize;
        config.lights = 16;
        config.plan = raster_plan(Raster::compute, Request::automatic, occlusion);
        Renderer renderer(ctx, scene, config);
        for (uint32_t frame = 0; frame < 2; ++frame) {
            VkCommandBuffer cmd = begin_one_shot(ctx);
            renderer.record(cmd, 0, frame, renderer.default_view(), frame == 1);
            end_one_shot(ctx, cmd);
        }
        return renderer.read_counters();
    };
    GpuCounters two_phases = counted(Request::fallback), one_phase = counted(Request::off);
    EXPECT_GT(two_phases.raster_path_pixels[2], 0u) << "the tile bins' pixels";
    for (int path = 0; path < 3; ++path)
        EXPECT_EQ(two_phases.raster_path_pixels[path], one_phase.raster_path_pixels[path]) << path_name(path + 1) << " pixels";
    EXPECT_EQ(two_phases.raster_pixels_hardware, one_phase.raster_pixels_hardware);
    EXPECT_EQ(two_phases.raster_pixels_covered, one_phase.raster_pixels_covered);
    EXPECT_EQ(validation_message_count(), messages);
}

// Tile bins too small for the frame's large triangles (12 entries, where the generated scene's
// large triangles need about 20): those that do not fit go to the hardware, which covers the same
// pixels. The frame must still name the hardware pre-pass's triangles (ties aside), the counters
// move those triangles from the tile bins to the hardware, and no entry is read past the capacity.
TEST(Raster, FullTileBinsSendTheRestToTheHardware) {
    REQUIRE_DRAWING();
    REQUIRE_COMPUTE_RASTER();
    static const Scene scene = generated_scene();
    uint32_t messages = validation_message_count();
    Shot hardware = render(scene, Raster::hardware, generated_camera());
    for (Request variant : {Request::subgroup, Request::fallback}) {
        // (Without a guard band: the wall's 48 tiles, the hardware's, do not crowd the bins.)
        Shot full = instrumented_shot(scene, variant, false, [](Renderer& r) { r.set_raster_guard_band(0); });
        Shot small = instrumented_shot(scene, variant, false, [](Renderer& r) {
            r.set_raster_guard_band(0);
            r.set_raster_bin_capacity(12);
        });
        const GpuCounters &a = full.counters, &b = small.counters;
        EXPECT_GT(a.raster_path_triangles[2], b.raster_path_triangles[2]) << "the small bins should have turned triangles away";
        EXPECT_GT(b.raster_path_triangles[2], 0u) << "the first to come (12 tiles at most) should still fit";
        EXPECT_EQ(a.raster_path_triangles[2] + a.raster_triangles[1], b.raster_path_triangles[2] + b.raster_triangles[1]);
        EXPECT_EQ(a.raster_pixels_covered, b.raster_pixels_covered);
        Comparison c = compare(scene, hardware, small);
        EXPECT_EQ(c.untied, "");
        EXPECT_GE(double(c.same), 0.999 * c.covered);
        printf("%s, 12 entries: %u triangles binned (of %u), %u to the hardware; %d of %d covered pixels the hardware's triangle\n",
               variant == Request::subgroup ? "subgroup" : "fallback", b.raster_path_triangles[2], a.raster_path_triangles[2],
               b.raster_triangles[1], c.same, c.covered);
    }
    EXPECT_EQ(validation_message_count(), messages);
}

// The guard band (kRasterDefaultGuardBand, SGD_RASTER_GUARD_BAND): the triangles reaching past the
// frame's edge by up to 16,384 pixels go to compute. lavapipe's hardware clips them at the edge,
// where the clipped edges' new vertices snap on their own, so a few pixels along such a triangle's
// edges may name its neighbour. What must still hold: each path's triangles as the CPU reference
// sorts them with the guard band (the hardware keeps only the alpha-masked ones), every pixel that
// differs from the hardware pre-pass involves a triangle reaching past the frame's edge, at least
// 99.9% of covered pixels the hardware's triangle, and the subgroup and fallback words identical;
// validated. With SGD_RASTER_GUARD_BAND's 0 (Renderer::set_raster_guard_band) the frame-crossing
// triangles go back to the hardware.
TEST(Raster, AGuardBandTakesTheFrameCrossingTrianglesInCompute) {
    REQUIRE_DRAWING();
    REQUIRE_COMPUTE_RASTER();
    static const Scene scene = generated_scene();
    uint32_t messages = validation_message_count();
    Shot hardware = render(scene, Raster::hardware, generated_camera());
    Shot shots[2] = {instrumented_shot(scene, Request::subgroup, false), instrumented_shot(scene, Request::fallback, false)};
    // (Each shot's triangle through its own list: the compute ids name source triangles.)
    auto crosses = [&](const Shot& s, uint32_t draw, uint32_t primitive) { return crosses_the_frame(scene, s, draw, primitive); };
    for (const Shot& shot : shots) {
        uint32_t triangles[kPaths] = {}, crossing = 0;
        Shot lanes = shot;
        lanes.drawn = shot.listed;  // (the hardware's drawn list is the same cull's)
        for (uint32_t draw = 0; draw < lanes.drawn.size(); ++draw)
            for (uint32_t t = 0; t < lanes.drawn[draw].size() / 3; ++t) {
                ++triangles[classify(scene, lanes, draw, t)];
                crossing += crosses(lanes, draw, t);
            }
        EXPECT_GT(crossing, 0u) << "the wall reaches past the frame's edge";
        const GpuCounters& k = shot.counters;
        EXPECT_EQ(k.raster_path_triangles[0], triangles[kPerLane]);
        EXPECT_EQ(k.raster_path_triangles[1], triangles[kSplit]);
        EXPECT_EQ(k.raster_path_triangles[2], triangles[kTileBin]);
        EXPECT_EQ(k.raster_triangles[1], triangles[kHardware]) << "the hardware's triangles with the guard band";
        int covered = 0, same = 0, unexplained = 0;
        for (size_t p = 0; p < hardware.ids.size() / 2; ++p) {
            uint32_t hd = hardware.ids[2 * p], hp = hardware.ids[2 * p + 1], cd = shot.ids[2 * p], cp = shot.ids[2 * p + 1];
            covered += hd != kNoTriangle;
            if (same_triangle(hardware, shot, p)) {
                same += hd != kNoTriangle;
                continue;
            }
            bool explained = (hd != kNoTriangle && crosses(hardware, hd, hp)) || (cd != kNoTriangle && crosses(shot, cd, cp));
            if (!explained && unexplained++ == 0)
                ADD_FAILURE() << "pixel " << p % kSize.width << ", " << p / kSize.width << " differs between triangles that stay inside the frame";
        }
        EXPECT_EQ(unexplained, 0);
        EXPECT_GE(double(same), 0.999 * covered);
        printf("guard band, %s: %u triangles to the hardware, %u reaching past the frame's edge in compute; %d of %d covered pixels the hardware's triangle\n",
               &shot == &shots[0] ? "subgroup" : "fallback", triangles[kHardware], crossing, same, covered);
    }
    EXPECT_TRUE(shots[0].words == shots[1].words) << "the subgroup and fallback rasterizers' words differ";
    // Without the guard band: the frame-crossing triangles are the hardware's again.
    Shot unguarded = instrumented_shot(scene, Request::subgroup, false, [](Renderer& r) { r.set_raster_guard_band(0); });
    uint32_t hardware_triangles = 0;
    Shot lanes = unguarded;
    lanes.drawn = unguarded.listed;
    for (uint32_t draw = 0; draw < lanes.drawn.size(); ++draw)
        for (uint32_t t = 0; t < lanes.drawn[draw].size() / 3; ++t) hardware_triangles += classify(scene, lanes, draw, t, 0.0f) == kHardware;
    EXPECT_GT(hardware_triangles, shots[0].counters.raster_triangles[1]);
    EXPECT_EQ(unguarded.counters.raster_triangles[1], hardware_triangles) << "the hardware's triangles without a guard band";
    EXPECT_EQ(validation_message_count(), messages);
}

// --view raster against the CPU: every covered pixel in the colour of the path the reference
// sorting gives its triangle (the visibility image's): per lane, split, tile bin or hardware; no
// colour on uncovered pixels; and the colours' counts the report's pixel counters, both paths.
TEST(Raster, ViewColoursEachPixelByWhoWroteItsWord) {
    REQUIRE_DRAWING();
    REQUIRE_COMPUTE_RASTER();
    static const Scene scene = generated_scene();
    uint32_t messages = validation_message_count();
    const uint32_t colours[kPaths] = {0, kRasterPerLaneColour, kRasterSplitColour, kRasterTileBinColour, kRasterHardwareColour};
    for (Request variant : {Request::subgroup, Request::fallback}) {
        Shot shot = instrumented_shot(scene, variant, true);
        ASSERT_EQ(shot.plan.view.variant, Variant::off) << shot.plan.view.reason;
        const GpuCounters& counters = shot.counters;
        uint32_t painted[kPaths] = {}, covered = 0, unclassified = 0, wrong = 0, coloured_uncovered = 0;
        for (size_t p = 0; p < shot.ids.size() / 2; ++p) {
            uint32_t colour;
            memcpy(&colour, &shot.color[4 * p], 4);
            int path = int(std::find(colours + 1, colours + kPaths, colour) - colours);  // kPaths: none
            if (shot.ids[2 * p] == kNoTriangle) {
                coloured_uncovered += path != kPaths;
                continue;
            }
            ++covered;
            if (path == kPaths) {
                if (unclassified++ == 0) ADD_FAILURE() << "pixel " << p % kSize.width << ", " << p / kSize.width << " unclassified: 0x" << std::hex << colour;
                continue;
            }
            ++painted[path];
            int expected = classify(scene, shot, shot.ids[2 * p], shot.ids[2 * p + 1]);
            if (expected != path && wrong++ == 0)
                ADD_FAILURE() << "pixel " << p % kSize.width << ", " << p / kSize.width << " in the colour of " << path_name(path)
                              << ": the reference sorts its triangle to " << path_name(expected) << " (draw " << shot.ids[2 * p]
                              << ", triangle " << shot.ids[2 * p + 1] << ")";
        }
        for (int path = kPerLane; path < kPaths; ++path) EXPECT_GT(painted[path], 50u) << path_name(path);
        EXPECT_EQ(unclassified, 0u) << "covered pixels in no path's colour";
        EXPECT_EQ(wrong, 0u) << "pixels coloured for another path";
        EXPECT_EQ(coloured_uncovered, 0u) << "uncovered pixels in a path's colour";
        EXPECT_EQ(covered, counters.raster_pixels_covered);
        EXPECT_EQ(painted[kHardware], counters.raster_pixels_hardware) << "hardware-coloured pixels";
        for (int path = kPerLane; path <= kTileBin; ++path)
            EXPECT_EQ(painted[path], counters.raster_path_pixels[path - 1]) << path_name(path) << "-coloured pixels";
        printf("%s: %u covered pixels: per lane %u, split %u, tile bin %u, hardware %u\n", variant == Request::subgroup ? "subgroup" : "fallback",
               covered, painted[kPerLane], painted[kSplit], painted[kTileBin], painted[kHardware]);
    }
    EXPECT_EQ(validation_message_count(), messages);
}

// Where the pre-pass is the hardware's there are no words to colour: --view raster is one line and
// exit 2 (the window's V shows that reason as the view's label instead).
// Under occlusion (the street of a 2 x 2 grid, the camera stepping sideways so that phase 2
// re-admits triangles): the late draw appends to phase 1's tile bin entries and rasterizes only its
// own, and the classifying passes after the frame's last rasterization take every entry. So the
// instrumented frame's per-path pixels add up to the covered pixels, and --view raster paints every
// covered pixel in a path's colour, phase 1's large triangles (the ground, the facades) included.
TEST(Raster, UnderOcclusionEveryCoveredPixelHasItsPath) {
    REQUIRE_DRAWING();
    REQUIRE_COMPUTE_RASTER();
    const Scene& grid = street_grid();
    const Context& ctx = test_context();
    uint32_t messages = validation_message_count();
    const uint32_t colours[4] = {kRasterPerLaneColour, kRasterSplitColour, kRasterTileBinColour, kRasterHardwareColour};
    for (ViewMode mode : {ViewMode::shaded, ViewMode::raster}) {
        RendererConfig config;
        config.extent = kSize;
        config.lights = 16;
        config.view_legend = false;
        config.plan = raster_plan(Raster::compute, Request::automatic, Request::fallback, mode, Request::off);
        Renderer renderer(ctx, grid, config);
        Camera view = camera_for(CameraView::street, grid.bounds_min, grid.bounds_max, grid.grid);
        for (uint32_t i = 0; i < 3; ++i) {
            if (i == 2) view = step_down_the_street(view, 0.04f);
            VkCommandBuffer cmd = begin_one_shot(ctx);
            renderer.record(cmd, 0, i, view, i == 2);
            end_one_shot(ctx, cmd);
        }
        GpuCounters k = renderer.read_counters();
        ASSERT_GT(k.occlusion_triangles.readmitted_phase2, 0u) << "no late draw";
        std::vector<uint32_t> ids = renderer.read_visibility();
        uint32_t covered = 0;
        for (size_t p = 0; p < ids.size() / 2; ++p) covered += ids[2 * p] != kNoTriangle;
        if (mode == ViewMode::shaded) {
            EXPECT_EQ(k.raster_pixels_covered, covered);
            EXPECT_GT(k.raster_path_pixels[2], covered / 4) << "the tile bins' pixels (the ground and the facades)";
            EXPECT_EQ(k.raster_path_pixels[0] + k.raster_path_pixels[1] + k.raster_path_pixels[2] + k.raster_pixels_hardware, covered)
                << "per lane " << k.raster_path_pixels[0] << ", split " << k.raster_path_pixels[1] << ", tile bin "
                << k.raster_path_pixels[2] << ", hardware " << k.raster_pixels_hardware;
            printf("occlusion: %u re-admitted; of %u covered pixels per lane %u, split %u, tile bin %u, hardware %u\n",
                   k.occlusion_triangles.readmitted_phase2, covered, k.raster_path_pixels[0], k.raster_path_pixels[1],
                   k.raster_path_pixels[2], k.raster_pixels_hardware);
        } else {
            std::vector<uint8_t> colour = renderer.read_color();
            uint32_t painted = 0, unpainted = 0;
            for (size_t p = 0; p < ids.size() / 2; ++p) {
                uint32_t c;
                memcpy(&c, &colour[4 * p], 4);
                bool in_a_colour = std::find(colours, colours + 4, c) != colours + 4;
                if (ids[2 * p] != kNoTriangle) (in_a_colour ? painted : unpainted) += 1;
            }
            EXPECT_EQ(unpainted, 0u) << "covered pixels --view raster left dim under occlusion";
            printf("occlusion, --view raster: %u of %u covered pixels painted\n", painted, covered);
        }
    }
    EXPECT_EQ(validation_message_count(), messages);
}

TEST(Raster, ViewWithoutTheComputeRasterizerIsRefused) {
    for (std::vector<std::string> args : {std::vector<std::string>{"--shading", "visibility", "--raster", "hardware"},
                                          std::vector<std::string>{"--shading", "forward"}}) {
        std::vector<std::string> command = {"--headless", "--size", "64x64", "--frames", "1", "--warmup", "0", "--no-tuning", "--view", "raster"};
        command.insert(command.end(), args.begin(), args.end());
        DemoRun refused = run_demo(command);
        EXPECT_EQ(refused.exit_code, 2) << refused.output;
        EXPECT_NE(refused.output.find("error: --view raster shows who wrote the compute rasterizer's words, but the pre-pass is the hardware's"),
                  std::string::npos)
            << refused.output;
    }
}

// Without 64-bit atomics (SGD_MASK_FEATURES=int64-atomics takes them away anywhere): auto takes
// hardware and says why, and --raster compute is refused with one line and exit 2.
TEST(Raster, WithoutInt64AtomicsAutoTakesHardwareAndComputeIsRefused) {
    ScopedEnv mask("SGD_MASK_FEATURES", "int64-atomics");
    DemoRun info = run_demo({"--info", "--shading", "visibility", "--no-tuning"});
    EXPECT_EQ(info.exit_code, 0) << info.output;
    EXPECT_NE(info.output.find("auto takes hardware: device lacks shaderBufferInt64Atomics"), std::string::npos) << info.output;
    DemoRun refused = run_demo({"--headless", "--size", "64x64", "--frames", "1", "--warmup", "0", "--raster", "compute"});
    EXPECT_EQ(refused.exit_code, 2) << refused.output;
    EXPECT_NE(refused.output.find("error: --raster compute: device lacks shaderBufferInt64Atomics"), std::string::npos) << refused.output;
}

// The device's sub-pixel precision other than the compute rasterizer's 8 bits (SGD_MASK_LIMITS
// makes the device report 4): auto takes hardware and --info says why; --raster compute is
// refused with that reason and exit 2.
TEST(Raster, WhereTheSubPixelBitsDifferComputeIsRefused) {
    ScopedEnv mask("SGD_MASK_LIMITS", "subPixelPrecisionBits=4");
    DemoRun info = run_demo({"--info", "--shading", "visibility", "--no-tuning"});
    EXPECT_EQ(info.exit_code, 0) << info.output;
    EXPECT_NE(info.output.find("auto takes hardware: device snaps vertices to 4 sub-pixel bits"), std::string::npos) << info.output;
    DemoRun refused = run_demo({"--headless", "--size", "64x64", "--frames", "1", "--warmup", "0", "--raster", "compute"});
    EXPECT_EQ(refused.exit_code, 2) << refused.output;
    EXPECT_NE(refused.output.find("error: --raster compute: device snaps vertices to 4 sub-pixel bits"), std::string::npos)
        << refused.output;
    // A value the device cannot take (more than it has) is one clear line, not a silent default.
    ScopedEnv wrong("SGD_MASK_LIMITS", "subPixelPrecisionBits=99");
    DemoRun bad = run_demo({"--info"});
    EXPECT_EQ(bad.exit_code, 2) << bad.output;
    EXPECT_NE(bad.output.find("SGD_MASK_LIMITS: 'subPixelPrecisionBits=99'"), std::string::npos) << bad.output;
}

}  // namespace raster_tests
