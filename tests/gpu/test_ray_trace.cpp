// The ray_trace pass (--ray-trace, docs/ray-tracing.md): sun shadows and reflections traced with all
// six ray-tracing stages. Oracles: a CPU ray-triangle reference of the scene (shadow rays through
// the alpha mask), counts that follow from the depth buffer and the traced image, the untraced
// frame (--ray-trace off), and the other variant's statistics and image.
//
// On the Mesa 25 lavapipe the six stages have no subgroup support (its record, tests/known_drivers.h),
// so `auto` is the fallback and `subgroup` exits 2: the subgroup ray-tracing path cannot run in CI,
// and the GPU run after a merge is its proof; on a GPU with subgroups there, the subgroup variant is
// compared with the fallback. A device with no ray tracing at all skips what needs tracing
// (tests/allowed-skips.txt) and checks the exit-2 path, unless the record of the running driver
// says it traces (the Mesa 25 lavapipe): then detection that lost it is a failure, not a skip.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>

#include <glm/gtc/matrix_access.hpp>

#include "gpu/harness.h"
#include "gpu/light_frame.h"
#include "known_drivers.h"
#include "passes/debug_view_pass.h"
#include "passes/ray_trace_pass.h"

using nlohmann::json;

namespace {

constexpr VkExtent2D kRayTraceSize{320, 180};
const std::string kTrellis = SGD_TEST_SCENES "/trellis.gltf";

// Whether the device traces: the record's answer where the running driver has one, else the device's.
bool device_traces() {
    const KnownDriver* k = known_driver();
    return k ? k->ray_tracing : test_context().features.ray_tracing;
}

// Whether the six stages have subgroups: the record's answer where there is one, else the device's.
std::vector<std::string> rt_stages_without_subgroups() {
    if (const KnownDriver* k = known_driver()) return record_rt_stages_without_subgroups(*k);
    return stage_names(kRayTracingStages & ~test_context().subgroup.stages);
}

#define REQUIRE_RAY_TRACING()                                                                                       \
    if (!test_context().features.ray_tracing) {                                                                     \
        if (device_traces())                                                                                        \
            FAIL() << "detection found no ray-tracing pipeline, but the record of " << known_driver()->name         \
                   << " has one (tests/known_drivers.h)";                                                           \
        GTEST_SKIP() << "device has no ray-tracing pipeline (VK_KHR_ray_tracing_pipeline): nothing to trace";       \
    }

const Scene& trellis_scene() {
    static Scene scene = load_scene(kTrellis);
    return scene;
}

struct TracedFrame {
    FrameUniforms uniforms{};
    std::vector<float> depth;
    std::vector<uint32_t> traced;
    std::vector<uint8_t> color;
    GpuCounters counters{};
};

TracedFrame render_traced(const Scene& scene, Request ray_trace, uint32_t lights = 64) {
    const Context& ctx = test_context();
    PlanRequest request;
    request[PassId::ray_trace] = ray_trace;
    RendererConfig config;
    config.extent = kRayTraceSize;
    config.lights = lights;
    config.plan = make_plan(ctx.subgroup, ctx.features, request);
    Renderer renderer(ctx, scene, config);
    VkCommandBuffer cmd = begin_one_shot(ctx);
    renderer.record(cmd, 0, 3, renderer.default_view());
    end_one_shot(ctx, cmd);
    TracedFrame f;
    f.uniforms = renderer.frame_uniforms(3, renderer.default_view());
    f.depth = renderer.read_depth();
    if (ray_trace != Request::off) f.traced = renderer.read_ray_traced();
    f.color = renderer.read_color();
    f.counters = renderer.read_counters();
    return f;
}

// ---- The CPU reference: the scene's triangles in world space, traced in double precision ----

struct WorldTriangle {
    glm::dvec3 p[3];
    glm::dvec3 n[3];  // shading normals (world)
    glm::dvec2 uv[3];
    uint32_t draw;
    double alpha_cutoff;  // 0: opaque
    uint32_t texture;  // GpuDraw::base_color_texture: 0 white, else scene texture - 1
    double alpha_factor;
};

struct CpuScene {
    std::vector<WorldTriangle> triangles;
    const Scene* scene = nullptr;  // its textures' level 0: what the alpha tests sample
    bool alpha = true;            // false: every material opaque (the negative control)
};

CpuScene cpu_scene(const Scene& scene) {
    CpuScene s;
    std::vector<GpuDraw> draws = build_draws(scene);
    for (uint32_t d = 0; d < draws.size(); ++d) {
        const GpuDraw& draw = draws[d];
        glm::dmat4 model(draw.model);
        glm::dmat3 normal(glm::dmat4(draw.normal_matrix));
        for (uint32_t i = 0; i < draw.index_count; i += 3) {
            WorldTriangle t;
            for (int k = 0; k < 3; ++k) {
                const Vertex& v = scene.vertices[scene.indices[draw.first_index + i + k]];
                t.p[k] = glm::dvec3(model * glm::dvec4(glm::dvec3(v.position), 1.0));
                t.n[k] = glm::normalize(normal * glm::dvec3(v.normal));
                t.uv[k] = glm::dvec2(v.uv);
            }
            t.draw = d;
            t.alpha_cutoff = draw.alpha_cutoff;
            t.texture = draw.base_color_texture;
            t.alpha_factor = draw.base_color.a;
            s.triangles.push_back(t);
        }
    }
    s.scene = &scene;
    return s;
}

// Bilinear alpha at uv, repeat wrap: the GPU's linear sampler on level 0 of the texture, at its size.
double sample_alpha(const CpuScene& s, uint32_t texture, glm::dvec2 uv) {
    if (texture == 0) return 1.0;  // the white texel
    const Texture& t = s.scene->textures[texture - 1];
    const int w = t.width, h = t.height;
    double x = uv.x * w - 0.5, y = uv.y * h - 0.5;
    double fx = std::floor(x), fy = std::floor(y);
    double ax = x - fx, ay = y - fy;
    auto texel = [&](int i, int j) {
        i = ((i % w) + w) % w;
        j = ((j % h) + h) % h;
        return t.rgba[(size_t(j) * w + i) * 4 + 3] / 255.0;
    };
    int i = int(fx), j = int(fy);
    return (texel(i, j) * (1 - ax) + texel(i + 1, j) * ax) * (1 - ay) + (texel(i, j + 1) * (1 - ax) + texel(i + 1, j + 1) * ax) * ay;
}

// How close an alpha test may come to the cutoff and still be trusted (the GPU filters 8-bit
// texels with its own rounding).
constexpr double kAlphaMargin = 0.06;

struct CpuHit {
    double t = -1;
    const WorldTriangle* tri = nullptr;
    glm::dvec3 bary{};
    bool ambiguous = false;     // an alpha test along the ray came within kAlphaMargin of the cutoff
    bool through_hole = false;  // the ray crossed masked geometry where its alpha made a hole
};

// Closest (or, any_hit, first) accepted hit in [0, tmax]; back faces culled where cull_back.
CpuHit trace_cpu(const CpuScene& s, glm::dvec3 o, glm::dvec3 d, double tmax, bool cull_back, bool any_hit) {
    CpuHit best;
    for (const WorldTriangle& t : s.triangles) {
        glm::dvec3 e1 = t.p[1] - t.p[0], e2 = t.p[2] - t.p[0];
        glm::dvec3 pv = glm::cross(d, e2);
        double det = glm::dot(e1, pv);
        if (std::abs(det) < 1e-14) continue;
        if (cull_back && det < 0) continue;  // counter-clockwise seen from the ray: front (the raster's)
        double inv = 1.0 / det;
        glm::dvec3 tv = o - t.p[0];
        double u = glm::dot(tv, pv) * inv;
        if (u < 0 || u > 1) continue;
        glm::dvec3 qv = glm::cross(tv, e1);
        double v = glm::dot(d, qv) * inv;
        if (v < 0 || u + v > 1) continue;
        double hit_t = glm::dot(e2, qv) * inv;
        if (hit_t < 0 || hit_t > tmax || (best.tri && hit_t >= best.t)) continue;
        if (s.alpha && t.alpha_cutoff > 0) {
            glm::dvec2 uv = t.uv[0] * (1 - u - v) + t.uv[1] * u + t.uv[2] * v;
            double alpha = sample_alpha(s, t.texture, uv) * t.alpha_factor;
            if (std::abs(alpha - t.alpha_cutoff) < kAlphaMargin) best.ambiguous = true;
            if (alpha < t.alpha_cutoff) {
                best.through_hole = true;
                continue;
            }
        }
        best.t = hit_t;
        best.tri = &t;
        best.bary = {1 - u - v, u, v};
        if (any_hit) break;
    }
    return best;
}

// The CPU's answer for one pixel, as the raygen shader builds its rays.
struct PixelAnswer {
    bool surface = false, shadow_ray = false, blocked = false;
    bool ambiguous = false, through_hole = false, blocked_by_mask = false;
    uint32_t draw = 0;
    double t = 0;
};

PixelAnswer cpu_pixel(const CpuScene& s, const TracedFrame& f, glm::dvec2 pixel, float depth, double origin_jitter = 0,
                      int jitter_axis = 0) {
    PixelAnswer a;
    if (depth <= 0) return a;
    glm::dmat4 inverse(f.uniforms.inverse_view_proj);
    glm::dvec2 ndc = pixel / glm::dvec2(kRayTraceSize.width, kRayTraceSize.height) * 2.0 - 1.0;
    glm::dvec4 target = inverse * glm::dvec4(ndc, std::max(double(depth), 1e-7), 1.0);
    glm::dvec3 origin(f.uniforms.camera_position);
    glm::dvec3 to = glm::dvec3(target) / target.w - origin;
    double distance = glm::length(to);
    glm::dvec3 dir = to / distance;
    CpuHit primary = trace_cpu(s, origin, dir, distance * 1.05 + 0.05, true, false);
    a.ambiguous = primary.ambiguous;
    if (!primary.tri) return a;
    a.surface = true;
    a.draw = primary.tri->draw;
    a.t = primary.t;
    const WorldTriangle& tri = *primary.tri;
    glm::dvec3 p = origin + dir * primary.t;
    glm::dvec3 n = glm::normalize(tri.n[0] * primary.bary.x + tri.n[1] * primary.bary.y + tri.n[2] * primary.bary.z);
    glm::dvec3 g = glm::normalize(glm::cross(tri.p[1] - tri.p[0], tri.p[2] - tri.p[0]));
    if (glm::dot(g, dir) > 0) g = -g;
    glm::dvec3 sun(f.uniforms.sun_direction);
    double facing = glm::dot(n, sun);
    if (std::abs(facing) < 1e-3) a.ambiguous = true;
    a.shadow_ray = facing > 0;
    if (!a.shadow_ray) return a;
    glm::dvec3 tangent = glm::normalize(glm::cross(g, std::abs(g.y) < 0.9 ? glm::dvec3(0, 1, 0) : glm::dvec3(1, 0, 0)));
    glm::dvec3 jitter = (jitter_axis == 0 ? tangent : glm::cross(g, tangent)) * origin_jitter;
    glm::dvec3 shadow_origin = p + g * (2e-3 + 1e-4 * primary.t) + jitter;  // raytrace.rgen's offsets
    CpuHit shadow = trace_cpu(s, shadow_origin, sun, 1e6, false, true);
    a.blocked = shadow.tri != nullptr;
    a.ambiguous = a.ambiguous || shadow.ambiguous;
    a.through_hole = shadow.through_hole && !a.blocked;
    a.blocked_by_mask = a.blocked && shadow.tri->alpha_cutoff > 0;
    return a;
}

// The epsilon around silhouettes and shadow edges: a pixel is compared only where the CPU's answer
// is the same for primary rays 0.3 pixels off the centre (same draw, distance within 2%) and for
// shadow rays from origins 0.01 world units off the hit point, and no alpha test on the way came
// within kAlphaMargin of the cutoff.
constexpr double kPixelEpsilon = 0.3, kOriginEpsilon = 0.01;

std::optional<PixelAnswer> confident_answer(const CpuScene& s, const TracedFrame& f, int x, int y) {
    float depth = f.depth[size_t(y) * kRayTraceSize.width + x];
    glm::dvec2 centre(x + 0.5, y + 0.5);
    PixelAnswer a = cpu_pixel(s, f, centre, depth);
    if (a.ambiguous) return std::nullopt;
    const glm::dvec2 offsets[4] = {{kPixelEpsilon, 0}, {-kPixelEpsilon, 0}, {0, kPixelEpsilon}, {0, -kPixelEpsilon}};
    for (glm::dvec2 o : offsets) {
        PixelAnswer b = cpu_pixel(s, f, centre + o, depth);
        if (b.ambiguous || b.surface != a.surface || b.draw != a.draw || std::abs(b.t - a.t) > 0.02 * a.t ||
            b.shadow_ray != a.shadow_ray || b.blocked != a.blocked)
            return std::nullopt;
    }
    if (a.shadow_ray)
        for (double j : {kOriginEpsilon, -kOriginEpsilon})
            for (int axis = 0; axis < 2; ++axis) {
                PixelAnswer b = cpu_pixel(s, f, centre, depth, j, axis);
                if (b.ambiguous || b.blocked != a.blocked) return std::nullopt;
            }
    return a;
}

struct ShadowComparison {
    int compared = 0, mismatched = 0, lit = 0, blocked = 0, through_holes = 0, blocked_by_mask = 0;
};

ShadowComparison compare_shadows(const CpuScene& s, const TracedFrame& f) {
    ShadowComparison c;
    for (uint32_t y = 1; y < kRayTraceSize.height; y += 2)
        for (uint32_t x = 1; x < kRayTraceSize.width; x += 2) {
            std::optional<PixelAnswer> a = confident_answer(s, f, int(x), int(y));
            if (!a || !a->surface) continue;
            uint32_t gpu = f.traced[size_t(y) * kRayTraceSize.width + x];
            bool gpu_shadow_ray = gpu & kTracedShadowRay, gpu_blocked = gpu & kTracedSunBlocked;
            ++c.compared;
            bool same = gpu_shadow_ray == a->shadow_ray && gpu_blocked == a->blocked;
            if (!same) {
                if (c.mismatched < 10)
                    printf("pixel (%u, %u): GPU shadow ray %d blocked %d, CPU %d %d\n", x, y, gpu_shadow_ray, gpu_blocked,
                           a->shadow_ray, a->blocked);
                ++c.mismatched;
            }
            if (a->shadow_ray) (a->blocked ? c.blocked : c.lit)++;
            c.through_holes += a->through_hole;
            c.blocked_by_mask += a->blocked_by_mask;
        }
    return c;
}

}  // namespace

// Shadow rays against the CPU: a few hundred confident pixels of the trellis scene, lit, blocked
// by the block or the trellis's laths, and lit through the trellis's openings (the alpha mask).
TEST(RayTrace, ShadowsMatchCpuReferenceThroughTheAlphaMask) {
    REQUIRE_DRAWING();
    REQUIRE_RAY_TRACING();
    uint32_t before = validation_message_count();
    TracedFrame f = render_traced(trellis_scene(), Request::fallback);
    CpuScene cpu = cpu_scene(trellis_scene());
    ShadowComparison c = compare_shadows(cpu, f);
    printf("compared %d pixels: %d lit (%d through trellis openings), %d blocked (%d by laths), %d mismatched\n",
           c.compared, c.lit, c.through_holes, c.blocked, c.blocked_by_mask, c.mismatched);
    EXPECT_GE(c.compared, 300);
    EXPECT_EQ(c.mismatched, 0);
    EXPECT_GE(c.lit, 50);
    EXPECT_GE(c.blocked, 50);
    EXPECT_GE(c.through_holes, 20) << "too few shadow rays through the trellis's openings to test the alpha mask";
    EXPECT_GE(c.blocked_by_mask, 20);

    // The negative control: without the alpha test the CPU disagrees with the GPU where the sun
    // shines through the openings, so a broken any-hit shader could not pass the check above.
    CpuScene opaque = cpu;
    opaque.alpha = false;
    ShadowComparison wrong = compare_shadows(opaque, f);
    EXPECT_GE(wrong.mismatched, 20) << "the trellis's holes do not show in the comparison";
    EXPECT_EQ(validation_message_count(), before);
}

// The statistics against counts that follow from the frame itself: one raygen per pixel, one
// primary ray per pre-pass pixel, one shadow ray per pixel that says so, every ray ending in exactly
// one closest-hit or miss, rejections within the any-hit invocations.
TEST(RayTrace, StatisticsAreSelfConsistent) {
    REQUIRE_DRAWING();
    REQUIRE_RAY_TRACING();
    uint32_t before = validation_message_count();
    for (const Scene* scene : {&trellis_scene(), &default_scene()}) {
        TracedFrame f = render_traced(*scene, Request::fallback, 256);
        const RayStats& s = f.counters.rays;
        uint64_t surface = 0, shadow = 0, reflection = 0;
        for (size_t i = 0; i < f.depth.size(); ++i) {
            surface += f.depth[i] > 0;
            shadow += (f.traced[i] & kTracedShadowRay) != 0;
            reflection += (f.traced[i] & kTracedReflection) != 0;
        }
        SCOPED_TRACE(scene->path);
        EXPECT_EQ(s.invocations[0], kRayTraceSize.width * kRayTraceSize.height);  // raygen
        EXPECT_EQ(s.rays[0], surface);
        EXPECT_EQ(s.rays[1], shadow);
        EXPECT_GE(s.rays[2], reflection);
        EXPECT_GT(reflection, 100u);
        EXPECT_GT(shadow, 1000u);
        uint64_t rays = uint64_t(s.rays[0]) + s.rays[1] + s.rays[2];
        EXPECT_EQ(rays, uint64_t(s.invocations[2]) + s.invocations[3]) << "closest-hit + miss != rays traced";
        EXPECT_LE(s.any_hit_rejections, s.invocations[1]);
        EXPECT_GT(s.any_hit_rejections, 0u) << "the trellis's openings reject hits";
        EXPECT_LE(s.sphere_hits, s.invocations[4]);
        EXPECT_LE(s.invocations[5], s.invocations[2]) << "callables come from closest-hits of reflection rays";
        EXPECT_LE(s.invocations[5], s.rays[2]);
        EXPECT_GT(s.invocations[5], 0u);
        for (uint32_t k = 0; k < 6; ++k) EXPECT_EQ(s.subgroups[k], 0u) << "the fallback counts per invocation";
        EXPECT_EQ(s.shadow_skips, 0u);
    }
    EXPECT_EQ(validation_message_count(), before);
}

namespace {

json rt_report(const std::string& dir, const std::string& name, std::vector<std::string> extra, DemoRun* out = nullptr) {
    std::vector<std::string> args = {"--headless", "--size", "320x180", "--frames", "2", "--warmup", "1", "--validate",
                                     "--scene", kTrellis, "--lights", "64", "--report", dir + "/" + name + ".json",
                                     "--screenshot", dir + "/" + name + ".png"};
    args.insert(args.end(), extra.begin(), extra.end());
    DemoRun run = run_demo(args);
    if (out) *out = run;
    EXPECT_EQ(run.exit_code, 0) << run.output;
    EXPECT_EQ(validation_lines(run.output), 0) << run.output;
    return run.exit_code == 0 ? read_json(dir + "/" + name + ".json") : json();
}

}  // namespace

// The plan: auto picks the subgroup path where all six stages have subgroups, else the fallback
// naming the stages; an explicit subgroup request there exits 2 naming them; masking one stage on
// a device that has them all does the same.
TEST(RayTrace, PlanNamesTheStagesWithoutSubgroups) {
    std::string dir = test_dir("rt-plan");
    DemoRun info = run_demo({"--info", "--report", dir + "/info.json"});
    ASSERT_EQ(info.exit_code, 0) << info.output;
    json plan = read_json(dir + "/info.json")["plan"]["ray_trace"];
    if (!device_traces()) {
        EXPECT_EQ(plan["variant"], "off");
        EXPECT_NE(plan["reason"].get<std::string>().find("VK_KHR_ray_tracing_pipeline"), std::string::npos);
        DemoRun run = run_demo({"--headless", "--frames", "1", "--warmup", "0", "--ray-trace", "fallback"});
        EXPECT_EQ(run.exit_code, 2);
        EXPECT_NE(run.output.find("error: --ray-trace fallback: device lacks VK_KHR_ray_tracing_pipeline"), std::string::npos)
            << run.output;
        return;
    }
    std::vector<std::string> lacking = rt_stages_without_subgroups();
    if (!lacking.empty()) {
        EXPECT_EQ(plan["variant"], "fallback");
        for (const std::string& name : lacking)
            EXPECT_NE(plan["reason"].get<std::string>().find(name), std::string::npos) << plan["reason"];
        DemoRun run = run_demo({"--headless", "--frames", "1", "--warmup", "0", "--ray-trace", "subgroup"});
        EXPECT_EQ(run.exit_code, 2);
        EXPECT_NE(run.output.find("error: --ray-trace subgroup: "), std::string::npos) << run.output;
        EXPECT_NE(run.output.find(lacking[0]), std::string::npos) << run.output;
    } else {
        EXPECT_EQ(plan["variant"], "subgroup");
        DemoRun masked = run_demo({"--info", "--mask-stages", "intersection", "--report", dir + "/masked.json"});
        json p = read_json(dir + "/masked.json")["plan"]["ray_trace"];
        EXPECT_EQ(p["variant"], "fallback");
        EXPECT_EQ(p["reason"], "intersection stage has no subgroup support (masked by --mask-stages)");
        DemoRun run = run_demo({"--headless", "--frames", "1", "--warmup", "0", "--mask-stages", "raygen", "--ray-trace", "subgroup"});
        EXPECT_EQ(run.exit_code, 2);
        EXPECT_NE(run.output.find("raygen stage has no subgroup support"), std::string::npos) << run.output;
    }
}

// The runs CI can make count the same events as the fallback: the fallback with operations masked
// (nothing it uses) and auto (the fallback on lavapipe): equal statistics, identical images. The
// subgroup variant itself (with and without operations it does not need masked) joins them only
// where the six stages have subgroups: a GPU. The Mesa 25 lavapipe has none there (its record), so
// in CI this checks the subgroup request's refusal instead, and the subgroup path's proof is the
// GPU run (tools/gpu_resolve.sh; docs/ray-tracing.md).
TEST(RayTrace, AutoAndMaskedFallbackTraceLikeTheFallback) {
    REQUIRE_DRAWING();
    REQUIRE_RAY_TRACING();
    std::string dir = test_dir("rt-variants");
    json reference = rt_report(dir, "fallback", {"--ray-trace", "fallback"});
    ASSERT_FALSE(reference.is_null());
    json stats = reference["counters"]["ray_trace"];
    Png image = read_png(dir + "/fallback.png");
    EXPECT_NOT_BLANK(image.rgba);
    std::vector<std::pair<std::string, std::vector<std::string>>> runs = {
        {"fallback-masked", {"--ray-trace", "fallback", "--mask-ops", "vote,ballot,arithmetic"}},
        {"auto", {"--ray-trace", "auto"}}};
    std::vector<std::string> lacking = rt_stages_without_subgroups();
    if (lacking.empty()) {
        runs.push_back({"subgroup", {"--ray-trace", "subgroup"}});
        runs.push_back({"subgroup-masked", {"--ray-trace", "subgroup", "--mask-ops", "arithmetic,shuffle,shuffle-relative,quad"}});
        runs.push_back({"subgroup-masked-stage", {"--ray-trace", "auto", "--mask-stages", "callable"}});
    } else {
        printf("the subgroup ray-tracing path is not run here: %s lack subgroups on this device\n", lacking[0].c_str());
        DemoRun run = run_demo({"--headless", "--frames", "1", "--warmup", "0", "--scene", kTrellis, "--ray-trace", "subgroup"});
        EXPECT_EQ(run.exit_code, 2) << run.output;
        EXPECT_NE(run.output.find("error: --ray-trace subgroup: " + lacking[0]), std::string::npos) << run.output;
    }
    for (auto& [name, args] : runs) {
        SCOPED_TRACE(name);
        json r = rt_report(dir, name, args);
        json s = r["counters"]["ray_trace"];
        if (name == "auto") EXPECT_EQ(r["plan"]["ray_trace"]["variant"], lacking.empty() ? "subgroup" : "fallback");
        EXPECT_EQ(s["rays"], stats["rays"]);
        for (const char* stage : {"raygen", "any_hit", "closest_hit", "miss", "intersection", "callable"})
            EXPECT_EQ(s["stages"][stage]["invocations"], stats["stages"][stage]["invocations"]) << stage;
        EXPECT_EQ(s["any_hit_rejections"], stats["any_hit_rejections"]);
        EXPECT_EQ(s["sphere_hits"], stats["sphere_hits"]);
        if (s["variant"] == "subgroup")
            for (const char* stage : {"raygen", "closest_hit", "miss"})
                EXPECT_LE(s["stages"][stage]["atomics"], s["stages"][stage]["invocations"]) << stage;
        Png other = read_png(dir + "/" + name + ".png");
        EXPECT_EQ(other.rgba, image.rgba) << "the traced frame differs from the fallback's";
    }
}

// Against the untraced frame (the bundled scene): a pixel whose sun was not blocked and that got no
// reflection is bit-identical to --ray-trace off; a shadowed pixel is never brighter, and most are
// darker; reflecting pixels change.
TEST(RayTrace, TracedImageDiffersFromOffWhereItMust) {
    REQUIRE_DRAWING();
    REQUIRE_RAY_TRACING();
    std::string dir = test_dir("rt-off");
    auto run = [&](const std::string& name, std::vector<std::string> extra) {
        // At the fixed exposure: the measured one follows the traced light, which would change every pixel.
        std::vector<std::string> args = {"--headless", "--size", "320x180", "--frames", "1", "--warmup", "0", "--validate",
                                         "--exposure", "off", "--screenshot", dir + "/" + name + ".png"};
        args.insert(args.end(), extra.begin(), extra.end());
        DemoRun r = run_demo(args);
        EXPECT_EQ(r.exit_code, 0) << r.output;
        return read_png(dir + "/" + name + ".png");
    };
    Png on = run("on", {"--ray-trace", "fallback", "--ray-dump", dir + "/dump.png"});
    Png off = run("off", {"--ray-trace", "off"});
    Png dump = read_png(dir + "/dump.png");
    ASSERT_EQ(on.rgba.size(), off.rgba.size());
    ASSERT_EQ(dump.rgba.size(), off.rgba.size());
    size_t untouched = 0, untouched_same = 0, shadowed = 0, shadowed_darker = 0, shadowed_brighter = 0, reflecting = 0,
           reflecting_changed = 0;
    for (size_t p = 0; p < on.rgba.size(); p += 4) {
        bool lit = dump.rgba[p] == 255, shadow_ray = dump.rgba[p + 1] == 255, reflection = dump.rgba[p + 2] == 255;
        int diff = 0, brighter = 0;
        for (int c = 0; c < 3; ++c) {
            diff += std::abs(int(on.rgba[p + c]) - int(off.rgba[p + c]));
            brighter += on.rgba[p + c] > off.rgba[p + c];
        }
        if (reflection) {
            ++reflecting;
            reflecting_changed += diff > 0;
        } else if (shadow_ray && !lit) {
            ++shadowed;
            shadowed_darker += diff > 0;
            shadowed_brighter += brighter > 0;
        } else {
            ++untouched;
            untouched_same += diff == 0;
        }
    }
    printf("untouched %zu (%zu identical), shadowed %zu (%zu darker), reflecting %zu (%zu changed)\n", untouched,
           untouched_same, shadowed, shadowed_darker, reflecting, reflecting_changed);
    EXPECT_EQ(untouched_same, untouched);
    EXPECT_GT(shadowed, 500u);
    // PBR Neutral's toe (issue 26's tonemap) subtracts one offset, set by the darkest channel, from
    // all three: where the shadow darkens that channel more than another, the other one rises near
    // black. A handful of pixels; the shadow itself must never brighten the frame beyond that.
    EXPECT_LE(shadowed_brighter * 100, shadowed);
    EXPECT_GE(shadowed_darker * 2, shadowed);
    EXPECT_GT(reflecting, 200u);
    EXPECT_GE(reflecting_changed * 2, reflecting);
}

// --ray-dump with nothing traced is refused, not written stale.
TEST(RayTrace, DumpWithThePassOffExits2) {
    DemoRun run = run_demo({"--headless", "--frames", "1", "--warmup", "0", "--ray-trace", "off", "--ray-dump", test_dir("rt-dump") + "/d.png"});
    EXPECT_EQ(run.exit_code, 2);
    EXPECT_NE(run.output.find("error: --ray-dump needs the ray-trace pass"), std::string::npos) << run.output;
}

// The debug views in the six stages. Without subgroups there (lavapipe) each draws the unsupported
// marking (the hatch over the scene's surfaces) and the plan says why; with subgroups (a GPU),
// served pixels take lane colours and unserved ones are dimmed, never hatched.
TEST(RayTrace, ViewsInTheSixStagesMarkWhatTheDeviceLacks) {
    REQUIRE_DRAWING();
    REQUIRE_RAY_TRACING();
    std::string dir = test_dir("rt-views");
    const uint32_t hatch = kHatchColour;
    for (Stage stage : {Stage::raygen, Stage::any_hit, Stage::closest_hit, Stage::miss, Stage::intersection, Stage::callable}) {
        std::string name(stage_name(stage));
        SCOPED_TRACE(name);
        std::string shot = dir + "/" + name + ".png", report = dir + "/" + name + ".json";
        DemoRun run = run_demo({"--headless", "--size", "160x90", "--frames", "1", "--warmup", "0", "--validate", "--scene",
                                kTrellis, "--view", "lane-id", "--view-stage", name, "--screenshot", shot, "--report", report});
        ASSERT_EQ(run.exit_code, 0) << run.output;
        EXPECT_EQ(validation_lines(run.output), 0) << run.output;
        json view = read_json(report)["plan"]["view"];
        Png png = read_png(shot);
        size_t hatched = 0;
        for (size_t p = 0; p < png.rgba.size(); p += 4) {
            uint32_t c = uint32_t(png.rgba[p]) | uint32_t(png.rgba[p + 1]) << 8 | uint32_t(png.rgba[p + 2]) << 16 | 0xff000000u;
            hatched += c == hatch;
        }
        const KnownDriver* k = known_driver();
        if (!(k ? k->has_stage(name) : test_context().subgroup.has(stage))) {
            EXPECT_EQ(view["variant"], "unsupported");
            EXPECT_EQ(view["reason"], name + " stage has no subgroup support");
            EXPECT_GT(hatched, png.rgba.size() / 4 / 10) << "the unsupported marking is missing";
        } else {
            EXPECT_EQ(view["variant"], "subgroup");
            EXPECT_LT(hatched, png.rgba.size() / 4 / 100) << "a supported view is hatched";
        }
    }
}
