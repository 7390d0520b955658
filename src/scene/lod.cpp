#include "scene/lod.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <thread>

#include <meshoptimizer.h>

namespace {

// Stop when a level keeps more than this fraction of the one before: the simplifier is stuck
// (locked borders, or the error bound it would have to cross), and another level would only
// cost memory.
constexpr float kMinShrink = 0.9f;
constexpr uint32_t kMinTriangleFraction = 64;  // stop at about 1/64 of level 0

// The sphere around the mesh's vertices (the centre of their box, the farthest vertex from it).
glm::vec4 sphere_of(const std::vector<glm::vec3>& positions) {
    if (positions.empty()) return glm::vec4(0.0f);
    glm::vec3 lo = positions[0], hi = positions[0];
    for (glm::vec3 p : positions) lo = glm::min(lo, p), hi = glm::max(hi, p);
    glm::vec3 centre = 0.5f * (lo + hi);
    float radius = 0.0f;
    for (glm::vec3 p : positions) radius = std::max(radius, glm::length(p - centre));
    return glm::vec4(centre, radius);
}

// One mesh's coarser levels, with indices into Scene::vertices, and its bounding sphere.
struct MeshChain {
    std::vector<std::vector<uint32_t>> levels;
    std::vector<float> errors;
    glm::vec4 sphere{0.0f};
};

MeshChain build_mesh_chain(const Scene& scene, const Mesh& mesh) {
    MeshChain chain;
    if (mesh.index_count == 0) return chain;
    // The simplifier works on the mesh's own vertices (local indices): its tables are sized by the
    // vertex count, and the scene's vertex array holds every mesh's. Local numbers follow the global
    // ones' order, through a table over the span of global numbers the mesh uses (linear time; a
    // sort and a binary search per index took a third of the build).
    const uint32_t* global = scene.indices.data() + mesh.first_index;
    const auto [lo, hi] = std::minmax_element(global, global + mesh.index_count);
    std::vector<uint32_t> local_of(size_t(*hi - *lo) + 1, 0);
    for (uint32_t i = 0; i < mesh.index_count; ++i) local_of[global[i] - *lo] = 1;
    std::vector<uint32_t> vertices;  // local -> global
    for (uint32_t g = 0; g < local_of.size(); ++g)
        if (local_of[g]) local_of[g] = uint32_t(vertices.size()), vertices.push_back(*lo + g);
    std::vector<glm::vec3> positions(vertices.size());
    for (size_t v = 0; v < vertices.size(); ++v) positions[v] = scene.vertices[vertices[v]].position;
    std::vector<uint32_t> local(mesh.index_count);
    for (uint32_t i = 0; i < mesh.index_count; ++i) local[i] = local_of[global[i] - *lo];
    chain.sphere = sphere_of(positions);

    const float* xyz = &positions[0].x;
    const float scale = meshopt_simplifyScale(xyz, positions.size(), sizeof(glm::vec3));
    std::vector<uint32_t> previous = std::move(local), simplified(previous.size());
    float error_so_far = 0.0f;
    while (chain.levels.size() + 1 < kMaxLodLevels && previous.size() / 3 > mesh.index_count / 3 / kMinTriangleFraction) {
        size_t target = std::max<size_t>(3, previous.size() / 2 / 3 * 3);
        float relative_error = 0.0f;
        // Each level simplifies the one before (cheaper than from level 0, and the chain is
        // nested). target_error 1: no error bound, the triangle target decides.
        size_t count = meshopt_simplify(simplified.data(), previous.data(), previous.size(), xyz, positions.size(),
                                        sizeof(glm::vec3), target, 1.0f, meshopt_SimplifyLockBorder, &relative_error);
        if (count == 0 || float(count) > kMinShrink * float(previous.size())) break;
        // meshopt reports the error against its input, the level before: the errors add up (a
        // bound on the distance from level 0), and stay non-decreasing down the chain.
        error_so_far += relative_error * scale;
        std::vector<uint32_t>& level = chain.levels.emplace_back(count);
        for (size_t i = 0; i < count; ++i) level[i] = vertices[simplified[i]];
        chain.errors.push_back(error_so_far);
        previous.assign(simplified.begin(), simplified.begin() + count);
    }
    return chain;
}

}  // namespace

void build_lod_chain(Scene& scene) {
    // Meshes are independent: a thread per core takes the next mesh until none is left. Each
    // mesh's chain depends on that mesh alone, and they are appended in mesh order below, so the
    // result is the same whatever the number of threads.
    std::vector<MeshChain> chains(scene.meshes.size());
    std::atomic<size_t> next{0};
    auto work = [&] {
        for (size_t m = next++; m < chains.size(); m = next++) chains[m] = build_mesh_chain(scene, scene.meshes[m]);
    };
    const size_t threads = std::min<size_t>(std::max(1u, std::thread::hardware_concurrency()), chains.size());
    std::vector<std::thread> pool;
    for (size_t t = 1; t < threads; ++t) pool.emplace_back(work);
    work();
    for (std::thread& t : pool) t.join();

    for (size_t m = 0; m < scene.meshes.size(); ++m) {
        Mesh& mesh = scene.meshes[m];
        mesh.lod_count = 1;
        mesh.lods[0] = {mesh.first_index, mesh.index_count, 0.0f};
        if (mesh.index_count == 0) continue;
        mesh.bounding_sphere = chains[m].sphere;
        for (size_t l = 0; l < chains[m].levels.size(); ++l) {
            const std::vector<uint32_t>& indices = chains[m].levels[l];
            mesh.lods[mesh.lod_count++] = {uint32_t(scene.indices.size()), uint32_t(indices.size()), chains[m].errors[l]};
            scene.indices.insert(scene.indices.end(), indices.begin(), indices.end());
        }
    }
}

LodView lod_view(const glm::mat4& view, const glm::mat4& projection, glm::uvec2 size) {
    // As lod.glsl's lod_view(), from P[0][0] and P[1][1].
    glm::vec2 p(projection[0][0], projection[1][1]);
    glm::vec2 f = glm::abs(p) * 0.5f * glm::vec2(size);
    glm::vec2 corner = 1.0f / p;
    return {view, std::max(f.x, f.y), std::sqrt(1.0f + glm::dot(corner, corner))};
}

uint32_t choose_lod_level(const LodDraw& draw, const LodView& v, float max_error_px) {
    // Mirrors shaders/lod.glsl line for line.
    if (max_error_px <= 0.0f) return 0;  // --lod off, even past a level of error 0
    glm::vec3 centre = glm::vec3(v.view * (draw.model * glm::vec4(glm::vec3(draw.bounding_sphere), 1.0f)));
    float scale = std::max(glm::length(glm::vec3(draw.model[0])),
                           std::max(glm::length(glm::vec3(draw.model[1])), glm::length(glm::vec3(draw.model[2]))));
    float radius = draw.bounding_sphere.w * scale;
    float depth = std::max(-centre.z - radius, 0.0f);  // 0: the sphere reaches the eye's plane
    float stretch = depth > 0.0f ? std::min(v.corner_stretch, (glm::length(centre) + radius) / depth) : v.corner_stretch;
    uint32_t level = 0;
    for (uint32_t l = 1; l < draw.level_count; ++l) {
        // error * scale * f * stretch / depth <= max_error_px, without the division: a sphere
        // at depth 0 keeps level 0 (or a level of error 0).
        if (draw.errors[l] * scale * v.pixels_per_unit * stretch > max_error_px * depth) break;
        level = l;
    }
    return level;
}
