// The level-of-detail chain (src/scene/lod.cpp) on a mesh whose size is known, and the level
// choice's CPU rule (the GPU's is shaders/lod.glsl, held against this one in tests/gpu/test_lod.cpp).
#include <gtest/gtest.h>

#include <cmath>

#include "scene/lod.h"
#include "scene/meshlets.h"

namespace {

// A UV sphere of radius 1: rows x columns quads, closed, no borders to lock.
Scene sphere_scene(uint32_t rows, uint32_t columns) {
    Scene scene;
    for (uint32_t r = 0; r <= rows; ++r)
        for (uint32_t c = 0; c <= columns; ++c) {
            float theta = float(M_PI) * float(r) / float(rows), phi = 2.0f * float(M_PI) * float(c % columns) / float(columns);
            glm::vec3 p{std::sin(theta) * std::cos(phi), std::cos(theta), std::sin(theta) * std::sin(phi)};
            scene.vertices.push_back({p, p, {0.0f, 0.0f}});
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
    // The byte count is the uploads': 64 B per meshlet, 32 per meshlet vertex, 4 per triangle.
    uint64_t all = 0;
    for (const Meshlet& m : meshlets.meshlets) all += 64 + m.vertex_count * 32 + m.triangle_count * 4;
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
    const float ppu = 500.0f;  // pixels per unit at distance 1
    // Level l is allowed once error * ppu <= distance to the sphere (1 pixel).
    EXPECT_EQ(choose_lod_level(draw, {0.0f, 0.0f, 0.5f}, ppu, 1.0f), 0u) << "camera inside the sphere";
    EXPECT_EQ(choose_lod_level(draw, {0.0f, 0.0f, 1.0f + 4.9f}, ppu, 1.0f), 0u);
    EXPECT_EQ(choose_lod_level(draw, {0.0f, 0.0f, 1.0f + 5.1f}, ppu, 1.0f), 1u);
    EXPECT_EQ(choose_lod_level(draw, {0.0f, 0.0f, 1.0f + 20.1f}, ppu, 1.0f), 2u);
    EXPECT_EQ(choose_lod_level(draw, {0.0f, 0.0f, 1.0f + 1000.0f}, ppu, 1.0f), 3u);
    EXPECT_EQ(choose_lod_level(draw, {0.0f, 0.0f, 1.0f + 1000.0f}, ppu, 0.0f), 0u) << "--lod off";
    // A level without error (a flat region) is free with LOD, and still not taken with --lod off.
    const float exact[2] = {0.0f, 0.0f};
    LodDraw flat{glm::mat4(1.0f), {0.0f, 0.0f, 0.0f, 1.0f}, exact, 2};
    EXPECT_EQ(choose_lod_level(flat, {0.0f, 0.0f, 0.5f}, ppu, 1.0f), 1u);
    EXPECT_EQ(choose_lod_level(flat, {0.0f, 0.0f, 0.5f}, ppu, 0.0f), 0u) << "--lod off";
    // A model scaled 2x doubles both the sphere and the error.
    draw.model = glm::mat4(2.0f);
    draw.model[3][3] = 1.0f;
    EXPECT_EQ(choose_lod_level(draw, {0.0f, 0.0f, 2.0f + 5.1f}, ppu, 1.0f), 0u);
    EXPECT_EQ(choose_lod_level(draw, {0.0f, 0.0f, 2.0f + 10.1f}, ppu, 1.0f), 1u);
}
