// Hostile input and faults, from the user's side of the command line (docs/robustness.md): every
// class of bad scene ends with the contract's exit code and one line on stderr; device limits are
// refused before anything is allocated; injected device faults end the run with a message, never
// a hang; and GPU-assisted validation finds no out-of-bounds access in any pass, variant or view.
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <regex>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "scene_test_helpers.h"
#include <nlohmann/json.hpp>

#include "run/image_io.h"
#include "run/limits.h"
#include "app/run.h"
#include "gpu/harness.h"
#include "known_drivers.h"
#include "render/renderer.h"
#include "scene/texture_mips.h"
#include "scoped_env.h"
#include "vk/resources.h"

using nlohmann::json;

namespace {

// ---- Running the demo -------------------------------------------------------------------------

const std::vector<std::string> kSmallRun = {"--headless", "--size", "64x64", "--frames", "2", "--warmup", "1",
                                            "--lights", "16"};

std::vector<std::string> small_run(std::vector<std::string> extra) {
    std::vector<std::string> args = kSmallRun;
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
}

// The contract: a non-zero exit prints one line starting "error: " as the last thing it says.
void expect_failure(const DemoRun& run, int code, const std::string& needle) {
    EXPECT_EQ(run.exit_code, code) << run.output;
    std::string line = last_line(run.output);
    EXPECT_EQ(line.rfind("error: ", 0), 0u) << run.output;
    EXPECT_NE(line.find(needle), std::string::npos) << "expected '" << needle << "' in: " << line;
}

// Sets an environment variable for the demo runs of one scope.
double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// ---- Scenes written here --------------------------------------------------------------------------

template <typename T>
void append(std::vector<uint8_t>& out, std::initializer_list<T> values) {
    size_t at = out.size();
    out.resize(at + values.size() * sizeof(T));
    memcpy(out.data() + at, std::data(values), values.size() * sizeof(T));
}

// A unit quad facing +Z with UVs (two triangles): positions, uvs, u16 indices.
std::vector<uint8_t> quad_buffer() {
    std::vector<uint8_t> b;
    append<float>(b, {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0});
    append<float>(b, {0, 1, 1, 1, 1, 0, 0, 0});
    append<uint16_t>(b, {0, 1, 2, 0, 2, 3});
    return b;
}

// The quad as glTF; `material` is added to the primitive when given. buffer_uri empty: GLB BIN.
json quad_gltf(const json& material = nullptr, const std::string& buffer_uri = "embed") {
    std::vector<uint8_t> buffer = quad_buffer();
    json primitive = {{"attributes", {{"POSITION", 0}, {"TEXCOORD_0", 1}}}, {"indices", 2}};
    json gltf = {{"asset", {{"version", "2.0"}}},
                 {"scene", 0},
                 {"scenes", {{{"nodes", {0}}}}},
                 {"nodes", {{{"mesh", 0}}}},
                 {"meshes", {{{"primitives", {primitive}}}}},
                 {"accessors",
                  {{{"bufferView", 0}, {"componentType", 5126}, {"count", 4}, {"type", "VEC3"}},
                   {{"bufferView", 1}, {"componentType", 5126}, {"count", 4}, {"type", "VEC2"}},
                   {{"bufferView", 2}, {"componentType", 5123}, {"count", 6}, {"type", "SCALAR"}}}},
                 {"bufferViews",
                  {{{"buffer", 0}, {"byteOffset", 0}, {"byteLength", 48}},
                   {{"buffer", 0}, {"byteOffset", 48}, {"byteLength", 32}},
                   {{"buffer", 0}, {"byteOffset", 80}, {"byteLength", 12}}}},
                 {"buffers", {{{"byteLength", buffer.size()}}}}};
    if (buffer_uri == "embed") gltf["buffers"][0]["uri"] = "data:application/octet-stream;base64," + base64(buffer);
    if (!material.is_null()) {
        gltf["materials"] = {material};
        gltf["meshes"][0]["primitives"][0]["material"] = 0;
    }
    return gltf;
}

// The quad as a row of `nodes` nodes, one draw each (the draw-count limits).
json quad_row_gltf(int nodes) {
    json gltf = quad_gltf();
    gltf["nodes"] = json::array();
    gltf["scenes"][0]["nodes"] = json::array();
    for (int i = 0; i < nodes; ++i) {
        gltf["nodes"].push_back({{"mesh", 0}, {"translation", {i, 0, 0}}});
        gltf["scenes"][0]["nodes"].push_back(i);
    }
    return gltf;
}

std::vector<uint8_t> quad_glb() {
    json gltf = quad_gltf(nullptr, "");
    std::string text = gltf.dump();
    text.resize((text.size() + 3) / 4 * 4, ' ');
    std::vector<uint8_t> bin = quad_buffer();
    bin.resize((bin.size() + 3) / 4 * 4, 0);
    std::vector<uint8_t> glb;
    glb.reserve(28 + text.size() + bin.size());
    append<uint32_t>(glb, {0x46546C67, 2, 0, uint32_t(text.size()), 0x4E4F534A});
    glb.insert(glb.end(), text.begin(), text.end());
    append<uint32_t>(glb, {uint32_t(bin.size()), 0x004E4942});
    glb.insert(glb.end(), bin.begin(), bin.end());
    uint32_t length = uint32_t(glb.size());
    memcpy(&glb[8], &length, 4);
    return glb;
}

std::string write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    return path;
}

std::string write_file(const std::string& path, const std::string& text) {
    return write_file(path, std::vector<uint8_t>(text.begin(), text.end()));
}

std::string write_gltf(const std::string& path, const json& gltf) { return write_file(path, gltf.dump()); }

// ---- Device numbers, read here independently of the demo's checks --------------------------------

struct DeviceNumbers {
    uint64_t max_image = 0;
    uint64_t max_storage = 0;
};

DeviceNumbers device_numbers() {
    Context ctx;
    create_context(ctx, {});
    return {ctx.properties.limits.maxImageDimension2D, ctx.properties.limits.maxStorageBufferRange};
}

}  // namespace

// ---- Bad input: every class ends with exit 3 and one line, or (textures) a warning and exit 0 ----

TEST(RobustInput, TruncatedFilesExit3) {
    REQUIRE_DRAWING();
    std::string dir = test_dir("truncated");
    std::vector<uint8_t> glb = quad_glb();
    std::string text = quad_gltf().dump();
    ASSERT_EQ(run_demo(small_run({"--scene", write_file(dir + "/whole.glb", glb)})).exit_code, 0);
    ASSERT_EQ(run_demo(small_run({"--scene", write_file(dir + "/whole.gltf", text)})).exit_code, 0);
    // Inside the header, at the JSON chunk header, inside the JSON, inside the BIN chunk, one short.
    for (size_t cut : {size_t(0), size_t(11), size_t(20), glb.size() / 2, glb.size() - 20, glb.size() - 1}) {
        SCOPED_TRACE("GLB cut at " + std::to_string(cut));
        std::string path = write_file(dir + "/cut.glb", std::vector<uint8_t>(glb.begin(), glb.begin() + cut));
        expect_failure(run_demo(small_run({"--scene", path})), 3, "bad scene");
    }
    for (size_t cut : {size_t(0), text.size() / 3, text.size() - 1}) {
        SCOPED_TRACE(".gltf cut at " + std::to_string(cut));
        std::string path = write_file(dir + "/cut.gltf", text.substr(0, cut));
        expect_failure(run_demo(small_run({"--scene", path})), 3, "bad scene");
    }
}

// Seeded single-bit flips anywhere in the file: the loader either copes (exit 0) or refuses the
// file (exit 3, one line). Anything else (a crash, exit 1, a Vulkan error) fails the test.
TEST(RobustInput, BitFlipsExit0Or3) {
    REQUIRE_DRAWING();
    std::string dir = test_dir("flips");
    std::vector<uint8_t> glb = quad_glb();
    std::string text = quad_gltf().dump();
    std::vector<uint8_t> gltf(text.begin(), text.end());
    std::mt19937 random(20261121);
    int loaded = 0, refused = 0;
    for (int i = 0; i < 16; ++i) {
        bool binary = i % 2 == 0;
        std::vector<uint8_t> bytes = binary ? glb : gltf;
        size_t bit = random() % (bytes.size() * 8);
        bytes[bit / 8] ^= uint8_t(1u << (bit % 8));
        std::string path = write_file(dir + (binary ? "/flip.glb" : "/flip.gltf"), bytes);
        SCOPED_TRACE((binary ? "GLB" : ".gltf") + std::string(" bit ") + std::to_string(bit));
        DemoRun run = run_demo(small_run({"--scene", path}));
        ASSERT_TRUE(run.exit_code == 0 || run.exit_code == 3) << run.output;
        if (run.exit_code == 3) expect_failure(run, 3, "bad scene");
        (run.exit_code == 0 ? loaded : refused)++;
    }
    EXPECT_GT(refused, 0);  // flips in the GLB header and JSON syntax must be caught
    RecordProperty("loaded", loaded);
    RecordProperty("refused", refused);
}

TEST(RobustInput, HugeCountsExit3) {
    std::string dir = test_dir("counts");
    json gltf = quad_gltf();
    gltf["accessors"][0]["count"] = 4294967295ull;  // past int32: refused before tinygltf truncates it
    expect_failure(run_demo(small_run({"--scene", write_gltf(dir + "/a.gltf", gltf)})), 3, "/accessors/0/count");
    gltf = quad_gltf();
    gltf["accessors"][0]["count"] = 2000000000;  // fits int32; 24 GB of positions
    expect_failure(run_demo(small_run({"--scene", write_gltf(dir + "/b.gltf", gltf)})), 3, "1 GiB of vertex data");
    gltf = quad_gltf();
    gltf["accessors"][0].erase("bufferView");  // all zeros: a tiny file claiming 60 M vertices
    gltf["accessors"][0]["count"] = 60000000;
    gltf["accessors"][1]["count"] = 60000000;
    expect_failure(run_demo(small_run({"--scene", write_gltf(dir + "/c.gltf", gltf)})), 3, "1 GiB of vertex data");
}

// Coordinates near the float range load (they are legal) and render alone; copies spaced by such
// an extent would sit at infinity, so --instances refuses them.
TEST(RobustInput, ExtremeCoordinatesRefuseInstances) {
    REQUIRE_DRAWING();
    std::string scene = std::string(SGD_TEST_DATA) + "/../fuzz-corpus/huge_extent.gltf";
    DemoRun alone = run_demo(small_run({"--scene", scene}));
    EXPECT_EQ(alone.exit_code, 0) << alone.output;
    expect_failure(run_demo(small_run({"--scene", scene, "--instances", "2"})), 3, "beyond the float range");
}

TEST(RobustInput, NegativeAndOverflowingOffsetsExit3) {
    std::string dir = test_dir("offsets");
    json gltf = quad_gltf();
    gltf["bufferViews"][0]["byteOffset"] = -4;
    expect_failure(run_demo(small_run({"--scene", write_gltf(dir + "/a.gltf", gltf)})), 3,
                   "/bufferViews/0/byteOffset must be a non-negative integer");
    gltf = quad_gltf();
    gltf["accessors"][1]["byteOffset"] = 18446744073709551615ull;
    expect_failure(run_demo(small_run({"--scene", write_gltf(dir + "/b.gltf", gltf)})), 3, "/accessors/1/byteOffset");
    gltf = quad_gltf();
    gltf["accessors"][2]["byteOffset"] = 2147483640;  // offset + count * stride wraps 32 bits
    expect_failure(run_demo(small_run({"--scene", write_gltf(dir + "/c.gltf", gltf)})), 3, "exceeds buffer view 2");
}

TEST(RobustInput, CyclicNodeGraphsExit3) {
    std::string dir = test_dir("cycles");
    json gltf = quad_gltf();
    gltf["nodes"] = json::parse(R"([{"mesh": 0, "children": [1]}, {"children": [2]}, {"children": [0]}])");
    expect_failure(run_demo(small_run({"--scene", write_gltf(dir + "/a.gltf", gltf)})), 3, "cycle");
    gltf["nodes"] = json::parse(R"([{"mesh": 0, "children": [0]}])");
    expect_failure(run_demo(small_run({"--scene", write_gltf(dir + "/b.gltf", gltf)})), 3, "cycle through node 0");
}

// A missing or corrupt texture is not an error: the material draws untextured, with a warning.
// Oracle: the same scene with no texture at all renders the identical image.
TEST(RobustInput, MissingAndCorruptTexturesWarnAndRenderUntextured) {
    REQUIRE_DRAWING();
    std::string dir = test_dir("textures");
    json plain = {{"pbrMetallicRoughness", {{"baseColorFactor", {0.8, 0.4, 0.2, 1.0}}}}};
    std::string reference = dir + "/plain.png";
    DemoRun base = run_demo(small_run({"--scene", write_gltf(dir + "/plain.gltf", quad_gltf(plain)), "--screenshot", reference}));
    ASSERT_EQ(base.exit_code, 0) << base.output;

    std::vector<uint8_t> garbage(300);
    for (size_t i = 0; i < garbage.size(); ++i) garbage[i] = uint8_t(i * 37 + 11);
    garbage[0] = 0x89, garbage[1] = 'P', garbage[2] = 'N', garbage[3] = 'G';  // a PNG signature, then noise
    struct Case {
        std::string name, uri, warning;
    };
    for (const Case& c : {Case{"missing", "no-such-file.png", "no-such-file.png"},
                          Case{"corrupt", "data:image/png;base64," + base64(garbage), "cannot decode"}}) {
        SCOPED_TRACE(c.name);
        json textured = plain;
        textured["pbrMetallicRoughness"]["baseColorTexture"] = {{"index", 0}};
        json gltf = quad_gltf(textured);
        gltf["images"] = {{{"uri", c.uri}}};
        gltf["textures"] = {{{"source", 0}}};
        std::string shot = dir + "/" + c.name + ".png", report = dir + "/" + c.name + ".json";
        DemoRun run = run_demo(small_run({"--scene", write_gltf(dir + "/" + c.name + ".gltf", gltf), "--screenshot", shot,
                                          "--report", report}));
        ASSERT_EQ(run.exit_code, 0) << run.output;
        EXPECT_NE(run.output.find("warning: image 0"), std::string::npos) << run.output;
        EXPECT_NE(run.output.find(c.warning), std::string::npos) << run.output;
        EXPECT_NE(run.output.find("texture ignored"), std::string::npos) << run.output;
        EXPECT_EQ(read_json(report)["scene"]["textures"], 0);
        Png a = read_png(reference), b = read_png(shot);
        ASSERT_EQ(a.width, 64);
        EXPECT_NOT_BLANK(a.rgba);
        EXPECT_TRUE(a.rgba == b.rgba) << "the untextured fallback differs from the plain material";
    }
}

// ---- Limits: refused before anything is allocated, exit 2 with what to change ----------------------

TEST(RobustLimits, SizeBeyondTheDeviceImageLimitExits2) {
    DeviceNumbers device = device_numbers();
    if (device.max_image >= 32768) GTEST_SKIP() << "the device takes every --size the command line accepts";
    std::string size = std::to_string(device.max_image + 1) + "x64";
    expect_failure(run_demo({"--headless", "--size", size, "--frames", "2", "--warmup", "1"}), 2,
                   "--size " + size + " exceeds the device's largest image (" + std::to_string(device.max_image));
    expect_failure(run_demo({"--headless", "--size", "40000x64"}), 2, "--size width must be between 16 and 32768");
}

// Light lists: a count and 512 entries per 16x16 tile, 64 guard words; the smallest square frame
// whose lists pass the storage-buffer range must be refused (lavapipe: 4096x4096).
TEST(RobustLimits, LightListsBeyondTheStorageRangeExit2) {
    DeviceNumbers device = device_numbers();
    for (uint64_t side = 1024; side <= device.max_image; side += 16) {
        uint64_t tiles = (side / 16) * (side / 16);
        if ((tiles * 513 + 64) * 4 <= device.max_storage) continue;
        std::string size = std::to_string(side) + "x" + std::to_string(side);
        expect_failure(run_demo({"--headless", "--size", size, "--frames", "2", "--warmup", "1"}), 2,
                       "the light lists buffer would need");
        return;
    }
    GTEST_SKIP() << "no frame size this device accepts has light lists past its storage range";
}

// 10000 triangles (a zero-filled accessor: the file stays tiny) copied N x N times: the culled
// index buffer (every drawn triangle, 12 bytes) must fit the storage range or the run is refused.
TEST(RobustLimits, InstancesBeyondTheStorageRangeExit2) {
    DeviceNumbers device = device_numbers();
    uint64_t n = 1;
    while (n * n * 10000 * 12 <= device.max_storage) ++n;
    if (n > 64) GTEST_SKIP() << "--instances 64 fits this device's storage range";
    std::string dir = test_dir("instances");
    json gltf = quad_gltf();
    gltf["meshes"][0]["primitives"][0] = {{"attributes", {{"POSITION", 3}}}};
    gltf["accessors"].push_back({{"componentType", 5126}, {"count", 30000}, {"type", "VEC3"}});
    std::string scene = write_gltf(dir + "/big.gltf", gltf);
    // (n - 1 copies fit; rendering 10 M triangles on a CPU device to show it is left to the unit
    // test of the same boundary, Limits.CulledIndicesBoundTheInstancesOnLavapipe.)
    DemoRun run = run_demo(small_run({"--scene", scene, "--instances", std::to_string(n)}));
    expect_failure(run, 2, "the culled indices buffer would need ");
    EXPECT_NE(last_line(run.output).find("(" + std::to_string(n * n * 10000 * 12) + " bytes)"), std::string::npos);
}

// The limits check is only as honest as its list: every buffer and image the renderer creates for
// a scene must be in planned_allocations() with its size (an upper bound within 4 KiB), and every
// planned one must be created. A pass that adds a buffer fails here until run/limits.cpp lists it.
// raster: --raster compute, which adds its words, depth and hardware list (where the device can).
// meshlet: --geometry meshlet, which adds the meshlet path's meshlets, task chunks and lists, and
// with raster its culling's chunk list for the compute rasterizer (MeshletRaster).
void expect_planned_allocations_allocated(bool raster, bool meshlet = false) {
    Context ctx;
    create_context(ctx, {});
    if (raster && !ctx.features.int64_atomics) GTEST_SKIP() << "device lacks 64-bit buffer atomics: no compute rasterizer";
    if (meshlet && !ctx.features.mesh_shader) GTEST_SKIP() << "device lacks mesh shaders: no meshlet path";
    Options options;
    options.width = 96;
    options.height = 64;
    options.lights = 300;
    options.instances = 2;
    options.plan.shading = Shading::visibility;  // its image too (lavapipe has the pre-pass's gl_PrimitiveID)
    if (raster) options.plan.raster = Raster::compute;
    if (meshlet) options.plan.geometry = Geometry::meshlet;
    Scene scene = load_requested_scene(options);
    RendererConfig config;
    config.extent = {options.width, options.height};
    config.lights = options.lights;
    config.plan = make_plan(ctx.subgroup, ctx.features, options.plan);
    config.cull_group_size = options.cull_group_size;

    std::vector<AllocationRecord> log;
    set_allocation_log(&log);
    { Renderer renderer(ctx, scene, config); }
    set_allocation_log(nullptr);

    std::map<std::string, uint64_t> actual, planned;
    uint64_t largest_staging = 0;
    for (const AllocationRecord& r : log) {
        if (r.name == "staging" || r.name == "texture staging") largest_staging = std::max<uint64_t>(largest_staging, r.bytes);
        else if (std::find(kDriverSizedAllocations.begin(), kDriverSizedAllocations.end(), r.name) == kDriverSizedAllocations.end())
            actual[r.name] += r.bytes;  // (the driver-sized ray-tracing buffers cannot be planned)
    }
    for (const PlannedAllocation& p : planned_allocations(scene, options, config.plan, device_limits(ctx)))
        planned[p.name] += p.bytes;
    ASSERT_GT(actual.size(), 10u);
    for (const auto& [name, bytes] : actual) {
        SCOPED_TRACE(name);
        if (!planned.count(name)) {  // every such name reported, not only the first
            ADD_FAILURE() << "the renderer allocates '" << name << "' (" << bytes << " bytes) but run/limits.cpp does not plan it";
            continue;
        }
        EXPECT_GE(planned[name], bytes);
        EXPECT_LE(planned[name], bytes + 4096);
    }
    for (const auto& [name, bytes] : planned)
        if (name != "staging" && name != "readback") EXPECT_TRUE(actual.count(name)) << "planned but never allocated: " << name;
    EXPECT_GE(planned["staging"], largest_staging);
    EXPECT_EQ(planned["staging"], largest_staging);
    // The meshlet path's buffers to the byte, and its total: what the plan adds for it is what
    // the renderer allocates for it.
    uint64_t planned_meshlet = 0, actual_meshlet = 0;
    for (const auto& [name, bytes] : actual)
        if (name.rfind("meshlet", 0) == 0) {
            EXPECT_EQ(planned[name], bytes) << name;
            actual_meshlet += bytes;
        }
    for (const auto& [name, bytes] : planned)
        if (name.rfind("meshlet", 0) == 0) planned_meshlet += bytes;
    EXPECT_EQ(planned_meshlet, actual_meshlet);
    EXPECT_EQ(actual_meshlet > 0, meshlet);
    EXPECT_EQ(actual.count("meshlet raster chunks"), meshlet && raster ? 1u : 0u);
}

TEST(RobustLimits, PlannedAllocationsAreWhatTheRendererAllocates) { expect_planned_allocations_allocated(false); }

TEST(RobustLimits, PlannedAllocationsAreWhatTheComputeRasterizerAllocates) { expect_planned_allocations_allocated(true); }

TEST(RobustLimits, PlannedAllocationsAreWhatTheMeshletComputeRasterizerAllocates) { expect_planned_allocations_allocated(true, true); }

// The meshlet path's visible list holds 32 entries of 32 bytes for every task chunk, and every
// draw has a chunk of its own: 1100 one-quad nodes copied N x N times pass the storage range there
// long before any other buffer does (the draws' 512 bytes, the culled indices' 24). The memory plan
// counts it, so --geometry meshlet --raster compute is refused with exit 2 before anything is
// allocated, not at allocation or binding.
TEST(RobustLimits, MeshletVisibleListBeyondTheStorageRangeExit2) {
    Context ctx;
    create_context(ctx, {});
    if (!ctx.features.mesh_shader || !ctx.features.int64_atomics)
        GTEST_SKIP() << "device lacks mesh shaders or 64-bit atomics: no meshlet compute rasterizer";
    DeviceNumbers device = device_numbers();
    uint64_t n = 1;
    while (1100 * n * n * 1024 <= device.max_storage) ++n;
    if (1100 * n * n > kMaxDraws) GTEST_SKIP() << "the draws that pass this device's storage range are more than the renderer takes";
    std::string dir = test_dir("meshlet-list");
    json gltf = quad_row_gltf(1100);
    std::string scene = write_gltf(dir + "/many.gltf", gltf);
    DemoRun run = run_demo(small_run({"--scene", scene, "--instances", std::to_string(n), "--geometry", "meshlet", "--raster",
                                      "compute", "--shading", "visibility"}));
    expect_failure(run, 2, "the meshlet visible list buffer would need ");
    EXPECT_NE(last_line(run.output).find("(" + std::to_string(1100 * n * n * 1024) + " bytes)"), std::string::npos) << run.output;
}

// The modes that build plans a headless run never sees check each of them before anything is
// allocated. The generated box (one draw of 12 triangles: one meshlet, one task chunk) in a 14 x 14
// grid is 196 draws: the meshlet path's visible list holds 32 entries of 32 bytes a chunk, 200704
// bytes, twice the draws' 512 bytes a draw, the largest storage buffer of the indexed path at
// 64x64. SGD_MASK_LIMITS lowers the storage range between the two: the plain headless run (indexed)
// renders, and a mode that builds the meshlet path must refuse it, naming the buffer and the limit.
const std::string kMeshletOnlyRange = "maxStorageBufferRange=150000";
const std::string kMeshletListRefused =
    "the meshlet visible list buffer would need 0.2 MiB (200704 bytes), more than the device's storage buffer range of 0.1 MiB";

std::vector<std::string> box_grid_run(std::vector<std::string> mode) {
    std::vector<std::string> args = {"--size", "64x64", "--frames", "2", "--warmup", "1", "--lights", "16",
                                      "--scene", SGD_TEST_SCENES "/box.gltf", "--instances", "14"};
    mode.insert(mode.end(), args.begin(), args.end());
    return mode;
}

bool skip_without_meshlets(std::string& why) {
    Context ctx;
    create_context(ctx, {});
    if (!ctx.features.mesh_shader) why = "device lacks VK_EXT_mesh_shader: no meshlet path to refuse";
    return !ctx.features.mesh_shader;
}

TEST(RobustLimits, HeadlessRunRendersUnderTheMeshletOnlyRange) {
    REQUIRE_DRAWING();
    std::string why;
    if (skip_without_meshlets(why)) GTEST_SKIP() << why;
    ScopedEnv mask("SGD_MASK_LIMITS", kMeshletOnlyRange);
    DemoRun indexed = run_demo(box_grid_run({"--headless"}));
    EXPECT_EQ(indexed.exit_code, 0) << indexed.output;
    expect_failure(run_demo(box_grid_run({"--headless", "--geometry", "meshlet"})), 2, kMeshletListRefused);
}

// --compare: its meshlet rows share one renderer with the others (app/run.cpp checks every row's plan).
TEST(RobustLimits, CompareChecksEveryRowsPlan) {
    std::string why;
    if (skip_without_meshlets(why)) GTEST_SKIP() << why;
    ScopedEnv mask("SGD_MASK_LIMITS", kMeshletOnlyRange);
    std::string dir = test_dir("compare-limits");
    DemoRun run = run_demo(box_grid_run({"--compare", "--out", dir}));
    expect_failure(run, 2, kMeshletListRefused);
    EXPECT_FALSE(std::filesystem::exists(dir + "/report.json")) << "refused after rendering";
}

// --atlas: its task and mesh cells draw the meshlet path, each cell a renderer of its own.
TEST(RobustLimits, AtlasChecksEveryCellsPlan) {
    std::string why;
    if (skip_without_meshlets(why)) GTEST_SKIP() << why;
    ScopedEnv mask("SGD_MASK_LIMITS", kMeshletOnlyRange);
    std::string png = test_dir("atlas-limits") + "/atlas.png";
    expect_failure(run_demo(box_grid_run({"--atlas", png})), 2, kMeshletListRefused);
    EXPECT_FALSE(std::filesystem::exists(png));
}

TEST(RobustLimits, TooManyDrawsExit2) {
    std::string dir = test_dir("draws");
    json gltf = quad_row_gltf(1100);
    // 1100 nodes x 62 x 62 copies = 4,228,400 draws > 4,194,304
    expect_failure(run_demo(small_run({"--scene", write_gltf(dir + "/many.gltf", gltf), "--instances", "62"})), 2,
                   "--instances 62 makes 4228400 draws (1100 per copy)");
}

// The 32-bit visibility id (render/visibility_id.h): a 15 x 15 grid of the bundled scene has 34200
// draws (16 bits), which leave 15 bits, 32767 triangles, for a draw; its largest has 49152.
TEST(RobustLimits, VisibilityIdBeyondItsBitsExit2) {
    expect_failure(run_demo(small_run({"--instances", "15", "--shading", "visibility"})), 2,
                   "34200 draws (16 bits of the 32-bit visibility id) and a draw of 49152 triangles");
}

TEST(RobustLimits, LightsBeyondTheCapExit2) {
    expect_failure(run_demo({"--headless", "--lights", "65537"}), 2, "--lights must be between 0 and 65536");
}

// The documented clamp: 65536 lights in a 64x64 frame (16 tiles of 16x16) touch far more than
// 512 per tile; each list keeps 512 and the report counts the rest. Both variants see the same
// touches, so entries + overflow agree between them.
TEST(RobustLimits, LightsPastTheListCapacityAreCountedNotWritten) {
    REQUIRE_DRAWING();
    std::string dir = test_dir("overflow");
    uint64_t touches[2] = {};
    const char* variants[2] = {"subgroup", "fallback"};
    for (int i = 0; i < 2; ++i) {
        std::string report = dir + "/" + variants[i] + ".json";
        DemoRun run = run_demo({"--headless", "--size", "64x64", "--frames", "1", "--warmup", "0", "--lights", "65536",
                                "--light-cull", variants[i], "--report", report});
        // A device without subgroup light culling refuses the subgroup run (exit 2); not one whose
        // record has what it needs in compute (basic, vote, ballot: lavapipe): there it is a failure.
        const KnownDriver* k = known_driver();
        bool record_has_it = k && k->has_stage("compute") && k->has_op("basic") && k->has_op("vote") && k->has_op("ballot");
        if (run.exit_code == 2 && !record_has_it) GTEST_SKIP() << last_line(run.output);
        ASSERT_EQ(run.exit_code, 0) << run.output;
        json counters = read_json(report)["counters"];
        uint64_t entries = counters["light_list_entries"], overflow = counters["light_list_overflow"];
        EXPECT_LE(entries, 16u * 512u) << variants[i];
        EXPECT_GT(overflow, 0u) << variants[i];
        touches[i] = entries + overflow;
    }
    EXPECT_EQ(touches[0], touches[1]);
}

// ---- Faults, injected (SGD_FAULT): a message and exit 1, in bounded time --------------------------

TEST(RobustFaults, OutOfDeviceMemoryNamesTheSizeAsked) {
    std::string dir = test_dir("oom");
    // A 512 x 512 base colour texture: its upload's staging buffer (the white texel and the texture's
    // mip chain, 1398104 bytes) is the first allocation over 1 MiB.
    std::vector<uint8_t> texels(512 * 512 * 4, 200);
    write_png(dir + "/texture.png", 512, 512, texels);
    json gltf = quad_gltf({{"pbrMetallicRoughness", {{"baseColorTexture", {{"index", 0}}}}}});
    gltf["textures"] = {{{"source", 0}}};
    gltf["images"] = {{{"uri", "texture.png"}}};
    std::string scene = write_gltf(dir + "/quad.gltf", gltf);
    ScopedEnv fault("SGD_FAULT", "oom@1048575");
    DemoRun run = run_demo(small_run({"--scene", scene}));
    expect_failure(run, 1, "out of device memory allocating ");
    std::smatch m;
    std::string line = last_line(run.output);
    ASSERT_TRUE(std::regex_search(line, m, std::regex("allocating ([0-9]+) bytes \\(([0-9.]+) MiB\\) for (.*) \\(VK_ERROR_OUT_OF_DEVICE_MEMORY\\)")))
        << line;
    uint64_t bytes = std::stoull(m[1]);
    const uint64_t staging = 4 + mip_chain_bytes(512, 512);
    EXPECT_EQ(staging, 1398104u);
    EXPECT_GE(bytes, staging);
    EXPECT_LT(bytes, staging + 65536u);  // the driver may pad, not double
    EXPECT_EQ(m[3], "texture staging");
}

TEST(RobustFaults, DeviceLostEndsTheRunWithExit1) {
    REQUIRE_DRAWING();
    ScopedEnv fault("SGD_FAULT", "device-lost@2");
    auto start = std::chrono::steady_clock::now();
    DemoRun run = run_demo({"--headless", "--size", "64x64", "--frames", "5", "--warmup", "1"});
    expect_failure(run, 1, "VK_ERROR_DEVICE_LOST");
    EXPECT_LT(seconds_since(start), 60.0);
}

TEST(RobustFaults, HungFrameTimesOutWithExit1) {
    REQUIRE_DRAWING();
    ScopedEnv fault("SGD_FAULT", "hang@1");
    ScopedEnv timeout("SGD_FRAME_TIMEOUT_S", "2");
    auto start = std::chrono::steady_clock::now();
    DemoRun run = run_demo({"--headless", "--size", "64x64", "--frames", "5", "--warmup", "1"});
    expect_failure(run, 1, "a frame did not finish on the GPU within 2 s");
    EXPECT_LT(seconds_since(start), 60.0);
}

// ---- GPU-assisted validation over every pass, variant and view ------------------------------------

namespace {

// The values an option takes, as the binary's own --help lists them ("  --cull V   auto | off").
std::vector<std::string> choices(const std::string& help, const std::string& option) {
    std::istringstream lines(help);
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind("  " + option + " ", 0) != 0) continue;
        std::string rest = line.substr(option.size() + 2);
        size_t start = rest.find_first_not_of(' ');
        start = rest.find(' ', start);             // skip the metavariable (V, M, S)
        start = rest.find_first_not_of(' ', start);
        std::vector<std::string> values;
        std::istringstream words(rest.substr(start));
        for (std::string word; words >> word;)
            if (word != "|") values.push_back(word);
        return values;
    }
    return {};
}

// Dispatches robust_probe.comp writing `count` uints into `buffer`. Returns the new messages.
uint32_t probe_messages(const Context& ctx, const Pipeline& pipeline, VkBuffer buffer, uint32_t count) {
    uint32_t before = validation_message_count();
    VkCommandBuffer cmd = begin_one_shot(ctx);
    vkCmdBindPipeline(cmd, pipeline.bind_point, pipeline.handle());
    Descriptors d;
    d.buffer(0, buffer).push(cmd, pipeline);
    vkCmdPushConstants(cmd, pipeline.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, 4, &count);
    vkCmdDispatch(cmd, (count + 63) / 64, 1, 1);
    end_one_shot(ctx, cmd);
    return validation_message_count() - before;
}

// Why GPU-assisted validation can't be trusted on this device, or empty when it catches a
// deliberate overrun and stays quiet on the same dispatch within bounds.
std::string gpu_av_unusable_reason() {
    ScopedEnv gpu_av("SGD_GPU_AV", "1");
    Context ctx;
    ContextOptions options;
    options.validate = true;
    try {
        create_context(ctx, options);
    } catch (const std::exception& e) {
        return std::string("no validation layer: ") + e.what();
    }
    // lavapipe 22.3 at 128-bit vectors (subgroup size 4) corrupts its own heap running shaders the
    // layer instrumented for buffer bounds: 10 runs of 10 crash on a one-triangle scene with every
    // optional pass off, none with the layer's gpuav_buffer_oob off or at 256 bits
    // (docs/robustness.md). The sweep runs at subgroup sizes 8 and 16.
    if (ctx.info.name.find("llvmpipe") != std::string::npos && ctx.subgroup.size == 4)
        return "lavapipe at 128-bit vectors crashes under GPU-AV's buffer checks (a driver bug; see docs/robustness.md)";
    ComputeDesc desc;
    desc.shader = "robust_probe.comp.main";
    desc.layout = {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER}, VK_SHADER_STAGE_COMPUTE_BIT, sizeof(uint32_t)};
    Pipeline pipeline = create_compute_pipeline(ctx, desc);
    // A 256-uint buffer at the start of a 1024-uint allocation: the layer checks accesses against
    // the buffer's end, and an overrun (should instrumentation fail to stop it) stays in memory we own.
    Buffer backing = create_buffer(ctx, 1024 * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, MemoryKind::device_local, "probe");
    VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.size = 256 * 4;
    info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    VkBuffer probe;
    VK_CHECK(vkCreateBuffer(ctx.device, &info, nullptr, &probe));
    VK_CHECK(vkBindBufferMemory(ctx.device, probe, backing.memory, 0));
    std::string why;
    uint32_t in_bounds = probe_messages(ctx, pipeline, probe, 256);
    fprintf(stderr, "(a validation error next is expected: the probe's deliberate overrun)\n");
    uint32_t overrun = probe_messages(ctx, pipeline, probe, 320);
    if (in_bounds != 0)
        why = "GPU-AV reports " + std::to_string(in_bounds) + " message(s) on an in-bounds dispatch (a false positive)";
    else if (overrun == 0)
        why = "GPU-AV does not report a 64-element overrun on this device";
    vkDestroyBuffer(ctx.device, probe, nullptr);
    return why;
}

}  // namespace

// Every run pairs one pass variant (cycling through --cull/--light-cull/--mip/--occlusion x subgroup/fallback/
// off, and --shading forward/visibility: the visibility pass reads index and vertex buffers at the
// ids its image holds) with one view: each view of --help, in every --view-stage for the views --info lists per
// stage. 4096 lights in a 64x64 frame overflow the per-tile lists (512), so the capacity bound runs.
// The scene is the generated props (textured, several primitives and materials): the layer checks
// the shaders' accesses, which the bundled scene's 300k triangles only repeat.
// The sweep is split into kGpuAvShards tests of every kGpuAvShards-th run. ctest runs them one at a
// time (RESOURCE_LOCK, tests/CMakeLists.txt) beside other tests: the first run compiles every
// instrumented pipeline (about a minute on lavapipe), and shards started together each compiled
// them all again, since Mesa's cache cannot share a compile still in progress.
constexpr size_t kGpuAvShards = 4;
class GpuAssistedValidation : public testing::TestWithParam<size_t> {};

TEST_P(GpuAssistedValidation, EveryPassVariantAndViewIsClean) {
    REQUIRE_DRAWING();
    const size_t shard = GetParam();
    if (std::string why = gpu_av_unusable_reason(); !why.empty()) GTEST_SKIP() << why;
    DemoRun help = run_demo({"--help"}), info = run_demo({"--info"});
    ASSERT_EQ(help.exit_code, 0);
    ASSERT_EQ(info.exit_code, 0);
    std::vector<std::vector<std::string>> variants;
    for (const std::string& pass : {"--cull", "--light-cull", "--mip", "--occlusion", "--shading"}) {
        std::vector<std::string> values = choices(help.output, pass);
        ASSERT_FALSE(values.empty()) << pass << " not in --help";
        for (const std::string& v : values)
            if (v != "auto") variants.push_back({pass, v});
    }
    std::vector<std::string> stages = choices(help.output, "--view-stage");
    std::vector<std::vector<std::string>> views;
    // A stage the device cannot show (--info: "unsupported") draws the same marking, with the same
    // shaders, in each of the three views: it is validated once, in the first view that lists it.
    std::set<std::string> marked_stages;
    for (const std::string& view : choices(help.output, "--view")) {
        bool per_stage = info.output.find("\n" + view + " ") != std::string::npos;
        for (const std::string& stage : stages) {
            bool unsupported = std::regex_search(info.output, std::regex("\n" + view + " +" + stage + " +unsupported:"));
            if (per_stage && unsupported && !marked_stages.insert(stage).second) continue;
            views.push_back({"--view", view, "--view-stage", stage});
            if (!per_stage) break;
        }
    }
    ASSERT_GE(views.size(), stages.size());

    ScopedEnv gpu_av("SGD_GPU_AV", "1");
    size_t runs = std::max(variants.size(), views.size());
    int unsupported = 0;
    // The views of one path's own data run on that path: --view raster on the compute rasterizer's
    // words, --view materials on the visibility pass's waterfall (elsewhere each is refused with the
    // options that show it). A paired variant their plan overrides (another --shading, or --mip forward,
    // which needs forward shading) gives way to the view.
    const std::map<std::string, std::vector<std::string>> view_plans = {
        {"raster", {"--shading", "visibility", "--raster", "compute"}},
        {"materials", {"--shading", "visibility", "--materials", "auto"}}};
    for (std::vector<std::string>& view : views)
        if (auto plan = view_plans.find(view[1]); plan != view_plans.end()) view.insert(view.end(), plan->second.begin(), plan->second.end());
    for (size_t i = shard; i < runs; i += kGpuAvShards) {
        std::vector<std::string> extra = variants[i % variants.size()];
        const std::vector<std::string>& view = views[i % views.size()];
        bool overridden = view_plans.count(view[1]) && (extra[0] == "--shading" || (extra[0] == "--mip" && extra[1] == "forward"));
        if (overridden) extra.clear();
        extra.insert(extra.end(), view.begin(), view.end());
        std::vector<std::string> args = {"--headless", "--validate", "--size", "64x64", "--frames", "1", "--warmup", "0",
                                         "--lights", "4096", "--scene", SGD_TEST_SCENES "/props.gltf"};
        args.insert(args.end(), extra.begin(), extra.end());
        std::string label;
        for (const std::string& a : extra) label += a + " ";
        SCOPED_TRACE(label);
        DemoRun run = run_demo(args);
        if (run.exit_code == 2 && last_line(run.output).find("subgroup") != std::string::npos) {
            // A subgroup variant this device lacks is refused up front (the contract), as is a
            // variant the view cannot go with (--view mip with --mip off); keep the view. Only the
            // first is the device's ("... on this device").
            unsupported += last_line(run.output).find("on this device") != std::string::npos;
            args.resize(args.size() - extra.size());
            args.insert(args.end(), views[i % views.size()].begin(), views[i % views.size()].end());
            run = run_demo(args);
        }
        EXPECT_EQ(run.exit_code, 0) << run.output.substr(0, 4000);
        EXPECT_EQ(validation_lines(run.output), 0) << run.output.substr(0, 4000);
    }
    RecordProperty("runs", int(runs));
    RecordProperty("unsupported_variants", unsupported);
    // Held to the record where the running driver has one: lavapipe runs every subgroup variant of
    // the cull, light-cull and mip passes (compute and fragment subgroups, quad operations).
    if (const KnownDriver* k = known_driver()) EXPECT_EQ(unsupported, 0) << "refused on " << k->name;
    EXPECT_LT(unsupported, int((variants.size() + kGpuAvShards - 1) / kGpuAvShards));
}

INSTANTIATE_TEST_SUITE_P(Shards, GpuAssistedValidation, testing::Range<size_t>(0, kGpuAvShards),
                         [](const auto& info) { return "runs_from_" + std::to_string(info.param); });
