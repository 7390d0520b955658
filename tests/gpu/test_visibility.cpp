// --shading visibility (docs/visibility.md) against forward, its oracle: the same scene, camera and
// plan shaded by the forward pass. The frame within 60 dB PSNR (kMinPsnr) for every variant of the
// shading pass (derivatives x light loop x quad mip), on the bundled scene (textured, with an
// alpha-masked double-sided pergola) and on trellis.gltf (an alpha-masked lattice over textured
// ground); with the cull and the light lists off, with the fragment resolve, at an odd size, and
// with occlusion re-admitting triangles in phase 2; the visibility image's (draw, primitive) equal to
// what forward drew at every pixel (forward's own ids, forward.frag FORWARD_IDS); masking quad
// operations switches to analytic derivatives with the reason; every render validated. The meshlet
// path against its own forward the same way: the frame, and the triangle forward's mesh shader drew
// at every pixel, named as the visibility image names it (meshlet_forward.mesh.ids,
// forward.frag.meshlet_ids). Renders are 321x181 or smaller and shared by the assertions.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "run/options.h"
#include "app/run.h"
#include "gpu/harness.h"
#include "gpu/light_frame.h"
#include "gpu/street.h"
#include "render/mip_reference.h"
#include "render/tonemap.h"

// A named namespace around the whole file: the unity batches share one translation unit.
namespace visibility_tests {

constexpr VkExtent2D kSize{320, 180};
// The bound of every visibility frame against forward's. Measured on lavapipe (4 and 8 lanes): the
// bundled scene 69.7 dB, trellis.gltf 94.5 dB, the street of a 2 x 2 grid with occlusion 70+ dB,
// the meshlet path 69.7 / 97.5 / 76.5 dB, at 321x181 70.7 dB. The two paths differ only in how they
// reach the same attributes (interpolated by the rasterizer, or rebuilt from the triangle), so a
// pixel differs by a rounding step at most; a light list of the wrong tile gave 48.4 dB.
constexpr double kMinPsnr = 60.0;

struct Shot {
    std::vector<uint8_t> color;   // RGBA8
    std::vector<uint8_t> hdr;     // RGBA16F
    std::vector<uint32_t> ids;    // visibility: (draw, primitive) per pixel, decoded from the visibility id
    std::vector<uint8_t> mip;     // visibility: the half-resolution mip (RGBA16F)
    GpuCounters counters{};
    Plan plan;
};

enum class Path { forward, quads, analytic };

// How a frame is set up besides its path. The light loop and the mip are `auto` unless a test asks:
// the shading pass has a variant for each of (derivatives) x (light loop) x (quad mip).
struct FrameSetup {
    Request occlusion = Request::off;
    CameraView view = CameraView::overview;
    VkExtent2D size = kSize;
    int frames = 1;
    Geometry geometry = Geometry::indexed;
    Request light_loop = Request::automatic;
    Request mip = Request::automatic;
    Request cull = Request::automatic;
    Request light_cull = Request::automatic;
    uint32_t masked_stages = 0;  // bit(Stage): as --mask-stages
    const Context* context = nullptr;  // the device and features to render with; nullptr: test_context()
};

Plan plan_for(Path path, const FrameSetup& setup) {
    const Context& ctx = setup.context ? *setup.context : test_context();
    PlanRequest request;
    request.geometry = setup.geometry;
    request.shading = path == Path::forward ? Shading::forward : Shading::visibility;
    request[PassId::occlusion] = setup.occlusion;
    request[PassId::light_loop] = setup.light_loop;
    request[PassId::mip] = setup.mip;
    request[PassId::cull] = setup.cull;
    request[PassId::light_cull] = setup.light_cull;
    request[PassId::exposure] = Request::off;  // every frame its own (no adaptation between renderers)
    SubgroupCaps caps = ctx.subgroup;
    apply_masks(caps, setup.masked_stages, 0);
    Plan plan = make_plan(caps, ctx.features, request);
    // The analytic variant as --mask-ops quad plans it (that masking itself is tested through the
    // command line below, MaskingQuadsFallsBackWithTheReason): the same pipeline choice.
    if (path == Path::analytic) plan.shading.derivatives = Variant::fallback;
    return plan;
}

// Renders frames 0..frames-1 (the last one is read back). `output`: what forward (or, for
// derivatives, the visibility shading pass too) writes into the HDR image instead of a colour.
Shot render(const Scene& scene, Path path, ForwardTestOutput output = ForwardTestOutput::colour, const FrameSetup& setup = {}) {
    const Context& ctx = setup.context ? *setup.context : test_context();
    RendererConfig config;
    config.extent = setup.size;
    config.lights = 64;
    config.plan = plan_for(path, setup);
    config.camera = setup.view;
    config.test_forward_output = output;
    // Both sides trace the same rays (the camera's, as forward does), so the comparison holds the
    // shading pass alone; the visibility path's own ray generation (surfaces from the triangles)
    // has its tests in test_ray_trace.cpp (RayTrace.SurfaceFromTheTriangleMatchesThePrimaryRay).
    config.test_camera_rays = true;
    Renderer renderer(ctx, scene, config);
    Camera camera = renderer.default_view();
    for (int i = 0; i < setup.frames; ++i) {
        // The last frame moves the camera sideways and a little forward: what the nearest buildings
        // hid comes out, so occlusion phase 1 (with the last frame's pyramid) rejects some of it and
        // phase 2 re-admits it (54 pixels of it at 320x180 on lavapipe).
        if (i == setup.frames - 1 && i > 0) camera = step_down_the_street(camera, 0.04f);
        VkCommandBuffer cmd = begin_one_shot(ctx);
        renderer.record(cmd, 0, uint32_t(i), camera);
        end_one_shot(ctx, cmd);
    }
    Shot s;
    s.plan = config.plan;
    s.color = renderer.read_color();
    s.hdr = renderer.read_hdr();
    if (path == Path::quads || path == Path::analytic) {
        s.ids = renderer.read_visibility();
        s.mip = renderer.read_mip();
    }
    s.counters = renderer.read_counters();
    return s;
}

// Forward's FORWARD_IDS frame decoded: (draw, primitive) per pixel, kNoTriangle where the clear
// colour (not an integer) is.
std::vector<uint32_t> forward_ids(const std::vector<uint8_t>& hdr) {
    std::vector<uint32_t> ids(hdr.size() / 8 * 2, kNoTriangle);
    for (size_t p = 0; p < hdr.size() / 8; ++p) {
        float c[4];
        for (int i = 0; i < 4; ++i) c[i] = half_to_float(uint16_t(hdr[p * 8 + 2 * i] | (hdr[p * 8 + 2 * i + 1] << 8)));
        if (c[0] != std::floor(c[0])) continue;
        ids[2 * p] = uint32_t(c[0]) + 2048u * uint32_t(c[1]);
        ids[2 * p + 1] = uint32_t(c[2]) + 2048u * uint32_t(c[3]);
    }
    return ids;
}

// Pixels whose triangle differs (or which one image covers and the other not), and the first.
std::string id_mismatches(const std::vector<uint32_t>& visibility, const std::vector<uint32_t>& forward, uint32_t width,
                          int* covered) {
    int wrong = 0;
    *covered = 0;
    std::string first;
    for (size_t p = 0; p < forward.size() / 2; ++p) {
        if (forward[2 * p] != kNoTriangle) ++*covered;
        if (visibility[2 * p] == forward[2 * p] && visibility[2 * p + 1] == forward[2 * p + 1]) continue;
        if (wrong++ == 0)
            first = "pixel (" + std::to_string(p % width) + ", " + std::to_string(p / width) + "): visibility (" +
                    std::to_string(visibility[2 * p]) + ", " + std::to_string(visibility[2 * p + 1]) + "), forward (" +
                    std::to_string(forward[2 * p]) + ", " + std::to_string(forward[2 * p + 1]) + ")";
    }
    return wrong ? std::to_string(wrong) + " pixels differ, first " + first : "";
}

std::vector<float> hdr_floats(const std::vector<uint8_t>& hdr) {
    std::vector<float> f(hdr.size() / 2);
    for (size_t i = 0; i < f.size(); ++i) f[i] = half_to_float(uint16_t(hdr[2 * i] | (hdr[2 * i + 1] << 8)));
    return f;
}

// Covered pixels whose (du/dx, dv/dx, du/dy, dv/dy) differ from forward's by more than 2% of the
// pixel's largest derivative; fails ("" otherwise) where over 1% of them do. Measured on lavapipe:
// the median pixel differs by 0.4%, the 99th percentile by under 1.4%, a few pixels at grazing
// angles by more (docs/visibility.md, "Derivatives"); a derivative off by a factor, a sign or a
// pixel is off everywhere.
std::string derivative_mismatches(const std::vector<float>& got, const std::vector<float>& expected,
                                  const std::vector<uint32_t>& drawn) {
    int wrong = 0, compared = 0;
    std::vector<float> relative;
    std::string first;
    for (size_t p = 0; p < drawn.size() / 2; ++p) {
        if (drawn[2 * p] == kNoTriangle) continue;
        float scale = 0.0f, error = 0.0f;
        for (int c = 0; c < 4; ++c) {
            scale = std::max(scale, std::abs(expected[4 * p + c]));
            error = std::max(error, std::abs(got[4 * p + c] - expected[4 * p + c]));
        }
        if (scale == 0.0f) continue;  // an untextured constant uv: nothing to compare
        ++compared;
        relative.push_back(error / scale);
        if (error <= 0.02f * scale) continue;
        if (wrong++ == 0)
            first = "pixel (" + std::to_string(p % kSize.width) + ", " + std::to_string(p / kSize.width) + "): (" +
                    std::to_string(got[4 * p]) + ", " + std::to_string(got[4 * p + 1]) + ", " + std::to_string(got[4 * p + 2]) +
                    ", " + std::to_string(got[4 * p + 3]) + "), forward (" + std::to_string(expected[4 * p]) + ", " +
                    std::to_string(expected[4 * p + 1]) + ", " + std::to_string(expected[4 * p + 2]) + ", " +
                    std::to_string(expected[4 * p + 3]) + ")";
    }
    if (compared < 1000) return "only " + std::to_string(compared) + " covered pixels with a derivative to compare";
    std::sort(relative.begin(), relative.end());
    printf("derivatives against forward's: %d pixels, relative difference median %.4f, 99th percentile %.4f, over 2%%: %d\n",
           compared, relative[relative.size() / 2], relative[relative.size() * 99 / 100], wrong);
    if (wrong * 100 <= compared) return "";
    return std::to_string(wrong) + " of " + std::to_string(compared) + " pixels differ by over 2%, first " + first;
}

const Scene& trellis_scene() {
    static Scene scene = load_scene(SGD_TEST_SCENES "/trellis.gltf");
    return scene;
}

// The shading pass's variant a shot ran, for messages.
std::string variant_label(const Shot& shot) {
    return std::string(shot.plan.shading.derivatives == Variant::subgroup ? "quad-swap" : "analytic") + " derivatives, " +
           (shot.plan[PassId::light_loop].variant == Variant::subgroup ? "subgroup" : "per-lane") + " light loop, " +
           (shot.plan.shading.quad_mip ? "quad mip in the pass" : "no quad mip in the pass");
}

// Every variant of the shading pass against forward: (quad-swap, analytic derivatives) x (subgroup,
// per-lane light loop) x (with, without the quad mip), each within kMinPsnr of forward's frame; the
// pre-pass's ids (the same pre-pass for all eight) equal forward's at every pixel.
void expect_matches_forward(const Scene& scene, const char* name) {
    uint32_t messages = validation_message_count();
    Shot forward = render(scene, Path::forward);
    Shot ids = render(scene, Path::forward, ForwardTestOutput::ids);
    EXPECT_NOT_BLANK(forward.color);
    std::vector<uint32_t> drawn = forward_ids(ids.hdr);
    for (Path path : {Path::quads, Path::analytic})
        for (Request loop : {Request::subgroup, Request::fallback})
            for (Request mip : {Request::subgroup, Request::fallback}) {
                FrameSetup setup;
                setup.light_loop = loop;
                setup.mip = mip;
                Shot shot = render(scene, path, ForwardTestOutput::colour, setup);
                std::string label = std::string(name) + ", " + variant_label(shot);
                ASSERT_EQ(shot.plan.shading.shading, Shading::visibility) << label;
                ASSERT_EQ(shot.plan.shading.derivatives, path == Path::quads ? Variant::subgroup : Variant::fallback)
                    << label << ": " << shot.plan.shading.reason;
                ASSERT_EQ(shot.plan[PassId::light_loop].variant, loop == Request::subgroup ? Variant::subgroup : Variant::fallback)
                    << label;
                ASSERT_EQ(shot.plan.shading.quad_mip, mip == Request::subgroup) << label;
                double db = rgb_psnr(shot.color, forward.color);
                EXPECT_GE(db, kMinPsnr) << label;
                printf("%s: PSNR against forward %.2f dB\n", label.c_str(), db);
                if (path == Path::quads && loop == Request::subgroup && mip == Request::subgroup) {
                    int covered = 0;
                    EXPECT_EQ(id_mismatches(shot.ids, drawn, kSize.width, &covered), "") << name;
                    EXPECT_GE(covered, int(kSize.width * kSize.height / 10)) << name << ": too few covered pixels to compare";
                }
            }
    // The derivatives themselves too, with forward's coarse derivatives (forward.frag.derivatives):
    // they choose the mip levels, but a small error shows in few pixels of the frame.
    std::vector<float> expected = hdr_floats(render(scene, Path::forward, ForwardTestOutput::derivatives).hdr);
    EXPECT_EQ(derivative_mismatches(hdr_floats(render(scene, Path::quads, ForwardTestOutput::derivatives).hdr), expected, drawn), "")
        << name << ", quad-swap derivatives";
    EXPECT_EQ(derivative_mismatches(hdr_floats(render(scene, Path::analytic, ForwardTestOutput::derivatives).hdr), expected, drawn), "")
        << name << ", analytic derivatives";
    EXPECT_EQ(validation_message_count(), messages) << "validation messages in " << name;
}

// The planned visibility frame (every pass `auto` but those `setup` names) against forward's with
// the same setup: the frame within kMinPsnr and every pixel's triangle forward's. For the passes
// whose `off` or fallback changes what the shading pass reads (the cull's lists, the light lists,
// the resolve) and for sizes of partial tiles and quads.
void expect_setup_matches_forward(const Scene& scene, const FrameSetup& setup, const char* name) {
    uint32_t messages = validation_message_count();
    Shot forward = render(scene, Path::forward, ForwardTestOutput::colour, setup);
    Shot ids = render(scene, Path::forward, ForwardTestOutput::ids, setup);
    Shot visibility = render(scene, Path::quads, ForwardTestOutput::colour, setup);
    ASSERT_EQ(visibility.plan.shading.shading, Shading::visibility) << visibility.plan.shading.reason;
    EXPECT_NOT_BLANK(forward.color);
    double db = rgb_psnr(visibility.color, forward.color);
    EXPECT_GE(db, kMinPsnr) << name;
    printf("%s: PSNR against forward %.2f dB\n", name, db);
    int covered = 0;
    EXPECT_EQ(id_mismatches(visibility.ids, forward_ids(ids.hdr), setup.size.width, &covered), "") << name;
    EXPECT_GE(covered, int(setup.size.width * setup.size.height / 10)) << name << ": too few covered pixels to compare";
    EXPECT_EQ(validation_message_count(), messages) << "validation messages in " << name;
}

TEST(Visibility, BundledSceneMatchesForward) {
    REQUIRE_DRAWING();
    expect_matches_forward(default_scene(), "the bundled scene");
}

TEST(Visibility, AlphaMaskedTrellisMatchesForward) {
    REQUIRE_DRAWING();
    expect_matches_forward(trellis_scene(), "trellis.gltf");
}

// What the shading pass reads changes with these: the unculled draw (cull off: the scene's own
// indices and commands), every light at every pixel (no lists), the fragment resolve (compute
// masked: the shading pass cannot write the quad mip, so the fragment resolve writes frame and mip),
// and partial tiles and quads at the right and bottom edges.
TEST(Visibility, CullOffMatchesForward) {
    REQUIRE_DRAWING();
    expect_setup_matches_forward(default_scene(), FrameSetup{.cull = Request::off}, "--cull off");
}

TEST(Visibility, LightCullOffMatchesForward) {
    REQUIRE_DRAWING();
    expect_setup_matches_forward(default_scene(), FrameSetup{.light_cull = Request::off}, "--light-cull off");
}

TEST(Visibility, FragmentResolveMatchesForward) {
    REQUIRE_DRAWING();
    FrameSetup masked{.masked_stages = bit(Stage::compute)};
    Plan plan = plan_for(Path::quads, masked);
    ASSERT_FALSE(plan.shading.quad_mip) << "compute masked: no quad mip in the shading pass";
    ASSERT_EQ(plan[PassId::mip].variant, Variant::subgroup) << "the fragment resolve's quad mip";
    expect_setup_matches_forward(default_scene(), masked, "--mask-stages compute");
}

TEST(Visibility, OddSizeMatchesForward) {
    REQUIRE_DRAWING();
    expect_setup_matches_forward(default_scene(), FrameSetup{.size = {321, 181}}, "321x181");
}

// Occlusion's two phases draw depth; the merged list writes the ids over the final depth
// (ScenePass::record_ids): a street view of a 2 x 2 grid, the camera moving, so phase 2 re-admits.
// Every pixel's triangle is forward's (which draws the same merged list), and the frame is the one
// without occlusion, byte for byte (the camera-step sequence of the occlusion tests; the generated
// ties of test_visibility_ties.cpp test equal depths).
TEST(Visibility, OcclusionPhaseTwoMatchesForward) {
    REQUIRE_DRAWING();
    const Scene& grid = street_grid();
    uint32_t messages = validation_message_count();
    FrameSetup street{.occlusion = Request::fallback, .view = CameraView::street, .frames = 3};
    Shot forward = render(grid, Path::forward, ForwardTestOutput::colour, street);
    Shot quads = render(grid, Path::quads, ForwardTestOutput::colour, street);
    ASSERT_GT(quads.counters.occlusion_triangles.readmitted_phase2, 0u) << "no late draw to test";
    EXPECT_EQ(quads.counters.occlusion_triangles.readmitted_phase2, forward.counters.occlusion_triangles.readmitted_phase2);
    EXPECT_NOT_BLANK(forward.color);
    double db = rgb_psnr(quads.color, forward.color);
    EXPECT_GE(db, kMinPsnr);
    printf("occlusion, street of a 2 x 2 grid: PSNR against forward %.2f dB\n", db);
    int covered = 0;
    Shot ids = render(grid, Path::forward, ForwardTestOutput::ids, street);
    EXPECT_EQ(id_mismatches(quads.ids, forward_ids(ids.hdr), kSize.width, &covered), "");
    FrameSetup unoccluded = street;
    unoccluded.occlusion = Request::off;
    EXPECT_TRUE(render(grid, Path::quads, ForwardTestOutput::colour, unoccluded).color == quads.color)
        << "the visibility frame with occlusion differs from the one without";
    EXPECT_EQ(validation_message_count(), messages);
}

// The meshlet path against its own forward: both derivative variants within the PSNR bound, and every
// pixel's triangle the one forward's mesh shader drew there. Both sides name it (draw, meshlet << 7 |
// the triangle's index in the meshlet), decoded from the 32-bit visibility id (visibility_id.glsl):
// the visibility image's from the pre-pass's mesh shader, decoded on the CPU (read_visibility);
// forward's from forward's (meshlet_forward.mesh.ids), decoded by forward.frag.meshlet_ids (on the
// meshlet path gl_PrimitiveID is not set).
// `street`: occlusion on, a street view of a 2 x 2 grid with the camera moving, so that occlusion
// phase 2's late meshlet draw writes ids too (its pixels, the late bit, are also held on their own).
void expect_meshlet_matches_forward(const Scene& scene, const char* name, bool street = false) {
    if (!test_context().features.mesh_shader) GTEST_SKIP() << "device lacks VK_EXT_mesh_shader: no meshlet path here";
    uint32_t messages = validation_message_count();
    FrameSetup setup{.geometry = Geometry::meshlet};
    if (street) {
        setup.occlusion = Request::fallback;
        setup.view = CameraView::street;
        setup.frames = 3;
    }
    auto meshlet = [&](Path path, ForwardTestOutput output = ForwardTestOutput::colour) { return render(scene, path, output, setup); };
    Shot forward = meshlet(Path::forward);
    Shot ids = meshlet(Path::forward, ForwardTestOutput::ids);
    Shot quads = meshlet(Path::quads);
    ASSERT_EQ(quads.plan.geometry, Geometry::meshlet);
    ASSERT_EQ(quads.plan.shading.shading, Shading::visibility);
    ASSERT_EQ(quads.plan.shading.derivatives, Variant::subgroup) << quads.plan.shading.reason;
    EXPECT_NOT_BLANK(forward.color);
    double quad_psnr = rgb_psnr(quads.color, forward.color);
    EXPECT_GE(quad_psnr, kMinPsnr) << name << ", quad-swap derivatives";
    int covered = 0;
    EXPECT_EQ(id_mismatches(quads.ids, forward_ids(ids.hdr), kSize.width, &covered), "") << name;
    EXPECT_GE(covered, int(kSize.width * kSize.height / 10)) << name << ": too few covered pixels to compare";
    // --mip auto plans subgroup here, so the meshlet shading pass wrote the quad mip as it shaded:
    // bit for bit the CPU box filter of its frame.
    ASSERT_EQ(quads.plan[PassId::mip].variant, Variant::subgroup) << quads.plan[PassId::mip].reason;
    MipCheck mip = check_mip(hdr_floats(quads.hdr), kSize.width, kSize.height, hdr_floats(quads.mip));
    EXPECT_EQ(mip.texels, uint64_t(kSize.width / 2) * (kSize.height / 2)) << name;
    EXPECT_EQ(mip.mismatched, 0u) << name << ": the shading pass's quad mip, first at " << mip.first_x << "," << mip.first_y;
    if (street) {
        EXPECT_GT(quads.counters.occlusion_meshlets.readmitted_phase2, 0u) << "no late meshlet draw to test";
        FrameSetup unoccluded = setup;
        unoccluded.occlusion = Request::off;
        EXPECT_TRUE(render(scene, Path::quads, ForwardTestOutput::colour, unoccluded).color == quads.color)
            << "the visibility frame with occlusion differs from the one without";
        printf("%s: PSNR against meshlet forward %.2f dB\n", name, quad_psnr);
    } else {
        Shot analytic = meshlet(Path::analytic);
        double analytic_psnr = rgb_psnr(analytic.color, forward.color);
        EXPECT_GE(analytic_psnr, kMinPsnr) << name << ", analytic derivatives";
        printf("%s: PSNR against meshlet forward %.2f dB (quad-swap derivatives), %.2f dB (analytic)\n", name, quad_psnr,
               analytic_psnr);
    }
    EXPECT_EQ(validation_message_count(), messages) << "validation messages in " << name;
}

TEST(Visibility, MeshletBundledSceneMatchesMeshletForward) {
    REQUIRE_DRAWING();
    expect_meshlet_matches_forward(default_scene(), "the bundled scene, meshlet path");
}

TEST(Visibility, MeshletAlphaMaskedTrellisMatchesMeshletForward) {
    REQUIRE_DRAWING();
    expect_meshlet_matches_forward(trellis_scene(), "trellis.gltf, meshlet path");
}

TEST(Visibility, MeshletOcclusionPhaseTwoMatchesMeshletForward) {
    REQUIRE_DRAWING();
    expect_meshlet_matches_forward(street_grid(), "a 2 x 2 grid's street, meshlet path", true);
}

// A device with mesh shaders but without the geometryShader feature, which only the indexed
// pre-pass needs (its gl_PrimitiveID): the planner lets the meshlet path shade with visibility there
// (tests/test_shading_plan.cpp), so the renderer must have made the meshlet path's pipelines. A
// device of its own, with the feature taken away as such a device reports it; its frame against
// meshlet forward on the full device.
TEST(Visibility, MeshletPathShadesWithoutTheGeometryFeature) {
    REQUIRE_DRAWING();
    if (!test_context().features.mesh_shader) GTEST_SKIP() << "device lacks VK_EXT_mesh_shader: no meshlet path here";
    Context ctx;
    ContextOptions options;
    options.validate = true;
    create_context(ctx, options);
    ctx.features.geometry = false;
    FrameSetup setup{.geometry = Geometry::meshlet, .context = &ctx};
    Plan plan = plan_for(Path::quads, setup);
    ASSERT_EQ(plan.shading.shading, Shading::visibility) << plan.shading.reason;
    ASSERT_EQ(plan.geometry, Geometry::meshlet);
    uint32_t messages = validation_message_count();
    Shot visibility = render(default_scene(), Path::quads, ForwardTestOutput::colour, setup);
    Shot forward = render(default_scene(), Path::forward, ForwardTestOutput::colour, FrameSetup{.geometry = Geometry::meshlet});
    EXPECT_NOT_BLANK(forward.color);
    EXPECT_GE(rgb_psnr(visibility.color, forward.color), kMinPsnr);
    EXPECT_EQ(validation_message_count(), messages);
}

// Culling frozen (the window's F) on the meshlet path: forward's task and mesh shaders draw the
// frozen list into the pre-pass (meshlet_forward.mesh.ids names its triangles), from a camera moved
// after the freeze; every pixel's triangle still forward's, the frame within the bound.
TEST(Visibility, MeshletFrozenCullingMatchesMeshletForward) {
    REQUIRE_DRAWING();
    const Context& ctx = test_context();
    if (!ctx.features.mesh_shader) GTEST_SKIP() << "device lacks VK_EXT_mesh_shader: no meshlet path here";
    uint32_t messages = validation_message_count();
    auto frozen = [&](Path path, ForwardTestOutput output) {
        RendererConfig config;
        config.extent = kSize;
        config.lights = 64;
        config.plan = plan_for(path, FrameSetup{.geometry = Geometry::meshlet});
        config.test_forward_output = output;
        config.test_camera_rays = true;  // as render()'s: the shading pass alone
        Renderer renderer(ctx, default_scene(), config);
        Camera camera = renderer.default_view();
        for (uint32_t i = 0; i < 2; ++i) {
            if (i == 1) {
                renderer.set_cull_frozen(true);
                camera.position += 0.1f * (camera.target - camera.position);
            }
            VkCommandBuffer cmd = begin_one_shot(ctx);
            renderer.record(cmd, 0, i, camera);
            end_one_shot(ctx, cmd);
        }
        Shot s;
        s.color = renderer.read_color();
        s.hdr = renderer.read_hdr();
        if (path == Path::quads) s.ids = renderer.read_visibility();
        return s;
    };
    Shot forward = frozen(Path::forward, ForwardTestOutput::colour);
    Shot ids = frozen(Path::forward, ForwardTestOutput::ids);
    Shot quads = frozen(Path::quads, ForwardTestOutput::colour);
    EXPECT_NOT_BLANK(forward.color);
    EXPECT_GE(rgb_psnr(quads.color, forward.color), kMinPsnr);
    int covered = 0;
    EXPECT_EQ(id_mismatches(quads.ids, forward_ids(ids.hdr), kSize.width, &covered), "");
    EXPECT_GE(covered, int(kSize.width * kSize.height / 10)) << "too few covered pixels to compare";
    EXPECT_EQ(validation_message_count(), messages);
}

// Through the command line: --mask-ops quad plans analytic derivatives and says why, and the frame
// stays within the bound of forward's; the meshlet path runs too (its frame within the bound of
// indexed forward's, whose triangles and positions it draws).
TEST(Visibility, MaskingQuadsFallsBackWithTheReason) {
    REQUIRE_DRAWING();
    std::string dir = test_dir("visibility-mask");
    auto run = [&](const std::string& tag, std::vector<std::string> extra) {
        // Without ray tracing: forward traces primary rays and the visibility path takes the surfaces
        // from the triangles, whose shadows differ at silhouettes (RayTrace.SurfaceFromTheTriangle...
        // bounds that); this compares the shading passes.
        std::vector<std::string> args = {"--headless", "--validate", "--size", "320x180", "--frames", "1", "--warmup", "0",
                                         "--lights", "64", "--exposure", "off", "--ray-trace", "off",
                                         "--report", dir + "/" + tag + ".json", "--screenshot", dir + "/" + tag + ".png"};
        args.insert(args.end(), extra.begin(), extra.end());
        DemoRun r = run_demo(args);
        EXPECT_EQ(r.exit_code, 0) << r.output.substr(0, 4000);
        EXPECT_EQ(validation_lines(r.output), 0) << r.output.substr(0, 4000);
        return read_json(dir + "/" + tag + ".json");
    };
    nlohmann::json automatic = run("auto", {});
    EXPECT_EQ(automatic["plan"]["shading"]["mode"], "forward");
    EXPECT_NE(automatic["plan"]["shading"]["reason"].get<std::string>().find("no verdict"), std::string::npos);
    nlohmann::json masked = run("masked", {"--shading", "visibility", "--mask-ops", "quad"});
    EXPECT_EQ(masked["plan"]["shading"]["mode"], "visibility");
    EXPECT_EQ(masked["plan"]["shading"]["derivatives"], "fallback");
    EXPECT_NE(masked["plan"]["shading"]["reason"].get<std::string>().find("quad subgroup operations are not supported (masked by --mask-ops)"),
              std::string::npos)
        << masked["plan"]["shading"]["reason"];
    EXPECT_TRUE(masked["timings_ms"].contains("shade"));
    EXPECT_FALSE(masked["timings_ms"].contains("forward"));
    Png forward = read_png(dir + "/auto.png"), visibility = read_png(dir + "/masked.png");
    EXPECT_NOT_BLANK(forward.rgba);
    EXPECT_GE(rgb_psnr(visibility.rgba, forward.rgba), kMinPsnr);

    if (!test_context().features.mesh_shader) return;
    nlohmann::json meshlet = run("meshlet", {"--shading", "visibility", "--geometry", "meshlet"});
    EXPECT_EQ(meshlet["plan"]["geometry"]["mode"], "meshlet");
    EXPECT_EQ(meshlet["plan"]["shading"]["mode"], "visibility");
    EXPECT_EQ(meshlet["plan"]["shading"]["derivatives"], "subgroup") << meshlet["plan"]["shading"]["reason"];
    EXPECT_TRUE(meshlet["timings_ms"].contains("shade"));
    EXPECT_FALSE(meshlet["timings_ms"].contains("forward"));
    EXPECT_GE(rgb_psnr(read_png(dir + "/meshlet.png").rgba, forward.rgba), kMinPsnr);
}

}  // namespace visibility_tests
