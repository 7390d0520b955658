// The meshlet path's host side, without a GPU (src/scene/meshlets.cpp, src/passes/meshlet_pass.cpp):
// meshoptimizer's meshlets cover every triangle exactly once with its winding, within the limits,
// each listing a scene vertex once; the task shader's meshlet test (its CPU mirror, cull_meshlet)
// never culls a meshlet holding a triangle the cull pass's CPU reference keeps, over hundreds of
// random cameras; the task chunk table; and the plan of --geometry meshlet.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <tuple>

#include "run/options.h"
#include "passes/meshlet_pass.h"
#include "render/cull_reference.h"
#include "render/gpu_scene.h"
#include "scene/camera.h"
#include "scene/meshlets.h"

namespace {

using Tri = std::array<uint32_t, 3>;

Scene scene_at(const std::string& path, uint32_t grid = 1) {
    Scene s = load_scene(path);
    if (grid > 1) replicate_grid(s, grid);
    return s;
}

TEST(Meshlets, EveryTriangleIsInExactlyOneMeshletWithItsWinding) {
    for (const std::string path : {std::string(SGD_DEFAULT_SCENE), std::string(SGD_TEST_SCENES "/props.gltf"),
                                   std::string(SGD_TEST_SCENES "/knot.gltf")}) {
        SCOPED_TRACE(path);
        Scene scene = scene_at(path);
        Meshlets m = build_meshlets(scene);
        ASSERT_EQ(m.meshes.size(), scene.meshes.size());
        for (size_t mi = 0; mi < scene.meshes.size(); ++mi) {
            const Mesh& mesh = scene.meshes[mi];
            std::multiset<Tri> expected, got;
            for (uint32_t i = 0; i + 2 < mesh.index_count; i += 3)
                expected.insert({scene.indices[mesh.first_index + i], scene.indices[mesh.first_index + i + 1],
                                 scene.indices[mesh.first_index + i + 2]});
            const MeshletRange& r = m.meshes[mi];
            for (uint32_t k = r.first; k < r.first + r.count; ++k) {
                const Meshlet& ml = m.meshlets[k];
                EXPECT_GE(ml.triangle_count, 1u);
                EXPECT_LE(ml.triangle_count, kMeshletMaxTriangles);
                EXPECT_LE(ml.vertex_count, kMeshletMaxVertices);
                // Each scene vertex once per meshlet: the mesh shader's "repeated index" test on
                // local indices then means the same as the cull pass's on scene indices.
                std::set<uint32_t> distinct(m.vertices.begin() + ml.vertex_offset,
                                            m.vertices.begin() + ml.vertex_offset + ml.vertex_count);
                EXPECT_EQ(distinct.size(), ml.vertex_count);
                glm::vec3 lo(INFINITY), hi(-INFINITY);
                for (uint32_t v : distinct) lo = glm::min(lo, scene.vertices[v].position), hi = glm::max(hi, scene.vertices[v].position);
                for (int a = 0; a < 3; ++a)
                    EXPECT_LE(ml.box_half[a], 0.5f * (hi[a] - lo[a]) * 1.001f + 1e-4f * (1.0f + std::abs(ml.box_centre[a])));
                for (uint32_t t = 0; t < ml.triangle_count; ++t) {
                    for (int c = 0; c < 3; ++c) EXPECT_LT((m.triangles[ml.triangle_offset + t] >> (8 * c)) & 0xffu, ml.vertex_count);
                    got.insert({m.vertex_of(ml, t, 0), m.vertex_of(ml, t, 1), m.vertex_of(ml, t, 2)});
                    // The sphere and the box (no wider than the vertices' extent, above) enclose every vertex.
                    for (int c = 0; c < 3; ++c) {
                        glm::vec3 p = scene.vertices[m.vertex_of(ml, t, c)].position;
                        EXPECT_LE(glm::length(p - glm::vec3(ml.sphere)), ml.sphere.w);
                        glm::vec3 from_centre = glm::abs(p - glm::vec3(ml.box_centre));
                        for (int a = 0; a < 3; ++a) EXPECT_LE(from_centre[a], ml.box_half[a]) << "axis " << a;
                    }
                }
            }
            // Same triangles, same vertex order (winding), each as often as in the mesh.
            EXPECT_TRUE(got == expected) << "mesh " << mi << ": " << got.size() << " vs " << expected.size();
        }
    }
}

TEST(Meshlets, BuiltOncePerMeshAndSharedByInstances) {
    Scene one = scene_at(SGD_DEFAULT_SCENE), grid = scene_at(SGD_DEFAULT_SCENE, 3);
    Meshlets a = build_meshlets(one), b = build_meshlets(grid);
    EXPECT_EQ(a.meshlets.size(), b.meshlets.size());  // nine copies, the same meshes
    std::vector<TaskChunk> chunks = build_task_chunks(grid, b);
    uint64_t instances = 0;
    std::vector<uint32_t> per_draw(grid.instances.size());
    for (const TaskChunk& c : chunks) {
        EXPECT_GE(c.count, 1u);
        EXPECT_LE(c.count, 32u);
        instances += c.count;
        per_draw[c.draw] += c.count;
        const MeshletRange& r = b.meshes[grid.instances[c.draw].mesh];
        EXPECT_GE(c.first_meshlet, r.first);
        EXPECT_LE(c.first_meshlet + c.count, r.first + r.count);
    }
    for (size_t d = 0; d < grid.instances.size(); ++d) EXPECT_EQ(per_draw[d], b.meshes[grid.instances[d].mesh].count);
    uint64_t per_copy = 0;
    for (const MeshInstance& i : one.instances) per_copy += a.meshes[i.mesh].count;
    EXPECT_EQ(instances, 9 * per_copy);
}

// For each draw and meshlet the mirror culls, no triangle of it may survive the cull reference.
// Returns meshlets culled (to check the test culls something at all).
uint64_t cone_culled = 0;

uint64_t expect_conservative(const Scene& scene, const Meshlets& m, const std::vector<GpuDraw>& draws,
                             const Camera& camera, uint32_t width, uint32_t height, int& failures) {
    glm::mat4 view_proj = camera.projection(float(width) / float(height)) * camera.view();
    CullReference ref = cull_reference(scene, draws, view_proj, make_cull_params(width, height, 8));
    uint64_t culled = 0;
    for (size_t d = 0; d < draws.size(); ++d) {
        const Mesh& mesh = scene.meshes[scene.instances[d].mesh];
        std::map<Tri, std::vector<uint32_t>> number;  // triangle -> its numbers in the draw
        for (uint32_t t = 0; t < mesh.index_count / 3; ++t)
            number[{scene.indices[mesh.first_index + 3 * t], scene.indices[mesh.first_index + 3 * t + 1],
                    scene.indices[mesh.first_index + 3 * t + 2]}]
                .push_back(t);
        std::set<uint32_t> survivors(ref.survivors[d].begin(), ref.survivors[d].end());
        std::set<uint32_t> borderline(ref.borderline[d].begin(), ref.borderline[d].end());
        const MeshletRange& r = m.meshes[scene.instances[d].mesh];
        bool cone = is_similarity(scene.instances[d].transform);
        for (uint32_t k = r.first; k < r.first + r.count; ++k) {
            const Meshlet& ml = m.meshlets[k];
            glm::mat4 projection = camera.projection(float(width) / float(height));
            MeshletCullResult result = cull_meshlet(ml, draws[d].model, cone, view_proj, camera.position,
                                                    {projection[0][0], projection[1][1]}, glm::vec2(width, height),
                                                    make_cull_params(width, height, 8).snap_px);
            if (result.visible()) continue;
            ++culled;
            if (!result.frustum) ++cone_culled;
            for (uint32_t t = 0; t < ml.triangle_count; ++t)
                for (uint32_t n : number[{m.vertex_of(ml, t, 0), m.vertex_of(ml, t, 1), m.vertex_of(ml, t, 2)}])
                    if (survivors.count(n) && !borderline.count(n) && failures++ < 10)
                        ADD_FAILURE() << "draw " << d << " meshlet " << k << " culled by "
                                      << (result.frustum ? "frustum" : "cone") << " holds kept triangle " << n;
        }
    }
    return culled;
}

// Random eyes in and around the scene looking at random points of it, with random near planes, at
// two sizes (triangles of a few pixels, and sub-pixel ones): the bundled scene (40 cameras and its
// default view) and a 3 x 3 grid of the dense knot (300 cameras).
TEST(Meshlets, CullingIsConservativeOverRandomCameras) {
    int failures = 0;
    uint64_t culled = 0;
    for (auto [path, grid, cameras] : {std::tuple{std::string(SGD_DEFAULT_SCENE), 1u, 40},
                                       std::tuple{std::string(SGD_TEST_SCENES "/knot.gltf"), 3u, 300}}) {
        SCOPED_TRACE(path);
        Scene scene = scene_at(path, grid);
        Meshlets m = build_meshlets(scene);
        std::vector<GpuDraw> draws = build_draws(scene);
        glm::vec3 lo = scene.bounds_min, hi = scene.bounds_max, size = hi - lo;
        std::mt19937 rng(1234);
        std::uniform_real_distribution<float> u(0.0f, 1.0f);
        culled += expect_conservative(scene, m, draws, default_camera(lo, hi), 320, 180, failures);
        for (int i = 0; i < cameras && failures < 10; ++i) {
            Camera c = default_camera(lo, hi);
            c.position = lo - 0.25f * size + 1.5f * size * glm::vec3(u(rng), u(rng), u(rng));
            c.target = lo + size * glm::vec3(u(rng), u(rng), u(rng));
            if (glm::length(c.target - c.position) < 1e-3f) continue;
            c.near_plane = 0.01f + 0.5f * u(rng) * glm::length(size) / 50.0f;
            bool small = i % 2;
            culled += expect_conservative(scene, m, draws, c, small ? 160 : 1920, small ? 90 : 1080, failures);
        }
    }
    EXPECT_GT(culled, 0u);
    EXPECT_GT(cone_culled, 0u);  // the cone test does cull, at least close up
    printf("meshlets culled over the cameras: %llu, by the normal cone %llu\n", (unsigned long long)culled,
           (unsigned long long)cone_culled);
}

TEST(MeshletPlan, GeometryOptionAndThePlanOfItsCulling) {
    EXPECT_EQ(parse_options({"--headless"}).plan.geometry, Geometry::indexed);
    EXPECT_EQ(parse_options({"--headless", "--geometry", "meshlet"}).plan.geometry, Geometry::meshlet);
    EXPECT_THROW(parse_options({"--geometry", "strips"}), UsageError);

    SubgroupCaps caps;
    caps.size = 32;
    caps.stages = bit(Stage::compute) | bit(Stage::fragment) | bit(Stage::task) | bit(Stage::mesh);
    caps.ops = bit(Op::basic) | bit(Op::vote) | bit(Op::arithmetic) | bit(Op::ballot) | bit(Op::quad);
    DeviceFeatures features;
    features.mesh_shader = true;
    features.fragment_stores = true;
    PlanRequest request;
    request.geometry = Geometry::meshlet;
    Plan plan = make_plan(caps, features, request);
    EXPECT_EQ(plan.geometry, Geometry::meshlet);
    EXPECT_EQ(plan[PassId::cull].variant, Variant::subgroup);

    // Task or mesh masked: auto falls back naming the stage; subgroup is refused naming it.
    for (Stage masked : {Stage::task, Stage::mesh}) {
        SubgroupCaps m = caps;
        apply_masks(m, bit(masked), 0);
        plan = make_plan(m, features, request);
        EXPECT_EQ(plan[PassId::cull].variant, Variant::fallback);
        EXPECT_NE(plan[PassId::cull].reason.find(std::string(stage_name(masked)) + " stage has no subgroup support"),
                  std::string::npos)
            << plan[PassId::cull].reason;
        PlanRequest sub = request;
        sub[PassId::cull] = Request::subgroup;
        try {
            make_plan(m, features, sub);
            ADD_FAILURE() << "--cull subgroup accepted with " << stage_name(masked) << " masked";
        } catch (const UnsupportedRequest& e) {
            EXPECT_NE(std::string(e.what()).find(stage_name(masked)), std::string::npos) << e.what();
        }
    }
    // The compute stage no longer matters to the cull plan on the meshlet path.
    SubgroupCaps no_compute = caps;
    apply_masks(no_compute, bit(Stage::compute), 0);
    EXPECT_EQ(make_plan(no_compute, features, request)[PassId::cull].variant, Variant::subgroup);
    // Without mesh shaders the request is refused, naming the extension.
    features.mesh_shader = false;
    try {
        make_plan(caps, features, request);
        ADD_FAILURE() << "--geometry meshlet accepted without mesh shaders";
    } catch (const UnsupportedRequest& e) {
        EXPECT_NE(std::string(e.what()).find("VK_EXT_mesh_shader"), std::string::npos) << e.what();
    }
}

}  // namespace
