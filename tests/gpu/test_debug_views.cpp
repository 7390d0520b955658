// Debug views (lane-id, first-last-lane, active-lanes) in every stage, end to end: the demo
// renders each, validation clean, and the image is decoded back into lanes. Oracles: the
// subgroup size and capabilities the report states, a shaded screenshot of the same frame (what a
// view must leave alone, dim or hatch), the quad layout Vulkan fixes for fragment shaders, and the
// compute view's known dispatch shape.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>

#include <glm/glm.hpp>
#include <glm/gtc/constants.hpp>
#include <stb/stb_image_write.h>

#include "app/atlas.h"
#include "gpu/harness.h"
#include "known_drivers.h"
#include "passes/debug_view_pass.h"
#include "scoped_env.h"

namespace {

constexpr int kWidth = 256, kHeight = 144;  // whole 16x16 compute tiles



// ---- A small scene of our own: a finely tessellated ground (small triangles: partly filled
// subgroups), a sphere (medium) and a box (large triangles: full subgroups). Written once per test
// process as .gltf + .bin, so the tests need nothing from outside the repository.

struct MeshData {
    std::vector<float> positions, normals, uvs;  // xyz, xyz, uv
    std::vector<uint32_t> indices;
    void vertex(glm::vec3 p, glm::vec3 n, glm::vec2 uv) {
        positions.insert(positions.end(), {p.x, p.y, p.z});
        normals.insert(normals.end(), {n.x, n.y, n.z});
        uvs.insert(uvs.end(), {uv.x, uv.y});
    }
};

MeshData ground(int quads, float half) {
    MeshData m;
    for (int j = 0; j <= quads; ++j)
        for (int i = 0; i <= quads; ++i)
            m.vertex({-half + 2 * half * i / quads, 0, -half + 2 * half * j / quads}, {0, 1, 0},
                     {4.0f * i / quads, 4.0f * j / quads});
    for (int j = 0; j < quads; ++j)
        for (int i = 0; i < quads; ++i) {
            uint32_t a = j * (quads + 1) + i, c = a + 1, b = a + quads + 1, d = b + 1;  // b, d: next z
            m.indices.insert(m.indices.end(), {a, b, c, b, d, c});  // counter-clockwise seen from +y
        }
    return m;
}

MeshData sphere(glm::vec3 centre, float radius, int rings, int segments) {
    MeshData m;
    for (int r = 0; r <= rings; ++r)
        for (int s = 0; s <= segments; ++s) {
            float theta = glm::pi<float>() * r / rings, phi = 2 * glm::pi<float>() * s / segments;
            glm::vec3 n(std::sin(theta) * std::cos(phi), std::cos(theta), std::sin(theta) * std::sin(phi));
            m.vertex(centre + radius * n, n, {2.0f * s / segments, 1.0f * r / rings});
        }
    for (int r = 0; r < rings; ++r)
        for (int s = 0; s < segments; ++s) {
            uint32_t a = r * (segments + 1) + s, c = a + 1, b = a + segments + 1, d = b + 1;
            m.indices.insert(m.indices.end(), {a, c, b, c, d, b});  // outward
        }
    return m;
}

MeshData box(glm::vec3 centre, float half) {
    MeshData m;
    const glm::vec3 x(1, 0, 0), y(0, 1, 0), z(0, 0, 1);
    // (u, v) with u x v = the face normal, so a, b, c, d run counter-clockwise seen from outside.
    const glm::vec3 faces[6][2] = {{y, z}, {z, y}, {z, x}, {x, z}, {x, y}, {y, x}};
    for (const auto& f : faces) {
        glm::vec3 u = f[0], v = f[1], n = glm::cross(u, v);
        uint32_t base = uint32_t(m.positions.size() / 3);
        for (glm::vec2 k : {glm::vec2(-1, -1), glm::vec2(1, -1), glm::vec2(1, 1), glm::vec2(-1, 1)})
            m.vertex(centre + half * (n + k.x * u + k.y * v), n, 0.5f * (k + 1.0f));
        m.indices.insert(m.indices.end(), {base, base + 1, base + 2, base, base + 2, base + 3});
    }
    return m;
}

std::string write_test_scene(const std::string& dir) {
    std::vector<MeshData> meshes = {ground(48, 6.0f), sphere({0, 2.2f, 0}, 2.2f, 14, 28), box({-3.6f, 1.3f, 2.6f}, 1.3f)};
    const float colours[3][3] = {{0.6f, 0.6f, 0.55f}, {0.8f, 0.3f, 0.2f}, {0.2f, 0.4f, 0.8f}};
    nlohmann::json gltf = {{"asset", {{"version", "2.0"}}}, {"scene", 0}};
    std::vector<uint8_t> bin;
    auto add_view = [&](const void* data, size_t bytes, int target) {
        size_t offset = bin.size();
        bin.insert(bin.end(), static_cast<const uint8_t*>(data), static_cast<const uint8_t*>(data) + bytes);
        gltf["bufferViews"].push_back({{"buffer", 0}, {"byteOffset", offset}, {"byteLength", bytes}, {"target", target}});
        return int(gltf["bufferViews"].size()) - 1;
    };
    for (size_t i = 0; i < meshes.size(); ++i) {
        const MeshData& m = meshes[i];
        size_t count = m.positions.size() / 3;
        glm::vec3 lo(1e30f), hi(-1e30f);
        for (size_t v = 0; v < count; ++v) {
            glm::vec3 p(m.positions[3 * v], m.positions[3 * v + 1], m.positions[3 * v + 2]);
            lo = glm::min(lo, p);
            hi = glm::max(hi, p);
        }
        int base = int(gltf["accessors"].size());
        gltf["accessors"].push_back({{"bufferView", add_view(m.positions.data(), m.positions.size() * 4, 34962)},
                                     {"componentType", 5126}, {"count", count}, {"type", "VEC3"},
                                     {"min", {lo.x, lo.y, lo.z}}, {"max", {hi.x, hi.y, hi.z}}});
        gltf["accessors"].push_back({{"bufferView", add_view(m.normals.data(), m.normals.size() * 4, 34962)},
                                     {"componentType", 5126}, {"count", count}, {"type", "VEC3"}});
        gltf["accessors"].push_back({{"bufferView", add_view(m.indices.data(), m.indices.size() * 4, 34963)},
                                     {"componentType", 5125}, {"count", m.indices.size()}, {"type", "SCALAR"}});
        gltf["accessors"].push_back({{"bufferView", add_view(m.uvs.data(), m.uvs.size() * 4, 34962)},
                                     {"componentType", 5126}, {"count", count}, {"type", "VEC2"}});
        gltf["materials"].push_back({{"pbrMetallicRoughness",
                                      {{"baseColorFactor", {colours[i][0], colours[i][1], colours[i][2], 1.0}},
                                       {"baseColorTexture", {{"index", 0}}}}}});
        gltf["meshes"].push_back({{"primitives",
                                   {{{"attributes", {{"POSITION", base}, {"NORMAL", base + 1}, {"TEXCOORD_0", base + 3}}},
                                     {"indices", base + 2},
                                     {"material", int(i)}}}}});
        gltf["nodes"].push_back({{"mesh", int(i)}});
        gltf["scenes"][0]["nodes"].push_back(int(i));
    }
    gltf["buffers"].push_back({{"uri", "scene.bin"}, {"byteLength", bin.size()}});
    // A checker texture: shading with texture detail, and the forward pass's texture array in use.
    std::vector<uint8_t> checker(64 * 64 * 4);
    for (int i = 0; i < 64 * 64; ++i) {
        uint8_t v = ((i % 64) / 8 + (i / 64) / 8) % 2 ? 230 : 120;
        checker[4 * i] = checker[4 * i + 1] = checker[4 * i + 2] = v;
        checker[4 * i + 3] = 255;
    }
    stbi_write_png((dir + "/checker.png").c_str(), 64, 64, 4, checker.data(), 64 * 4);
    gltf["images"].push_back({{"uri", "checker.png"}});
    gltf["textures"].push_back({{"source", 0}});
    std::ofstream(dir + "/scene.bin", std::ios::binary).write(reinterpret_cast<const char*>(bin.data()), std::streamsize(bin.size()));
    std::ofstream(dir + "/scene.gltf") << gltf.dump();
    return dir + "/scene.gltf";
}

// The scene file of this test process (each ctest entry is its own process).
const std::string& test_scene() {
    static const std::string path = write_test_scene(test_dir("scene"));
    return path;
}

// Light lists off and few lights: the shaded frame is then bit-identical from run to run, so
// pixels a view must keep can be compared exactly with a separate shaded run.
std::vector<std::string> base_args(const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"--headless", "--scene", test_scene(),  "--size",       std::to_string(kWidth) + "x" + std::to_string(kHeight),
                                     "--frames",   "1",      "--warmup", "0",          "--lights", "16",
                                     "--light-cull", "off"};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
}

uint32_t pixel(const Png& png, int x, int y) {
    const uint8_t* p = png.at(x, y);
    return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | 0xff000000u;
}

int channel(uint32_t c, int i) { return int((c >> (8 * i)) & 0xff); }

bool near(uint32_t a, uint32_t b, int tolerance) {
    for (int i = 0; i < 3; ++i)
        if (std::abs(channel(a, i) - channel(b, i)) > tolerance) return false;
    return true;
}

// The lane a pixel shows in lane-id, or -1 when it is not exactly a palette colour.
int decode_lane(uint32_t c) {
    static const std::map<uint32_t, int> palette = [] {
        std::map<uint32_t, int> m;
        for (uint32_t lane = 0; lane < kLanePaletteSize; ++lane) m[lane_colour(lane)] = int(lane);
        return m;
    }();
    auto it = palette.find(c);
    return it == palette.end() ? -1 : it->second;
}

// The shaded frame for these arguments (no view).
Png shaded_reference(const std::vector<std::string>& extra) {
    std::string dir = test_dir("reference");
    std::vector<std::string> args = base_args(extra);
    args.insert(args.end(), {"--screenshot", dir + "/shaded.png"});
    DemoRun run = run_demo(args);
    EXPECT_EQ(run.exit_code, 0) << run.output;
    return read_png(dir + "/shaded.png");
}

struct ViewRun {
    DemoRun run;
    nlohmann::json report;
    Png image;
};

ViewRun render_view(const std::string& mode, const std::string& stage, const std::vector<std::string>& extra,
                    bool legend = false) {
    std::string dir = test_dir(mode + "." + stage);
    std::vector<std::string> args = base_args(extra);
    args.insert(args.end(), {"--validate", "--view", mode, "--view-stage", stage, "--report", dir + "/r.json",
                             "--screenshot", dir + "/view.png"});
    if (!legend) args.push_back("--no-legend");
    ViewRun v{run_demo(args), read_json(dir + "/r.json"), read_png(dir + "/view.png")};
    if (v.run.exit_code == 0 && (v.image.width != kWidth || v.image.height != kHeight))
        ADD_FAILURE() << "no " << kWidth << "x" << kHeight << " screenshot from: " << v.run.output;
    return v;
}

// The report's own account of the device: does `stage` run the view's operations?
bool report_says_supported(const nlohmann::json& r, const std::string& mode, const std::string& stage) {
    auto has = [](const nlohmann::json& list, const std::string& name) {
        for (const auto& e : list)
            if (e == name) return true;
        return false;
    };
    bool ops = has(r["subgroup"]["operations"], "basic") && (mode == "lane-id" || has(r["subgroup"]["operations"], "ballot"));
    return has(r["subgroup"]["stages"], stage) && ops;
}

// The "no subgroup support" marking: stripes of kHatchColour where hatch_stripe() holds, over the
// geometry (graphics stages) or the whole frame (compute); every other pixel exactly as shaded.
void expect_hatch(const Png& view, const Png& shaded, bool whole_frame) {
    ASSERT_EQ(view.width, shaded.width);
    uint32_t clear = pixel(shaded, 0, 0);
    int geometry = 0, hatched = 0, wrong = 0;
    for (int y = 0; y < view.height; ++y)
        for (int x = 0; x < view.width; ++x) {
            uint32_t v = pixel(view, x, y), s = pixel(shaded, x, y);
            bool on_geometry = s != clear;
            geometry += on_geometry;
            bool ok;
            if (!hatch_stripe(x, y)) ok = v == s;
            else if (whole_frame || on_geometry) ok = v == kHatchColour;
            else ok = v == s || v == kHatchColour;  // a lit pixel may happen to equal the clear colour
            hatched += hatch_stripe(x, y) && v == kHatchColour;
            if (!ok && ++wrong <= 5) ADD_FAILURE() << "pixel " << x << "," << y << ": " << std::hex << v << " shaded " << s;
        }
    EXPECT_EQ(wrong, 0);
    EXPECT_GT(geometry, view.width * view.height / 20) << "the scene covers too little of the frame for this test";
    EXPECT_GT(hatched, whole_frame ? view.width * view.height / 3 : geometry / 3);
}

struct Combination {
    std::string mode, stage;
};

// One view in one stage: exit 0, validation clean, the report's plan, and the image decoded.
void check_view_in_stage(const Combination& c) {
    REQUIRE_DRAWING();
    ViewRun v = render_view(c.mode, c.stage, {});
    ASSERT_EQ(v.run.exit_code, 0) << v.run.output;
    EXPECT_EQ(validation_lines(v.run.output), 0) << v.run.output;
    ASSERT_TRUE(v.report.is_object());
    EXPECT_EQ(v.report["validation"]["messages"], 0);
    const nlohmann::json& plan = v.report["plan"]["view"];
    EXPECT_EQ(plan["mode"], c.mode);
    EXPECT_EQ(plan["stage"], c.stage);
    int size = v.report["subgroup"]["size"].get<int>();
    if (int expected = expected_subgroup_size()) EXPECT_EQ(size, expected);

    Png shaded = shaded_reference({});
    ASSERT_EQ(v.image.width, kWidth);
    ASSERT_EQ(shaded.width, kWidth);
    bool compute = c.stage == "compute";
    // Supported or not: the record's answer where the running driver has one (tests/known_drivers.h),
    // never the report under test's; on other drivers the report's own account of the device.
    const KnownDriver* k = known_driver();
    bool supported = k ? record_supports_view(*k, c.mode, c.stage)
                       : report_says_supported(v.report, c.mode, c.stage) &&
                             plan["reason"].get<std::string>().find("feature") == std::string::npos;
    if (!supported) {
        EXPECT_EQ(plan["variant"], "unsupported") << plan["reason"];
        // And for the reason the record gives: no subgroups in the stage (lavapipe's vertex,
        // tessellation and geometry stages), not a missing device feature it has.
        if (k && !k->has_stage(c.stage))
            EXPECT_EQ(plan["reason"], c.stage + " stage has no subgroup support") << plan["reason"];
        EXPECT_NE(v.run.output.find("unsupported"), std::string::npos) << v.run.output;
        expect_hatch(v.image, shaded, compute);
        return;
    }
    ASSERT_EQ(plan["variant"], "subgroup") << plan["reason"];

    // Graphics views draw only over the scene's geometry: a pixel that is still the clear colour
    // in both images is background. Tessellation and geometry views redraw depth through their
    // own stages, so a few silhouette pixels may legitimately differ in coverage.
    uint32_t clear = pixel(shaded, 0, 0);
    bool exact_coverage = c.stage == "vertex" || c.stage == "fragment" || compute;
    bool quads_in_fragment = false;
    for (const auto& op : v.report["subgroup"]["operations"]) quads_in_fragment |= op == "quad";
    if (k) quads_in_fragment = k->has_op("quad");  // the record's answer where there is one
    int drawn = 0, undecoded = 0;
    std::set<int> lanes;
    for (int y = 0; y < kHeight; ++y)
        for (int x = 0; x < kWidth; ++x) {
            uint32_t p = pixel(v.image, x, y), s = pixel(shaded, x, y);
            if (!compute && p == clear && s == clear) continue;
            ++drawn;
            bool ok = false;
            if (c.mode == "lane-id") {
                int lane = decode_lane(p);
                ok = lane >= 0;
                if (ok) {
                    EXPECT_LT(lane, size) << "pixel " << x << "," << y;
                    lanes.insert(lane);
                    // Where the fragment stage has quad operations, a quad's four fragments are
                    // lanes 4k..4k+3 in the order top-left, top-right, bottom-left, bottom-right.
                    if (c.stage == "fragment" && quads_in_fragment)
                        EXPECT_EQ(lane % 4, (x & 1) + 2 * (y & 1)) << "pixel " << x << "," << y;
                }
            } else if (c.mode == "first-last-lane") {
                uint32_t dimmed = 0xff000000u;
                for (int i = 0; i < 3; ++i)
                    dimmed |= uint32_t(std::lround(channel(s, i) * (1.0 - kFirstLastDim))) << (8 * i);
                ok = p == kFirstLaneColour || p == kLastLaneColour || p == kOnlyLaneColour || near(p, dimmed, 2);
                if (p == kFirstLaneColour) lanes.insert(0);
                if (p == kLastLaneColour) lanes.insert(1);
            } else {
                // A fraction k / size of active lanes, 1 <= k <= size.
                for (int k = 1; k <= size && !ok; ++k) ok = near(p, active_ramp_colour(float(k) / float(size)), 2);
                if (compute) EXPECT_EQ(p, kActiveRamp[2]) << "pixel " << x << "," << y << ": not every lane active";
            }
            if (!ok && (exact_coverage || p != s)) {
                if (++undecoded <= 5) ADD_FAILURE() << "pixel " << x << "," << y << " does not decode: " << std::hex << p;
            } else if (!ok) {
                ++undecoded;  // left as shaded: the view's draw missed this pixel
            }
        }
    EXPECT_GT(drawn, kWidth * kHeight / 20);
    if (exact_coverage) EXPECT_EQ(undecoded, 0);
    else EXPECT_LE(undecoded, drawn / 100);
    if (c.mode == "lane-id" && (c.stage == "fragment" || compute))
        EXPECT_EQ(int(lanes.size()), size) << "not every lane 0.." << size - 1 << " occurs";
    if (c.mode == "first-last-lane") EXPECT_EQ(lanes.size(), 2u) << "first and last marks must both occur";
}

#define VIEW_TEST(name, mode, stage) \
    TEST(DebugViews, name) { check_view_in_stage({mode, stage}); }

VIEW_TEST(LaneIdInVertex, "lane-id", "vertex")
VIEW_TEST(LaneIdInTessControl, "lane-id", "tess-control")
VIEW_TEST(LaneIdInTessEval, "lane-id", "tess-eval")
VIEW_TEST(LaneIdInGeometry, "lane-id", "geometry")
VIEW_TEST(LaneIdInFragment, "lane-id", "fragment")
VIEW_TEST(LaneIdInCompute, "lane-id", "compute")
VIEW_TEST(FirstLastLaneInVertex, "first-last-lane", "vertex")
VIEW_TEST(FirstLastLaneInTessControl, "first-last-lane", "tess-control")
VIEW_TEST(FirstLastLaneInTessEval, "first-last-lane", "tess-eval")
VIEW_TEST(FirstLastLaneInGeometry, "first-last-lane", "geometry")
VIEW_TEST(FirstLastLaneInFragment, "first-last-lane", "fragment")
VIEW_TEST(FirstLastLaneInCompute, "first-last-lane", "compute")
VIEW_TEST(ActiveLanesInVertex, "active-lanes", "vertex")
VIEW_TEST(ActiveLanesInTessControl, "active-lanes", "tess-control")
VIEW_TEST(ActiveLanesInTessEval, "active-lanes", "tess-eval")
VIEW_TEST(ActiveLanesInGeometry, "active-lanes", "geometry")
VIEW_TEST(ActiveLanesInFragment, "active-lanes", "fragment")
VIEW_TEST(ActiveLanesInCompute, "active-lanes", "compute")

// Lanes of the compute view, per pixel, and which subgroup each pixel belongs to. A subgroup is a
// run of consecutive local invocation indices of one workgroup (how lavapipe packs them, and
// NVIDIA as far as we know), so the pixel whose local index is `index - lane` starts it.
struct ComputeLanes {
    std::vector<int> lane;         // per pixel
    std::vector<int64_t> subgroup;  // per pixel
};

ComputeLanes compute_lanes(const Png& png) {
    ComputeLanes c;
    for (int y = 0; y < png.height; ++y)
        for (int x = 0; x < png.width; ++x) {
            int lane = decode_lane(pixel(png, x, y));
            int local = (y % kViewWorkgroup) * kViewWorkgroup + x % kViewWorkgroup;
            int64_t group = int64_t(y / kViewWorkgroup) * png.width + x / kViewWorkgroup;
            c.lane.push_back(lane);
            c.subgroup.push_back(group * 4096 + (local - lane));
        }
    return c;
}

TEST(DebugViews, ComputeSubgroupsTileWorkgroupsWithEveryLaneOnce) {
    REQUIRE_DRAWING();
    ViewRun v = render_view("lane-id", "compute", {});
    ASSERT_EQ(v.run.exit_code, 0) << v.run.output;
    ASSERT_EQ(v.image.width, kWidth);
    int size = v.report["subgroup"]["size"].get<int>();
    ComputeLanes c = compute_lanes(v.image);
    std::map<int64_t, std::multiset<int>> groups;
    for (size_t i = 0; i < c.lane.size(); ++i) {
        ASSERT_GE(c.lane[i], 0) << "pixel " << i << " is not a lane colour";
        groups[c.subgroup[i]].insert(c.lane[i]);
    }
    // 16x16 workgroups tile the 256x144 frame exactly and hold whole subgroups.
    ASSERT_EQ(int(kViewWorkgroup * kViewWorkgroup) % size, 0);
    EXPECT_EQ(groups.size(), size_t(kWidth * kHeight / size));
    for (const auto& [key, lanes] : groups) {
        ASSERT_EQ(int(lanes.size()), size) << "subgroup " << key;
        for (int lane = 0; lane < size; ++lane) EXPECT_EQ(lanes.count(lane), 1u) << "subgroup " << key << " lane " << lane;
    }
}

TEST(DebugViews, ComputeFirstLastMarksOneFirstAndOneLastPerSubgroup) {
    REQUIRE_DRAWING();
    ViewRun lanes_run = render_view("lane-id", "compute", {});
    ViewRun marks_run = render_view("first-last-lane", "compute", {});
    ASSERT_EQ(lanes_run.run.exit_code, 0) << lanes_run.run.output;
    ASSERT_EQ(marks_run.run.exit_code, 0) << marks_run.run.output;
    ASSERT_EQ(lanes_run.image.width, kWidth);
    ASSERT_EQ(marks_run.image.width, kWidth);
    EXPECT_EQ(validation_lines(marks_run.run.output), 0) << marks_run.run.output;
    int size = marks_run.report["subgroup"]["size"].get<int>();
    ComputeLanes c = compute_lanes(lanes_run.image);
    std::map<int64_t, std::pair<int, int>> marks;  // subgroup -> (first marks, last marks)
    for (int y = 0; y < kHeight; ++y)
        for (int x = 0; x < kWidth; ++x) {
            size_t i = size_t(y) * kWidth + x;
            ASSERT_GE(c.lane[i], 0);
            uint32_t p = pixel(marks_run.image, x, y);
            auto& m = marks[c.subgroup[i]];
            EXPECT_NE(p, kOnlyLaneColour) << "a full subgroup of " << size << " has one active lane?";
            if (p == kFirstLaneColour) {
                ++m.first;
                EXPECT_EQ(c.lane[i], 0) << "full subgroup: the first active lane is lane 0";
            }
            if (p == kLastLaneColour) {
                ++m.second;
                EXPECT_EQ(c.lane[i], size - 1) << "full subgroup: the last active lane is the last lane";
            }
        }
    EXPECT_EQ(marks.size(), size_t(kWidth * kHeight / size));
    for (const auto& [key, m] : marks) {
        EXPECT_EQ(m.first, 1) << "subgroup " << key;
        EXPECT_EQ(m.second, 1) << "subgroup " << key;
    }
}

// Under --shading visibility the compute views are the shading pass's own (visibility_shade.comp
// SHADE_VIEW): 16x8-pixel workgroups of 128 lanes, lane L shading pixel (L & 1, (L >> 1) & 1) of
// quad L >> 2, quads row by row, 8 a row (quad_tile.glsl). With quad-swap derivatives L is
// numbered by subgroup (gl_SubgroupID * size + gl_SubgroupInvocationID), so the lane shown is
// exactly L % size; without them (--mask-ops quad) L is the local index, which lavapipe packs into
// subgroups in order (as compute_lanes assumes), so the same. The 16x16 compute view would show
// (16 y + x) % size instead. First-last-lane marks lanes 0 and size - 1 of every subgroup (all full),
// active-lanes shows every subgroup full.
int shading_pass_lane(int x, int y, int size) {
    int tile_x = x % kQuadTileWidth, tile_y = y % kQuadTileHeight;
    int quad = tile_x / 2 + (tile_y / 2) * (kQuadTileWidth / 2);
    return (4 * quad + (tile_x & 1) + 2 * (tile_y & 1)) % size;
}

TEST(DebugViews, VisibilityShadingPassShowsItsQuadsAndSubgroups) {
    REQUIRE_DRAWING();
    static_assert(kWidth % kQuadTileWidth == 0 && kHeight % kQuadTileHeight == 0, "whole tiles");
    for (bool masked : {false, true}) {
        SCOPED_TRACE(masked ? "--mask-ops quad: analytic derivatives" : "quad-swap derivatives");
        std::vector<std::string> extra = {"--shading", "visibility"};
        if (masked) extra.insert(extra.end(), {"--mask-ops", "quad"});
        ViewRun lanes = render_view("lane-id", "compute", extra);
        ASSERT_EQ(lanes.run.exit_code, 0) << lanes.run.output;
        EXPECT_EQ(validation_lines(lanes.run.output), 0) << lanes.run.output;
        std::string reason = lanes.report["plan"]["view"]["reason"];
        EXPECT_NE(reason.find("drawn by the visibility shading pass"), std::string::npos) << reason;
        EXPECT_NE(reason.find(masked ? "numbered by local index" : "numbered by subgroup"), std::string::npos) << reason;
        int size = lanes.report["subgroup"]["size"].get<int>();
        int wrong = 0;
        for (int y = 0; y < kHeight; ++y)
            for (int x = 0; x < kWidth; ++x)
                if (decode_lane(pixel(lanes.image, x, y)) != shading_pass_lane(x, y, size) && wrong++ < 5)
                    ADD_FAILURE() << "pixel " << x << "," << y << ": lane " << decode_lane(pixel(lanes.image, x, y)) << ", want "
                                  << shading_pass_lane(x, y, size);
        EXPECT_EQ(wrong, 0);
        if (masked) continue;
        ViewRun marks = render_view("first-last-lane", "compute", extra);
        ViewRun active = render_view("active-lanes", "compute", extra);
        ASSERT_EQ(marks.run.exit_code, 0) << marks.run.output;
        ASSERT_EQ(active.run.exit_code, 0) << active.run.output;
        EXPECT_EQ(validation_lines(marks.run.output) + validation_lines(active.run.output), 0);
        int first = 0, last = 0;
        for (int y = 0; y < kHeight; ++y)
            for (int x = 0; x < kWidth; ++x) {
                int lane = shading_pass_lane(x, y, size);
                uint32_t p = pixel(marks.image, x, y);
                first += p == kFirstLaneColour;
                last += p == kLastLaneColour;
                EXPECT_EQ(p == kFirstLaneColour, lane == 0) << "pixel " << x << "," << y;
                EXPECT_EQ(p == kLastLaneColour, lane == size - 1) << "pixel " << x << "," << y;
                EXPECT_EQ(pixel(active.image, x, y), kActiveRamp[2]) << "pixel " << x << "," << y << ": not every lane active";
            }
        EXPECT_EQ(first, kWidth * kHeight / size);
        EXPECT_EQ(last, kWidth * kHeight / size);
        EXPECT_EQ(active.report["counters"]["view"]["subgroups"].get<int>(), kWidth * kHeight / size);
    }
}

// --mask-stages removes support as a device without it would: the view falls back to the marking.
TEST(DebugViews, MaskedStagesDrawTheMarkingAndSayWhy) {
    REQUIRE_DRAWING();
    for (const char* stage : {"fragment", "compute"}) {
        std::vector<std::string> mask = {"--mask-stages", stage};
        // One shaded reference per mask: it has no view, so both modes compare against the same frame.
        Png shaded = shaded_reference(mask);
        for (const char* mode : {"lane-id", "active-lanes"}) {
            SCOPED_TRACE(std::string(mode) + " in " + stage);
            ViewRun v = render_view(mode, stage, mask);
            ASSERT_EQ(v.run.exit_code, 0) << v.run.output;
            EXPECT_EQ(validation_lines(v.run.output), 0) << v.run.output;
            EXPECT_EQ(v.report["plan"]["view"]["variant"], "unsupported");
            EXPECT_NE(v.report["plan"]["view"]["reason"].get<std::string>().find("--mask-stages"), std::string::npos);
            expect_hatch(v.image, shaded, std::string(stage) == "compute");
        }
    }
}

// Without ballot, first-last-lane and active-lanes cannot run; lane-id (basic only) still can.
TEST(DebugViews, MaskedBallotLeavesOnlyLaneId) {
    REQUIRE_DRAWING();
    std::vector<std::string> mask = {"--mask-ops", "ballot"};
    ViewRun marks = render_view("first-last-lane", "compute", mask);
    ASSERT_EQ(marks.run.exit_code, 0) << marks.run.output;
    EXPECT_EQ(marks.report["plan"]["view"]["variant"], "unsupported");
    EXPECT_NE(marks.report["plan"]["view"]["reason"].get<std::string>().find("ballot"), std::string::npos);
    expect_hatch(marks.image, shaded_reference(mask), true);

    ViewRun lanes = render_view("lane-id", "fragment", mask);
    ASSERT_EQ(lanes.run.exit_code, 0) << lanes.run.output;
    ASSERT_EQ(lanes.image.width, kWidth);
    EXPECT_EQ(lanes.report["plan"]["view"]["variant"], "subgroup");
    int size = lanes.report["subgroup"]["size"].get<int>();
    std::set<int> seen;
    for (int y = 0; y < kHeight; ++y)
        for (int x = 0; x < kWidth; ++x) {
            int lane = decode_lane(pixel(lanes.image, x, y));
            if (lane >= 0) seen.insert(lane);
        }
    EXPECT_EQ(int(seen.size()), size);
}

// The legend (or, where the stage is unsupported, the "no subgroup support" label) is drawn in the
// top-left corner and nowhere else, unless --no-legend. At 256 pixels wide the compute title
// wraps to two lines (it used to run off the frame), so the corner is the top 64 rows.
TEST(DebugViews, LegendAndUnsupportedLabelAreDrawn) {
    const int kLegendRows = 64;
    REQUIRE_DRAWING();
    for (const char* stage : {"vertex", "fragment", "compute"}) {
        SCOPED_TRACE(stage);
        ViewRun plain = render_view("lane-id", stage, {});
        ViewRun labelled = render_view("lane-id", stage, {}, true);
        ASSERT_EQ(plain.run.exit_code, 0) << plain.run.output;
        ASSERT_EQ(labelled.run.exit_code, 0) << labelled.run.output;
        ASSERT_EQ(plain.image.width, kWidth);
        ASSERT_EQ(labelled.image.width, kWidth);
        EXPECT_EQ(validation_lines(labelled.run.output), 0) << labelled.run.output;
        int top_left = 0, elsewhere = 0;
        for (int y = 0; y < kHeight; ++y)
            for (int x = 0; x < kWidth; ++x)
                if (pixel(plain.image, x, y) != pixel(labelled.image, x, y)) (y < kLegendRows ? top_left : elsewhere)++;
        EXPECT_GT(top_left, 200) << "no label in the top-left corner";
        EXPECT_EQ(elsewhere, 0);
    }
}

// The active-lanes view counts its subgroups and lanes (report counters.view). In the compute
// stage the count is known without the GPU: 16x16 workgroups tile the frame exactly, every
// subgroup of a 256-invocation workgroup is full, so there are W*H/size subgroups of size lanes.
TEST(DebugViews, ActiveLanesCountsEveryComputeSubgroupFull) {
    REQUIRE_DRAWING();
    ViewRun v = render_view("active-lanes", "compute", {});
    ASSERT_EQ(v.run.exit_code, 0) << v.run.output;
    const nlohmann::json& counted = v.report["counters"]["view"];
    ASSERT_TRUE(counted.is_object()) << v.report["counters"].dump();
    uint64_t size = v.report["subgroup"]["size"].get<uint64_t>();
    EXPECT_EQ(counted["stage"], "compute");
    EXPECT_EQ(counted["subgroups"].get<uint64_t>(), uint64_t(kWidth) * kHeight / size);
    EXPECT_EQ(counted["lanes"].get<uint64_t>(), uint64_t(kWidth) * kHeight);
    EXPECT_DOUBLE_EQ(counted["lanes_per_subgroup"].get<double>(), double(size));
    // Other views count nothing.
    ViewRun lane_id = render_view("lane-id", "compute", {});
    ASSERT_EQ(lane_id.run.exit_code, 0) << lane_id.run.output;
    EXPECT_TRUE(lane_id.report["counters"]["view"].is_null());
}

// --atlas against the record of the driver (tests/known_drivers.h; on a driver without one,
// --info's "views"): a cell carries the hatch colour exactly where the record says the view is
// unsupported in its stage, and a stage's occupancy is printed exactly where its active-lanes view
// can run; the image is the layout make_atlas_layout() gives for the cell size; validation is clean.
TEST(DebugViews, AtlasMarksExactlyTheStagesTheDeviceCannotShow) {
    REQUIRE_DRAWING();
    std::string dir = test_dir("atlas");
    DemoRun info = run_demo({"--info", "--report", dir + "/info.json"});
    ASSERT_EQ(info.exit_code, 0) << info.output;
    nlohmann::json views = read_json(dir + "/info.json")["views"];
    const KnownDriver* record = known_driver();
    const int w = 128, h = 72;
    DemoRun atlas = run_demo({"--atlas", dir + "/atlas.png", "--scene", test_scene(), "--size",
                              std::to_string(w) + "x" + std::to_string(h), "--lights", "16", "--validate"});
    ASSERT_EQ(atlas.exit_code, 0) << atlas.output;
    EXPECT_EQ(validation_lines(atlas.output), 0) << atlas.output;
    Png png = read_png(dir + "/atlas.png");
    AtlasLayout layout = make_atlas_layout(w, h);
    ASSERT_EQ(png.width, layout.width);
    ASSERT_EQ(png.height, layout.height);
    int unsupported = 0;
    for (size_t column = 0; column < size_t(Stage::count); ++column) {
        std::string stage(stage_name(Stage(column)));
        for (size_t row = 0; row < std::size(kAtlasRows); ++row) {
            std::string mode(view_mode_name(kAtlasRows[row]));
            bool supported = record ? record_supports_view(*record, mode, stage) : views[stage][mode]["variant"] == "subgroup";
            PixelRect frame = layout.frame(row, column);
            int hatch = 0;
            for (int y = frame.y; y < frame.y + frame.h; ++y)
                for (int x = frame.x; x < frame.x + frame.w; ++x) hatch += pixel(png, x, y) == kHatchColour;
            if (supported) EXPECT_EQ(hatch, 0) << mode << " in " << stage;
            else EXPECT_GT(hatch, 100) << mode << " in " << stage << ": no marking";
            unsupported += !supported;
        }
        // Its progress into a pipe: a line per stage's column, in order.
        std::string step = "  atlas: " + stage + ", stage " + std::to_string(column + 1) + " of " + std::to_string(size_t(Stage::count)) + " after ";
        EXPECT_NE(atlas.output.find(step), std::string::npos) << step << "\n" << atlas.output;
        if (column > 0) {
            std::string before = "  atlas: " + std::string(stage_name(Stage(column - 1))) + ", stage ";
            EXPECT_LT(atlas.output.find(before), atlas.output.find(step)) << atlas.output;
        }
        bool measured = record ? record_supports_view(*record, "active-lanes", stage)
                               : views[stage]["active-lanes"]["variant"] == "subgroup";
        bool ray_stage = (bit(Stage(column)) & kRayTracingStages) != 0;
        std::regex line("(^|\\n)" + stage + " +mean ([0-9.]+) of ([0-9]+) lanes");
        std::smatch m;
        bool printed = std::regex_search(atlas.output, m, line);
        // (A ray-tracing stage's occupancy comes from the ray_trace pass, which runs with subgroups
        // exactly where the views do.)
        EXPECT_EQ(printed, measured) << stage << (ray_stage ? " (ray tracing)" : "") << "\n" << atlas.output;
        if (printed && stage == "compute") EXPECT_EQ(std::stod(m[2]), std::stod(m[3])) << "compute subgroups are full";
    }
    // lavapipe: no subgroups in the vertex-pipeline and ray-tracing stages (nor task and mesh in Mesa 22.3).
    if (record) EXPECT_GE(unsupported, 3 * 10);
}

}  // namespace
