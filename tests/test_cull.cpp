// The cull pass's host side, without a GPU: the CPU reference of the triangle tests against
// hand-placed triangles and against a brute-force rasterizer, the chunk table, the traffic
// count, the dump file and the options.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <random>

#include "run/cull_dump.h"
#include "run/options.h"
#include "passes/cull_pass.h"
#include "render/cull_reference.h"
#include "scene/camera.h"

namespace {

constexpr uint32_t kWidth = 320, kHeight = 180;

// A camera at z = 5 looking down -z (world y up), as in the GPU test's constructed scene.
glm::mat4 test_view_proj() {
    Camera c;
    c.position = {0.0f, 0.0f, 5.0f};
    c.target = {0.0f, 0.0f, 0.0f};
    c.near_plane = 1.0f;
    c.far_plane = 20.0f;
    return c.projection(float(kWidth) / float(kHeight)) * c.view();
}

// The world point on the plane z = z0 that the pixel position (x, y) shows.
glm::vec3 unproject(const glm::mat4& view_proj, glm::dvec2 pixel, double z0) {
    glm::dmat4 inverse = glm::inverse(glm::dmat4(view_proj));
    glm::dvec2 ndc = pixel / glm::dvec2(kWidth, kHeight) * 2.0 - 1.0;
    glm::dvec4 a = inverse * glm::dvec4(ndc, 1.0, 1.0), b = inverse * glm::dvec4(ndc, 0.5, 1.0);
    glm::dvec3 p = glm::dvec3(a) / a.w, q = glm::dvec3(b) / b.w;
    return glm::vec3(p + (z0 - p.z) / (q.z - p.z) * (q - p));
}

CullResult classify_world(std::array<glm::vec3, 3> p, glm::uvec3 index = {0, 1, 2}) {
    return classify_triangle(index, p, glm::mat4(1.0f), test_view_proj(), make_cull_params(kWidth, kHeight, 8));
}

// A triangle at the given pixel positions on the plane z = z0; front-facing (counter-clockwise
// as seen, i.e. negative cross product in y-down framebuffer coordinates) unless `back`.
std::array<glm::vec3, 3> on_screen(glm::dvec2 a, glm::dvec2 b, glm::dvec2 c, bool back = false, double z0 = 0.0) {
    glm::dvec2 e1 = b - a, e2 = c - a;
    bool front = e1.x * e2.y - e1.y * e2.x < 0.0;
    if (front == back) std::swap(b, c);
    glm::mat4 vp = test_view_proj();
    return {unproject(vp, a, z0), unproject(vp, b, z0), unproject(vp, c, z0)};
}

TEST(CullReference, HandPlacedTriangles) {
    EXPECT_EQ(classify_world(on_screen({20, 20}, {60, 20}, {20, 60})), CullResult::visible);
    EXPECT_EQ(classify_world(on_screen({20, 20}, {60, 20}, {20, 60}, true)), CullResult::backface);
    auto ok = on_screen({20, 20}, {60, 20}, {20, 60});
    EXPECT_EQ(classify_world(ok, {4, 4, 7}), CullResult::degenerate);
    EXPECT_EQ(classify_world({ok[0], ok[1], ok[0]}), CullResult::degenerate);
    // Off every side of the view, beyond the far plane, behind the camera.
    EXPECT_EQ(classify_world(on_screen({-400, 20}, {-300, 20}, {-400, 60})), CullResult::frustum);
    EXPECT_EQ(classify_world(on_screen({700, 20}, {800, 20}, {700, 60})), CullResult::frustum);
    EXPECT_EQ(classify_world(on_screen({20, -300}, {60, -300}, {20, -200})), CullResult::frustum);
    EXPECT_EQ(classify_world(on_screen({20, 500}, {60, 500}, {20, 600})), CullResult::frustum);
    EXPECT_EQ(classify_world(on_screen({20, 20}, {60, 20}, {20, 60}, false, -30.0)), CullResult::frustum);
    EXPECT_EQ(classify_world({glm::vec3(-1, -1, 8), glm::vec3(1, -1, 8), glm::vec3(0, 1, 8)}), CullResult::frustum);
    // Crossing the near plane or w = 0: kept whatever the winding (the clipper decides).
    for (float z : {4.5f, 6.0f}) {
        std::array<glm::vec3, 3> crossing = {glm::vec3(-1, -1, 0), glm::vec3(1, -1, 0), glm::vec3(0, 0.2f, z)};
        EXPECT_EQ(classify_world(crossing), CullResult::visible) << z;
        std::swap(crossing[1], crossing[2]);
        EXPECT_EQ(classify_world(crossing), CullResult::visible) << z;
    }
    // Sub-pixel: between pixel centres it goes, around one it stays.
    EXPECT_EQ(classify_world(on_screen({100.6, 50.6}, {100.9, 50.6}, {100.6, 50.9})), CullResult::small);
    EXPECT_EQ(classify_world(on_screen({100.4, 60.4}, {100.7, 60.4}, {100.4, 60.7})), CullResult::visible);
    // A long sliver between two rows of centres covers none of them.
    EXPECT_EQ(classify_world(on_screen({10, 70.55}, {200, 70.6}, {10, 70.7})), CullResult::small);
}

TEST(CullReference, EdgeOnAndNearlyEdgeOnTrianglesAreKeptWhereTheyMeetPixelCentres) {
    glm::mat4 vp = test_view_proj();
    // Three points on the rays of one pixel column at different depths: the triangle lies in a
    // plane through the eye (edge-on, area ~0 after rounding, either sign).
    auto edge_on = [&](double x) {
        return std::array<glm::vec3, 3>{unproject(vp, {x, 30}, 0.0), unproject(vp, {x, 90}, -3.0),
                                        unproject(vp, {x, 60}, 2.0)};
    };
    EXPECT_EQ(classify_world(edge_on(150.5)), CullResult::visible);  // on a column of centres
    EXPECT_EQ(classify_world(edge_on(160.0)), CullResult::small);    // between two columns
    // Back-facing by less than vertex snapping could flip: kept.
    EXPECT_EQ(classify_world(on_screen({10, 100.5}, {200, 100.501}, {10, 100.502}, true)), CullResult::visible);
    // Back-facing by more: culled.
    EXPECT_EQ(classify_world(on_screen({10, 100.5}, {200, 101.5}, {10, 102.5}, true)), CullResult::backface);
}

// Independent oracle: rasterize in double precision (vertex positions exact, no snapping) and
// check that every triangle that is front-facing and covers a pixel centre is kept. Culling
// may keep more (it is conservative), never less. Also checks the tests do cull most of what
// they can, so a reference that keeps everything fails.
TEST(CullReference, NeverRejectsATriangleThatCoversAPixelCentre) {
    std::mt19937 rng(1234);
    std::uniform_real_distribution<double> px(-40.0, 360.0), offset(-3.0, 3.0), depth(-15.0, 4.9);
    glm::mat4 vp = test_view_proj();
    CullParams params = make_cull_params(kWidth, kHeight, 8);
    int covering = 0, culled = 0, not_drawn = 0;
    for (int i = 0; i < 20000; ++i) {
        // Mostly small triangles (offsets of a few pixels), so centres are hit and missed often.
        glm::dvec2 a(px(rng), px(rng) * 0.5);
        glm::dvec2 b = a + glm::dvec2(offset(rng), offset(rng)), c = a + glm::dvec2(offset(rng), offset(rng));
        double z = depth(rng);
        std::array<glm::vec3, 3> world = {unproject(vp, a, z), unproject(vp, b, z), unproject(vp, c, z)};
        CullResult result = classify_triangle({0, 1, 2}, world, glm::mat4(1.0f), vp, params);

        // Where the (float) world triangle really lands, in double.
        std::array<glm::dvec2, 3> s;
        std::array<double, 3> depth_ndc;  // z / w: affine in screen space, so interpolated linearly
        for (int k = 0; k < 3; ++k) {
            glm::dvec4 clip = glm::dmat4(vp) * glm::dvec4(glm::dvec3(world[k]), 1.0);
            s[k] = (glm::dvec2(clip) / clip.w * 0.5 + 0.5) * glm::dvec2(kWidth, kHeight);
            depth_ndc[k] = clip.z / clip.w;
        }
        double cross = (s[1].x - s[0].x) * (s[2].y - s[0].y) - (s[1].y - s[0].y) * (s[2].x - s[0].x);
        bool front = cross < 0.0;
        bool covers = false;
        glm::dvec2 lo = glm::min(s[0], glm::min(s[1], s[2])), hi = glm::max(s[0], glm::max(s[1], s[2]));
        int x0 = std::max(0, int(std::floor(lo.x))), x1 = std::min(int(kWidth) - 1, int(std::ceil(hi.x)));
        int y0 = std::max(0, int(std::floor(lo.y))), y1 = std::min(int(kHeight) - 1, int(std::ceil(hi.y)));
        for (int y = y0; y <= y1 && front && !covers; ++y)
            for (int x = x0; x <= x1 && !covers; ++x) {
                glm::dvec2 p(x + 0.5, y + 0.5);
                auto edge = [&](glm::dvec2 u, glm::dvec2 v) { return (v.x - u.x) * (p.y - u.y) - (v.y - u.y) * (p.x - u.x); };
                // Front faces wind negatively here: inside means every edge function <= 0.
                double w0 = edge(s[1], s[2]), w1 = edge(s[2], s[0]), w2 = edge(s[0], s[1]);
                if (w0 > 0 || w1 > 0 || w2 > 0) continue;
                // Fragments outside the depth range 0..1 are clipped away (reversed Z).
                double depth = (w0 * depth_ndc[0] + w1 * depth_ndc[1] + w2 * depth_ndc[2]) / (w0 + w1 + w2);
                covers = depth >= 0.0 && depth <= 1.0;
            }
        if (covers) {
            ++covering;
            EXPECT_EQ(result, CullResult::visible) << "triangle " << i << " covers a pixel centre but was rejected as "
                                                   << cull_result_name(result);
        } else {
            ++not_drawn;
            culled += result != CullResult::visible;
        }
    }
    EXPECT_GT(covering, 1000);
    EXPECT_GT(culled, not_drawn * 8 / 10) << "the tests reject too little of what is not drawn";
}

TEST(CullChunks, EachChunkIsOneDrawAndTheyCoverEveryTriangleOnce) {
    std::vector<GpuDraw> draws(5);
    const uint32_t triangles[] = {0, 1, 64, 65, 130};
    for (int i = 0; i < 5; ++i) draws[i].index_count = triangles[i] * 3;
    for (uint32_t size : {1u, 7u, 64u, 128u}) {
        std::vector<glm::uvec4> chunks = build_cull_chunks(draws, size);
        std::vector<std::vector<int>> seen(5);
        for (int i = 0; i < 5; ++i) seen[i].assign(triangles[i], 0);
        for (size_t k = 0; k < chunks.size(); ++k) {
            glm::uvec4 c = chunks[k];
            ASSERT_LT(c.x, 5u);
            EXPECT_EQ(c.y, 0u) << "draws without levels of detail have level 0 alone";
            ASSERT_LT(c.z, triangles[c.x]) << "a chunk starts past its draw's end";
            ASSERT_LE(c.w, k);
            EXPECT_EQ(chunks[c.w].x, c.x) << "the draw's first chunk is its own";
            if (c.w > 0) EXPECT_NE(chunks[c.w - 1].x, c.x) << "the draw's first chunk is its first";
            for (uint32_t t = c.z; t < std::min(c.z + size, triangles[c.x]); ++t) seen[c.x][t]++;
        }
        for (int i = 0; i < 5; ++i)
            for (int t = 0; t < int(triangles[i]); ++t) EXPECT_EQ(seen[i][t], 1) << "size " << size << " draw " << i;
        size_t expected = 0;
        for (uint32_t t : triangles) expected += (t + size - 1) / size;
        EXPECT_EQ(chunks.size(), expected);
    }
}

// Each level of a draw is one run of consecutive chunks (one segment of the look-back, cull.comp),
// in triangle order, so cull.comp finds the run's first chunk as chunk - first triangle / size;
// every chunk names its draw's first.
TEST(CullChunks, EachLevelIsOneRunInTriangleOrder) {
    std::vector<GpuDraw> draws(2);
    draws[0].index_count = 130 * 3;
    draws[0].lod_count = 3;
    draws[0].lod_index_count[0] = 130 * 3;
    draws[0].lod_index_count[1] = 40 * 3;
    draws[0].lod_index_count[2] = 7 * 3;
    draws[1].index_count = 16 * 3;
    const uint32_t size = 16;
    std::vector<glm::uvec4> chunks = build_cull_chunks(draws, size);
    // (draw, level) -> triangles: 130 -> 9 chunks, 40 -> 3, 7 -> 1, then draw 1's 16 -> 1.
    ASSERT_EQ(chunks.size(), 14u);
    const uint32_t first_chunk[] = {0, 9, 12, 13};  // per (draw, level), in order
    const glm::uvec2 keys[] = {{0, 0}, {0, 1}, {0, 2}, {1, 0}};
    for (size_t k = 0; k < chunks.size(); ++k) {
        size_t run = k >= 13 ? 3 : k >= 12 ? 2 : k >= 9 ? 1 : 0;
        EXPECT_EQ(glm::uvec2(chunks[k].x, chunks[k].y), keys[run]) << "chunk " << k;
        EXPECT_EQ(chunks[k].z, (k - first_chunk[run]) * size) << "chunk " << k;
        EXPECT_EQ(chunks[k].w, first_chunk[run == 3 ? 3 : 0]) << "chunk " << k << " names another draw's first chunk";
    }
}

TEST(CullTraffic, CountsIndicesDistinctVerticesAndSurvivors) {
    Scene scene;
    scene.vertices.resize(5);
    scene.indices = {0, 1, 2, 2, 1, 3};  // a quad: 4 distinct vertices (vertex 4 unused)
    std::vector<GpuDraw> draws(2);
    for (GpuDraw& d : draws) d.index_count = 6;
    CullTraffic t = cull_traffic(scene, draws, 3, 64);
    // Per draw: 24 B of indices, 4 positions of 12 B, 76 B of draw record read, its 4 B indexCount
    // written. Per chunk (one each): its 16 B entry read, its 4 B ticket read and written, its 4 B
    // look-back word written twice and read by a successor. Per survivor (3): 12 B written in place,
    // and its 4 B source rank.
    EXPECT_EQ(t.bytes_read, 2u * (24 + 48 + 76) + 2 * (16 + 4 + 4));
    EXPECT_EQ(t.bytes_written, 2u * 4 + 2 * (4 + 8) + 3 * 16);
    EXPECT_EQ(t.total(), t.bytes_read + t.bytes_written);
    // Both draws share the quad: its indices and positions count once.
    EXPECT_EQ(t.unique_bytes_read, (24 + 48) + 2u * 76 + 2 * (16 + 4 + 4));
    EXPECT_EQ(t.unique_total(), t.unique_bytes_read + t.bytes_written);
}

TEST(CullDump, RoundTrips) {
    CullDump dump;
    dump.width = 17;
    dump.height = 9;
    dump.view_proj = test_view_proj();
    dump.draws = {{0, 1, 2, 5, 4, 3}, {}, {7, 8, 9}};
    std::string path = (std::filesystem::temp_directory_path() / "sgd-cull-dump-test.txt").string();
    write_cull_dump(path, dump);
    CullDump back = read_cull_dump(path);
    EXPECT_EQ(back.width, 17u);
    EXPECT_EQ(back.height, 9u);
    EXPECT_EQ(back.view_proj, dump.view_proj);  // 9 significant digits round-trip floats exactly
    EXPECT_EQ(back.draws, dump.draws);
    FILE* f = fopen(path.c_str(), "w");
    fputs("# subgroup-demo cull dump 1\nsize 1 1\nview_proj 1 2\n", f);
    fclose(f);
    EXPECT_THROW(read_cull_dump(path), std::runtime_error);
    std::filesystem::remove(path);
}

TEST(CullOptions, ParseAndReject) {
    Options o = parse_options({"--headless", "--cull-group-size", "61", "--cull-dump", "d.txt", "--bandwidth-probe"});
    EXPECT_EQ(o.cull_group_size, 61u);
    EXPECT_EQ(o.cull_dump, "d.txt");
    EXPECT_TRUE(o.bandwidth_probe);
    Options d = parse_options({});
    EXPECT_EQ(d.cull_group_size, kDefaultCullGroupSize);
    EXPECT_FALSE(d.bandwidth_probe);
    EXPECT_THROW(parse_options({"--cull-group-size", "0"}), UsageError);
    EXPECT_THROW(parse_options({"--cull-group-size", "1025"}), UsageError);
    EXPECT_THROW(parse_options({"--cull-dump"}), UsageError);
}

}  // namespace
