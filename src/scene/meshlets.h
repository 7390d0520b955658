// Meshlets of the scene's meshes (meshoptimizer), built once per unique mesh at load and shared by
// every instance of it, and the meshlet visibility test of the task shader (shaders/meshlet.task)
// as plain C++: the CPU mirror the tests hold against the triangle cull reference. No Vulkan.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include <glm/glm.hpp>

#include "scene/scene.h"

// One meshlet, the layout of shaders/meshlet.glsl's Meshlet (std430).
struct Meshlet {
    glm::vec4 sphere;  // object space: centre, radius (encloses every vertex of the meshlet)
    glm::vec4 cone;    // normal cone: axis (unit), cutoff (meshopt's); cutoff >= 1: no cone test
    // Object space: the smallest triangle area and the largest perimeter, so the cone test can
    // bound every triangle's projected area and edge lengths (see cull_meshlet); z, w unused.
    glm::vec4 sizes;
    // Object space: the axis-aligned box around every vertex, centre and half extents (w unused).
    // Occlusion tests it (shaders/meshlet_cull.task): for the flat meshlets of walls and floors
    // it is far tighter than the sphere's cube, which reaches past what hides it.
    glm::vec4 box_centre;
    glm::vec4 box_half;
    uint32_t vertex_offset;    // into Meshlets::vertices (and the GPU's per-meshlet-vertex arrays)
    uint32_t triangle_offset;  // into Meshlets::triangles
    uint32_t vertex_count;
    uint32_t triangle_count;
};
static_assert(sizeof(Meshlet) == 96);

struct MeshletRange {
    uint32_t first = 0;  // into Meshlets::meshlets
    uint32_t count = 0;
};

struct Meshlets {
    std::vector<Meshlet> meshlets;
    std::vector<uint32_t> vertices;   // per meshlet vertex: its index into Scene::vertices
    std::vector<uint32_t> triangles;  // per meshlet triangle: local indices i0 | i1 << 8 | i2 << 16
    std::vector<MeshletRange> meshes; // per Scene::meshes entry (its level 0, the mesh itself)
    // Per mesh and level of detail (docs/lod.md): levels[mesh * kMaxLodLevels + level]; level 0
    // is meshes[mesh], levels past the mesh's lod_count are empty.
    std::vector<MeshletRange> levels;
    uint32_t max_vertices = 0, max_triangles = 0;
    double build_ms = 0.0;            // host time of build_meshlets()
    // What they were built from: a scene whose meshes changed since (scene_meshlets) builds again.
    size_t source_vertices = 0, source_indices = 0, source_meshes = 0;

    // Scene vertex index of local vertex `k` (0..2) of meshlet triangle `t` of meshlet `m`.
    uint32_t vertex_of(const Meshlet& m, uint32_t t, int k) const {
        return vertices[m.vertex_offset + ((triangles[m.triangle_offset + t] >> (8 * k)) & 0xffu)];
    }
};

// The limits the GPU path asks for (within the device's mesh-shader output limits).
constexpr uint32_t kMeshletMaxVertices = 64;
constexpr uint32_t kMeshletMaxTriangles = 124;

// meshopt_buildMeshlets + meshopt_computeMeshletBounds over every mesh of the scene and each of
// its levels of detail (once per mesh, whatever its instance count). The sphere's radius is re-measured to enclose every vertex.
Meshlets build_meshlets(const Scene& scene, uint32_t max_vertices = kMeshletMaxVertices,
                        uint32_t max_triangles = kMeshletMaxTriangles);

// The scene's meshlets at the GPU path's limits (kMeshletMaxVertices, kMeshletMaxTriangles):
// build_meshlets on the first call, kept with the scene (Scene::meshlet_cache) for the next ones.
const Meshlets& scene_meshlets(const Scene& scene);

// What the meshlet path uploads for the meshlets of levels [first_level, last_level] of every
// mesh (MeshletPass::create): the Meshlet records (96 B), per meshlet vertex its position and
// attributes (12 + 20 B), per triangle its packed local indices (4 B). Levels of detail take
// (1, kMaxLodLevels - 1); the base meshes (0, 0).
uint64_t meshlet_gpu_bytes(const Meshlets& meshlets, uint32_t first_level, uint32_t last_level);

// The task shader's test, in world space, for a meshlet of a draw with this model matrix seen
// through view_proj from camera_position. Conservative: false only when every triangle of the
// meshlet would be rejected by the triangle tests (outside one clip plane, or back-facing by more
// than the cull pass's snapping margin). `cone`: the model is a similarity (no shear or uneven
// scale), so the normal cone survives the transform.
struct MeshletCullResult {
    bool frustum = false;   // outside one plane of the clip volume
    bool backface = false;  // the normal cone faces away from the camera
    bool visible() const { return !frustum && !backface; }
};
// projection: P[0][0], P[1][1] of the projection; viewport in pixels; snap_px the cull pass's.
MeshletCullResult cull_meshlet(const Meshlet& meshlet, const glm::mat4& model, bool cone, const glm::mat4& view_proj,
                               const glm::vec3& camera_position, glm::vec2 projection, glm::vec2 viewport, float snap_px);

// Whether a model matrix keeps angles (rotation, translation, uniform scale): the cone test is
// only applied to such draws.
bool is_similarity(const glm::mat4& model);

// Margins of the tests (mirrored in shaders/meshlet.glsl).
constexpr float kMeshletFrustumEps = 2.0f / 16384.0f;  // twice the cull pass's kFrustumEps
