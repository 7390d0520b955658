// Equal depths under occlusion's two phases (docs/visibility.md, "Ties"). Forward draws the merged
// list in input order with an EQUAL depth test, so of the triangles at exactly the same depth the
// last in input order colours the pixel; the visibility image must name that same triangle, whichever
// phase drew it, in every run. The oracle is the frame itself: each layer of the generated scene has
// its own colour, so a pixel that names another triangle has another colour. With occlusion on, the
// visibility frame must equal the frame with occlusion off byte for byte, and forward's.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "gpu/harness.h"
#include "scene_test_helpers.h"  // add_mesh
#include "gpu/light_frame.h"
#include "render/renderer.h"

namespace visibility_ties {

// SGD_TIES_SIZE=WxH renders larger (the GPU benchmark runner's `ties` suite runs it at 3840x2160,
// 20 times: equal depths must resolve alike in every run).
VkExtent2D frame_size() {
    VkExtent2D size{192, 108};
    if (const char* env = getenv("SGD_TIES_SIZE")) sscanf(env, "%ux%u", &size.width, &size.height);
    return size;
}
const VkExtent2D kSize = frame_size();

// One quad facing +z (counter-clockwise seen from +z, glTF's front), at depth z.
void add_quad(Scene& scene, glm::vec2 lo, glm::vec2 hi, float z, std::vector<uint32_t>& indices) {
    uint32_t base = uint32_t(scene.vertices.size());
    for (glm::vec2 corner : {lo, glm::vec2(hi.x, lo.y), hi, glm::vec2(lo.x, hi.y)})
        scene.vertices.push_back({glm::vec3(corner, z), glm::vec3(0.0f, 0.0f, 1.0f), (corner - lo) / (hi - lo)});
    for (uint32_t i : {0u, 1u, 2u, 0u, 2u, 3u}) indices.push_back(base + i);
}

// A wall in the plane z = 0, seen squarely by a camera on the z axis: every point of it has the same
// depth, so its three layers tie exactly at every pixel. In input order: a grid of small quads
// (green), the same grid again (blue), one quad over the whole wall (red): red is forward's colour
// everywhere. A grey board at z = 3 hides the wall's left side; when the camera steps right, the
// board's edge moves over the wall and uncovers small quads that the last frame's pyramid hid:
// occlusion phase 1 rejects them, phase 2 re-admits them, while the red quad (partly seen all along)
// is drawn in phase 1.
Scene tie_scene() {
    Scene scene;
    std::vector<uint32_t> grid;
    // Column by column: the meshlet path's meshlets (in index order) are then bands four columns
    // wide, so that the board hides whole meshlets, not only triangles.
    for (int x = 0; x < 16; ++x)
        for (int y = 0; y < 16; ++y)
            add_quad(scene, glm::vec2(-4.0f + 0.5f * float(x), -4.0f + 0.5f * float(y)),
                     glm::vec2(-3.5f + 0.5f * float(x), -3.5f + 0.5f * float(y)), 0.0f, grid);
    add_mesh(scene, grid, {0.1f, 0.8f, 0.1f, 1.0f});
    add_mesh(scene, grid, {0.1f, 0.1f, 0.8f, 1.0f});
    std::vector<uint32_t> wall, board;
    add_quad(scene, {-4.0f, -4.0f}, {4.0f, 4.0f}, 0.0f, wall);
    add_mesh(scene, wall, {0.8f, 0.1f, 0.1f, 1.0f});
    add_quad(scene, {-6.0f, -5.0f}, {-0.5f, 5.0f}, 3.0f, board);
    add_mesh(scene, board, {0.4f, 0.4f, 0.4f, 1.0f});
    update_bounds(scene);
    return scene;
}

struct Frame {
    std::vector<uint8_t> color;
    GpuCounters counters{};
    double ids_ms = -1.0;         // the hardware ids pass's time (Renderer::read_timings), negative: did not run
    uint32_t ids_draw_count = 0;  // the count cull_late.comp left for it (Renderer::read_ids_draw_count)
    Raster raster = Raster::hardware;  // the pre-pass the plan took
};

// Frames 0 and 1 from the start, frame 2 a step to the right that uncovers the wall from x = -0.7
// to x = -2.3 (the view direction unchanged, so the wall stays square to it); each read back.
std::vector<Frame> render_frames(const Scene& scene, Shading shading, Request occlusion, Geometry geometry,
                                 Raster raster = Raster::hardware) {
    const Context& ctx = test_context();
    PlanRequest request;
    request.geometry = geometry;
    request.raster = raster;
    request.shading = shading;
    request.lod = false;
    request[PassId::occlusion] = occlusion;
    request[PassId::exposure] = Request::off;
    request[PassId::ray_trace] = Request::off;
    RendererConfig config = planned_config(ctx, request, kSize, 16);
    Renderer renderer(ctx, scene, config);
    Camera camera = renderer.default_view();
    camera.position = {0.0f, 0.0f, 12.0f};
    camera.target = {0.0f, 0.0f, 0.0f};
    std::vector<Frame> frames;
    for (uint32_t i = 0; i < 3; ++i) {
        if (i == 2) {
            camera.position.x += 5.0f;
            camera.target.x += 5.0f;
        }
        VkCommandBuffer cmd = begin_one_shot(ctx);
        renderer.record(cmd, 0, i, camera);
        end_one_shot(ctx, cmd);
        frames.push_back({renderer.read_color(), renderer.read_counters(), renderer.read_timings(0)[size_t(Timer::ids)],
                          renderer.read_ids_draw_count(), config.plan.raster.raster});
    }
    return frames;
}
Frame render(const Scene& scene, Shading shading, Request occlusion, Geometry geometry, Raster raster = Raster::hardware) {
    return render_frames(scene, shading, occlusion, geometry, raster).back();
}

// Pixels of `got` whose colour is off `want`'s by more than `tolerance` in a channel, and the first.
std::string differences(const std::vector<uint8_t>& got, const std::vector<uint8_t>& want, int tolerance = 0) {
    int count = 0;
    std::string first;
    for (size_t p = 0; p < want.size() / 4; ++p) {
        bool same = true;
        for (int c = 0; c < 3; ++c) same = same && std::abs(int(got[4 * p + c]) - int(want[4 * p + c])) <= tolerance;
        if (same) continue;
        if (count++ == 0)
            first = " first (" + std::to_string(p % kSize.width) + ", " + std::to_string(p / kSize.width) + "): rgb " +
                    std::to_string(got[4 * p]) + " " + std::to_string(got[4 * p + 1]) + " " + std::to_string(got[4 * p + 2]) +
                    ", want " + std::to_string(want[4 * p]) + " " + std::to_string(want[4 * p + 1]) + " " +
                    std::to_string(want[4 * p + 2]);
    }
    return count ? std::to_string(count) + " pixels differ," + first : "";
}

// Pixels where the red layer shows (red well above green and blue): the layer forward shows on the wall.
int red_pixels(const std::vector<uint8_t>& rgba) {
    int n = 0;
    for (size_t p = 0; p < rgba.size() / 4; ++p) n += rgba[4 * p] > 2 * rgba[4 * p + 1] && rgba[4 * p] > 2 * rgba[4 * p + 2];
    return n;
}

void expect_ties_resolve_as_forward(Geometry geometry, Raster raster = Raster::hardware) {
    uint32_t messages = validation_message_count();
    Scene scene = tie_scene();
    Frame forward = render(scene, Shading::forward, Request::fallback, geometry);
    Frame unoccluded = render(scene, Shading::visibility, Request::off, geometry, raster);
    Frame occluded = render(scene, Shading::visibility, Request::fallback, geometry, raster);
    ASSERT_EQ(occluded.raster, raster);
    const OcclusionCounts& phases = geometry == Geometry::meshlet ? occluded.counters.occlusion_meshlets
                                                                    : occluded.counters.occlusion_triangles;
    ASSERT_GT(phases.readmitted_phase2, 0u) << "nothing re-admitted in phase 2: the scene does not test the late draw";
    EXPECT_GT(red_pixels(forward.color), int(kSize.width * kSize.height / 8)) << "forward shows the last layer, red";
    // Against forward within a rounding step (the paths reach the attributes differently; another
    // layer is another colour by 90 steps or more); against itself with occlusion off, exactly.
    EXPECT_EQ(differences(unoccluded.color, forward.color, 2), "") << "visibility, occlusion off, against forward";
    EXPECT_EQ(differences(occluded.color, unoccluded.color), "") << "visibility, occlusion on, against occlusion off";
    EXPECT_EQ(validation_message_count(), messages);
}

TEST(VisibilityTies, LateDrawResolvesEqualDepthsAsForward) {
    REQUIRE_DRAWING();
    expect_ties_resolve_as_forward(Geometry::indexed);
}

// The compute rasterizer's two phases (docs/raster.md, "Ties"): phase 1's words plus the late
// draw's, each triangle named by its draw and its index in the draw's level, with no ids pass. Of
// the three layers' equal depths, atomicMax keeps the largest id, red's, whichever phase wrote it.
TEST(VisibilityTies, ComputeRasterizerLateDrawResolvesEqualDepthsAsForward) {
    REQUIRE_DRAWING();
    REQUIRE_COMPUTE_RASTER();
    expect_ties_resolve_as_forward(Geometry::indexed, Raster::compute);
}

// The hardware pre-pass's ids pass after the merge is gated (docs/visibility.md, "Ties"): phase 1
// writes the ids, and the ids pass draws with a count cull_late.comp writes, every draw where phase
// 2 re-admitted something, 0 elsewhere (no read-back). Frame 1 re-admits nothing (the camera has not
// moved), frame 2 re-admits the uncovered quads: every frame equals --occlusion off's byte for byte,
// the count is the draw count exactly in the frames that re-admitted, and the report's ids timing
// (timings_ms.ids, with its frames) counts exactly those frames.
TEST(VisibilityTies, HardwareIdsPassDrawsOnlyWhereThePhaseTwoReadmitted) {
    REQUIRE_DRAWING();
    if (!test_context().features.draw_indirect_count) GTEST_SKIP() << "device lacks drawIndirectCount: the ids pass is not gated here";
    uint32_t messages = validation_message_count();
    Scene scene = tie_scene();
    std::vector<Frame> unoccluded = render_frames(scene, Shading::visibility, Request::off, Geometry::indexed);
    std::vector<Frame> occluded = render_frames(scene, Shading::visibility, Request::fallback, Geometry::indexed);
    uint32_t with_late = 0;
    for (size_t i = 0; i < occluded.size(); ++i) {
        uint32_t late = occluded[i].counters.occlusion_triangles.readmitted_phase2;
        with_late += late > 0;
        EXPECT_EQ(differences(occluded[i].color, unoccluded[i].color), "") << "frame " << i;
        EXPECT_EQ(occluded[i].ids_draw_count, late > 0 ? uint32_t(scene.instances.size()) : 0u) << "frame " << i << ", " << late << " re-admitted";
        EXPECT_EQ(occluded[i].ids_ms >= 0.0, late > 0) << "frame " << i << ": the ids timing, " << late << " re-admitted";
        EXPECT_LT(unoccluded[i].ids_ms, 0.0) << "frame " << i << ": no ids pass without occlusion";
    }
    EXPECT_EQ(occluded[1].counters.occlusion_triangles.readmitted_phase2, 0u) << "frame 1 should re-admit nothing";
    EXPECT_EQ(with_late, 1u) << "frame 2 (and only it) should re-admit the uncovered quads";
    EXPECT_EQ(validation_message_count(), messages);
}

// The debug views drawn after the gated ids pass: in a frame whose phase 2 re-admitted nothing
// the pass drew with a count of 0, and the views' indirect draws after it must still draw every
// surface (FrameContext::drew_with_count): the lod view's frame equals --occlusion off's.
TEST(VisibilityTies, ViewsAfterTheGatedIdsPassDrawEverySurface) {
    REQUIRE_DRAWING();
    if (!test_context().features.draw_indirect_count) GTEST_SKIP() << "device lacks drawIndirectCount: the ids pass is not gated here";
    std::string dir = test_dir("gated-views");
    auto shot = [&](const std::string& occlusion) {
        std::string png = dir + "/lod-occlusion-" + occlusion + ".png";
        DemoRun run = run_demo({"--headless", "--size", "160x90", "--frames", "1", "--warmup", "0", "--validate", "--scene", kKnot,
                                "--shading", "visibility", "--occlusion", occlusion, "--view", "lod", "--screenshot", png});
        EXPECT_EQ(run.exit_code, 0) << run.output;
        EXPECT_EQ(validation_lines(run.output), 0) << run.output;
        return read_png(png);
    };
    Png gated = shot("fallback"), plain = shot("off");
    ASSERT_EQ(gated.rgba.size(), plain.rgba.size());
    EXPECT_TRUE(gated.rgba == plain.rgba) << "the lod view over the gated frame differs from --occlusion off's";
}

TEST(VisibilityTies, MeshletLateDrawResolvesEqualDepthsAsForward) {
    REQUIRE_DRAWING();
    if (!test_context().features.mesh_shader) GTEST_SKIP() << "device lacks VK_EXT_mesh_shader: no meshlet path here";
    expect_ties_resolve_as_forward(Geometry::meshlet);
}

}  // namespace visibility_ties
