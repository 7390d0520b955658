// The meshlet path (--geometry meshlet) on the Vulkan device, against independent oracles:
// - its image equals the indexed path's with --cull off (lavapipe interpolates the mesh
//   pipeline's attributes with its own rounding: a few pixels may differ by one step);
// - the triangles it drew (--cull-dump: the mesh shaders' primitive outputs, slot by slot) are
//   exactly the CPU cull reference's set, each once: a compaction that dropped or duplicated a
//   triangle, in the task shader (meshlets) or the mesh shader (primitives), fails here; and
//   triangles_visible equals the compute cull's count on the same frame;
// - meshlets_in = the meshlets of all draws; off keeps them all; subgroup and fallback keep exactly
//   the meshlets the CPU copy of the task shader's test (cull_meshlet, src/scene/meshlets.h) keeps,
//   and that copy culls some by their normal cones (a cone test that never culls fails);
// - --mask-stages task,mesh: auto takes the fallback with the reason, subgroup exits 2;
// - validation (with synchronization validation) stays silent.
// On a device without VK_EXT_mesh_shader the drawing tests skip (listed in allowed-skips.txt) and
// MeshletGpu.RefusedWithoutMeshShaders checks the exit 2 instead.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>

#include "app/cull_dump.h"
#include "gpu/cull_scenes.h"
#include "gpu/harness.h"
#include "known_drivers.h"
#include "passes/debug_view_pass.h"
#include "passes/meshlet_pass.h"
#include "render/cull_reference.h"
#include "render/gpu_scene.h"
#include "scene/camera.h"
#include "scene/lod.h"
#include "scene/meshlets.h"

namespace {

// "" where the device draws --geometry meshlet, else why not (its exit-2 message).
std::string no_mesh_shaders_reason() {
    static const std::string reason = [] {
        DemoRun r = run_demo({"--info", "--geometry", "meshlet"});
        if (r.exit_code == 2 && r.output.find("VK_EXT_mesh_shader") != std::string::npos)
            return std::string("device lacks VK_EXT_mesh_shader: no meshlet path to test here");
        return std::string();
    }();
    return reason;
}
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

struct MeshletRun {
    nlohmann::json report;
    Png image;
    CullDump dump;
};

MeshletRun render(const std::string& dir, const std::string& scene, uint32_t instances, const std::string& geometry,
           const std::string& cull, bool dump, const std::vector<std::string>& extra = {}, const std::string& run = "") {
    std::string tag = geometry + "-" + cull + run;
    std::vector<std::string> args = {"--headless", "--validate", "--size", "256x144", "--frames", "2", "--warmup", "1",
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

// The task shader's test on the CPU (src/scene/meshlets.h, mirrored in shaders/meshlet.glsl), for
// every meshlet of every draw, through the frame's own matrix and the default camera.
struct MeshletCounts {
    uint64_t in = 0, visible = 0, frustum_culled = 0, cone_culled = 0;
};

MeshletCounts cpu_meshlet_counts(const Scene& scene, const std::vector<GpuDraw>& draws, const Meshlets& m,
                                 const glm::mat4& view_proj) {
    const uint32_t width = 256, height = 144;
    Camera camera = default_camera(scene.bounds_min, scene.bounds_max);
    glm::mat4 projection = camera.projection(float(width) / float(height));
    float snap_px = make_cull_params(width, height, 8).snap_px;
    MeshletCounts n;
    for (size_t d = 0; d < draws.size(); ++d) {
        const MeshletRange& r = m.meshes[scene.instances[d].mesh];
        bool cone = is_similarity(scene.instances[d].transform);
        for (uint32_t k = r.first; k < r.first + r.count; ++k) {
            MeshletCullResult result = cull_meshlet(m.meshlets[k], draws[d].model, cone, view_proj, camera.position,
                                                    {projection[0][0], projection[1][1]}, glm::vec2(width, height), snap_px);
            ++n.in;
            n.visible += result.visible();
            n.frustum_culled += result.frustum;
            n.cone_culled += !result.frustum && result.backface;
        }
    }
    return n;
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
        uint64_t meshlet_instances = 0;  // at full detail: the tests run --lod off (harness.cpp)
        for (const TaskChunk& c : build_task_chunks(scene, meshlets))
            if (c.flags >> kTaskChunkLevelShift == 0) meshlet_instances += c.count;

        MeshletRun off = render(dir, path, instances, "indexed", "off", false);
        MeshletRun culled = render(dir, path, instances, "indexed", "subgroup", true);
        ASSERT_FALSE(off.image.rgba.empty());
        EXPECT_NOT_BLANK(off.image.rgba);
        ASSERT_FALSE(culled.dump.draws.empty());
        CullReference ref = cull_reference(scene, draws, culled.dump.view_proj, make_cull_params(256, 144, 8));
        MeshletCounts expected = cpu_meshlet_counts(scene, draws, meshlets, culled.dump.view_proj);
        EXPECT_EQ(expected.in, meshlet_instances);
        EXPECT_GT(expected.cone_culled, 0u) << "the frame tests no normal cone";

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
                EXPECT_EQ(c["meshlets_visible"], expected.visible)
                    << "the CPU copy keeps " << expected.visible << " (frustum culls " << expected.frustum_culled
                    << ", normal cones " << expected.cone_culled << ")";
                expect_same_survivors(scene, draws, ref, r.dump.draws, variant, false);
                for (size_t d = 0; d < draws.size(); ++d)
                    EXPECT_TRUE(triangles_of(r.dump.draws[d]) == triangles_of(culled.dump.draws[d])) << "draw " << d;
            }
            // The image of the indexed path without culling, within lavapipe's tolerance: it rounds
            // the mesh pipeline's interpolated attributes its own way (one step, in a few pixels),
            // and where triangles of the bundled scene tie in depth the draw order decides, which
            // is the list's on this path (20 of 36864 pixels here). At most 0.5% and 0.1% of them.
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
