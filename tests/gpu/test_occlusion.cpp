// Two-phase occlusion culling (docs/occlusion.md), end to end, in both geometry paths. The oracle
// is the same frames with --occlusion off: occlusion only removes what no pixel can show, so every
// frame must be byte-identical, at both cameras, with the camera still and moving, validated
// (synchronization validation included). The counters are held to each other: phase 2 re-tests
// exactly what phase 1 rejected (two counts taken by different passes), a still camera re-admits
// nothing, a moving one re-admits something, and what phase 2 rejects is what the frame no longer
// draws. Renders are tiny (192x108, the bundled scene in a 2 x 2 grid) and shared by the assertions.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "run/options.h"
#include "app/run.h"
#include "gpu/cull_scenes.h"
#include "gpu/harness.h"
#include "gpu/street.h"
#include "known_drivers.h"
#include "passes/occlusion_pass.h"
#include "render/renderer.h"
#include "scoped_env.h"

namespace {

constexpr VkExtent2D kSize{192, 108};

struct OcclusionFrame {
    std::vector<uint8_t> color;
    GpuCounters counters{};
    std::vector<std::vector<uint32_t>> drawn;  // per draw, what forward drew
};

// One validated device for the process (each test runs in a process of its own), never torn down.
Context& validated_context() {
    static Context* ctx = [] {
        ContextOptions options;
        options.validate = true;
        auto* c = new Context;
        create_context(*c, options);
        return c;
    }();
    return *ctx;
}

Plan occlusion_plan(const Context& ctx, Geometry geometry, Request cull, Request occlusion, ViewMode view = ViewMode::shaded) {
    PlanRequest request;
    request.geometry = geometry;
    request[PassId::cull] = cull;
    request[PassId::occlusion] = occlusion;
    // Auto exposure adapts from frame to frame: runs that share a renderer would start from
    // each other's exposure. The fixed exposure makes every frame its own.
    request[PassId::exposure] = Request::off;
    request.view = view;
    return make_plan(ctx.subgroup, ctx.features, request);
}

// The camera `step` strides to the right of its view (and a little forward): what the nearest
// buildings hid comes out from behind them, so phase 1, with the previous frame's pyramid, rejects
// some of what is now in view and phase 2 must re-admit it.
Camera moved(Camera c, float step) {
    glm::vec3 forward = glm::normalize(c.target - c.position);
    glm::vec3 right = glm::normalize(glm::cross(forward, glm::vec3(0.0f, 1.0f, 0.0f)));
    float stride = 0.02f * glm::length(c.target - c.position);
    glm::vec3 offset = step * stride * (right + 0.5f * forward);
    c.position += offset;
    c.target += offset;
    return c;
}

struct PathRun {
    std::vector<OcclusionFrame> frames;
};

// Renders `cameras`, one frame each, reading back every frame.
PathRun render_path(const Context& ctx, Renderer& renderer, const std::vector<Camera>& cameras, bool read_drawn) {
    PathRun run;
    for (uint32_t i = 0; i < cameras.size(); ++i) {
        VkCommandBuffer cmd = begin_one_shot(ctx);
        renderer.record(cmd, 0, i, cameras[i]);
        end_one_shot(ctx, cmd);
        OcclusionFrame f;
        f.color = renderer.read_color();
        f.counters = renderer.read_counters();
        if (read_drawn) f.drawn = renderer.read_drawn_indices();
        run.frames.push_back(std::move(f));
    }
    return run;
}

std::unique_ptr<Renderer> make_renderer(const Context& ctx, const Plan& plan, CameraView camera = CameraView::overview) {
    RendererConfig config;
    config.extent = kSize;
    config.lights = 16;
    config.plan = plan;
    config.camera = camera;
    config.capture_meshlets = plan.geometry == Geometry::meshlet;  // read_drawn_indices there
    return std::make_unique<Renderer>(ctx, street_grid(), config);
}

// Frames: 0 (no previous pyramid), 1 (the same camera: still), 2 (moved).
std::vector<Camera> camera_path(const Renderer& renderer, CameraView view) {
    Camera start = camera_for(view, renderer.bounds_min(), renderer.bounds_max(), street_grid().grid);
    return {start, start, moved(start, 1.0f)};
}

// Where forward's list with occlusion is not the list without it less some triangles, in its
// order (per draw, a greedy subsequence match): the first draw and triangle out of place.
std::string order_violation(const std::vector<std::vector<uint32_t>>& with, const std::vector<std::vector<uint32_t>>& without) {
    if (with.size() != without.size()) return "another number of draws";
    for (size_t d = 0; d < with.size(); ++d) {
        size_t j = 0;
        for (size_t i = 0; i + 2 < with[d].size(); i += 3) {
            while (j + 2 < without[d].size() && !std::equal(with[d].begin() + i, with[d].begin() + i + 3, without[d].begin() + j))
                j += 3;
            if (j + 2 >= without[d].size())
                return "draw " + std::to_string(d) + ", triangle " + std::to_string(i / 3) + ": out of order or not drawn without occlusion";
            j += 3;
        }
    }
    return "";
}

// Whether the meshlet path is tested too: where the device has mesh shaders (lavapipe before Mesa 25
// has none). A driver whose record (tests/known_drivers.h) has them must show them here.
// The geometry paths this device runs: indexed always, meshlet with mesh shaders (held to the
// record of the running driver where there is one).
// The validation messages of a test, from its start to its end (whichever way it ends): none.
struct ValidationClean {
    uint32_t before = validation_message_count();
    ~ValidationClean() { EXPECT_EQ(validation_message_count(), before) << "validation messages (printed above)"; }
};

std::vector<Geometry> geometry_paths(const Context& ctx) {
    if (const KnownDriver* k = known_driver())
        EXPECT_EQ(ctx.features.mesh_shader, k->mesh_shader) << "VK_EXT_mesh_shader against the record of " << k->name;
    if (ctx.features.mesh_shader) return {Geometry::indexed, Geometry::meshlet};
    return {Geometry::indexed};
}

}  // namespace

// One renderer per geometry path; at each camera it renders the path with occlusion on (the
// subgroup pyramid and cull), off, and at the street on again with both fallbacks. Every "on" run
// follows an "off" run or starts the renderer, so each one's frame 0 must have no previous pyramid:
// turning occlusion off and on again starts clean.
TEST(Occlusion, StillAndMovingFramesEqualOcclusionOffInBothPathsAndPhase2RetestsOnlyPhase1sRejections) {
    REQUIRE_DRAWING();
    Context& ctx = validated_context();
    if (int sg = expected_subgroup_size()) ASSERT_EQ(ctx.subgroup.size, uint32_t(sg));
    ValidationClean clean;
    const std::vector<Geometry> geometries = geometry_paths(ctx);
    std::map<Geometry, double> street_removed;  // the share of triangles occlusion removed, still street frame
    for (Geometry geometry : geometries) {
        bool meshlet = geometry == Geometry::meshlet;
        auto renderer = make_renderer(ctx, occlusion_plan(ctx, geometry, Request::automatic, Request::off));
        for (CameraView camera : {CameraView::overview, CameraView::street}) {
            std::string where = std::string(geometry_name(geometry)) + " at " + std::string(camera_view_name(camera));
            SCOPED_TRACE(where);
            std::vector<Camera> path = camera_path(*renderer, camera);
            bool street = camera == CameraView::street;
            auto render = [&](Request cull, Request occlusion) {
                renderer->set_plan(occlusion_plan(ctx, geometry, cull, occlusion));
                return render_path(ctx, *renderer, path, street);
            };
            PathRun on = render(Request::subgroup, Request::subgroup);
            PathRun off = render(Request::subgroup, Request::off);
            if (street)  // frame 1: the camera still, phase 1 tested against the same view's pyramid
                street_removed[geometry] = 1.0 - double(on.frames[1].counters.triangles_visible) /
                                                     double(std::max<uint64_t>(off.frames[1].counters.triangles_visible, 1));
            std::vector<std::pair<std::string, PathRun>> runs;
            runs.push_back({"cull subgroup, pyramid subgroup", std::move(on)});
            // Both fallbacks: the cull pass's (task shader's) shared-memory compaction, one dispatch per level.
            if (street) runs.push_back({"cull fallback, pyramid fallback", render(Request::fallback, Request::fallback)});
            for (const auto& [what, run] : runs) {
                SCOPED_TRACE(what);
                for (uint32_t i = 0; i < path.size(); ++i) {
                    SCOPED_TRACE("frame " + std::to_string(i));
                    const OcclusionFrame &a = run.frames[i], &b = off.frames[i];
                    EXPECT_NOT_BLANK(b.color);
                    EXPECT_TRUE(a.color == b.color) << "the frame changed with occlusion culling";
                    const OcclusionCounts& o = meshlet ? a.counters.occlusion_meshlets : a.counters.occlusion_triangles;
                    uint64_t in = meshlet ? a.counters.meshlets_in : street_grid().triangle_count();
                    // Phase 2 re-tests exactly phase 1's rejections (counted by phase 1 and by phase 2).
                    EXPECT_EQ(o.tested_phase2, o.rejected_phase1);
                    EXPECT_EQ(o.rejected_phase2 + o.readmitted_phase2, o.tested_phase2);
                    EXPECT_LT(o.rejected_phase1, in / 2) << "phase 1 rejected most of what came in";
                    // What phase 2 rejects is all the frame no longer draws.
                    if (meshlet)
                        EXPECT_EQ(a.counters.meshlets_visible + o.rejected_phase2, b.counters.meshlets_visible);
                    else
                        EXPECT_EQ(a.counters.triangles_visible + o.rejected_phase2, b.counters.triangles_visible);
                    if (i == 0) EXPECT_EQ(o.rejected_phase1, 0u) << "frame 0 had a previous pyramid";
                    if (i == 1) {
                        EXPECT_EQ(o.readmitted_phase2, 0u) << "a still camera re-admits nothing";
                        EXPECT_EQ(a.counters.occlusion_triangles.readmitted_phase2, 0u);
                    }
                    // At the overview the meshlet path rejects nothing at this size: a meshlet's
                    // box always reaches past what hides it (docs/occlusion.md).
                    if (meshlet && !street) continue;
                    if (i == 2) {
                        EXPECT_GT(o.readmitted_phase2, 0u) << "the camera moved: phase 2 must re-admit what phase 1 missed";
                        // The meshlet path's re-admitted triangles: those its re-admitted meshlets drew.
                        EXPECT_GT(a.counters.occlusion_triangles.readmitted_phase2, 0u);
                    }
                    if (i >= 1) EXPECT_GT(o.rejected_phase2, 0u);
                    if (street && i >= 1)
                        EXPECT_GT(o.rejected_phase2, (meshlet ? b.counters.meshlets_visible : b.counters.triangles_visible) / 10)
                            << "the street hides less than a tenth of what it draws";
                    // Forward draws phase 1's survivors and phase 2's additions merged in input order
                    // (these frames are identical also where equal-depth fragments meet only because of
                    // that): per draw, the list without occlusion less some triangles, in its order.
                    if (street) EXPECT_EQ(order_violation(a.drawn, b.drawn), "");
                    // ... and all of what went into depth: phase 1's and phase 2's survivors, as the
                    // depth passes counted them (the compute cull's scan and late test, or the mesh
                    // shaders), against the list forward drew, read back.
                    if (street) EXPECT_EQ(triangle_total(a.drawn), a.counters.triangles_visible) << "forward left out what depth has";
                }
            }
        }
    }
    // A meshlet is kept where any of it may show, so the meshlet path removes less than the
    // triangle test; its box and fine pyramid reads keep it close (here 41.5% against 43.3%;
    // docs/occlusion.md). The bounding sphere's cube with 2x2 reads removed 23.4% here.
    if (street_removed.count(Geometry::meshlet))
        EXPECT_GE(street_removed[Geometry::meshlet], 0.8 * street_removed[Geometry::indexed])
            << "meshlet path removed " << street_removed[Geometry::meshlet] << " of the street's triangles, indexed "
            << street_removed[Geometry::indexed];
    std::printf("street, still: occlusion removed %.3f (indexed) and %.3f (meshlet) of the triangles\n",
                street_removed[Geometry::indexed], street_removed.count(Geometry::meshlet) ? street_removed[Geometry::meshlet] : 0.0);
}

// The look-back's fallback during occlusion phase 1 (cull.comp, count_survivors): a workgroup that
// finds a predecessor not yet started counts that predecessor's survivors itself, and in phase 1 a
// survivor must also pass the previous frame's pyramid, or the counted prefix is larger than what
// the predecessor writes and the list gets holes. SGD_CULL_LOOKBACK=late@8 (read when the cull pass
// is created) hands out each run of 8 partitions last first, so most workgroups fall back. The
// oracle is the natural schedule's run of the same renderer set-up: the same lists, counters and
// frames, at the street camera still (phase 1 rejects a large share) and moved, in both variants.
TEST(Occlusion, LookbackFallbackInPhase1CountsOnlyWhatThePyramidKeeps) {
    REQUIRE_DRAWING();
    Context& ctx = validated_context();
    ValidationClean clean;
    auto run = [&](Request cull) {
        auto renderer = make_renderer(ctx, occlusion_plan(ctx, Geometry::indexed, cull, Request::subgroup), CameraView::street);
        return render_path(ctx, *renderer, camera_path(*renderer, CameraView::street), true);
    };
    for (Request cull : {Request::subgroup, Request::fallback}) {
        SCOPED_TRACE(std::string("cull ") + std::string(request_name(cull)));
        PathRun natural = run(cull), late;
        {
            ScopedEnv schedule("SGD_CULL_LOOKBACK", "late@8");
            late = run(cull);
        }
        for (uint32_t i = 1; i < natural.frames.size(); ++i) {
            SCOPED_TRACE("frame " + std::to_string(i));
            const OcclusionFrame &a = late.frames[i], &b = natural.frames[i];
            EXPECT_GT(b.counters.occlusion_triangles.rejected_phase1, 0u) << "phase 1 rejected nothing: no test of its recount";
            EXPECT_GT(a.counters.cull_lookback_fallbacks, 0u) << "the fallback never ran";
            EXPECT_EQ(a.counters.occlusion_triangles.rejected_phase1, b.counters.occlusion_triangles.rejected_phase1);
            EXPECT_EQ(a.counters.triangles_visible, b.counters.triangles_visible);
            EXPECT_TRUE(a.drawn == b.drawn) << "the late schedule drew other lists";
            EXPECT_TRUE(a.color == b.color) << "the late schedule drew another frame";
        }
    }
}

// Culling frozen (the window's F): wherever the camera goes, the frame draws exactly the lists of
// the frame it froze at, and the counters read as that frame's; resumed, it culls for the new view.
TEST(Occlusion, FrozenCullingDrawsTheFrozenFramesListsFromAnywhere) {
    REQUIRE_DRAWING();
    Context& ctx = validated_context();
    ValidationClean clean;
    const std::vector<Geometry> geometries = geometry_paths(ctx);
    for (Geometry geometry : geometries) {
        SCOPED_TRACE(std::string(geometry_name(geometry)));
        auto renderer = make_renderer(ctx, occlusion_plan(ctx, geometry, Request::automatic, Request::automatic), CameraView::street);
        Camera street = renderer->default_view();
        Camera overview = camera_for(CameraView::overview, renderer->bounds_min(), renderer->bounds_max(), street_grid().grid);
        PathRun culled = render_path(ctx, *renderer, {street, street}, true);
        renderer->set_cull_frozen(true);
        PathRun frozen = render_path(ctx, *renderer, {overview}, true);
        EXPECT_TRUE(frozen.frames[0].drawn == culled.frames[1].drawn) << "the frozen frame drew another list";
        EXPECT_EQ(frozen.frames[0].counters.triangles_visible, culled.frames[1].counters.triangles_visible);
        EXPECT_NOT_BLANK(frozen.frames[0].color);
        renderer->set_cull_frozen(false);
        PathRun resumed = render_path(ctx, *renderer, {overview}, true);
        EXPECT_FALSE(resumed.frames[0].drawn == culled.frames[1].drawn) << "resumed culling kept the street's list";
        EXPECT_FALSE(resumed.frames[0].color == frozen.frames[0].color) << "the overview shows nothing the street culled";
    }
}

// Occlusion auto rests where it removes little (occlusion_pass.h): at the overview, where it removes
// under an eighth, the frame after the first one it measured starts kOcclusionRestFrames frames
// without it, then it comes back (a frame building a pyramid, a frame culling with it) and rests
// again; at the street, where it removes more, it never rests; an explicit variant never rests.
// The oracle for the frames is --occlusion off's at the same frame numbers (lights move with the
// frame number); the pattern of resting frames is worked out from the rule by hand.
TEST(Occlusion, AutoRestsWhereItRemovesLittleThenMeasuresAgain) {
    REQUIRE_DRAWING();
    Context& ctx = validated_context();
    ValidationClean clean;
    const std::vector<Geometry> geometries = geometry_paths(ctx);
    const uint32_t rest = kOcclusionRestFrames;
    auto expect_resting = [rest](uint32_t i) { return (i >= 2 && i < 2 + rest) || i == rest + 4; };
    const std::vector<uint32_t> compared = {1, 2, rest + 1, rest + 2, rest + 3, rest + 4};
    // 65 frames: the passes that read neither depth nor the culled lists stay off.
    auto plan = [&](Geometry geometry, Request occlusion) {
        PlanRequest request;
        request.geometry = geometry;
        request[PassId::occlusion] = occlusion;
        for (PassId pass : {PassId::ray_trace, PassId::mip, PassId::exposure, PassId::light_cull}) request[pass] = Request::off;
        return make_plan(ctx.subgroup, ctx.features, request);
    };
    for (Geometry geometry : geometries) {
        SCOPED_TRACE(std::string(geometry_name(geometry)));
        bool meshlet = geometry == Geometry::meshlet;
        auto renderer = make_renderer(ctx, plan(geometry, Request::automatic));
        Camera overview = renderer->default_view();
        auto frame = [&](uint32_t i, const Camera& camera) {
            VkCommandBuffer cmd = begin_one_shot(ctx);
            renderer->record(cmd, 0, i, camera);
            end_one_shot(ctx, cmd);
            return renderer->read_counters();
        };
        // The whole cycle on the indexed path; the meshlet path (the same rule on its own counters,
        // held to hand-worked counts by Plan.OcclusionAutoRests...) up to its first resting frames.
        const uint32_t last = meshlet ? 3 : rest + 4;
        std::map<uint32_t, std::vector<uint8_t>> colors;
        for (uint32_t i = 0; i <= last; ++i) {
            GpuCounters c = frame(i, overview);
            const OcclusionCounts& o = meshlet ? c.occlusion_meshlets : c.occlusion_triangles;
            EXPECT_EQ(c.occlusion_resting != 0, expect_resting(i)) << "overview, frame " << i;
            if (c.occlusion_resting) EXPECT_EQ(o.rejected_phase1 + o.tested_phase2, 0u) << "a resting frame culled by occlusion, frame " << i;
            if (!meshlet && (i == 1 || i == rest + 3)) EXPECT_GT(o.rejected_phase1, 0u) << "a measuring frame culled nothing, frame " << i;
            if (std::find(compared.begin(), compared.end(), i) != compared.end()) colors[i] = renderer->read_color();
        }
        renderer->set_plan(plan(geometry, Request::off));
        for (uint32_t i : compared) {
            if (i > last) continue;
            frame(i, overview);
            EXPECT_TRUE(renderer->read_color() == colors[i]) << "frame " << i << " differs from --occlusion off's";
        }
        // The street: occlusion pays, so auto never rests; an explicit variant never rests either.
        for (auto [camera, request] : {std::pair{CameraView::street, Request::automatic}, std::pair{CameraView::overview, Request::subgroup}}) {
            renderer->set_plan(plan(geometry, request));
            Camera c = camera_for(camera, renderer->bounds_min(), renderer->bounds_max(), street_grid().grid);
            for (uint32_t i = 0; i < 4; ++i) {
                GpuCounters counters = frame(i, c);
                EXPECT_EQ(counters.occlusion_resting, 0u) << camera_view_name(camera) << ", frame " << i;
                const OcclusionCounts& o = meshlet ? counters.occlusion_meshlets : counters.occlusion_triangles;
                if (camera == CameraView::street && i >= 1) EXPECT_GT(o.rejected_phase1, 0u) << "street, frame " << i;
            }
        }
    }
}

// --view depth-pyramid: each level shows as blocks of 2^(level+1) pixels, and each block of a level
// is the darkest (farthest) of the 2x2 blocks of the level below it, to the byte: the view's grey
// rises with depth, so the min of the pyramid is the min of the grey. Level 0 against the frame:
// where nothing is drawn (the far plane) the view is black.
TEST(Occlusion, DepthPyramidViewShowsEachLevelAsTheFarthestOfTheLevelBelow) {
    REQUIRE_DRAWING();
    Context& ctx = validated_context();
    ValidationClean clean;
    Plan plan = occlusion_plan(ctx, Geometry::indexed, Request::automatic, Request::automatic, ViewMode::depth_pyramid);
    RendererConfig config;
    config.extent = kSize;
    config.lights = 16;
    config.plan = plan;
    config.view_legend = false;
    Renderer renderer(ctx, street_grid(), config);
    const uint32_t levels = uint32_t(pyramid_levels(kSize).size());
    // The fine levels, the two coarsest, and one past the last (clamped to it).
    std::map<uint32_t, std::vector<uint8_t>> views;
    for (uint32_t level : {0u, 1u, 2u, levels - 2, levels - 1, levels}) {
        plan.view.level = level;
        renderer.set_plan(plan);
        views[level] = render_path(ctx, renderer, {renderer.default_view()}, false).frames[0].color;
    }
    auto grey = [&](const std::vector<uint8_t>& image, uint32_t x, uint32_t y) { return image[(size_t(y) * kSize.width + x) * 4]; };
    for (uint32_t level = 0; level < levels; ++level) {
        if (!views.count(level)) continue;
        SCOPED_TRACE("level " + std::to_string(level));
        const std::vector<uint8_t>& v = views[level];
        uint32_t block = 2u << level;
        int lit = 0;
        for (uint32_t y = 0; y < kSize.height; ++y)
            for (uint32_t x = 0; x < kSize.width; ++x) {
                uint32_t bx = x / block * block, by = y / block * block;
                ASSERT_EQ(grey(v, x, y), grey(v, bx, by)) << "pixel " << x << "," << y << " differs from its block's";
                lit += grey(v, x, y) != 0;
            }
        if (level == 0) EXPECT_GT(lit, int(kSize.width * kSize.height / 10)) << "level 0 is (nearly) all far plane";
        if (!views.count(level + 1) || level + 1 == levels) continue;
        const std::vector<uint8_t>& up = views[level + 1];
        for (uint32_t y = 0; y < kSize.height; y += 2 * block)
            for (uint32_t x = 0; x < kSize.width; x += 2 * block) {
                uint8_t darkest = 255;
                for (uint32_t dy = 0; dy < 2 * block; dy += block)
                    for (uint32_t dx = 0; dx < 2 * block; dx += block)
                        if (x + dx < kSize.width && y + dy < kSize.height) darkest = std::min(darkest, grey(v, x + dx, y + dy));
                ASSERT_EQ(grey(up, x, y), darkest) << "level " << level + 1 << " block at " << x << "," << y;
            }
    }
    EXPECT_TRUE(views[levels] == views[levels - 1]) << "a level past the last is not the last";
}

// --view depth: every pixel's grey is the depth the passes read (Renderer::read_depth, the depth
// image read back) on the depth-pyramid view's scale, computed here: distance on a log scale, white
// at the near plane, black at the far plane and where nothing was drawn; within one step of the
// byte (the GPU's log and rounding). With --occlusion off: the view needs no pyramid.
TEST(Occlusion, DepthViewShowsTheDepthThePassesReadPixelByPixel) {
    REQUIRE_DRAWING();
    Context& ctx = validated_context();
    ValidationClean clean;
    RendererConfig config;
    config.extent = kSize;
    config.lights = 16;
    config.plan = occlusion_plan(ctx, Geometry::indexed, Request::automatic, Request::off, ViewMode::depth);
    config.view_legend = false;
    config.camera = CameraView::street;
    Renderer renderer(ctx, street_grid(), config);
    const Camera camera = renderer.default_view();
    std::vector<uint8_t> view = render_path(ctx, renderer, {camera}, false).frames[0].color;
    std::vector<float> depth = renderer.read_depth();
    ASSERT_EQ(depth.size(), size_t(kSize.width) * kSize.height);
    const FrameUniforms u = renderer.frame_uniforms(0, camera);
    const double n = u.projection.z, f = u.projection.w;
    int lit = 0, far = 0, off_by_one = 0;
    std::set<int> greys;
    std::string first;
    for (size_t p = 0; p < depth.size(); ++p) {
        double z = n * f / (std::clamp(double(depth[p]), 0.0, 1.0) * (f - n) + n);  // reversed Z
        int expected = int(std::lround(255.0 * (1.0 - std::clamp(std::log(z / n) / std::log(f / n), 0.0, 1.0))));
        int got = view[4 * p];
        lit += got != 0;
        greys.insert(got);
        far += depth[p] == 0.0f;
        off_by_one += std::abs(got - expected) == 1;
        if ((std::abs(got - expected) > 1 || view[4 * p + 1] != got || view[4 * p + 2] != got) && first.empty())
            first = "pixel (" + std::to_string(p % kSize.width) + ", " + std::to_string(p / kSize.width) + "): depth " +
                    std::to_string(depth[p]) + ", grey " + std::to_string(expected) + ", the view " + std::to_string(got) + "/" +
                    std::to_string(view[4 * p + 1]) + "/" + std::to_string(view[4 * p + 2]);
    }
    EXPECT_EQ(first, "") << "a pixel whose grey is not its depth's";
    EXPECT_GT(far, 0) << "no sky: the far plane's black is untested";
    EXPECT_GT(lit, int(depth.size() / 10)) << "the street's surfaces hardly show";
    EXPECT_GE(greys.size(), 16u) << "too few depths on the scale to tell a wrong mapping";
    printf("depth view: %zu pixels, %d far, %d lit in %zu greys, %d one step off\n", depth.size(), far, lit, greys.size(), off_by_one);
}

// Through the executable: the report's occlusion counters in both paths at the street camera
// (the in-process tests above hold the frames against --occlusion off).
TEST(Occlusion, ReportCountsBothPhasesInBothPaths) {
    REQUIRE_DRAWING();
    std::string dir = test_dir("occlusion");
    for (std::string geometry : {"indexed", "meshlet"}) {
        SCOPED_TRACE(geometry);
        // Three frames: the last one's phase 1 has the previous frame's pyramid.
        DemoRun r = run_demo({"--headless", "--validate", "--size", "192x108", "--frames", "2", "--warmup", "1", "--instances",
                              "2", "--camera", "street", "--geometry", geometry, "--report", dir + "/" + geometry + ".json"});
        const KnownDriver* k = known_driver();
        bool no_mesh_shaders = r.exit_code == 2 && r.output.find("VK_EXT_mesh_shader") != std::string::npos;
        if (geometry == "meshlet" && no_mesh_shaders && !(k && k->mesh_shader)) continue;  // a device without them
        ASSERT_EQ(r.exit_code, 0) << r.output.substr(0, 4000);
        EXPECT_EQ(validation_lines(r.output), 0) << r.output.substr(0, 4000);
        nlohmann::json report = read_json(dir + "/" + geometry + ".json");
        EXPECT_EQ(report["plan"]["occlusion"]["requested"], "auto");
        EXPECT_NE(report["plan"]["occlusion"]["variant"], "off");
        const nlohmann::json& c = report["counters"]["occlusion"];
        std::string unit = geometry == "meshlet" ? "meshlets" : "triangles";
        std::string other = geometry == "meshlet" ? "triangles" : "meshlets";
        uint64_t rejected1 = c[unit + "_rejected_phase1"], tested = c[unit + "_tested_phase2"];
        uint64_t rejected2 = c[unit + "_rejected_phase2"], readmitted = c[unit + "_readmitted_phase2"];
        EXPECT_GT(rejected1, 0u);
        EXPECT_EQ(tested, rejected1);
        EXPECT_EQ(rejected2 + readmitted, tested);
        EXPECT_GT(rejected2, report["counters"][unit + "_visible"].get<uint64_t>() / 10) << "the street hides less than a tenth";
        EXPECT_TRUE(c[other + "_tested_phase2"].is_null()) << "the other path's counter";
        EXPECT_TRUE(c["triangles_readmitted_phase2"].is_number()) << "both paths count re-admitted triangles";
    }
}
