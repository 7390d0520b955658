// Scene helpers that don't depend on the file format: counts, bounds, grid replication.
#include "scene.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include <glm/gtc/matrix_transform.hpp>

namespace {

// Instances are copied n*n times; past this the scene no longer fits a sane draw list.
constexpr uint64_t kMaxGridInstances = 1ull << 26;

struct Box {
    glm::vec3 min{std::numeric_limits<float>::max()};
    glm::vec3 max{-std::numeric_limits<float>::max()};

    bool empty() const { return min.x > max.x; }
    void add(glm::vec3 p) {
        min = glm::min(min, p);
        max = glm::max(max, p);
    }
};

// Local bounds of each mesh over the vertices its indices reference.
std::vector<Box> mesh_bounds(const Scene& scene) {
    std::vector<Box> boxes(scene.meshes.size());
    for (size_t m = 0; m < scene.meshes.size(); ++m) {
        const Mesh& mesh = scene.meshes[m];
        for (uint32_t i = 0; i < mesh.index_count; ++i)
            boxes[m].add(scene.vertices[scene.indices[mesh.first_index + i]].position);
    }
    return boxes;
}

}  // namespace

uint64_t Scene::triangle_count() const {
    uint64_t triangles = 0;
    for (const MeshInstance& instance : instances)
        triangles += meshes[instance.mesh].index_count / 3;
    return triangles;
}

void update_bounds(Scene& scene) {
    std::vector<Box> local = mesh_bounds(scene);
    Box world;
    for (const MeshInstance& instance : scene.instances) {
        const Box& box = local[instance.mesh];
        if (box.empty())
            continue;
        // Transforming the 8 corners keeps the world box conservative under rotation.
        for (int corner = 0; corner < 8; ++corner) {
            glm::vec3 p{corner & 1 ? box.max.x : box.min.x, corner & 2 ? box.max.y : box.min.y,
                        corner & 4 ? box.max.z : box.min.z};
            world.add(glm::vec3(instance.transform * glm::vec4(p, 1.0f)));
        }
    }
    scene.bounds_min = world.empty() ? glm::vec3(0.0f) : world.min;
    scene.bounds_max = world.empty() ? glm::vec3(0.0f) : world.max;
}

void replicate_grid(Scene& scene, uint32_t n, bool unique_meshes) {
    if (n <= 1)
        return;
    uint64_t copies = uint64_t(n) * n;
    // Unique copies: indices are absolute uint32 into one vertex array, and first_index is uint32.
    const uint64_t vertex_total = scene.vertices.size() * copies, index_total = scene.indices.size() * copies;
    if (unique_meshes && (vertex_total > UINT32_MAX || index_total > UINT32_MAX))
        throw SceneError("--unique-meshes: " + std::to_string(copies) + " copies need " + std::to_string(vertex_total) +
                         " vertices and " + std::to_string(index_total) + " indices, past 32-bit indexing");
    if (scene.instances.size() > kMaxGridInstances / copies)
        throw SceneError("replicate_grid: " + std::to_string(n) + " x " + std::to_string(n) + " copies of " +
                         std::to_string(scene.instances.size()) + " instances is too many");

    glm::vec3 extent = scene.bounds_max - scene.bounds_min;
    float spacing = 1.2f * std::max(extent.x, extent.z);
    if (!(spacing > 0.0f))
        spacing = 1.0f;  // flat or empty scene: any spacing keeps copies apart
    float half = 0.5f * float(n - 1) * spacing;
    // A scene whose extent is near the float range (legal coordinates go up to 3.4e38) would put
    // its copies at infinity: NaN transforms on the GPU and a NaN camera. Refuse it instead.
    glm::vec3 grown_min = scene.bounds_min - glm::vec3(half, 0.0f, half);
    glm::vec3 grown_max = scene.bounds_max + glm::vec3(half, 0.0f, half);
    auto finite = [](glm::vec3 v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); };
    if (!std::isfinite(half) || !finite(grown_min) || !finite(grown_max))
        throw SceneError("--instances " + std::to_string(n) + ": copies spaced by the scene's extent would lie " +
                         "beyond the float range; use --instances 1");

    // Copy c's meshes are c * mesh_count + m: the original meshes for c = 0, and with unique meshes
    // a copy of each, whose indices point at copy c's vertices (offset by c * vertex_count).
    const uint32_t mesh_count = uint32_t(scene.meshes.size());
    const uint32_t vertex_count = uint32_t(scene.vertices.size()), index_count = uint32_t(scene.indices.size());
    if (unique_meshes) {
        scene.vertices.reserve(vertex_total);
        scene.indices.reserve(index_total);
        scene.meshes.reserve(size_t(mesh_count) * copies);
        for (uint64_t c = 1; c < copies; ++c) {
            for (uint32_t v = 0; v < vertex_count; ++v) scene.vertices.push_back(scene.vertices[v]);
            if (scene.vertex_materials.size() == vertex_count)
                for (uint32_t v = 0; v < vertex_count; ++v) scene.vertex_materials.push_back(scene.vertex_materials[v]);
            for (uint32_t i = 0; i < index_count; ++i)
                scene.indices.push_back(scene.indices[i] + uint32_t(c) * vertex_count);
            for (uint32_t m = 0; m < mesh_count; ++m) {
                Mesh mesh = scene.meshes[m];
                mesh.first_index += uint32_t(c) * index_count;
                for (uint32_t l = 0; l < mesh.lod_count; ++l) mesh.lods[l].first_index += uint32_t(c) * index_count;
                scene.meshes.push_back(mesh);
            }
        }
    }
    std::vector<MeshInstance> original = std::move(scene.instances);
    scene.instances.clear();
    scene.instances.reserve(original.size() * copies);
    for (uint32_t z = 0; z < n; ++z)
        for (uint32_t x = 0; x < n; ++x) {
            glm::vec3 offset{float(x) * spacing - half, 0.0f, float(z) * spacing - half};
            glm::mat4 shift = glm::translate(glm::mat4(1.0f), offset);
            uint32_t mesh_base = unique_meshes ? (z * n + x) * mesh_count : 0;
            for (const MeshInstance& instance : original)
                scene.instances.push_back({mesh_base + instance.mesh, shift * instance.transform});
        }
    scene.unique_meshes = unique_meshes;

    // Centred copies grow the box symmetrically on X and Z.
    scene.bounds_min = grown_min;
    scene.bounds_max = grown_max;
    scene.grid = n;
}
