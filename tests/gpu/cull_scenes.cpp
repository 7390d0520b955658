#include "gpu/cull_scenes.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <numbers>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>


std::vector<Triangle> triangles_of(const std::vector<uint32_t>& indices) {
    std::vector<Triangle> t;
    for (size_t i = 0; i + 2 < indices.size(); i += 3) t.push_back({indices[i], indices[i + 1], indices[i + 2]});
    std::sort(t.begin(), t.end());
    return t;
}

std::vector<uint32_t> reference_indices(const Scene& scene, const GpuDraw& draw, const std::vector<uint32_t>& survivors) {
    std::vector<uint32_t> indices;
    for (uint32_t t : survivors)
        for (int k = 0; k < 3; ++k) indices.push_back(scene.indices[draw.first_index + 3 * t + k]);
    return indices;
}

// The reference's survivors of a draw as sorted index triples.
static std::vector<Triangle> reference_triangles(const Scene& scene, const GpuDraw& draw, const std::vector<uint32_t>& survivors) {
    return triangles_of(reference_indices(scene, draw, survivors));
}

std::optional<std::string> input_order_violation(const Scene& scene, const GpuDraw& draw,
                                                 const std::vector<uint32_t>& drawn) {
    const uint32_t* input = scene.indices.data() + draw.first_index;
    size_t next = 0;  // the first input triangle the next survivor may be
    for (size_t s = 0; s + 2 < drawn.size(); s += 3) {
        while (next < draw.index_count / 3 &&
               !std::equal(drawn.begin() + long(s), drawn.begin() + long(s) + 3, input + 3 * next))
            ++next;
        if (next == draw.index_count / 3)
            return "survivor " + std::to_string(s / 3) + " (" + std::to_string(drawn[s]) + " " +
                   std::to_string(drawn[s + 1]) + " " + std::to_string(drawn[s + 2]) +
                   ") is not among the draw's triangles after the previous survivor's";
        ++next;
    }
    return std::nullopt;
}

// Compares per draw: the GPU's set must equal the reference's, except for triangles the
// reference marks borderline (on a decision boundary to within rounding), which may go either
// way. Returns how many borderline triangles the GPU decided differently; on a real
// difference, names the first few triangles.
uint64_t expect_same_survivors(const Scene& scene, const std::vector<GpuDraw>& draws, const CullReference& ref,
                               const std::vector<std::vector<uint32_t>>& drawn, const std::string& what,
                               bool in_input_order) {
    EXPECT_EQ(drawn.size(), draws.size()) << what;
    if (drawn.size() != draws.size()) return 0;
    int reported = 0;
    uint64_t flipped = 0, borderline = 0;
    for (size_t d = 0; d < draws.size(); ++d) {
        borderline += ref.borderline[d].size();
        std::optional<std::string> violation;
        if (in_input_order) violation = input_order_violation(scene, draws[d], drawn[d]);
        if (violation)
            ADD_FAILURE() << what << ": draw " << d << " is not in input order: " << *violation;
        std::vector<Triangle> gpu = triangles_of(drawn[d]);
        std::vector<Triangle> cpu = reference_triangles(scene, draws[d], ref.survivors[d]);
        if (gpu == cpu) continue;
        std::vector<Triangle> may_differ = reference_triangles(scene, draws[d], ref.borderline[d]);
        std::vector<Triangle> only_gpu, only_cpu, lost, kept;
        std::set_difference(gpu.begin(), gpu.end(), cpu.begin(), cpu.end(), std::back_inserter(only_gpu));
        std::set_difference(cpu.begin(), cpu.end(), gpu.begin(), gpu.end(), std::back_inserter(only_cpu));
        std::set_difference(only_gpu.begin(), only_gpu.end(), may_differ.begin(), may_differ.end(), std::back_inserter(kept));
        std::set_difference(only_cpu.begin(), only_cpu.end(), may_differ.begin(), may_differ.end(), std::back_inserter(lost));
        flipped += only_gpu.size() + only_cpu.size() - kept.size() - lost.size();
        if (kept.empty() && lost.empty()) continue;
        ADD_FAILURE() << what << ": draw " << d << " GPU kept " << gpu.size() << ", reference " << cpu.size() << " ("
                      << kept.size() << " only on the GPU, " << lost.size() << " only in the reference, not borderline)";
        for (const Triangle& t : kept)
            if (reported++ < 5) ADD_FAILURE() << "  GPU kept " << t[0] << " " << t[1] << " " << t[2];
        for (const Triangle& t : lost)
            if (reported++ < 10) ADD_FAILURE() << "  GPU lost " << t[0] << " " << t[1] << " " << t[2];
    }
    // Borderline is rare: a tolerance of 1% of a few thousandths of a pixel.
    uint64_t triangles = 0;
    for (const GpuDraw& d : draws) triangles += d.index_count / 3;
    EXPECT_LE(borderline * 1000, triangles) << what << ": " << borderline << " borderline triangles";
    return flipped;
}

uint64_t triangle_total(const std::vector<std::vector<uint32_t>>& drawn) {
    uint64_t n = 0;
    for (const auto& d : drawn) n += d.size() / 3;
    return n;
}


Camera designed_camera() {
    Camera c;
    c.position = {0.0f, 0.0f, 5.0f};
    c.target = {0.0f, 0.0f, 0.0f};
    c.near_plane = 1.0f;
    c.far_plane = 20.0f;
    return c;
}

glm::mat4 designed_view_proj() {
    return designed_camera().projection(float(kDesignedWidth) / float(kDesignedHeight)) * designed_camera().view();
}

// The world point on the plane z = z0 that pixel position (x, y) shows.
static glm::vec3 unproject(glm::dvec2 pixel, double z0) {
    glm::dmat4 inverse = glm::inverse(glm::dmat4(designed_view_proj()));
    glm::dvec2 ndc = pixel / glm::dvec2(kDesignedWidth, kDesignedHeight) * 2.0 - 1.0;
    glm::dvec4 a = inverse * glm::dvec4(ndc, 1.0, 1.0), b = inverse * glm::dvec4(ndc, 0.5, 1.0);
    glm::dvec3 p = glm::dvec3(a) / a.w, q = glm::dvec3(b) / b.w;
    return glm::vec3(p + (z0 - p.z) / (q.z - p.z) * (q - p));
}

void DesignedMesh::add(const std::string& name, CullResult expected, std::array<glm::vec3, 3> p) {
    uint32_t base = uint32_t(positions.size());
    positions.insert(positions.end(), p.begin(), p.end());
    indices.insert(indices.end(), {base, base + 1, base + 2});
    designed.push_back({name, expected});
}

void DesignedMesh::add_on_screen(const std::string& name, CullResult expected, glm::dvec2 a, glm::dvec2 b, glm::dvec2 c,
                                 bool back, double z0) {
    glm::dvec2 e1 = b - a, e2 = c - a;
    bool front = e1.x * e2.y - e1.y * e2.x < 0.0;  // framebuffer y points down
    if (front == back) std::swap(b, c);
    add(name, expected, {unproject(a, z0), unproject(b, z0), unproject(c, z0)});
}

DesignedMesh designed_mesh() {
    using R = CullResult;
    DesignedMesh m;
    // Visible geometry for the image: a front-facing grid behind everything, and a sphere
    // (half of it back-facing, some of it sub-pixel-thin at the silhouette).
    for (int y = 0; y < 12; ++y)
        for (int x = 0; x < 8; ++x) {  // the left half; the mirrored draw covers the right half
            glm::dvec2 p(x * 20.0 + 1.0, y * 15.0 + 1.0);
            m.add_on_screen("grid", R::visible, p, p + glm::dvec2(20, 0), p + glm::dvec2(0, 15), false, -2.0);
            m.add_on_screen("grid", R::visible, p + glm::dvec2(20, 0), p + glm::dvec2(20, 15), p + glm::dvec2(0, 15),
                            false, -2.0);
        }
    const int rings = 10, segments = 20;
    auto sphere = [](int ring, int segment) {
        double theta = std::numbers::pi * ring / rings, phi = 2.0 * std::numbers::pi * segment / segments;
        return glm::vec3(glm::dvec3(1.6, -0.4, -0.5) +
                         0.9 * glm::dvec3(std::sin(theta) * std::cos(phi), std::cos(theta), std::sin(theta) * std::sin(phi)));
    };
    for (int r = 0; r < rings; ++r)
        for (int s = 0; s < segments; ++s) {
            glm::vec3 a = sphere(r, s), b = sphere(r + 1, s), c = sphere(r + 1, s + 1), d = sphere(r, s + 1);
            // Outward-facing, counter-clockwise seen from outside; at the poles, where a quad
            // has a zero-length edge, only its non-degenerate half.
            if (r < rings - 1) m.add("sphere", R::count, {a, c, b});
            if (r > 0) m.add("sphere", R::count, {a, d, c});
        }

    // One triangle per case (expected result by construction; R::count = "whatever the
    // reference says", used for the sphere).
    m.add_on_screen("front", R::visible, {20, 20}, {60, 20}, {20, 60});
    m.add_on_screen("back", R::backface, {70, 20}, {110, 20}, {70, 60}, true);
    m.add_on_screen("left of the view", R::frustum, {-400, 20}, {-300, 20}, {-400, 60});
    m.add_on_screen("right of the view", R::frustum, {700, 20}, {800, 20}, {700, 60});
    m.add_on_screen("above the view", R::frustum, {20, -300}, {60, -300}, {20, -200});
    m.add_on_screen("below the view", R::frustum, {20, 500}, {60, 500}, {20, 600});
    m.add_on_screen("beyond the far plane", R::frustum, {20, 20}, {60, 20}, {20, 60}, false, -30.0);
    // The far plane is 20 from the eye (z = -15): just inside it is kept (the depth test keeps
    // it, behind everything), 1% beyond it is rejected; the frustum margin is 1/16384 of w.
    m.add_on_screen("just inside the far plane", R::visible, {20, 20}, {60, 20}, {20, 60}, false, 5.0 - 20.0 * (1.0 - 1e-5));
    m.add_on_screen("1% beyond the far plane", R::frustum, {20, 20}, {60, 20}, {20, 60}, false, 5.0 - 20.0 * 1.01);
    m.add("behind the camera", R::frustum, {glm::vec3(-1, -1, 8), glm::vec3(1, -1, 8), glm::vec3(0, 1, 8)});
    m.add("behind the camera, back", R::frustum, {glm::vec3(-1, -1, 8), glm::vec3(0, 1, 8), glm::vec3(1, -1, 8)});
    // Crossing the near plane (z = 4) and crossing w = 0 (z = 5): kept in both windings.
    m.add("crossing the near plane", R::visible, {glm::vec3(-2.0f, -1.3f, 0), glm::vec3(-1.2f, -1.3f, 0), glm::vec3(-1.6f, -0.5f, 4.5f)});
    m.add("crossing the near plane, back", R::visible, {glm::vec3(-1.0f, 0.8f, 0), glm::vec3(-1.4f, 1.2f, 4.5f), glm::vec3(-0.2f, 0.8f, 0)});
    m.add("crossing w = 0", R::visible, {glm::vec3(0.2f, 1.0f, 0), glm::vec3(1.0f, 1.0f, 0), glm::vec3(0.6f, 1.4f, 6.0f)});
    m.add("crossing w = 0, back", R::visible, {glm::vec3(0.2f, -1.6f, 0), glm::vec3(0.6f, -1.0f, 6.0f), glm::vec3(1.0f, -1.6f, 0)});
    m.add_on_screen("sub-pixel between centres", R::small, {230.6, 50.6}, {230.9, 50.6}, {230.6, 50.9});
    m.add_on_screen("sub-pixel around a centre", R::visible, {240.4, 60.4}, {240.7, 60.4}, {240.4, 60.7});
    m.add_on_screen("sliver between rows", R::small, {10, 70.55}, {200, 70.6}, {10, 70.7});
    m.add("edge-on through centres", R::visible, {unproject({150.5, 30}, 0.0), unproject({150.5, 90}, -1.5), unproject({150.5, 60}, 1.0)});
    m.add("edge-on between centres", R::small, {unproject({160.0, 30}, 0.0), unproject({160.0, 90}, -1.5), unproject({160.0, 60}, 1.0)});
    m.add_on_screen("back, thinner than snapping", R::visible, {10, 100.5}, {200, 100.501}, {10, 100.502}, true);
    m.add_on_screen("back, thicker than snapping", R::backface, {10, 110.5}, {200, 111.5}, {10, 112.5}, true);
    // Degenerate: a repeated index, and two vertices at the same position.
    uint32_t base = uint32_t(m.positions.size());
    m.positions.insert(m.positions.end(), {unproject({260, 120}, 0.0), unproject({300, 120}, 0.0)});
    m.indices.insert(m.indices.end(), {base, base, base + 1});
    m.designed.push_back({"repeated index", R::degenerate});
    glm::vec3 p = unproject({260, 140}, 0.0);
    m.add("coincident positions", R::degenerate, {p, p, unproject({300, 160}, 0.0)});
    return m;
}

std::string write_positions_gltf(const std::string& dir, const std::string& name, const std::vector<glm::vec3>& positions,
                                 const std::vector<uint32_t>& indices, const nlohmann::json& nodes) {
    size_t position_bytes = positions.size() * 12, index_bytes = indices.size() * 4;
    std::ofstream(dir + "/" + name + ".bin", std::ios::binary)
        .write(reinterpret_cast<const char*>(positions.data()), std::streamsize(position_bytes))
        .write(reinterpret_cast<const char*>(indices.data()), std::streamsize(index_bytes));
    glm::vec3 lo(1e30f), hi(-1e30f);
    for (glm::vec3 p : positions) lo = glm::min(lo, p), hi = glm::max(hi, p);
    nlohmann::json roots = nlohmann::json::array();
    for (size_t i = 0; i < nodes.size(); ++i) roots.push_back(i);
    nlohmann::json gltf = {
        {"asset", {{"version", "2.0"}}},
        {"scene", 0},
        {"scenes", {{{"nodes", roots}}}},
        {"nodes", nodes},
        {"meshes", {{{"primitives", {{{"attributes", {{"POSITION", 0}}}, {"indices", 1}, {"mode", 4}}}}}}},
        {"buffers", {{{"uri", name + ".bin"}, {"byteLength", position_bytes + index_bytes}}}},
        {"bufferViews",
         {{{"buffer", 0}, {"byteOffset", 0}, {"byteLength", position_bytes}},
          {{"buffer", 0}, {"byteOffset", position_bytes}, {"byteLength", index_bytes}}}},
        {"accessors",
         {{{"bufferView", 0}, {"componentType", 5126}, {"count", positions.size()}, {"type", "VEC3"},
           {"min", {lo.x, lo.y, lo.z}}, {"max", {hi.x, hi.y, hi.z}}},
          {{"bufferView", 1}, {"componentType", 5125}, {"count", indices.size()}, {"type", "SCALAR"}}}},
    };
    std::string path = dir + "/" + name + ".gltf";
    std::ofstream(path) << gltf.dump(1);
    return path;
}

std::string write_designed_gltf(const std::string& dir, const DesignedMesh& m) {
    return write_positions_gltf(dir, "designed", m.positions, m.indices,
                                {{{"mesh", 0}}, {{"mesh", 0}, {"matrix", {-1, 0, 0, 0, 0, -1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}}}});
}

void expect_reference_matches_design(const DesignedMesh& mesh, const std::vector<GpuDraw>& draws, const CullReference& ref) {
    // The reference does what each triangle was built for, in both draws.
    for (size_t d = 0; d < draws.size(); ++d) {
        std::vector<bool> kept(mesh.designed.size(), false);
        for (uint32_t t : ref.survivors[d]) kept[t] = true;
        for (size_t t = 0; t < mesh.designed.size(); ++t) {
            const Designed& want = mesh.designed[t];
            if (want.expected == CullResult::count) continue;
            glm::uvec3 index(mesh.indices[3 * t], mesh.indices[3 * t + 1], mesh.indices[3 * t + 2]);
            std::array<glm::vec3, 3> p = {mesh.positions[index.x], mesh.positions[index.y], mesh.positions[index.z]};
            CullResult got = classify_triangle(index, p, draws[d].model, designed_view_proj(), make_cull_params(kDesignedWidth, kDesignedHeight, 8));
            EXPECT_EQ(cull_result_name(got), std::string(cull_result_name(want.expected))) << want.name << ", draw " << d;
            EXPECT_EQ(kept[t], want.expected == CullResult::visible) << want.name;
        }
    }
    for (size_t r = 0; r < size_t(CullResult::count); ++r)
        EXPECT_GT(ref.counts[r], 0u) << "no triangle hits " << cull_result_name(CullResult(r));
    for (const auto& b : ref.borderline) EXPECT_TRUE(b.empty()) << "the designed cases sit clear of every threshold";

}
