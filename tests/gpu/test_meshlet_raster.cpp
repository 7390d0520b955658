// --geometry meshlet --raster compute (docs/raster.md, "The meshlet path") against its oracle, the
// meshlet path's hardware pre-pass (--raster hardware): the same scene, camera and plan. Both name a
// pixel's triangle by (draw, meshlet, triangle in the meshlet) (Renderer::read_visibility), so the
// same name is the same source triangle; where the two differ, the CPU coverage rule
// (raster_oracle.h) must find both triangles covering the pixel at the same depth. The subgroup and
// fallback variants (the culling's compaction and the rasterizer's sorting) must write the same
// 64-bit words, and occlusion's two phases the words of one rasterization. Renders are 192x108 and
// validated.
#include <gtest/gtest.h>

#include <memory>

#include "app/run.h"
#include "gpu/harness.h"
#include "gpu/light_frame.h"
#include "gpu/raster_oracle.h"
#include "gpu/street.h"
#include "run/options.h"
#include "render/renderer.h"
#include "render/visibility_id.h"
#include "scene/camera.h"
#include "scene/meshlets.h"

namespace raster_tests {
// test_raster.cpp's generated scene (every kind of triangle the compute rasterizer sorts) and its camera.
Scene generated_scene();
Camera generated_camera();
}  // namespace raster_tests

namespace meshlet_raster_tests {

constexpr VkExtent2D kSize{192, 108};

#define REQUIRE_MESHLET_COMPUTE_RASTER()                                                      \
    REQUIRE_DRAWING();                                                                        \
    if (const std::string why_not_ = no_mesh_shaders_reason(); !why_not_.empty()) GTEST_SKIP() << why_not_; \
    if (!test_context().features.int64_atomics) GTEST_SKIP() << "device lacks 64-bit buffer atomics: no compute rasterizer"

Plan meshlet_plan(Raster raster, Request variant, Request occlusion) {
    const Context& ctx = test_context();
    PlanRequest request;
    request.geometry = Geometry::meshlet;
    request.shading = Shading::visibility;
    request.raster = raster;
    request.raster_variant = variant;
    // The meshlet culling's compaction follows the rasterizer's path: both subgroup, or both fallback.
    request[PassId::cull] = variant == Request::fallback ? Request::fallback : Request::automatic;
    request[PassId::occlusion] = occlusion;
    request[PassId::ray_trace] = Request::off;  // (the words are the pre-pass's; the frame's shading is the same pass)
    request[PassId::exposure] = Request::off;
    return make_plan(ctx.subgroup, ctx.features, request);
}

struct Shot {
    std::vector<uint8_t> color;
    std::vector<uint32_t> ids;  // (draw, meshlet << 7 | triangle) per pixel (Renderer::read_visibility)
    std::vector<uint64_t> words;
    glm::mat4 view_proj{1.0f};
    Plan plan;
    GpuCounters counters{};
};

Shot render(const Scene& scene, Raster raster, const Camera& view, Request variant = Request::automatic) {
    const Context& ctx = test_context();
    RendererConfig config;
    config.extent = kSize;
    config.lights = 16;
    config.plan = meshlet_plan(raster, variant, Request::off);
    Renderer renderer(ctx, scene, config);
    VkCommandBuffer cmd = begin_one_shot(ctx);
    renderer.record(cmd, 0, 0, view, true);
    end_one_shot(ctx, cmd);
    Shot s;
    s.plan = config.plan;
    s.counters = renderer.read_counters();
    s.color = renderer.read_color();
    s.ids = renderer.read_visibility();
    s.words = renderer.read_raster_words();
    s.view_proj = view.projection(float(kSize.width) / float(kSize.height)) * view.view();
    return s;
}

// The CPU reference for triangle (draw, meshlet << 7 | t) at pixel (x, y): its scene vertices, as
// the meshlet path builds its meshlets (MeshletPass::create).
Cover meshlet_cover(const Scene& scene, const Meshlets& meshlets, const Shot& s, uint32_t draw, uint32_t name, int x, int y) {
    const Meshlet& m = meshlets.meshlets.at(name >> kVisibilityMeshletTriangleBits);
    uint32_t t = name & ((1u << kVisibilityMeshletTriangleBits) - 1u);
    glm::vec4 clip[3];
    for (int k = 0; k < 3; ++k)
        clip[k] = s.view_proj * (scene.instances[draw].transform * glm::vec4(scene.vertices[meshlets.vertex_of(m, t, k)].position, 1.0f));
    return cover_at(clip, kSize.width, kSize.height, x, y);
}

// Whether the triangle reaches past the frame's edge (or crosses the near plane, whose clipped
// polygon may): the compute rasterizer takes it inside its guard band, where lavapipe's hardware
// clips it at the edge and the clipped edges' new vertices snap on their own, so a few pixels
// along its edges may name its neighbour (docs/raster.md, "The frame's edge").
bool crosses_the_frame(const Scene& scene, const Meshlets& meshlets, const Shot& s, uint32_t draw, uint32_t name) {
    const Meshlet& m = meshlets.meshlets.at(name >> kVisibilityMeshletTriangleBits);
    uint32_t t = name & ((1u << kVisibilityMeshletTriangleBits) - 1u);
    for (int k = 0; k < 3; ++k) {
        glm::vec4 c = s.view_proj * (scene.instances[draw].transform * glm::vec4(scene.vertices[meshlets.vertex_of(m, t, k)].position, 1.0f));
        if (c.w <= 0.0f || c.z > c.w || std::abs(c.x) > c.w || std::abs(c.y) > c.w) return true;
    }
    return false;
}

Comparison compare(const Scene& scene, const Meshlets& meshlets, const Shot& hardware, const Shot& compute) {
    const Shot* shots[2] = {&hardware, &compute};
    auto same = [&](size_t p) { return hardware.ids[2 * p] == compute.ids[2 * p] && hardware.ids[2 * p + 1] == compute.ids[2 * p + 1]; };
    return compare_ids(
        hardware.ids, compute.ids, kSize.width, same,
        [&](int side, uint32_t draw, uint32_t name, int x, int y) { return meshlet_cover(scene, meshlets, *shots[side], draw, name, x, y); },
        [&](int side, uint32_t draw, uint32_t name) { return crosses_the_frame(scene, meshlets, *shots[side], draw, name); });
}

void expect_compute_names_the_hardware_pre_pass_triangles(const Scene& scene, const Camera& camera, const char* name) {
    uint32_t messages = validation_message_count();
    Shot hardware = render(scene, Raster::hardware, camera);
    Shot compute = render(scene, Raster::compute, camera, Request::subgroup);
    Shot fallback = render(scene, Raster::compute, camera, Request::fallback);
    ASSERT_EQ(compute.plan.raster.raster, Raster::compute) << compute.plan.raster.reason;
    ASSERT_EQ(compute.plan.raster.variant, Variant::subgroup) << compute.plan.raster.reason;
    ASSERT_EQ(compute.plan[PassId::cull].variant, Variant::subgroup) << compute.plan[PassId::cull].reason;
    ASSERT_EQ(fallback.plan.raster.variant, Variant::fallback);
    ASSERT_EQ(fallback.plan[PassId::cull].variant, Variant::fallback);
    EXPECT_NOT_BLANK(hardware.color);
    Meshlets meshlets = build_meshlets(scene, kMeshletMaxVertices, kMeshletMaxTriangles);
    Comparison c = compare(scene, meshlets, hardware, compute);
    EXPECT_EQ(c.untied, "") << name;
    EXPECT_GE(c.covered, int(kSize.width * kSize.height / 4)) << name << ": too few covered pixels";
    EXPECT_GE(double(c.same), 0.999 * c.covered) << name;
    double frame_psnr = rgb_psnr(compute.color, hardware.color);
    EXPECT_GE(frame_psnr, 60.0) << name;
    // The same meshlets and triangles kept (the task shader's tests, shared; the mesh shader's).
    EXPECT_EQ(compute.counters.meshlets_in, hardware.counters.meshlets_in) << name;
    EXPECT_EQ(compute.counters.meshlets_visible, hardware.counters.meshlets_visible) << name;
    EXPECT_EQ(compute.counters.triangles_visible, hardware.counters.triangles_visible) << name;
    EXPECT_GT(compute.counters.raster_triangles[0], 0u) << name << ": no triangle rasterized in compute";
    // The subgroup and fallback variants: the same words, bit for bit.
    ASSERT_EQ(compute.words.size(), size_t(kSize.width) * kSize.height);
    EXPECT_TRUE(compute.words == fallback.words) << name << ": the subgroup and fallback variants' words differ";
    EXPECT_EQ(compute.counters.triangles_visible, fallback.counters.triangles_visible) << name;
    printf("%s (meshlet path): %d covered pixels, %d name the hardware pre-pass's triangle, %d depth ties, %d on the edge of a "
           "triangle reaching past the frame's; frame %.2f dB; %u triangles in compute, %u to the hardware\n",
           name, c.covered, c.same, c.ties, c.frame_edge, frame_psnr, compute.counters.raster_triangles[0],
           compute.counters.raster_triangles[1]);
    EXPECT_EQ(validation_message_count(), messages) << name;
}

TEST(MeshletGpu, ComputeRasterNamesTheHardwarePrePassTrianglesOnTheGeneratedScene) {
    REQUIRE_MESHLET_COMPUTE_RASTER();
    static const Scene scene = raster_tests::generated_scene();
    expect_compute_names_the_hardware_pre_pass_triangles(scene, raster_tests::generated_camera(), "the generated scene");
}

// Sixteen instances of the generated scene's meshes (replicate_grid shares them): a meshlet is kept
// once per instance that draws it, so the chunk list must hold the instances' chunks, not the
// meshes' (a list sized by the scene's meshlets drops most instances' triangles).
TEST(MeshletGpu, ComputeRasterNamesTheHardwarePrePassTrianglesOfEveryInstanceOfAMesh) {
    REQUIRE_MESHLET_COMPUTE_RASTER();
    static const Scene scene = [] {
        Scene s = raster_tests::generated_scene();
        replicate_grid(s, 4);
        return s;
    }();
    Camera view = camera_for(CameraView::overview, scene.bounds_min, scene.bounds_max, scene.grid);
    expect_compute_names_the_hardware_pre_pass_triangles(scene, view, "16 instances of the generated scene");
}

TEST(MeshletGpu, ComputeRasterNamesTheHardwarePrePassTrianglesOnTheBundledScene) {
    REQUIRE_MESHLET_COMPUTE_RASTER();
    static const Scene scene = load_requested_scene(Options{});
    Camera view = camera_for(CameraView::overview, scene.bounds_min, scene.bounds_max, scene.grid);
    expect_compute_names_the_hardware_pre_pass_triangles(scene, view, "the bundled scene");
}

// A camera moving down the street of a 2 x 2 grid under occlusion, 20 frames: in every frame the
// words that phase 1 and the late phase wrote (the late phase culls phase 1's rejected meshlets
// again and rasterizes the re-admitted into the same words) are, bit for bit, those of
// --occlusion off at the same camera, whose meshlets include the occluded ones (they lose every
// pixel they cover). Some frames must re-admit meshlets.
TEST(MeshletGpu, ComputeRasterOcclusionPhasesWriteTheWordsOfOneRasterization) {
    REQUIRE_MESHLET_COMPUTE_RASTER();
    const Context& ctx = test_context();
    uint32_t messages = validation_message_count();
    auto make = [&](Request occlusion) {
        RendererConfig config;
        config.extent = kSize;
        config.lights = 16;
        config.plan = meshlet_plan(Raster::compute, Request::automatic, occlusion);
        return std::make_unique<Renderer>(ctx, street_grid(), config);
    };
    std::unique_ptr<Renderer> occluded = make(Request::fallback), reference = make(Request::off);
    constexpr uint32_t kFrames = 20;
    StreetWords w = expect_street_words_of_one_rasterization(
        ctx, *occluded, *reference, kFrames, "meshlets",
        [](Renderer& r) { return r.read_counters().occlusion_meshlets.readmitted_phase2; });
    printf("meshlet path, occlusion, moving camera: %u of %u frames' words identical to --occlusion off's; %u frames re-admitted %u meshlets\n",
           w.identical, kFrames, w.with_late, w.readmitted);
    EXPECT_EQ(validation_message_count(), messages);
}

// The instrumented frame's counters of who rasterized each triangle and wrote each pixel, and
// --view raster's picture, against the indexed path's in compute (an independent pipeline of the
// same triangles: the cull pass's tests, the same sorting): the same counts per path and the same
// picture, byte for byte, on the bundled scene from its default view (occlusion auto: two phases),
// validated. Then --cull-dump, which reads mesh-shader outputs the compute pre-pass does not make:
// one line and exit 2.
TEST(MeshletGpu, ComputeRasterCountsAndPaintsAsTheIndexedPath) {
    REQUIRE_MESHLET_COMPUTE_RASTER();
    std::string dir = test_dir("meshlet-raster-view");
    nlohmann::json paths[2];
    Png pictures[2];
    const char* geometries[2] = {"indexed", "meshlet"};
    for (int g = 0; g < 2; ++g) {
        std::string png = dir + "/" + geometries[g] + ".png", report = dir + "/" + geometries[g] + ".json";
        DemoRun run = run_demo({"--headless", "--size", "192x108", "--frames", "2", "--warmup", "1", "--no-tuning", "--validate",
                                "--geometry", geometries[g], "--shading", "visibility", "--raster", "compute", "--view", "raster",
                                "--screenshot", png, "--report", report});
        ASSERT_EQ(run.exit_code, 0) << run.output;
        EXPECT_EQ(validation_lines(run.output), 0) << run.output;
        paths[g] = read_json(report)["counters"]["raster"]["paths"];
        pictures[g] = read_png(png);
    }
    EXPECT_EQ(paths[1], paths[0]) << "meshlet " << paths[1].dump() << ", indexed " << paths[0].dump();
    EXPECT_GT(paths[1]["tile_bin"]["pixels"].get<int>(), 0) << paths[1].dump();
    EXPECT_GT(paths[1]["per_lane"]["pixels"].get<int>(), 0) << paths[1].dump();
    EXPECT_EQ(differing_pixels(pictures[1], pictures[0]), 0) << "--view raster: the meshlet path's picture is not the indexed path's";
    EXPECT_GT(lit_pixels(pictures[1]), int(192 * 108 / 4));
    DemoRun dump = run_demo({"--headless", "--size", "64x64", "--frames", "1", "--warmup", "0", "--no-tuning", "--geometry", "meshlet",
                             "--shading", "visibility", "--raster", "compute", "--cull-dump", dir + "/dump.bin"});
    EXPECT_EQ(dump.exit_code, 2) << dump.output;
    EXPECT_NE(dump.output.find("error: --cull-dump: the meshlet path's pre-pass in compute"), std::string::npos) << dump.output;
}

}  // namespace meshlet_raster_tests
