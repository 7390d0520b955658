// The meshlet path (--geometry meshlet) on the Vulkan device, against independent oracles:
// - its image equals the indexed path's with --cull off (lavapipe interpolates the mesh
//   pipeline's attributes with its own rounding: a few pixels may differ by one step);
// - the triangles it drew (--cull-dump: the mesh shaders' primitive outputs, slot by slot) are
//   exactly the CPU cull reference's set, each once: a compaction that dropped or duplicated a
//   triangle, in the task shader (meshlets) or the mesh shader (primitives), fails here; and
//   triangles_visible equals the compute cull's count on the same frame;
// - meshlets_in = the meshlets meshoptimizer makes of each draw's mesh, counted here from the
//   glTF's own index data at the path's limits (not through build_meshlets or build_task_chunks);
//   off keeps them all;
// - the meshlets the task shaders keep (read back through Renderer), against a brute-force test of
//   their triangles written here, not the meshlet bounds under test: a culled meshlet has all its
//   vertices outside one clip plane or no triangle facing the camera; a meshlet far outside a plane
//   is culled; and the normal cones cull a good share of the wholly back-facing meshlets;
// - --mask-stages task,mesh: auto takes the fallback with the reason, subgroup exits 2;
// - validation (with synchronization validation) stays silent.
// On a device without VK_EXT_mesh_shader the drawing tests skip (listed in allowed-skips.txt) and
// MeshletGpu.RefusedWithoutMeshShaders checks the exit 2 instead.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>

#include <glm/gtc/matrix_access.hpp>
#include <meshoptimizer.h>

#include "run/cull_dump.h"
#include "gpu/cull_scenes.h"
#include "gpu/harness.h"
#include "known_drivers.h"
#include "scoped_env.h"
#include "passes/debug_view_pass.h"
#include "passes/meshlet_pass.h"
#include "render/cull_reference.h"
#include "render/gpu_scene.h"
#include "render/renderer.h"
#include "scene/camera.h"
#include "scene/lod.h"
#include "scene/meshlets.h"

namespace {

// Whether the device has mesh shaders: the record's answer where the running driver has one
// (tests/known_drivers.h), else the demo's own.
bool device_has_mesh_shaders() {
    const KnownDriver* k = known_driver();
    return k ? k->mesh_shader : no_mesh_shaders_reason().empty();
}
// Skips only where the device has no mesh shaders; a refusal on a driver whose record has them fails.
#define REQUIRE_MESH_SHADERS()                                                                              \
    if (const std::string why_not_ = no_mesh_shaders_reason(); !why_not_.empty()) {                        \
        if (device_has_mesh_shaders())                                                                      \
            FAIL() << why_not_ << ", but the record of " << known_driver()->name << " has VK_EXT_mesh_shader"; \
        GTEST_SKIP() << why_not_;                                                                           \
    }

// The frame of the demo runs below: 128x72, 16:9 (the default view), one timed frame after the
// instrumented one. Nothing checked depends on the size: the reference is computed at it, and the
// image tolerances are fractions of the frame.
constexpr uint32_t kMeshletFrameWidth = 128, kMeshletFrameHeight = 72;

struct MeshletRun {
    nlohmann::json report;
    Png image;
    CullDump dump;
};

MeshletRun render(const std::string& dir, const std::string& scene, uint32_t instances, const std::string& geometry,
           const std::string& cull, bool dump, const std::vector<std::string>& extra = {}, const std::string& run = "") {
    std::string tag = geometry + "-" + cull + run;
    const std::string frame = std::to_string(kMeshletFrameWidth) + "x" + std::to_string(kMeshletFrameHeight);
    std::vector<std::string> args = {"--headless", "--validate", "--size", frame, "--frames", "1", "--warmup", "0",
                                     "--scene", scene, "--instances", std::to_string(instances), "--geometry", geometry,
                                     "--cull", cull, "--report", dir + "/" + tag + ".json", "--screenshot",
                                     dir + "/" + tag + ".png",
                                     // Triangle for triangle against the indexed cull: both without occlusion.
                                     "--occlusion", "off"};
    if (dump) args.insert(args.end(), {"--cull-dump", dir + "/" + tag + ".txt"});
    args.insert(args.end(), extra.begin(), extra.end());
    DemoRun r = run_demo(args);
    EXPECT_EQ(r.exit_code, 0) << r.output.substr(0, 4000);
    EXPECT_EQ(validation_lines(r.output), 0) << r.output.substr(0, 4000);
    MeshletRun out;
    if (r.exit_code != 0) return out;
    out.report = read_json(dir + "/" + tag + ".json");
    out.image = read_png(dir + "/" + tag + ".png");
    if (dump) out.dump = read_cull_dump(dir + "/" + tag + ".txt");
    return out;
}

// Pixels whose colour differs at all, and by more than one step.
std::pair<int, int> image_difference(const Png& a, const Png& b) {
    int pixels = 0, large = 0;
    for (size_t i = 0; i + 3 < a.rgba.size() && i + 3 < b.rgba.size(); i += 4) {
        int d = 0;
        for (int c = 0; c < 3; ++c) d = std::max(d, std::abs(int(a.rgba[i + c]) - int(b.rgba[i + c])));
        pixels += d > 0;
        large += d > 1;
    }
    return {pixels, large};
}

// meshlets_in's oracle: meshoptimizer run here on each mesh's index list as loaded from the glTF
// (level 0: the tests run --lod off), at the meshlet path's limits, summed over the draws. Not
// through build_meshlets or build_task_chunks. Each mesh's count must also fit the limits: at
// least its triangles over 124, at most meshoptimizer's bound.
uint64_t meshlets_of_all_draws(const Scene& scene) {
    std::vector<uint64_t> per_mesh(scene.meshes.size());
    for (size_t m = 0; m < scene.meshes.size(); ++m) {
        const Mesh& mesh = scene.meshes[m];
        if (mesh.index_count < 3) continue;
        const uint32_t* indices = scene.indices.data() + mesh.first_index;
        size_t bound = meshopt_buildMeshletsBound(mesh.index_count, kMeshletMaxVertices, kMeshletMaxTriangles);
        std::vector<meshopt_Meshlet> built(bound);
        std::vector<unsigned int> vertices(bound * kMeshletMaxVertices);
        std::vector<unsigned char> triangles(bound * kMeshletMaxTriangles * 3);
        per_mesh[m] = meshopt_buildMeshlets(built.data(), vertices.data(), triangles.data(), indices, mesh.index_count,
                                            &scene.vertices[0].position.x, scene.vertices.size(), sizeof(Vertex),
                                            kMeshletMaxVertices, kMeshletMaxTriangles, 0.25f);
        EXPECT_GE(per_mesh[m] * kMeshletMaxTriangles, mesh.index_count / 3) << "mesh " << m;
        EXPECT_LE(per_mesh[m], bound) << "mesh " << m;
    }
    uint64_t total = 0;
    for (const MeshInstance& instance : scene.instances) total += per_mesh[instance.mesh];
    return total;
}

TEST(MeshletGpu, DrawsTheIndexedImageAndExactlyTheTrianglesTheCullPassKeeps) {
    REQUIRE_DRAWING();
    REQUIRE_MESH_SHADERS();
    const std::string knot = SGD_TEST_SCENES "/knot.gltf";
    for (auto [path, instances] : {std::pair{std::string(SGD_DEFAULT_SCENE), 1u}, std::pair{knot, 3u}}) {
        SCOPED_TRACE(path);
        std::string dir = test_dir("meshlet_" + std::filesystem::path(path).stem().string());
        Scene scene = load_scene(path);
        build_lod_chain(scene);  // as the executable does: meshlets of every level (docs/lod.md)
        replicate_grid(scene, instances);
        std::vector<GpuDraw> draws = build_draws(scene);
        Meshlets meshlets = build_meshlets(scene);
        const uint64_t meshlet_instances = meshlets_of_all_draws(scene);

        MeshletRun off = render(dir, path, instances, "indexed", "off", false);
        MeshletRun culled = render(dir, path, instances, "indexed", "subgroup", true);
        ASSERT_FALSE(off.image.rgba.empty());
        EXPECT_NOT_BLANK(off.image.rgba);
        ASSERT_FALSE(culled.dump.draws.empty());
        CullReference ref = cull_reference(scene, draws, culled.dump.view_proj,
                                           make_cull_params(kMeshletFrameWidth, kMeshletFrameHeight, 8));
        uint64_t kept_by_subgroup = 0;  // meshlets_visible, the same in both culling variants

        for (const char* variant : {"subgroup", "fallback", "off"}) {
            SCOPED_TRACE(variant);
            MeshletRun r = render(dir, path, instances, "meshlet", variant, true);
            ASSERT_FALSE(r.image.rgba.empty());
            EXPECT_EQ(r.report["plan"]["cull"]["variant"], variant);
            EXPECT_EQ(r.report["plan"]["geometry"]["mode"], "meshlet");
            const nlohmann::json& c = r.report["counters"];
            EXPECT_EQ(c["meshlets_in"], meshlet_instances);
            EXPECT_LE(c["meshlets_visible"].get<uint64_t>(), c["meshlets_in"].get<uint64_t>());
            EXPECT_EQ(r.report["scene"]["meshlets"], meshlets.meshlets.size());
            // What the mesh shaders output, slot by slot, is what the report counts.
            EXPECT_EQ(c["triangles_visible"], triangle_total(r.dump.draws));
            if (std::string(variant) == "off") {
                // Everything, each triangle once.
                EXPECT_EQ(c["meshlets_visible"], c["meshlets_in"]);
                EXPECT_EQ(c["triangles_visible"], scene.triangle_count());
                for (size_t d = 0; d < draws.size(); ++d) {
                    std::vector<uint32_t> all(scene.indices.begin() + draws[d].first_index,
                                              scene.indices.begin() + draws[d].first_index + draws[d].index_count);
                    EXPECT_TRUE(triangles_of(r.dump.draws[d]) == triangles_of(all)) << "draw " << d;
                }
            } else {
                // The compute cull's count on the same frame, and the CPU reference's set.
                EXPECT_EQ(c["triangles_visible"], culled.report["counters"]["triangles_visible"]);
                // Which meshlets: MeshletGpu.KeptMeshletsAgainstABruteForceTestOfTheirTriangles.
                EXPECT_LT(c["meshlets_visible"].get<uint64_t>(), c["meshlets_in"].get<uint64_t>()) << "nothing culled";
                if (std::string(variant) == "subgroup") kept_by_subgroup = c["meshlets_visible"];
                else EXPECT_EQ(c["meshlets_visible"], kept_by_subgroup) << "the variants keep different meshlets";
                expect_same_survivors(scene, draws, ref, r.dump.draws, variant, false);
                for (size_t d = 0; d < draws.size(); ++d)
                    EXPECT_TRUE(triangles_of(r.dump.draws[d]) == triangles_of(culled.dump.draws[d])) << "draw " << d;
            }
            // The image of the indexed path without culling, within lavapipe's tolerance: it rounds
            // the mesh pipeline's interpolated attributes its own way (one step, in a few pixels),
            // and where triangles of the bundled scene tie in depth the draw order decides, which
            // is the list's on this path (5 of 9216 pixels at 128x72, one by more than a step; 29 and
            // 3 of 36864 at 256x144). At most 0.5% and 0.1% of them.
            auto [pixels, large] = image_difference(r.image, off.image);
            int total = int(r.image.rgba.size() / 4);
            EXPECT_LE(pixels * 200, total) << pixels << " pixels differ (more than 0.5%)";
            EXPECT_LE(large * 1000, total) << large << " pixels differ by more than one step (more than 0.1%)";
        }
        // Both culling variants list the kept meshlets and their triangles in input order (no
        // atomic race orders the visible list or the primitives): byte-identical dumps, and the
        // same again on a second run.
        std::string sub_dump = file_bytes(dir + "/meshlet-subgroup.txt");
        ASSERT_FALSE(sub_dump.empty());
        EXPECT_TRUE(sub_dump == file_bytes(dir + "/meshlet-fallback.txt")) << "the subgroup and fallback dumps differ";
        if (instances == 1) {
            render(dir, path, instances, "meshlet", "subgroup", true, {}, "-again");
            EXPECT_TRUE(sub_dump == file_bytes(dir + "/meshlet-subgroup-again.txt")) << "a second run wrote another dump";
        }
    }
}

// What the brute force below finds of one meshlet of one draw, from its triangles alone.
struct MeshletTruth {
    bool outside = false;      // every vertex outside one clip plane
    bool far_outside = false;  // ... by more than twice the meshlet's diameter (any sphere around it is out)
    bool back_facing = false;  // no triangle faces the camera (all vertices in front of the eye)
};

MeshletTruth brute_force(const Meshlets& m, const Meshlet& meshlet, const Scene& scene, const glm::mat4& model,
                         const glm::mat4& view_proj, glm::vec3 eye) {
    // World positions of the meshlet's triangles' corners.
    std::vector<std::array<glm::dvec3, 3>> triangles;
    for (uint32_t t = 0; t < meshlet.triangle_count; ++t) {
        std::array<glm::dvec3, 3> p;
        for (int k = 0; k < 3; ++k) p[k] = glm::dvec3(model * glm::vec4(scene.vertices[m.vertex_of(meshlet, t, k)].position, 1.0f));
        triangles.push_back(p);
    }
    // The largest distance between two corners, over the distinct corners (at most the meshlet's
    // vertex limit, not three per triangle: the same maximum at a fraction of the pairs).
    std::vector<glm::dvec3> corners;
    for (const auto& tri : triangles) corners.insert(corners.end(), tri.begin(), tri.end());
    auto before = [](const glm::dvec3& a, const glm::dvec3& b) {
        return std::tie(a.x, a.y, a.z) < std::tie(b.x, b.y, b.z);
    };
    std::sort(corners.begin(), corners.end(), before);
    corners.erase(std::unique(corners.begin(), corners.end()), corners.end());
    double diameter = 0.0;
    for (const glm::dvec3& p : corners)
        for (const glm::dvec3& q : corners) diameter = std::max(diameter, glm::length(p - q));
    // The clip volume's planes (-w <= x, y <= w, 0 <= z <= w) as world-space planes: inside where
    // dot(plane, (p, 1)) >= 0; divided by |plane.xyz| they give distances.
    glm::dmat4 vp(view_proj);
    glm::dvec4 x = glm::row(vp, 0), y = glm::row(vp, 1), z = glm::row(vp, 2), w = glm::row(vp, 3);
    MeshletTruth truth;
    for (glm::dvec4 plane : {w + x, w - x, w + y, w - y, z, w - z}) {
        double farthest_in = -INFINITY;  // the largest signed distance of a corner (negative: outside)
        for (const auto& tri : triangles)
            for (const glm::dvec3& p : tri)
                farthest_in = std::max(farthest_in, glm::dot(plane, glm::dvec4(p, 1.0)) / glm::length(glm::dvec3(plane)));
        truth.outside |= farthest_in < 0.0;
        truth.far_outside |= farthest_in < -2.0 * diameter - 1e-4;
    }
    // Back-facing: every triangle's plane has the eye behind it (glTF: counter-clockwise is the
    // front; a mirroring model turns it), with every corner in front of the eye's plane.
    const double mirror = glm::determinant(glm::mat3(model)) < 0.0f ? -1.0 : 1.0;
    truth.back_facing = true;
    for (const auto& tri : triangles) {
        glm::dvec3 normal = glm::cross(tri[1] - tri[0], tri[2] - tri[0]) * mirror;
        bool in_front = true;
        for (const glm::dvec3& p : tri) in_front &= glm::dot(w, glm::dvec4(p, 1.0)) > 0.0;
        truth.back_facing &= in_front && glm::dot(normal, glm::dvec3(eye) - tri[0]) <= 0.0;
    }
    return truth;
}

// The meshlets the task shaders keep, read back from the visible list (Renderer, as the executable
// draws the default view), against the brute force above, for both culling variants: a culled
// meshlet is wholly outside one plane or wholly back-facing (the tests are conservative: they may
// keep more, never less); every meshlet far outside a plane is culled; and the normal cones cull
// at least a tenth of the meshlets inside the frustum that no triangle of faces the camera (of
// those whose draw is a similarity, where the cone applies; measured: a fifth, 141 of 720, the
// rest held back by the cones' spread and the snapping margins, cull_meshlet). The two scenes
// together show every case. Defects in the shader and its CPU copy alike (cull_meshlet) fail here:
// a flipped or shifted cone test culls meshlets that face the camera, a cone test that never
// culls keeps the back-facing ones.
TEST(MeshletGpu, KeptMeshletsAgainstABruteForceTestOfTheirTriangles) {
    REQUIRE_DRAWING();
    REQUIRE_MESH_SHADERS();
    ContextOptions options;
    options.validate = true;
    Context ctx;
    create_context(ctx, options);
    uint32_t messages_before = validation_message_count();
    const std::string knot = SGD_TEST_SCENES "/knot.gltf";
    struct Tally {
        uint64_t far_outside = 0, kept_far_outside = 0, back_facing = 0, back_facing_culled = 0;
    };
    std::map<Request, Tally> tallies;  // per variant, over both scenes
    for (auto [path, instances] : {std::pair{std::string(SGD_DEFAULT_SCENE), 1u}, std::pair{knot, 3u}}) {
        Scene scene = load_scene(path);
        build_lod_chain(scene);
        replicate_grid(scene, instances);
        // The brute force's findings per draw and meshlet: the same frame in both variants, so
        // found once per scene (per variant it would be most of this test's time).
        std::vector<std::vector<MeshletTruth>> truths;
        glm::mat4 truths_view_proj{};
        size_t truths_meshlets = 0;
        for (Request variant : {Request::subgroup, Request::fallback}) {
            SCOPED_TRACE(path + ", " + std::string(request_name(variant)));
            PlanRequest request;
            request.geometry = Geometry::meshlet;
            request.lod = false;  // level 0: the meshlets of the meshes as loaded
            request[PassId::cull] = variant;
            request[PassId::occlusion] = Request::off;
            RendererConfig config;
            config.extent = {256, 144};
            config.lights = 16;
            config.plan = make_plan(ctx.subgroup, ctx.features, request);
            Renderer renderer(ctx, scene, config);
            const Camera camera = renderer.default_view();
            for (uint32_t frame = 0; frame < 2; ++frame) {
                VkCommandBuffer cmd = begin_one_shot(ctx);
                renderer.record(cmd, 0, frame, camera);
                end_one_shot(ctx, cmd);
            }
            const MeshletPass& pass = *renderer.meshlets();
            const Meshlets& m = pass.meshlets();
            const uint32_t draw_count = uint32_t(scene.instances.size());
            std::vector<std::vector<uint32_t>> kept = pass.read_kept_meshlets(ctx, draw_count);
            const glm::mat4 view_proj = renderer.frame_uniforms(1, camera).view_proj;
            if (truths.empty()) {
                truths_view_proj = view_proj;
                truths_meshlets = m.meshlets.size();
                for (uint32_t d = 0; d < draw_count; ++d) {
                    const MeshletRange& range = m.meshes[scene.instances[d].mesh];
                    std::vector<MeshletTruth>& found = truths.emplace_back();
                    for (uint32_t id = range.first; id < range.first + range.count; ++id)
                        found.push_back(brute_force(m, m.meshlets[id], scene, scene.instances[d].transform, view_proj,
                                                    camera.position));
                }
            }
            ASSERT_TRUE(view_proj == truths_view_proj) << "the variants drew other frames";
            ASSERT_EQ(m.meshlets.size(), truths_meshlets) << "the variants built other meshlets";

            uint64_t total_kept = 0, culled_facing = 0;
            Tally& tally = tallies[variant];
            for (uint32_t d = 0; d < draw_count; ++d) {
                const MeshInstance& instance = scene.instances[d];
                const MeshletRange& range = m.meshes[instance.mesh];
                std::set<uint32_t> kept_here(kept[d].begin(), kept[d].end());
                EXPECT_EQ(kept_here.size(), kept[d].size()) << "draw " << d << " keeps a meshlet twice";
                total_kept += kept[d].size();
                for (uint32_t id : kept_here)
                    EXPECT_TRUE(id >= range.first && id < range.first + range.count) << "draw " << d << " keeps another mesh's meshlet";
                // The cone applies where the model keeps angles: a rotation, translation and one scale.
                glm::mat3 linear(instance.transform);
                glm::mat3 gram = glm::transpose(linear) * linear;  // s^2 I for a rotation scaled by s
                float s2 = gram[0][0], off_identity = 0.0f;
                for (int i = 0; i < 3; ++i)
                    for (int j = 0; j < 3; ++j) off_identity = std::max(off_identity, std::abs(gram[i][j] - (i == j ? s2 : 0.0f)));
                bool similarity = s2 > 0.0f && off_identity <= 1e-4f * s2;
                for (uint32_t id = range.first; id < range.first + range.count; ++id) {
                    const MeshletTruth& truth = truths[d][id - range.first];
                    bool is_kept = kept_here.count(id) > 0;
                    if (!is_kept && !truth.outside && !truth.back_facing && culled_facing++ < 5)
                        ADD_FAILURE() << "draw " << d << " culls meshlet " << id << ": inside every plane, a triangle faces the camera";
                    tally.far_outside += truth.far_outside;
                    tally.kept_far_outside += truth.far_outside && is_kept;
                    if (truth.back_facing && !truth.outside && similarity) {
                        ++tally.back_facing;
                        tally.back_facing_culled += !is_kept;
                    }
                }
            }
            EXPECT_EQ(culled_facing, 0u) << "meshlets culled with a triangle in view facing the camera";
            EXPECT_EQ(renderer.read_counters().meshlets_visible, total_kept) << "the counter against the list";
        }
    }
    for (auto& [variant, t] : tallies) {
        SCOPED_TRACE(request_name(variant));
        EXPECT_GT(t.far_outside, 0u) << "the frames have no meshlet far outside the frustum";
        EXPECT_EQ(t.kept_far_outside, 0u) << "of " << t.far_outside << " meshlets far outside one plane";
        EXPECT_GT(t.back_facing, 0u) << "the frames have no back-facing meshlet to cull by its cone";
        EXPECT_GE(10 * t.back_facing_culled, t.back_facing)
            << t.back_facing_culled << " of " << t.back_facing << " wholly back-facing meshlets culled";
        std::printf("%s: %llu of %llu wholly back-facing meshlets culled, %llu far outside\n", request_name(variant).data(),
                    (unsigned long long)t.back_facing_culled, (unsigned long long)t.back_facing,
                    (unsigned long long)t.far_outside);
    }
    EXPECT_EQ(validation_message_count(), messages_before) << "validation messages (printed above)";
}

// The cull plan follows the geometry: with task and mesh masked, auto takes the fallback and says
// why; subgroup is refused naming the stage. Draws nothing but the masked fallback's frame.
TEST(MeshletGpu, MaskedTaskAndMeshStagesTakeTheFallbackWithTheReason) {
    REQUIRE_MESH_SHADERS();
    std::string dir = test_dir("meshlet_mask");
    DemoRun info = run_demo({"--info", "--geometry", "meshlet", "--mask-stages", "task,mesh", "--report", dir + "/info.json"});
    ASSERT_EQ(info.exit_code, 0) << info.output;
    nlohmann::json plan = read_json(dir + "/info.json")["plan"];
    EXPECT_EQ(plan["cull"]["variant"], "fallback");
    EXPECT_NE(plan["cull"]["reason"].get<std::string>().find("task stage has no subgroup support (masked by --mask-stages)"),
              std::string::npos)
        << plan["cull"]["reason"];
    // Unmasked, the same device takes the subgroup path in those stages.
    DemoRun plain = run_demo({"--info", "--geometry", "meshlet", "--report", dir + "/plain.json"});
    ASSERT_EQ(plain.exit_code, 0) << plain.output;
    EXPECT_EQ(read_json(dir + "/plain.json")["plan"]["cull"]["variant"], "subgroup");
    for (const char* stage : {"task", "mesh"}) {
        DemoRun r = run_demo({"--info", "--geometry", "meshlet", "--cull", "subgroup", "--mask-stages", stage});
        EXPECT_EQ(r.exit_code, 2) << r.output;
        EXPECT_NE(r.output.find(std::string("error: --cull subgroup: ") + stage + " stage has no subgroup support"),
                  std::string::npos)
            << r.output;
    }
    // The indexed path's cull does not care about task and mesh.
    DemoRun indexed = run_demo({"--info", "--mask-stages", "task,mesh", "--report", dir + "/indexed.json"});
    ASSERT_EQ(indexed.exit_code, 0) << indexed.output;
    EXPECT_EQ(read_json(dir + "/indexed.json")["plan"]["cull"]["variant"], "subgroup");
}

TEST(MeshletGpu, MaskedFallbackDrawsTheSameTriangles) {
    REQUIRE_DRAWING();
    REQUIRE_MESH_SHADERS();
    std::string dir = test_dir("meshlet_masked_draw");
    MeshletRun sub = render(dir, SGD_DEFAULT_SCENE, 1, "meshlet", "subgroup", true);
    MeshletRun masked = render(dir, SGD_DEFAULT_SCENE, 1, "meshlet", "auto", true, {"--mask-stages", "task,mesh"});
    ASSERT_FALSE(masked.image.rgba.empty());
    EXPECT_EQ(masked.report["plan"]["cull"]["variant"], "fallback");
    EXPECT_EQ(masked.report["counters"]["triangles_visible"], sub.report["counters"]["triangles_visible"]);
    EXPECT_EQ(masked.report["counters"]["meshlets_visible"], sub.report["counters"]["meshlets_visible"]);
    // The same triangles, draw by draw (--cull-dump; as sets: the order may differ between the variants).
    ASSERT_EQ(masked.dump.draws.size(), sub.dump.draws.size());
    ASSERT_FALSE(sub.dump.draws.empty());
    for (size_t d = 0; d < sub.dump.draws.size(); ++d)
        EXPECT_TRUE(triangles_of(masked.dump.draws[d]) == triangles_of(sub.dump.draws[d])) << "draw " << d;
    EXPECT_GT(triangle_total(sub.dump.draws), 0u);
    EXPECT_NOT_BLANK(sub.image.rgba);
    EXPECT_TRUE(masked.image.rgba == sub.image.rgba);
    // The diagnosis knob (SGD_MESHLET_FALLBACK_STAGE, tools/gpu_meshlet_split.sh) pairs one stage's
    // subgroup shader with the other's fallback: the same meshlets, triangles and frame, and the
    // run says so; a value other than task or mesh is refused with one line, not a crash.
    for (std::string stage : {"task", "mesh"}) {
        SCOPED_TRACE(stage);
        ScopedEnv knob("SGD_MESHLET_FALLBACK_STAGE", stage);
        MeshletRun mixed = render(dir, SGD_DEFAULT_SCENE, 1, "meshlet", "subgroup", false, {}, "-" + stage);
        ASSERT_FALSE(mixed.image.rgba.empty());
        EXPECT_EQ(mixed.report["counters"]["meshlets_visible"], sub.report["counters"]["meshlets_visible"]);
        EXPECT_EQ(mixed.report["counters"]["triangles_visible"], sub.report["counters"]["triangles_visible"]);
        EXPECT_TRUE(mixed.image.rgba == sub.image.rgba);
    }
    ScopedEnv bad("SGD_MESHLET_FALLBACK_STAGE", "fragment");
    DemoRun refused = run_demo({"--headless", "--size", "32x18", "--frames", "1", "--warmup", "0", "--geometry", "meshlet"});
    EXPECT_NE(refused.exit_code, 0);
    EXPECT_LT(refused.exit_code, 128) << "a crash, not a refusal";
    EXPECT_NE(refused.output.find("SGD_MESHLET_FALLBACK_STAGE='fragment' is not task or mesh"), std::string::npos) << refused.output;
}

// Where the device has no mesh shaders, the request is refused with the contract's exit 2.
TEST(MeshletGpu, RefusedWithoutMeshShaders) {
    if (device_has_mesh_shaders()) {
        // This device has them: the refusal is the plan's (unit-tested in MeshletPlan.*); here the
        // same command must run.
        DemoRun r = run_demo({"--info", "--geometry", "meshlet"});
        EXPECT_EQ(r.exit_code, 0) << r.output;
        return;
    }
    DemoRun r = run_demo({"--headless", "--geometry", "meshlet", "--frames", "1", "--warmup", "0"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.output.find("error: --geometry meshlet: device lacks VK_EXT_mesh_shader"), std::string::npos) << r.output;
}

}  // namespace

namespace {

// The lane-id views in the task and mesh stages draw real lanes: every coloured pixel decodes to a
// lane below the subgroup size, several lanes show, and the view covers the scene (the pixels the
// shaded frame has off the background). Validation clean.
TEST(MeshletGpu, TaskAndMeshLaneViewsDrawRealLanes) {
    REQUIRE_DRAWING();
    REQUIRE_MESH_SHADERS();
    int size = expected_subgroup_size();
    ASSERT_GT(size, 0);
    std::string dir = test_dir("meshlet_views");
    std::map<uint32_t, uint32_t> lane_of_colour;
    for (uint32_t lane = 0; lane < kLanePaletteSize; ++lane) lane_of_colour[lane_colour(lane) & 0xffffffu] = lane;
    for (const char* stage : {"task", "mesh"}) {
        SCOPED_TRACE(stage);
        std::string png = dir + "/" + stage + ".png", json = dir + "/" + stage + ".json";
        DemoRun r = run_demo({"--headless", "--validate", "--size", "256x144", "--frames", "1", "--warmup", "0",
                              "--view", "lane-id", "--view-stage", stage, "--no-legend", "--geometry", "meshlet",
                              "--screenshot", png, "--report", json});
        ASSERT_EQ(r.exit_code, 0) << r.output.substr(0, 4000);
        EXPECT_EQ(read_json(json)["plan"]["view"]["variant"], "subgroup");
        Png image = read_png(png);
        std::set<uint32_t> lanes;
        int coloured = 0, unknown = 0;
        for (size_t i = 0; i < image.rgba.size(); i += 4) {
            uint32_t rgb = image.rgba[i] | image.rgba[i + 1] << 8 | image.rgba[i + 2] << 16;
            auto it = lane_of_colour.find(rgb);
            if (it != lane_of_colour.end()) {
                ++coloured;
                lanes.insert(it->second);
            } else {
                ++unknown;
            }
        }
        EXPECT_GT(coloured, int(image.rgba.size() / 4) / 4) << "the view covers little of the frame";
        ASSERT_FALSE(lanes.empty());
        EXPECT_LT(*lanes.rbegin(), uint32_t(size)) << "a lane past the subgroup size";
        EXPECT_GT(lanes.size(), 1u) << "one lane only";
    }
}

}  // namespace
