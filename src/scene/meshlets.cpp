#include "scene/meshlets.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <meshoptimizer.h>

const Meshlets& scene_meshlets(const Scene& scene) {
    const Meshlets* m = scene.meshlet_cache.get();
    if (!m || m->source_vertices != scene.vertices.size() || m->source_indices != scene.indices.size() ||
        m->source_meshes != scene.meshes.size())
        scene.meshlet_cache = std::make_shared<const Meshlets>(build_meshlets(scene));
    return *scene.meshlet_cache;
}

Meshlets build_meshlets(const Scene& scene, uint32_t max_vertices, uint32_t max_triangles) {
    auto start = std::chrono::steady_clock::now();
    Meshlets out;
    out.source_vertices = scene.vertices.size();
    out.source_indices = scene.indices.size();
    out.source_meshes = scene.meshes.size();
    out.max_vertices = max_vertices;
    out.max_triangles = max_triangles;
    out.meshes.resize(scene.meshes.size());
    out.levels.resize(scene.meshes.size() * kMaxLodLevels);
    std::vector<uint32_t> local_indices;
    std::vector<meshopt_Meshlet> built;
    std::vector<uint32_t> built_vertices;
    std::vector<uint8_t> built_triangles;
    // The meshlets of one index range (a mesh's level), appended.
    auto build_range = [&](uint32_t first_index, uint32_t index_count) {
        MeshletRange range{uint32_t(out.meshlets.size()), 0};
        if (index_count < 3) return range;
        // meshoptimizer sizes its tables by the vertex count it is given: hand it the mesh's own
        // vertex range, not the whole scene's (scenes of many meshes would cost O(meshes x vertices)).
        auto first = scene.indices.begin() + first_index;
        auto last = first + index_count;
        uint32_t lo = *std::min_element(first, last), hi = *std::max_element(first, last);
        local_indices.assign(first, last);
        for (uint32_t& i : local_indices) i -= lo;
        size_t vertex_count = size_t(hi - lo) + 1;
        const float* positions = &scene.vertices[lo].position.x;

        size_t bound = meshopt_buildMeshletsBound(index_count, max_vertices, max_triangles);
        built.resize(bound);
        built_vertices.resize(bound * max_vertices);
        built_triangles.resize(bound * max_triangles * 3);
        size_t count = meshopt_buildMeshlets(built.data(), built_vertices.data(), built_triangles.data(),
                                             local_indices.data(), local_indices.size(), positions, vertex_count,
                                             sizeof(Vertex), max_vertices, max_triangles, 0.25f);
        for (size_t k = 0; k < count; ++k) {
            const meshopt_Meshlet& b = built[k];
            meshopt_Bounds bounds = meshopt_computeMeshletBounds(&built_vertices[b.vertex_offset],
                                                                 &built_triangles[b.triangle_offset], b.triangle_count,
                                                                 positions, vertex_count, sizeof(Vertex));
            Meshlet m{};
            m.vertex_offset = uint32_t(out.vertices.size());
            m.triangle_offset = uint32_t(out.triangles.size());
            m.vertex_count = b.vertex_count;
            m.triangle_count = b.triangle_count;
            glm::vec3 centre(bounds.center[0], bounds.center[1], bounds.center[2]);
            float radius = 0.0f;
            glm::vec3 box_lo(INFINITY), box_hi(-INFINITY);
            for (uint32_t v = 0; v < b.vertex_count; ++v) {
                uint32_t index = built_vertices[b.vertex_offset + v] + lo;
                out.vertices.push_back(index);
                const glm::vec3& p = scene.vertices[index].position;
                radius = std::max(radius, glm::length(p - centre));
                box_lo = glm::min(box_lo, p);
                box_hi = glm::max(box_hi, p);
            }
            // A relative and an absolute slack over the measured radius and half extents: float
            // rounding of the distances and midpoints here and of the shader's transforms.
            m.sphere = glm::vec4(centre, radius * 1.0001f + 1e-6f);
            glm::vec3 half = 0.5f * (box_hi - box_lo);
            m.box_centre = glm::vec4(0.5f * (box_lo + box_hi), 0.0f);
            m.box_half = glm::vec4(half * 1.0001f + 1e-6f * (1.0f + glm::abs(glm::vec3(m.box_centre))), 0.0f);
            m.cone = glm::vec4(bounds.cone_axis[0], bounds.cone_axis[1], bounds.cone_axis[2], bounds.cone_cutoff);
            float min_area = INFINITY, max_perimeter = 0.0f;
            for (uint32_t t = 0; t < b.triangle_count; ++t) {
                const uint8_t* tri = &built_triangles[b.triangle_offset + 3 * t];
                out.triangles.push_back(uint32_t(tri[0]) | uint32_t(tri[1]) << 8 | uint32_t(tri[2]) << 16);
                glm::vec3 p[3];
                for (int k = 0; k < 3; ++k) p[k] = scene.vertices[built_vertices[b.vertex_offset + tri[k]] + lo].position;
                min_area = std::min(min_area, 0.5f * glm::length(glm::cross(p[1] - p[0], p[2] - p[0])));
                max_perimeter = std::max(max_perimeter, glm::length(p[1] - p[0]) + glm::length(p[2] - p[1]) + glm::length(p[0] - p[2]));
            }
            // Rounding of these measures: a little less area, a little more perimeter.
            m.sizes = glm::vec4(min_area * 0.999f, max_perimeter * 1.001f, 0.0f, 0.0f);
            out.meshlets.push_back(m);
        }
        range.count = uint32_t(out.meshlets.size()) - range.first;
        return range;
    };
    for (size_t mi = 0; mi < scene.meshes.size(); ++mi) {
        const Mesh& mesh = scene.meshes[mi];
        out.meshes[mi] = out.levels[mi * kMaxLodLevels] = build_range(mesh.first_index, mesh.index_count);
        for (uint32_t l = 1; l < mesh.lod_count; ++l)
            out.levels[mi * kMaxLodLevels + l] = build_range(mesh.lods[l].first_index, mesh.lods[l].index_count);
    }
    out.build_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return out;
}

bool is_similarity(const glm::mat4& model) {
    glm::vec3 x(model[0]), y(model[1]), z(model[2]);
    float lx = glm::length(x), ly = glm::length(y), lz = glm::length(z);
    float lmax = std::max({lx, ly, lz}), lmin = std::min({lx, ly, lz});
    if (lmin <= 0.0f || lmax > lmin * 1.0001f) return false;
    float tol = 1e-4f * lmax * lmax;
    bool orthogonal = std::abs(glm::dot(x, y)) <= tol && std::abs(glm::dot(y, z)) <= tol && std::abs(glm::dot(x, z)) <= tol;
    bool affine = model[0][3] == 0.0f && model[1][3] == 0.0f && model[2][3] == 0.0f && model[3][3] == 1.0f;
    return orthogonal && affine;
}

// Written like the shader (shaders/meshlet.glsl, meshlet_culled), line for line.
MeshletCullResult cull_meshlet(const Meshlet& meshlet, const glm::mat4& model, bool cone, const glm::mat4& view_proj,
                               const glm::vec3& camera_position, glm::vec2 projection, glm::vec2 viewport, float snap_px) {
    MeshletCullResult r;
    glm::vec3 centre = glm::vec3(model * glm::vec4(glm::vec3(meshlet.sphere), 1.0f));
    float scale = std::max({glm::length(glm::vec3(model[0])), glm::length(glm::vec3(model[1])),
                            glm::length(glm::vec3(model[2]))});
    float radius = meshlet.sphere.w * scale;
    // Clip-space planes of Vulkan's volume (-w <= x, y <= w, 0 <= z <= w) as rows of view_proj:
    // P(v) = dot(row, v) >= 0 inside. Over the sphere P is at most P(c) + |row.xyz| r and |w| at
    // most |w(c)| + |w_row.xyz| r, so when P(c) + |row.xyz| r < -eps (|w(c)| + |w_row.xyz| r) every
    // point of the sphere, so every vertex, is outside that plane beyond the cull pass's margin.
    glm::mat4 t = glm::transpose(view_proj);
    glm::vec4 rx = t[0], ry = t[1], rz = t[2], rw = t[3];
    std::array<glm::vec4, 6> planes = {rw + rx, rw - rx, rw + ry, rw - ry, rz, rw - rz};
    glm::vec4 c(centre, 1.0f);
    float w = glm::dot(rw, c);
    float w_reach = std::abs(w) + glm::length(glm::vec3(rw)) * radius;
    for (const glm::vec4& p : planes)
        if (glm::dot(p, c) + glm::length(glm::vec3(p)) * radius < -kMeshletFrustumEps * w_reach) r.frustum = true;
    // Normal cone (meshoptimizer's test with its sphere): every triangle faces away from any eye
    // position with dot(centre - eye, axis) >= cutoff |centre - eye| + radius. But the cull pass
    // rejects a back face only when its doubled pixel area exceeds its snapping margin
    // 2 snap (|e1|_1 + |e2|_1) + 8 snap^2 (cull_tests.glsl): tiny or nearly edge-on triangles are
    // kept. So the cone culls only where that holds for every triangle of the meshlet, bounded
    // from the meshlet's smallest area and largest perimeter:
    // - all w > 0 over the sphere, clear of the near and far planes (else the cull pass keeps
    //   the triangle: the clipper changes it);
    // - delta: a lower bound of n . v over the triangles' normals n (within asin(cutoff) of the
    //   axis) and the directions v from the eye to the sphere (within asin(r / |d|) of d);
    // - a planar triangle of area A at depth z whose plane is at distance n . (p - eye) from the
    //   eye projects to f^2 A (n . (p - eye)) / z^3 pixels (f: pixels per unit of x / z), at least
    //   f_min^2 A delta d_min / d_max^3 with d = |p - eye| in [|d| - r, |d| + r] (z <= d);
    // - an edge of length e projects to at most sqrt(2) f_max e (1 + d_max / w_min) / w_min in
    //   |.|_1 (the 1 + d_max / w_min bounds the change of x / z along it).
    float near_side = glm::dot(rw - rz, c) - glm::length(glm::vec3(rw - rz)) * radius;
    float far_side = glm::dot(rz, c) - glm::length(glm::vec3(rz)) * radius;
    float w_min = w - glm::length(glm::vec3(rw)) * radius;
    bool in_depth_range = w_min > 0.0f && near_side > kMeshletFrustumEps * w_reach && far_side > kMeshletFrustumEps * w_reach;
    if (cone && in_depth_range && meshlet.cone.w < 1.0f) {
        glm::vec3 axis = glm::normalize(glm::mat3(model) * glm::vec3(meshlet.cone));
        glm::vec3 d = centre - camera_position;
        float dist = glm::length(d);
        bool facing_away = glm::dot(d, axis) >= meshlet.cone.w * dist + radius;
        float angle = std::acos(std::clamp(glm::dot(d, axis) / dist, -1.0f, 1.0f)) +
                      std::asin(std::min(1.0f, radius / dist)) + std::asin(meshlet.cone.w);
        float delta = std::cos(std::min(angle, 3.14159265f));
        float d_min = dist - radius, d_max = dist + radius;
        glm::vec2 f = 0.5f * projection * viewport;
        float f_min = std::min(std::abs(f.x), std::abs(f.y)), f_max = std::max(std::abs(f.x), std::abs(f.y));
        float area = meshlet.sizes.x * scale * scale, perimeter = meshlet.sizes.y * scale;
        float area2_px = 2.0f * f_min * f_min * area * delta * d_min / (d_max * d_max * d_max);
        float margin = 2.0f * snap_px * 1.41422f * perimeter * f_max * (1.0f + d_max / w_min) / w_min + 8.0f * snap_px * snap_px;
        r.backface = facing_away && d_min > 0.0f && delta > 0.0f && area2_px > 1.01f * margin;
    }
    return r;
}

uint64_t meshlet_gpu_bytes(const Meshlets& m, uint32_t first_level, uint32_t last_level) {
    uint64_t bytes = 0;
    for (size_t i = 0; i < m.levels.size(); ++i) {
        uint32_t level = uint32_t(i % kMaxLodLevels);
        if (level < first_level || level > last_level) continue;
        for (uint32_t k = 0; k < m.levels[i].count; ++k) {
            const Meshlet& meshlet = m.meshlets[m.levels[i].first + k];
            bytes += sizeof(Meshlet) + uint64_t(meshlet.vertex_count) * (12 + 20) + uint64_t(meshlet.triangle_count) * 4;
        }
    }
    return bytes;
}
