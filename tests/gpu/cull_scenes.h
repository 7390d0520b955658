// Shared by the cull pass's GPU tests (tests/gpu/test_cull.cpp, which render, and
// tests/gpu_compute/test_cull_compute.cpp, which only dispatch the pass): comparing what the GPU
// kept with the CPU reference, and the scene built to hit every test.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <glm/glm.hpp>
#include <nlohmann/json.hpp>

#include "render/cull_reference.h"
#include "scene/camera.h"

using Triangle = std::array<uint32_t, 3>;

// Index triples, sorted: what a draw drew, in any order.
std::vector<Triangle> triangles_of(const std::vector<uint32_t>& indices);
uint64_t triangle_total(const std::vector<std::vector<uint32_t>>& drawn);
// The indices of a draw's triangles `survivors` (triangle numbers within the draw), in that order.
std::vector<uint32_t> reference_indices(const Scene& scene, const GpuDraw& draw, const std::vector<uint32_t>& survivors);

// Where `drawn` (one draw's output, 3 indices per triangle) is not its draw's triangles in input
// order with some left out: names the first survivor that is out of order or not in the draw;
// nothing where it is a subsequence of the input. (Greedy matching decides this exactly, also
// where the input repeats a triangle.)
std::optional<std::string> input_order_violation(const Scene& scene, const GpuDraw& draw,
                                                 const std::vector<uint32_t>& drawn);

// Per draw, the GPU's set must equal the reference's, except for triangles the reference marks
// borderline (on a decision boundary to within rounding), which may go either way, and the
// survivors must be in input order (input_order_violation). Together: slot by slot the
// reference's list, borderline triangles aside. Adds a gtest failure per real difference, naming
// the first few triangles. Returns how many borderline triangles the GPU decided differently.
// The meshlet path draws a draw's triangles meshlet by meshlet, not in input order: it passes
// `in_input_order` false.
uint64_t expect_same_survivors(const Scene& scene, const std::vector<GpuDraw>& draws, const CullReference& ref,
                               const std::vector<std::vector<uint32_t>>& drawn, const std::string& what,
                               bool in_input_order = true);

// ---- The designed scene: one triangle per case, seen by its own camera at kWidth x kHeight ----

constexpr uint32_t kDesignedWidth = 320, kDesignedHeight = 180;
Camera designed_camera();
glm::mat4 designed_view_proj();

struct Designed {
    std::string name;
    CullResult expected;  // CullResult::count: whatever the reference says (background geometry)
};

struct DesignedMesh {
    std::vector<glm::vec3> positions;
    std::vector<uint32_t> indices;
    std::vector<Designed> designed;  // one per triangle, in index order

    void add(const std::string& name, CullResult expected, std::array<glm::vec3, 3> p);
    // A triangle at pixel positions on the plane z = z0, front-facing (counter-clockwise on
    // screen) unless `back`.
    void add_on_screen(const std::string& name, CullResult expected, glm::dvec2 a, glm::dvec2 b, glm::dvec2 c,
                       bool back = false, double z0 = 0.0);
};

DesignedMesh designed_mesh();

// Writes DIR/NAME.gltf and DIR/NAME.bin: one mesh of `positions` and 32-bit `indices` (a triangle
// list, no normals or UVs), drawn by each of `nodes` (glTF nodes naming mesh 0). Returns the .gltf.
std::string write_positions_gltf(const std::string& dir, const std::string& name, const std::vector<glm::vec3>& positions,
                                 const std::vector<uint32_t>& indices, const nlohmann::json& nodes);

// Writes the mesh as DIR/designed.gltf (+ .bin) with two nodes: as is, and turned half a turn
// about the view axis (an exact matrix), which maps the screen onto itself and pixel centres
// onto pixel centres, so every designed triangle has the same expected outcome in both draws.
std::string write_designed_gltf(const std::string& dir, const DesignedMesh& mesh);

// Checks the reference against the designed outcomes (both draws), that every test rejects
// something, and that nothing is borderline.
void expect_reference_matches_design(const DesignedMesh& mesh, const std::vector<GpuDraw>& draws, const CullReference& ref);
