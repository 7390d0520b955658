// The level-of-detail chain (src/scene/lod.cpp) on a mesh whose size is known, and the level
// choice's CPU rule (the GPU's is shaders/lod.glsl, held against this one in tests/gpu/test_lod.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include <glm/gtc/matrix_transform.hpp>

#include "lod_oracle.h"
#include "scene/camera.h"
#include "scene/lod.h"
#include "scene/meshlets.h"

namespace {

// A UV sphere: rows x columns quads, closed, no borders to lock.
Scene sphere_scene(uint32_t rows, uint32_t columns, float radius = 1.0f) {
    Scene scene;
    for (uint32_t r = 0; r <= rows; ++r)
        for (uint32_t c = 0; c <= columns; ++c) {
            float theta = float(M_PI) * float(r) / float(rows), phi = 2.0f * float(M_PI) * float(c % columns) / float(columns);
            glm::vec3 p{std::sin(theta) * std::cos(phi), std::cos(theta), std::sin(theta) * std::sin(phi)};
            scene.vertices.push_back({radius * p, p, {0.0f, 0.0f}});
        }
    // Seam vertices (c == columns) share positions with c == 0; the index list uses c % columns,
    // so the mesh is closed.
    auto at = [&](uint32_t r, uint32_t c) { return r * (columns + 1) + c % columns; };
    for (uint32_t r = 0; r < rows; ++r)
        for (uint32_t c = 0; c < columns; ++c) {
            uint32_t a = at(r, c), b = at(r + 1, c), d = at(r, c + 1), e = at(r + 1, c + 1);
            scene.indices.insert(scene.indices.end(), {a, b, e, a, e, d});
        }
    scene.meshes.push_back({0, uint32_t(scene.indices.size()), 0});
    scene.instances.push_back({0, glm::mat4(1.0f)});
    return scene;
}

using Triangle = std::array<glm::dvec3, 3>;

std::vector<Triangle> level_triangles(const Scene& scene, const LodLevel& level) {
    std::vector<Triangle> t(level.index_count / 3);
    for (size_t i = 0; i < t.size(); ++i)
        for (int k = 0; k < 3; ++k) t[i][k] = glm::dvec3(scene.vertices[scene.indices[level.first_index + 3 * i + k]].position);
    return t;
}

// The closest point of a triangle to p (Ericson, Real-Time Collision Detection, 5.1.5).
glm::dvec3 closest_on_triangle(glm::dvec3 p, const Triangle& t) {
    glm::dvec3 a = t[0], b = t[1], c = t[2], ab = b - a, ac = c - a, ap = p - a;
    double d1 = glm::dot(ab, ap), d2 = glm::dot(ac, ap);
    if (d1 <= 0 && d2 <= 0) return a;
    glm::dvec3 bp = p - b;
    double d3 = glm::dot(ab, bp), d4 = glm::dot(ac, bp);
    if (d3 >= 0 && d4 <= d3) return b;
    double vc = d1 * d4 - d3 * d2;
    if (vc <= 0 && d1 >= 0 && d3 <= 0) return a + ab * (d1 / (d1 - d3));
    glm::dvec3 cp = p - c;
    double d5 = glm::dot(ab, cp), d6 = glm::dot(ac, cp);
    if (d6 >= 0 && d5 <= d6) return c;
    double vb = d5 * d2 - d1 * d6;
    if (vb <= 0 && d2 >= 0 && d6 <= 0) return a + ac * (d2 / (d2 - d6));
    double va = d3 * d6 - d5 * d4;
    if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) return b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6)));
    double denom = 1.0 / (va + vb + vc);
    return a + ab * (vb * denom) + ac * (vc * denom);
}

// The farthest that points sampled on `from` (each triangle's corners, edge midpoints, centroid and
// three inner points) lie from the surface `to`, by brute force: every triangle of `to` whose
// bounding sphere could be nearer than the nearest so far.
double farthest_from(const std::vector<Triangle>& from, const std::vector<Triangle>& to) {
    std::vector<glm::dvec4> spheres;
    for (const Triangle& t : to) {
        glm::dvec3 c = (t[0] + t[1] + t[2]) / 3.0;
        spheres.push_back({c, std::max({glm::length(t[0] - c), glm::length(t[1] - c), glm::length(t[2] - c)})});
    }
    const glm::dvec3 weights[] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0.5, 0.5, 0}, {0, 0.5, 0.5}, {0.5, 0, 0.5},
                                  {1.0 / 3, 1.0 / 3, 1.0 / 3}, {4.0 / 6, 1.0 / 6, 1.0 / 6}, {1.0 / 6, 4.0 / 6, 1.0 / 6},
                                  {1.0 / 6, 1.0 / 6, 4.0 / 6}};
    double farthest = 0.0;
    for (const Triangle& t : from)
        for (glm::dvec3 w : weights) {
            glm::dvec3 p = w.x * t[0] + w.y * t[1] + w.z * t[2];
            double nearest = INFINITY;
            for (size_t i = 0; i < to.size(); ++i)
                if (glm::length(p - glm::dvec3(spheres[i])) - spheres[i].w < nearest)
                    nearest = std::min(nearest, glm::length(p - closest_on_triangle(p, to[i])));
            farthest = std::max(farthest, nearest);
        }
    return farthest;
}

}  // namespace

TEST(LodChain, LevelsShrinkErrorsGrowAndTheMemoryStaysUnderTheBaseMesh) {
    Scene scene = sphere_scene(64, 128);  // 16384 triangles
    const std::vector<uint32_t> level0(scene.indices);
    build_lod_chain(scene);
    const Mesh& mesh = scene.meshes[0];
    ASSERT_GE(mesh.lod_count, 5u) << "a smooth closed sphere simplifies well past 1/16";
    ASSERT_LE(mesh.lod_count, kMaxLodLevels);
    EXPECT_EQ(mesh.lods[0].first_index, mesh.first_index);
    EXPECT_EQ(mesh.lods[0].index_count, mesh.index_count);
    EXPECT_EQ(mesh.lods[0].error, 0.0f);
    EXPECT_TRUE(std::equal(level0.begin(), level0.end(), scene.indices.begin())) << "level 0 is the mesh, unchanged";
    uint64_t lod_indices = 0;
    for (uint32_t l = 1; l < mesh.lod_count; ++l) {
        const LodLevel& level = mesh.lods[l];
        const LodLevel& before = mesh.lods[l - 1];
        SCOPED_TRACE("level " + std::to_string(l));
        EXPECT_EQ(level.index_count % 3, 0u);
        EXPECT_GT(level.index_count, 0u);
        EXPECT_LE(level.index_count, before.index_count * 9 / 10) << "each level shrinks";
        EXPECT_GE(level.index_count, before.index_count / 4) << "about half, not a collapse";
        EXPECT_GT(level.error, before.error) << "coarser levels lie farther from the mesh";
        // A sphere of radius 1: even the summed bound (each level's error against the level
        // before, added up) stays under its diameter.
        EXPECT_LT(level.error, 2.0f);
        ASSERT_LE(uint64_t(level.first_index) + level.index_count, scene.indices.size());
        for (uint32_t i = 0; i < level.index_count; ++i)
            ASSERT_LT(scene.indices[level.first_index + i], scene.vertices.size());
        lod_indices += level.index_count;
    }
    EXPECT_LE(mesh.lods[mesh.lod_count - 1].index_count, mesh.index_count / 16);
    // The levels share the vertices: their memory is their indices, less than the base mesh's.
    EXPECT_LE(lod_indices * 4, uint64_t(mesh.index_count) * 4 + scene.vertices.size() * sizeof(Vertex));
    EXPECT_EQ(scene.indices.size(), level0.size() + lod_indices);
    // What the GPU holds of the levels: their indices (the scene's index buffer) and, on the
    // meshlet path, their meshlets; together at most the base mesh's indices, vertices and
    // meshlets (the bound: as much memory again, at most).
    Meshlets meshlets = build_meshlets(scene);
    uint64_t base_meshlets = meshlet_gpu_bytes(meshlets, 0, 0), lod_meshlets = meshlet_gpu_bytes(meshlets, 1, kMaxLodLevels - 1);
    EXPECT_GT(lod_meshlets, 0u);
    EXPECT_LT(lod_meshlets, base_meshlets) << "the levels' meshlets against level 0's";
    EXPECT_LE(lod_indices * 4 + lod_meshlets,
              uint64_t(mesh.index_count) * 4 + scene.vertices.size() * sizeof(Vertex) + base_meshlets);
    // The byte count is the uploads': 96 B per meshlet, 32 per meshlet vertex, 4 per triangle.
    uint64_t all = 0;
    for (const Meshlet& m : meshlets.meshlets) all += 96 + m.vertex_count * 32 + m.triangle_count * 4;
    EXPECT_EQ(base_meshlets + lod_meshlets, all);
    EXPECT_NEAR(mesh.bounding_sphere.w, 1.0f, 1e-3f);
}

TEST(LodChain, ReplicatedUniqueMeshesKeepTheirOwnLevels) {
    Scene scene = sphere_scene(16, 32);
    build_lod_chain(scene);
    update_bounds(scene);
    const Mesh original = scene.meshes[0];
    const uint32_t index_count = uint32_t(scene.indices.size()), vertex_count = uint32_t(scene.vertices.size());
    replicate_grid(scene, 2, /*unique_meshes=*/true);
    ASSERT_EQ(scene.meshes.size(), 4u);
    for (uint32_t c = 1; c < 4; ++c)
        for (uint32_t l = 1; l < original.lod_count; ++l) {
            const LodLevel& copy = scene.meshes[c].lods[l];
            EXPECT_EQ(copy.first_index, original.lods[l].first_index + c * index_count);
            for (uint32_t i = 0; i < copy.index_count; ++i)
                ASSERT_EQ(scene.indices[copy.first_index + i],
                          scene.indices[original.lods[l].first_index + i] + c * vertex_count);
        }
}

TEST(LodChoice, FarDrawsTakeCoarserLevelsAndOffOrInsideKeepsLevelZero) {
    const float errors[4] = {0.0f, 0.01f, 0.04f, 0.16f};
    LodDraw draw;
    draw.bounding_sphere = {0.0f, 0.0f, 0.0f, 1.0f};
    draw.errors = errors;
    draw.level_count = 4;
    // A view that has no stretch off the centre line (corner_stretch 1): the error is projected at
    // the sphere's nearest depth, distance - 1 on the axis.
    const float ppu = 500.0f;  // pixels per unit at depth 1
    auto looking_from = [&](float z, float corner_stretch = 1.0f) {
        return LodView{glm::lookAt(glm::vec3(0.0f, 0.0f, z), glm::vec3(0.0f), glm::vec3(0.0f, 1.0f, 0.0f)), ppu, corner_stretch};
    };
    // Level l is allowed once error * ppu <= depth (1 pixel).
    EXPECT_EQ(choose_lod_level(draw, looking_from(0.5f), 1.0f), 0u) << "camera inside the sphere";
    EXPECT_EQ(choose_lod_level(draw, looking_from(1.0f + 4.9f), 1.0f), 0u);
    EXPECT_EQ(choose_lod_level(draw, looking_from(1.0f + 5.1f), 1.0f), 1u);
    EXPECT_EQ(choose_lod_level(draw, looking_from(1.0f + 20.1f), 1.0f), 2u);
    EXPECT_EQ(choose_lod_level(draw, looking_from(1.0f + 1000.0f), 1.0f), 3u);
    EXPECT_EQ(choose_lod_level(draw, looking_from(1.0f + 1000.0f), 0.0f), 0u) << "--lod off";
    // A level without error (a flat region) is free with LOD, and still not taken with --lod off.
    const float exact[2] = {0.0f, 0.0f};
    LodDraw flat{glm::mat4(1.0f), {0.0f, 0.0f, 0.0f, 1.0f}, exact, 2};
    EXPECT_EQ(choose_lod_level(flat, looking_from(0.5f), 1.0f), 1u);
    EXPECT_EQ(choose_lod_level(flat, looking_from(0.5f), 0.0f), 0u) << "--lod off";
    // The stretch |p| / z of the sphere's points: at most (|c| + r) / depth (here (d + 1) / (d - 1)),
    // at most the corner's. Depth 9 on the axis: level 1 needs 5 * 11 / 9 = 6.1 <= 9 (allowed),
    // level 2 20 * 11 / 9 > 9.
    EXPECT_EQ(choose_lod_level(draw, looking_from(10.0f, 2.0f), 1.0f), 1u);
    // Depth 5.4: (d + 1) / (d - 1) = 1.37; with a corner stretch of 1.1, 5 * 1.1 = 5.5 > 5.4.
    EXPECT_EQ(choose_lod_level(draw, looking_from(6.4f, 1.1f), 1.0f), 0u);
    EXPECT_EQ(choose_lod_level(draw, looking_from(6.4f, 1.0f), 1.0f), 1u);
    // A model scaled 2x doubles both the sphere and the error.
    draw.model = glm::mat4(2.0f);
    draw.model[3][3] = 1.0f;
    EXPECT_EQ(choose_lod_level(draw, looking_from(2.0f + 10.0f - 0.1f), 1.0f), 0u);
    EXPECT_EQ(choose_lod_level(draw, looking_from(2.0f + 10.1f), 1.0f), 1u);
}

// The rule's promise, checked against the brute-force oracle (lod_oracle.h): spheres across the
// whole frame (its centre, edges and corners) from near to far, each with the level the rule
// picks for a budget of one pixel; no level moves a point of its sphere on screen by more than a
// pixel. The straight-line distance to the sphere (the rule before issue 43) moved points in the
// corners by up to 1.8 pixels here (668 of the placements over a pixel).
TEST(LodChoice, NoChosenLevelMovesAPointOnScreenByMoreThanOnePixel) {
    const float errors[7] = {0.0f, 0.01f, 0.02f, 0.04f, 0.08f, 0.16f, 0.32f};
    const glm::uvec2 size(320, 180);
    Camera camera;  // 50 degrees vertical, the demo's
    camera.position = {3.0f, 2.0f, 5.0f};
    camera.target = {-4.0f, 0.0f, -30.0f};
    camera.near_plane = 0.1f;
    camera.far_plane = 1000.0f;
    const glm::mat4 view = camera.view(), projection = camera.projection(float(size.x) / float(size.y));
    const glm::mat4 inverse_view = glm::inverse(view);
    const LodView lod = lod_view(view, projection, size);
    const float radius = 1.0f;
    double worst = 0.0;
    uint32_t coarser = 0, placed = 0;
    for (int sx = -4; sx <= 4; ++sx)
        for (int sy = -2; sy <= 2; ++sy)
            for (float depth = 2.5f; depth < 250.0f; depth *= 1.12f) {
                // The sphere's centre on the ray through NDC (sx / 4, sy / 2), at this view depth.
                glm::vec2 ndc(float(sx) / 4.0f, float(sy) / 2.0f);
                glm::vec3 in_view(ndc.x / projection[0][0] * depth, ndc.y / projection[1][1] * depth, -depth);
                glm::vec3 centre = glm::vec3(inverse_view * glm::vec4(in_view, 1.0f));
                LodDraw draw{glm::translate(glm::mat4(1.0f), centre), {0.0f, 0.0f, 0.0f, radius}, errors, 7};
                uint32_t level = choose_lod_level(draw, lod, 1.0f);
                double px = largest_error_pixels(centre, radius, errors[level], glm::dmat4(projection * view), size);
                ++placed;
                coarser += level > 0;
                worst = std::max(worst, px);
                EXPECT_LE(px, 1.0 + 1e-4) << "level " << level << " of a sphere at NDC " << ndc.x << "," << ndc.y
                                          << ", depth " << depth << " moves a point by " << px << " pixels";
            }
    EXPECT_GT(coarser, placed / 2) << "most placements take a coarser level";
    // Not a rule that always keeps a finer level than it may: some level uses most of its pixel.
    EXPECT_GT(worst, 0.75) << "the largest movement of a chosen level, in pixels";
    RecordProperty("worst_pixels", std::to_string(worst));
}

// Each level's stored error against the distance measured to level 0, on a sphere of radius 7.5
// (meshoptimizer's scale there is about 15, so an error that leaves out or misapplies the scale,
// src/scene/lod.cpp, is off by far more than the noise). The distance is the two-sided one the
// rule's bound assumes (docs/lod.md, "The bound"): sampled points of level l from level 0's surface,
// and of level 0 from level l's. meshoptimizer's error is its quadric error, an estimate, not a
// bound (docs/lod.md, "Image quality": up to 2x short on the bundled scene's meshes); on a smooth
// closed sphere it tracks the distance closely, so both directions are held here: no level lies
// farther from level 0 than kOver times its error, and every level lies at least kUnder times its
// error away, at some sample (an error far too large would make the rule keep detail for nothing).
TEST(LodChain, StoredErrorsMatchTheDistanceToLevelZeroOnAScaledSphere) {
    // Measured here (meshoptimizer 0.18): measured / error from 0.79 to 1.27 over the five levels
    // (0.78 to 1.27 at radius 1). An error scaled by 0.6 reaches 2.1, one scaled by 1.6 falls to 0.49.
    constexpr double kOver = 1.5, kUnder = 0.7;
    constexpr float kRadius = 7.5f;
    Scene scene = sphere_scene(24, 48, kRadius);  // 2304 triangles
    build_lod_chain(scene);
    const Mesh& mesh = scene.meshes[0];
    ASSERT_GE(mesh.lod_count, 5u);
    EXPECT_NEAR(mesh.bounding_sphere.w, kRadius, 1e-3f * kRadius);
    std::vector<Triangle> level0 = level_triangles(scene, mesh.lods[0]);
    for (uint32_t l = 1; l < mesh.lod_count; ++l) {
        std::vector<Triangle> level = level_triangles(scene, mesh.lods[l]);
        double measured = std::max(farthest_from(level, level0), farthest_from(level0, level));
        double error = mesh.lods[l].error;
        std::string what = "level " + std::to_string(l) + " (" + std::to_string(level.size()) + " triangles): error " +
                           std::to_string(error) + ", measured " + std::to_string(measured);
        EXPECT_LE(measured, kOver * error) << what << ": farther from level 0 than its error allows";
        EXPECT_GE(measured, kUnder * error) << what << ": nearer to level 0 than its error claims";
    }
}

