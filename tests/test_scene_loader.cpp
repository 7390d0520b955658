// glTF loader tests: every sample model against an independent reading of its JSON, known counts,
// and malformed files built here (so no binary blobs are committed) that must fail cleanly.
#include "scene/scene.h"
#include "run/image_io.h"

#include <gtest/gtest.h>

#include "scene_test_helpers.h"

#include <set>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <set>
#include <map>
#include <array>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// ---- Files and samples --------------------------------------------------------------------------

fs::path samples_dir() {
    if (const char* env = std::getenv("SGD_GLTF_SAMPLES"); env && *env)
        return env;
#ifdef SGD_GLTF_SAMPLES_DIR
    return SGD_GLTF_SAMPLES_DIR;
#else
    return "../shared/gltf-samples";
#endif
}

#define REQUIRE_SAMPLES()                                                                                  \
    if (!fs::is_directory(samples_dir()))                                                                  \
    GTEST_SKIP() << "glTF samples not found at " << samples_dir() << " (set SGD_GLTF_SAMPLES)"

std::string sample(const std::string& relative) { return (samples_dir() / relative).string(); }

std::vector<fs::path> all_samples() {
    std::vector<fs::path> files;
    for (const auto& entry : fs::recursive_directory_iterator(samples_dir())) {
        std::string ext = entry.path().extension().string();
        if (entry.is_regular_file() && (ext == ".gltf" || ext == ".glb"))
            files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    return files;
}

void write_bytes(const fs::path& path, const std::vector<uint8_t>& bytes) {
    std::ofstream file(path, std::ios::binary);
    file.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

void write_text(const fs::path& path, const std::string& text) { write_bytes(path, {text.begin(), text.end()}); }

template <typename T>
T read_as(const uint8_t* p) {
    T v;
    memcpy(&v, p, sizeof(T));
    return v;
}

// The JSON of a .gltf, or of a .glb's first chunk.
json read_gltf_json(const fs::path& path) {
    std::vector<uint8_t> bytes = read_bytes(path);
    if (path.extension() == ".glb")
        return json::parse(bytes.begin() + 20, bytes.begin() + 20 + read_as<uint32_t>(&bytes[12]));
    return json::parse(bytes.begin(), bytes.end());
}

// A scratch directory, removed when the test ends.
struct TempDir {
    fs::path path;
    TempDir() {
        static int counter = 0;
        path = fs::temp_directory_path() /
               ("sgd_scene_test_" + std::to_string(getpid()) + "_" + std::to_string(counter++));
        fs::create_directories(path);
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

// ---- Independent oracle: what the JSON alone says should be drawn ---------------------------------

struct Expected {
    uint64_t triangles = 0;  // drawn, summed over instances
    uint64_t vertices = 0;   // loaded once per drawable primitive
};

Expected expected_counts(const json& gltf) {
    Expected expected;
    const json& accessors = gltf.value("accessors", json::array());
    const json& meshes = gltf.value("meshes", json::array());
    const json& nodes = gltf.value("nodes", json::array());
    std::vector<uint64_t> mesh_triangles(meshes.size(), 0);
    for (size_t m = 0; m < meshes.size(); ++m)
        for (const json& primitive : meshes[m]["primitives"]) {
            int mode = primitive.value("mode", 4);
            if (mode < 4 || !primitive["attributes"].contains("POSITION"))
                continue;
            uint64_t vertices = accessors[primitive["attributes"]["POSITION"].get<int>()]["count"];
            uint64_t n = primitive.contains("indices") ? accessors[primitive["indices"].get<int>()]["count"].get<uint64_t>()
                                                       : vertices;
            uint64_t triangles = mode == 4 ? n / 3 : (n >= 3 ? n - 2 : 0);
            if (triangles == 0)
                continue;
            mesh_triangles[m] += triangles;
            expected.vertices += vertices;
        }

    std::function<void(int)> walk = [&](int n) {
        if (nodes[n].contains("mesh"))
            expected.triangles += mesh_triangles[nodes[n]["mesh"].get<int>()];
        for (int child : nodes[n].value("children", std::vector<int>{}))
            walk(child);
    };
    if (gltf.contains("scene")) {
        for (int root : gltf["scenes"][gltf["scene"].get<int>()].value("nodes", std::vector<int>{}))
            walk(root);
    } else {
        std::vector<bool> is_child(nodes.size(), false);
        for (const json& node : nodes)
            for (int child : node.value("children", std::vector<int>{}))
                is_child[child] = true;
        for (size_t n = 0; n < nodes.size(); ++n)
            if (!is_child[n])
                walk(int(n));
    }
    return expected;
}

// What every loaded scene must satisfy, whatever the file.
void check_invariants(const Scene& scene) {
    ASSERT_FALSE(scene.materials.empty());
    for (const Vertex& v : scene.vertices)
        ASSERT_TRUE(std::isfinite(v.position.x) && std::isfinite(v.position.y) && std::isfinite(v.position.z));
    for (uint32_t index : scene.indices)
        ASSERT_LT(index, scene.vertices.size());
    for (const Mesh& mesh : scene.meshes) {
        EXPECT_EQ(mesh.index_count % 3, 0u);
        EXPECT_LE(uint64_t(mesh.first_index) + mesh.index_count, scene.indices.size());
        EXPECT_LT(mesh.material, scene.materials.size());
    }
    for (const MeshInstance& instance : scene.instances)
        EXPECT_LT(instance.mesh, scene.meshes.size());
    for (const Material& material : scene.materials)
        EXPECT_LT(material.base_color_texture, int(scene.textures.size()));
    for (const Texture& texture : scene.textures)
        EXPECT_EQ(texture.rgba.size(), size_t(texture.width) * texture.height * 4);
    if (!scene.instances.empty()) {
        EXPECT_LE(scene.bounds_min.x, scene.bounds_max.x);
        EXPECT_LE(scene.bounds_min.y, scene.bounds_max.y);
        EXPECT_LE(scene.bounds_min.z, scene.bounds_max.z);
    }
}

// ---- Synthetic files ------------------------------------------------------------------------------

template <typename T>
std::vector<uint8_t> bytes_of(std::initializer_list<T> values) {
    std::vector<uint8_t> out(values.size() * sizeof(T));
    memcpy(out.data(), std::data(values), out.size());
    return out;
}

struct PrimitiveGeometry {
    std::vector<float> positions{0, 0, 0, 1, 0, 0, 0, 1, 0};  // a right triangle in the XY plane
    std::vector<uint8_t> indices = bytes_of<uint16_t>({0, 1, 2});
    int index_type = 5123;  // UNSIGNED_SHORT; 0 for a non-indexed primitive
    int mode = 4;
};

size_t index_size(int type) { return type == 5121 ? 1 : type == 5123 ? 2 : 4; }

// The buffer a PrimitiveGeometry's glTF describes: positions, then indices padded to 4 bytes.
std::vector<uint8_t> geometry_buffer(const PrimitiveGeometry& g) {
    std::vector<uint8_t> buffer(g.positions.size() * 4);
    memcpy(buffer.data(), g.positions.data(), buffer.size());
    buffer.insert(buffer.end(), g.indices.begin(), g.indices.end());
    buffer.resize((buffer.size() + 3) / 4 * 4, 0);
    return buffer;
}

// A minimal valid glTF for `g`; the buffer is a data URI unless `uri` names a file.
json make_gltf(const PrimitiveGeometry& g = {}, const std::string& uri = "") {
    std::vector<uint8_t> buffer = geometry_buffer(g);
    size_t position_bytes = g.positions.size() * 4;
    json primitive = {{"attributes", {{"POSITION", 0}}}, {"mode", g.mode}};
    json accessors = json::array({{{"bufferView", 0}, {"componentType", 5126}, {"count", g.positions.size() / 3},
                                   {"type", "VEC3"}}});
    json views = json::array({{{"buffer", 0}, {"byteOffset", 0}, {"byteLength", position_bytes}}});
    if (g.index_type != 0) {
        primitive["indices"] = 1;
        accessors.push_back({{"bufferView", 1}, {"componentType", g.index_type},
                             {"count", g.indices.size() / index_size(g.index_type)}, {"type", "SCALAR"}});
        views.push_back({{"buffer", 0}, {"byteOffset", position_bytes}, {"byteLength", g.indices.size()}});
    }
    std::string buffer_uri = uri.empty() ? "data:application/octet-stream;base64," + base64(buffer) : uri;
    return {{"asset", {{"version", "2.0"}}},
            {"scene", 0},
            {"scenes", {{{"nodes", {0}}}}},
            {"nodes", {{{"mesh", 0}}}},
            {"meshes", {{{"primitives", {primitive}}}}},
            {"accessors", accessors},
            {"bufferViews", views},
            {"buffers", {{{"byteLength", buffer.size()}, {"uri", buffer_uri}}}}};
}

// The same content as a GLB: JSON chunk plus BIN chunk, buffer 0 without a URI.
std::vector<uint8_t> make_glb(const PrimitiveGeometry& g = {}) {
    json gltf = make_gltf(g);
    gltf["buffers"][0].erase("uri");
    std::string text = gltf.dump();
    text.resize((text.size() + 3) / 4 * 4, ' ');
    std::vector<uint8_t> bin = geometry_buffer(g);
    std::vector<uint8_t> glb = bytes_of<uint32_t>({0x46546C67, 2, 0, uint32_t(text.size()), 0x4E4F534A});
    glb.insert(glb.end(), text.begin(), text.end());
    std::vector<uint8_t> header = bytes_of<uint32_t>({uint32_t(bin.size()), 0x004E4942});
    glb.insert(glb.end(), header.begin(), header.end());
    glb.insert(glb.end(), bin.begin(), bin.end());
    uint32_t length = uint32_t(glb.size());
    memcpy(&glb[8], &length, 4);
    return glb;
}

Scene load_text(const std::string& text, const std::string& base_dir = "") {
    return load_scene_from_memory(reinterpret_cast<const uint8_t*>(text.data()), text.size(), base_dir, false);
}

Scene load_json(const json& gltf, const std::string& base_dir = "") { return load_text(gltf.dump(), base_dir); }

Scene load_glb(const std::vector<uint8_t>& glb) { return load_scene_from_memory(glb.data(), glb.size(), "", true); }

// make_gltf() with the value at `pointer` (a JSON pointer, "/accessors/0/count") replaced.
json make_gltf_with(const std::string& pointer, const json& value) {
    json gltf = make_gltf();
    gltf[json::json_pointer(pointer)] = value;
    return gltf;
}

// The triangle in tri.bin and one 2x2 texture, `png`, both written into `dir`; no material uses
// the texture yet.
json textured_triangle(const TempDir& dir, const std::string& png) {
    write_bytes(dir.path / "tri.bin", geometry_buffer({}));
    write_png((dir.path / png).string(), 2, 2, std::vector<uint8_t>(16, 200));
    json gltf = make_gltf({}, "tri.bin");
    gltf["images"] = {{{"uri", png}}};
    gltf["textures"] = {{{"source", 0}}};
    return gltf;
}

void expect_json_error(const json& gltf, const std::string& fragment) {
    expect_error([&] { load_json(gltf); }, fragment);
}

// Either a scene that keeps the invariants, or a SceneError: never anything else.
void expect_clean_outcome(const std::function<Scene()>& load) {
    try {
        Scene scene = load();
        check_invariants(scene);
    } catch (const SceneError&) {
    }
}

}  // namespace

// ---- Sample models --------------------------------------------------------------------------------

TEST(GltfSamples, EveryModelLoadsAndMatchesItsJson) {
    REQUIRE_SAMPLES();
    std::vector<fs::path> files = all_samples();
    ASSERT_FALSE(files.empty());
    for (const fs::path& path : files) {
        SCOPED_TRACE(path.string());
        json gltf = read_gltf_json(path);
        Scene scene;
        try {
            scene = load_scene(path.string());
        } catch (const SceneError& e) {
            ADD_FAILURE() << e.what();
            continue;
        }
        Expected expected = expected_counts(gltf);
        EXPECT_EQ(scene.triangle_count(), expected.triangles);
        EXPECT_EQ(scene.vertices.size(), expected.vertices);
        EXPECT_EQ(scene.path, path.string());
        check_invariants(scene);
    }
}

// A unit cube around the origin with flat normals (24 vertices) and one material of its own: the
// Khronos Box sample, and the generator's box.gltf.
namespace {
void expect_unit_box(const Scene& scene, float tolerance) {
    EXPECT_EQ(scene.triangle_count(), 12u);
    EXPECT_EQ(scene.vertices.size(), 24u);
    EXPECT_EQ(scene.instances.size(), 1u);
    EXPECT_NEAR(scene.bounds_min.x, -0.5f, tolerance);
    EXPECT_NEAR(scene.bounds_max.y, 0.5f, tolerance);
    EXPECT_EQ(scene.materials.size(), 2u);  // the default plus the file's one
    EXPECT_EQ(scene.meshes[0].material, 1u);
}
}  // namespace

TEST(GltfSamples, KnownCounts) {
    REQUIRE_SAMPLES();
    for (const char* box : {"Box/glTF/Box.gltf", "Box/glTF-Binary/Box.glb", "Box/glTF-Embedded/Box.gltf"}) {
        SCOPED_TRACE(box);
        expect_unit_box(load_scene(sample(box)), 1e-5f);
    }
    for (const char* triangle : {"Triangle/glTF/Triangle.gltf", "TriangleWithoutIndices/glTF/TriangleWithoutIndices.gltf",
                                 "TriangleWithoutIndices/glTF-Embedded/TriangleWithoutIndices.gltf"}) {
        SCOPED_TRACE(triangle);
        Scene scene = load_scene(sample(triangle));
        EXPECT_EQ(scene.triangle_count(), 1u);
        EXPECT_EQ(scene.vertices.size(), 3u);
        EXPECT_EQ(scene.meshes[0].material, 0u);  // no material in the file: the default white
        EXPECT_EQ(scene.materials[0].base_color_factor, glm::vec4(1.0f));
        // No normals in the file: computed from the face, which lies in the XY plane.
        EXPECT_NEAR(std::abs(scene.vertices[0].normal.z), 1.0f, 1e-5f);
    }
}

TEST(GltfSamples, InterleavedBoxEqualsBox) {
    REQUIRE_SAMPLES();
    Scene box = load_scene(sample("Box/glTF/Box.gltf"));
    for (const char* variant : {"BoxInterleaved/glTF/BoxInterleaved.gltf", "BoxInterleaved/glTF-Binary/BoxInterleaved.glb"}) {
        SCOPED_TRACE(variant);
        Scene interleaved = load_scene(sample(variant));
        ASSERT_EQ(interleaved.vertices.size(), box.vertices.size());
        for (size_t i = 0; i < box.vertices.size(); ++i) {
            EXPECT_EQ(interleaved.vertices[i].position, box.vertices[i].position) << "vertex " << i;
            EXPECT_EQ(interleaved.vertices[i].normal, box.vertices[i].normal) << "vertex " << i;
            EXPECT_EQ(interleaved.vertices[i].uv, box.vertices[i].uv) << "vertex " << i;
        }
        EXPECT_EQ(interleaved.indices, box.indices);
        ASSERT_EQ(interleaved.instances.size(), box.instances.size());
        EXPECT_EQ(interleaved.instances[0].transform, box.instances[0].transform);
    }
}

// Reads the sparse POSITION accessor of the first primitive of a .gltf by hand (base view, then
// substitution, u16 indices): the positions a loader must produce.
std::vector<glm::vec3> hand_decoded_sparse_positions(const fs::path& path) {
    json gltf = read_gltf_json(path);
    std::vector<uint8_t> bin = read_bytes(path.parent_path() / gltf["buffers"][0]["uri"].get<std::string>());
    const json& views = gltf["bufferViews"];
    auto view_start = [&](int view) { return bin.data() + views[view].value("byteOffset", 0); };

    int position = gltf["meshes"][0]["primitives"][0]["attributes"]["POSITION"];
    const json& accessor = gltf["accessors"][position];
    size_t count = accessor["count"];
    const uint8_t* base = view_start(accessor["bufferView"]) + accessor.value("byteOffset", 0);
    std::vector<float> expected(count * 3);
    memcpy(expected.data(), base, expected.size() * 4);

    const json& sparse = accessor["sparse"];
    EXPECT_EQ(sparse["indices"]["componentType"], 5123);
    const uint8_t* indices = view_start(sparse["indices"]["bufferView"]) + sparse["indices"].value("byteOffset", 0);
    const uint8_t* values = view_start(sparse["values"]["bufferView"]) + sparse["values"].value("byteOffset", 0);
    for (int i = 0; i < sparse["count"].get<int>(); ++i)
        memcpy(&expected[read_as<uint16_t>(indices + i * 2) * 3], values + i * 12, 12);

    EXPECT_NE(memcmp(expected.data(), base, expected.size() * 4), 0);  // substitution changed something
    std::vector<glm::vec3> positions;
    for (size_t v = 0; v < count; ++v) positions.emplace_back(expected[v * 3], expected[v * 3 + 1], expected[v * 3 + 2]);
    return positions;
}

void expect_positions(const Scene& scene, const std::vector<glm::vec3>& expected) {
    ASSERT_EQ(scene.vertices.size(), expected.size());
    for (size_t v = 0; v < expected.size(); ++v) EXPECT_EQ(scene.vertices[v].position, expected[v]) << "vertex " << v;
}

// Reads the sparse POSITION accessor by hand (base view, then substitution) and compares.
TEST(GltfSamples, SparseAccessorMatchesHandDecoding) {
    REQUIRE_SAMPLES();
    std::vector<glm::vec3> expected = hand_decoded_sparse_positions(sample("SimpleSparseAccessor/glTF/SimpleSparseAccessor.gltf"));
    for (const char* variant : {"SimpleSparseAccessor/glTF/SimpleSparseAccessor.gltf",
                                "SimpleSparseAccessor/glTF-Embedded/SimpleSparseAccessor.gltf"}) {
        SCOPED_TRACE(variant);
        expect_positions(load_scene(sample(variant)), expected);
    }
}

TEST(GltfSamples, TexturedBoxDecodesItsTexture) {
    REQUIRE_SAMPLES();
    for (const char* variant : {"BoxTextured/glTF/BoxTextured.gltf", "BoxTextured/glTF-Binary/BoxTextured.glb",
                                "BoxTextured/glTF-Embedded/BoxTextured.gltf"}) {
        SCOPED_TRACE(variant);
        Scene scene = load_scene(sample(variant));
        ASSERT_EQ(scene.textures.size(), 1u);
        EXPECT_GT(scene.textures[0].width, 0);
        EXPECT_GT(scene.textures[0].height, 0);
        EXPECT_EQ(scene.materials[scene.meshes[0].material].base_color_texture, 0);
        EXPECT_TRUE(scene.warnings.empty()) << scene.warnings.front();
    }
}

// KHR_texture_transform's own sample: on each arrow quad the arrow, drawn through the quad's uv map,
// must point at the green marker ("Correct"); the rotation applied the opposite way points it at the
// red one ("Error"), not applied at the yellow one. The oracle is the model's marker nodes: where the
// arrow's tip (the dark texel furthest down and right in Arrow.png) lands on the quad, found by
// inverting the loaded map, must lie nearest the quad's Correct marker.
TEST(GltfSamples, TextureTransformTestArrowsPointAtTheGreenMarkers) {
    REQUIRE_SAMPLES();
    const std::string path = sample("TextureTransformTest/glTF/TextureTransformTest.gltf");
    Scene scene = load_scene(path);
    std::ifstream file(path);
    nlohmann::json gltf = nlohmann::json::parse(file);
    ASSERT_EQ(scene.materials.size(), gltf["materials"].size() + 1);  // the loader's default material first
    auto name_of = [&](const MeshInstance& instance) {
        return gltf["materials"][scene.meshes[instance.mesh].material - 1]["name"].get<std::string>();
    };
    auto world = [](const MeshInstance& instance, glm::vec3 p) { return glm::vec3(instance.transform * glm::vec4(p, 1.0f)); };
    auto centre = [&](const MeshInstance& instance) {
        const Mesh& mesh = scene.meshes[instance.mesh];
        glm::vec3 sum(0.0f);
        for (uint32_t i = 0; i < mesh.index_count; ++i) sum += scene.vertices[scene.indices[mesh.first_index + i]].position;
        return world(instance, sum / float(mesh.index_count));
    };
    int checked = 0;
    for (const MeshInstance& quad : scene.instances) {
        const std::string quad_name = name_of(quad);
        if (quad_name != "Rotation" && quad_name != "Scale" && quad_name != "All") continue;
        SCOPED_TRACE(quad_name);
        const Material& material = scene.materials[scene.meshes[quad.mesh].material];
        ASSERT_GE(material.base_color_texture, 0);
        const Texture& arrow = scene.textures[size_t(material.base_color_texture)];
        glm::vec2 tip(-1.0f);
        for (int y = 0; y < arrow.height; ++y)
            for (int x = 0; x < arrow.width; ++x) {
                const uint8_t* t = &arrow.rgba[size_t(y * arrow.width + x) * 4];
                if (t[0] < 100 && t[3] > 128 && x + y > tip.x + tip.y) tip = {float(x), float(y)};
            }
        ASSERT_GE(tip.x, 0.0f) << "no arrow in the texture";
        tip = (tip + 0.5f) / glm::vec2(float(arrow.width), float(arrow.height));
        // The quad's uv -> position (affine in its plane), from its first triangle.
        const Mesh& mesh = scene.meshes[quad.mesh];
        const Vertex &a = scene.vertices[scene.indices[mesh.first_index]], &b = scene.vertices[scene.indices[mesh.first_index + 1]],
                     &c = scene.vertices[scene.indices[mesh.first_index + 2]];
        glm::mat2 uv_edges(b.uv - a.uv, c.uv - a.uv);
        ASSERT_GT(std::abs(glm::determinant(uv_edges)), 1e-6f);
        // The uv the quad carries where the sampled texel is the tip: map * (uv, 1) = tip.
        const glm::mat3& map = material.uv[kSlotBaseColor].map;
        glm::vec2 uv = glm::inverse(glm::mat2(map)) * (tip - glm::vec2(map[2]));
        glm::vec2 w = glm::inverse(uv_edges) * (uv - a.uv);
        glm::vec3 tip_world = world(quad, a.position + w.x * (b.position - a.position) + w.y * (c.position - a.position));
        std::string nearest;
        float nearest_distance = 1e9f;
        for (const MeshInstance& marker : scene.instances) {
            std::string marker_name = name_of(marker);
            if (marker_name != "Correct" && marker_name != "NotSupported" && marker_name != "Error") continue;
            if (glm::distance(centre(marker), centre(quad)) > 0.6f) continue;  // another quad's
            float d = glm::distance(centre(marker), tip_world);
            if (d < nearest_distance) nearest_distance = d, nearest = marker_name;
        }
        EXPECT_EQ(nearest, "Correct") << "the arrow's tip lands " << nearest_distance << " from the " << nearest << " marker";
        ++checked;
    }
    EXPECT_EQ(checked, 3);
}

TEST(GltfSamples, PrimitiveModesConvertStripsAndSkipLines) {
    REQUIRE_SAMPLES();
    Scene scene = load_scene(sample("MeshPrimitiveModes/glTF/MeshPrimitiveModes.gltf"));
    EXPECT_GT(scene.triangle_count(), 0u);
    EXPECT_TRUE(has_warning(scene, "points and lines"));
}

// ---- Scenes the build generates (build/test-scenes, tools/gen_scene.cpp --test-scenes) -----------
// What the generator wrote is known by construction; these tests hold the loader to it.

TEST(GltfGenerated, BoxKnownCounts) {
    Scene scene = load_scene(SGD_TEST_SCENES "/box.gltf");
    expect_unit_box(scene, 1e-6f);
    check_invariants(scene);
}

// The generator moves vertices 5, 6 and 10 of a flat 4 x 4 grid to y = 0.5, 0.75 and 1.0 through
// a sparse accessor: the loader must apply the substitution (and agree with a hand decoding).
TEST(GltfGenerated, SparseAccessorMatchesHandDecodingAndTheGenerator) {
    fs::path path = SGD_TEST_SCENES "/sparse.gltf";
    ASSERT_TRUE(read_gltf_json(path)["accessors"][0].contains("sparse"));
    Scene scene = load_scene(path.string());
    expect_positions(scene, hand_decoded_sparse_positions(path));
    ASSERT_EQ(scene.vertices.size(), 16u);
    for (size_t v = 0; v < 16; ++v) {
        float y = v == 5 ? 0.5f : v == 6 ? 0.75f : v == 10 ? 1.0f : 0.0f;
        EXPECT_EQ(scene.vertices[v].position, glm::vec3(float(v % 4), y, float(v / 4))) << "vertex " << v;
    }
    EXPECT_EQ(scene.triangle_count(), 18u);
    check_invariants(scene);
}

// props.gltf: one texture shared by two materials, a mesh of two primitives with their own
// materials, 5 drawn primitives in all (ground, crate box, crate lid, drum, ring).
TEST(GltfGenerated, TexturedMultiPrimitiveScene) {
    fs::path path = SGD_TEST_SCENES "/props.gltf";
    json gltf = read_gltf_json(path);
    Scene scene = load_scene(path.string());
    EXPECT_TRUE(scene.warnings.empty()) << scene.warnings.front();
    ASSERT_EQ(scene.textures.size(), 1u);
    EXPECT_EQ(scene.textures[0].width, 64);
    EXPECT_EQ(scene.textures[0].height, 64);
    EXPECT_EQ(scene.instances.size(), 5u);
    int textured = 0;
    for (const Material& m : scene.materials) textured += m.base_color_texture == 0;
    EXPECT_EQ(textured, 2);
    // The crate's two primitives have different materials.
    ASSERT_EQ(gltf["meshes"][1]["primitives"].size(), 2u);
    std::set<uint32_t> crate_materials;
    for (const MeshInstance& i : scene.instances) crate_materials.insert(scene.meshes[i.mesh].material);
    EXPECT_EQ(crate_materials.size(), 5u);
    Expected expected = expected_counts(gltf);
    EXPECT_EQ(scene.triangle_count(), expected.triangles);
    EXPECT_EQ(scene.vertices.size(), expected.vertices);
    check_invariants(scene);
}

TEST(GltfGenerated, KnotIsOneDenseClosedMesh) {
    Scene scene = load_scene(SGD_TEST_SCENES "/knot.gltf");
    EXPECT_EQ(scene.triangle_count(), 4000u);
    EXPECT_EQ(scene.instances.size(), 1u);
    // Closed: every edge is shared by exactly two triangles (the seam vertices are duplicated, so
    // compare positions, not indices).
    std::map<std::pair<std::array<float, 3>, std::array<float, 3>>, int> edges;
    auto key = [&](uint32_t i) {
        glm::vec3 p = scene.vertices[i].position;
        return std::array<float, 3>{p.x, p.y, p.z};
    };
    for (size_t t = 0; t < scene.indices.size(); t += 3)
        for (int e = 0; e < 3; ++e) {
            auto a = key(scene.indices[t + e]), b = key(scene.indices[t + (e + 1) % 3]);
            edges[{std::min(a, b), std::max(a, b)}]++;
        }
    for (const auto& [edge, uses] : edges) ASSERT_EQ(uses, 2);
    check_invariants(scene);
}

// ---- Synthetic geometry ---------------------------------------------------------------------------

TEST(GltfLoader, MinimalTriangle) {
    Scene scene = load_json(make_gltf());
    EXPECT_EQ(scene.triangle_count(), 1u);
    EXPECT_EQ(scene.indices, (std::vector<uint32_t>{0, 1, 2}));
    EXPECT_EQ(scene.materials.size(), 1u);
    EXPECT_EQ(scene.meshes[0].material, 0u);
    for (const Vertex& v : scene.vertices) {
        EXPECT_EQ(v.normal, glm::vec3(0, 0, 1));  // counter-clockwise in XY: +Z
        EXPECT_EQ(v.uv, glm::vec2(0));            // no TEXCOORD_0: zero
    }
    EXPECT_EQ(scene.bounds_min, glm::vec3(0));
    EXPECT_EQ(scene.bounds_max, glm::vec3(1, 1, 0));
    EXPECT_TRUE(scene.warnings.empty());
}

TEST(GltfLoader, IndexComponentTypesAndNoIndices) {
    PrimitiveGeometry u8;
    u8.indices = bytes_of<uint8_t>({2, 1, 0});
    u8.index_type = 5121;
    EXPECT_EQ(load_json(make_gltf(u8)).indices, (std::vector<uint32_t>{2, 1, 0}));

    PrimitiveGeometry u32;
    u32.indices = bytes_of<uint32_t>({1, 2, 0});
    u32.index_type = 5125;
    EXPECT_EQ(load_json(make_gltf(u32)).indices, (std::vector<uint32_t>{1, 2, 0}));

    PrimitiveGeometry none;
    none.indices.clear();
    none.index_type = 0;
    EXPECT_EQ(load_json(make_gltf(none)).indices, (std::vector<uint32_t>{0, 1, 2}));
}

TEST(GltfLoader, StripsAndFansBecomeLists) {
    PrimitiveGeometry quad;
    quad.positions = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0};
    quad.indices.clear();
    quad.index_type = 0;
    quad.mode = 5;  // TRIANGLE_STRIP
    EXPECT_EQ(load_json(make_gltf(quad)).indices, (std::vector<uint32_t>{0, 1, 2, 1, 3, 2}));
    quad.mode = 6;  // TRIANGLE_FAN
    EXPECT_EQ(load_json(make_gltf(quad)).indices, (std::vector<uint32_t>{1, 2, 0, 2, 3, 0}));
}

TEST(GltfLoader, PointsAndLinesAreSkippedWithAWarning) {
    for (int mode : {0, 1, 2, 3}) {
        PrimitiveGeometry g;
        g.mode = mode;
        Scene scene = load_json(make_gltf(g));
        EXPECT_EQ(scene.triangle_count(), 0u);
        EXPECT_TRUE(has_warning(scene, "not drawn")) << "mode " << mode;
    }
    PrimitiveGeometry bad;
    bad.mode = 9;
    expect_json_error(make_gltf(bad), "invalid mode 9");
}

TEST(GltfLoader, NodeTransformsAndRoots) {
    json gltf = make_gltf();
    gltf["nodes"] = json::parse(R"([{"translation": [10, 0, 0], "children": [1]},
                                    {"mesh": 0, "scale": [2, 2, 2]},
                                    {"mesh": 0, "matrix": [1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,-5,1]}])");
    gltf["scenes"][0]["nodes"] = {0};
    Scene scene = load_json(gltf);
    ASSERT_EQ(scene.instances.size(), 1u);  // node 2 is not in the default scene
    EXPECT_EQ(scene.bounds_min, glm::vec3(10, 0, 0));
    EXPECT_EQ(scene.bounds_max, glm::vec3(12, 2, 0));

    gltf.erase("scene");  // no default scene: every root node (0 and 2) is drawn
    scene = load_json(gltf);
    EXPECT_EQ(scene.instances.size(), 2u);
    EXPECT_EQ(scene.bounds_min, glm::vec3(0, 0, -5));
}

TEST(GltfLoader, ExternalAndGlbBuffers) {
    TempDir dir;
    PrimitiveGeometry g;
    write_bytes(dir.path / "tri.bin", geometry_buffer(g));
    write_text(dir.path / "tri.gltf", make_gltf(g, "tri.bin").dump());
    EXPECT_EQ(load_scene((dir.path / "tri.gltf").string()).triangle_count(), 1u);

    write_bytes(dir.path / "tri.glb", make_glb(g));
    EXPECT_EQ(load_scene((dir.path / "tri.glb").string()).triangle_count(), 1u);

    // From memory with no base directory, external files are off limits.
    std::string text = make_gltf(g, "tri.bin").dump();
    expect_error([&] { load_text(text, ""); }, "tri.bin");
}

// ---- Malformed input ------------------------------------------------------------------------------

TEST(GltfMalformed, MissingFileAndUnknownExtension) {
    TempDir dir;
    std::string missing = (dir.path / "nope.gltf").string();
    expect_error([&] { load_scene(missing); }, "scene file not found: " + missing);
    write_text(dir.path / "model.obj", "o cube\n");
    expect_error([&] { load_scene((dir.path / "model.obj").string()); }, "unsupported scene file type");
}

TEST(GltfMalformed, MissingBufferFile) {
    TempDir dir;
    write_text(dir.path / "tri.gltf", make_gltf({}, "missing.bin").dump());
    expect_error([&] { load_scene((dir.path / "tri.gltf").string()); }, "missing.bin");
}

TEST(GltfMalformed, InvalidJson) {
    expect_error([] { load_text("{ \"asset\": { \"version\": \"2.0\" "); }, "invalid JSON");
    expect_error([] { load_text(""); }, "invalid JSON");
    expect_error([] { load_text("[1, 2, 3]"); }, "not a JSON object");
    expect_error([] { load_text(std::string(100000, '[') + std::string(100000, ']')); }, "nested deeper");
}

TEST(GltfMalformed, AccessorPastItsBufferView) {
    expect_json_error(make_gltf_with("/accessors/0/count", 4), "accessor 0: byteOffset+count*stride (48) exceeds buffer view 0 length (36)");
    expect_json_error(make_gltf_with("/accessors/0/byteOffset", 2147483644), "exceeds buffer view 0");
    expect_json_error(make_gltf_with("/accessors/0/count", 2000000000), "1 GiB of vertex data");
    // Without a buffer view an accessor is all zeros, so a tiny file could claim a huge count:
    // the limits must be enforced before anything is allocated.
    json gltf = make_gltf();
    gltf["accessors"][0].erase("bufferView");
    gltf["accessors"][0]["count"] = 60000000;
    expect_json_error(gltf, "1 GiB of vertex data");
    gltf = make_gltf();  // index counts are checked against the limit before the buffer view
    gltf["accessors"][1]["count"] = 400000000;
    expect_json_error(gltf, "1 GiB of index data");
    gltf = make_gltf();
    gltf["accessors"].push_back({{"componentType", 5126}, {"count", 80000000}, {"type", "VEC3"}});
    gltf["meshes"][0]["primitives"][0]["attributes"]["NORMAL"] = 2;
    expect_json_error(gltf, "NORMAL: 80000000 elements but POSITION has 3");
    gltf = make_gltf();
    gltf["accessors"][1]["count"] = 200000000;
    gltf["meshes"][0]["primitives"][0]["mode"] = 5;  // a strip triples into a list
    expect_json_error(gltf, "1 GiB of index data");
}

TEST(GltfMalformed, IndicesOutOfRange) {
    expect_json_error(make_gltf_with("/meshes/0/primitives/0/attributes/POSITION", 7), "accessor 7 out of range");
    expect_json_error(make_gltf_with("/accessors/0/bufferView", 5), "buffer view 5 out of range");
    expect_json_error(make_gltf_with("/bufferViews/0/byteLength", 1000), "buffer view 0: byteOffset+byteLength (1000) exceeds buffer 0");
    expect_json_error(make_gltf_with("/meshes/0/primitives/0/material", 3), "material 3 out of range");
    expect_json_error(make_gltf_with("/nodes/0/mesh", 2), "mesh 2 out of range");
}

TEST(GltfMalformed, IndexPastVertexCount) {
    PrimitiveGeometry g;
    g.indices = bytes_of<uint16_t>({0, 1, 3});
    expect_json_error(make_gltf(g), "index 3 at position 2 is >= vertex count 3");
}

TEST(GltfMalformed, NegativeOrOverflowingOffsets) {
    expect_json_error(make_gltf_with("/bufferViews/0/byteOffset", -4), "/bufferViews/0/byteOffset must be a non-negative integer");
    expect_json_error(make_gltf_with("/accessors/0/byteOffset", 18446744073709551615ull), "/accessors/0/byteOffset");
    expect_json_error(make_gltf_with("/accessors/0/byteOffset", 1e300), "must be a non-negative integer");
    // 2^32 would truncate to mesh 0 through `int`.
    expect_json_error(make_gltf_with("/nodes/0/mesh", 4294967296ull), "/nodes/0/mesh");
}

TEST(GltfMalformed, StrideSmallerThanElement) {
    expect_json_error(make_gltf_with("/bufferViews/0/byteStride", 4), "byteStride 4 is smaller than the element size 12");
}

TEST(GltfMalformed, WrongAttributeTypes) {
    expect_json_error(make_gltf_with("/accessors/0/type", "VEC2"), "must be float VEC3");
    expect_json_error(make_gltf_with("/accessors/1/componentType", 5126), "index accessor 1");
}

TEST(GltfMalformed, SparseIndexPastCount) {
    // Sparse indices {7} (u16 at byte 36) and one replacement value read from the positions.
    PrimitiveGeometry g;
    g.indices = bytes_of<uint16_t>({7, 0});
    g.index_type = 0;
    json gltf = make_gltf(g);
    gltf["bufferViews"].push_back({{"buffer", 0}, {"byteOffset", 36}, {"byteLength", 4}});
    gltf["accessors"][0]["sparse"] = {{"count", 1},
                                      {"indices", {{"bufferView", 1}, {"componentType", 5123}}},
                                      {"values", {{"bufferView", 0}}}};
    expect_json_error(gltf, "sparse: index 7 at position 0 is >= accessor count 3");
    gltf["accessors"][0]["sparse"]["count"] = 5;
    expect_json_error(gltf, "sparse: count 5 out of range");
}

TEST(GltfMalformed, CyclicAndDeepNodeGraphs) {
    json gltf = make_gltf();
    gltf["nodes"] = json::parse(R"([{"mesh": 0, "children": [1]}, {"children": [0]}])");
    expect_json_error(gltf, "cycle");
    gltf.erase("scene");  // no roots at all
    expect_json_error(gltf, "cycle");
    gltf["scene"] = 0;
    gltf["nodes"] = json::parse(R"([{"mesh": 0, "children": [0]}])");
    expect_json_error(gltf, "cycle through node 0");

    gltf = make_gltf();
    gltf["nodes"] = json::array();
    for (int i = 0; i < 300; ++i)
        gltf["nodes"].push_back(i + 1 < 300 ? json{{"children", {i + 1}}} : json{{"mesh", 0}});
    expect_json_error(gltf, "deeper than");
}

TEST(GltfMalformed, UnsupportedRequiredExtension) {
    json gltf = make_gltf();
    gltf["extensionsRequired"] = {"EXT_mesh_gpu_instancing"};
    expect_json_error(gltf, "unsupported required extension EXT_mesh_gpu_instancing");
    gltf["extensionsRequired"] = {"KHR_texture_basisu"};
    expect_json_error(gltf, "no KTX library in Debian");
    // What the loader decodes (docs/scenes.md) is accepted when required.
    gltf["extensionsRequired"] = {"KHR_mesh_quantization", "EXT_meshopt_compression", "KHR_draco_mesh_compression",
                                  "EXT_texture_webp", "KHR_texture_transform"};
    EXPECT_EQ(load_json(gltf).triangle_count(), 1u);
}

// Emission as glTF and KHR_materials_emissive_strength define it: the factor (clamped to [0, 1])
// times the strength, and the emissive texture as a colour (sRGB) texture; without a factor, none.
TEST(GltfLoader, EmissiveFactorStrengthAndTexture) {
    TempDir dir;
    json gltf = textured_triangle(dir, "glow.png");
    gltf["materials"] = {
        {{"emissiveFactor", {1.0, 0.5, 0.25}},
         {"emissiveTexture", {{"index", 0}}},
         {"extensions", {{"KHR_materials_emissive_strength", {{"emissiveStrength", 4.0}}}}}},
        {{"emissiveFactor", {2.0, -1.0, 0.5}}},  // out of range: clamped
        {{"pbrMetallicRoughness", {{"baseColorFactor", {1, 1, 1, 1}}}}}};
    gltf["meshes"][0]["primitives"][0]["material"] = 0;
    gltf["extensionsUsed"] = {"KHR_materials_emissive_strength"};
    gltf["extensionsRequired"] = {"KHR_materials_emissive_strength"};  // decoded: no warning
    Scene scene = load_json(gltf, dir.path.string());
    ASSERT_EQ(scene.materials.size(), 4u);
    EXPECT_EQ(scene.materials[1].emissive, glm::vec3(4.0f, 2.0f, 1.0f));
    ASSERT_EQ(scene.materials[1].emissive_texture, 0);
    ASSERT_EQ(scene.textures.size(), 1u);
    EXPECT_TRUE(scene.textures[0].srgb);
    EXPECT_EQ(scene.textures[0].width, 2);
    EXPECT_EQ(scene.materials[2].emissive, glm::vec3(1.0f, 0.0f, 0.5f));
    EXPECT_EQ(scene.materials[2].emissive_texture, -1);
    EXPECT_EQ(scene.materials[3].emissive, glm::vec3(0.0f));
    EXPECT_TRUE(scene.warnings.empty()) << scene.warnings[0];
}

TEST(GltfMalformed, BadTexturesAreWarningsNotErrors) {
    TempDir dir;
    std::vector<uint8_t> garbage(200, 0x5A);
    write_bytes(dir.path / "tri.bin", geometry_buffer({}));
    json gltf = make_gltf({}, "tri.bin");
    gltf["images"] = {{{"uri", "data:image/png;base64," + base64(garbage)}},  // corrupt
                      {{"uri", "missing.png"}},                              // no such file
                      {{"bufferView", 0}, {"mimeType", "image/png"}},        // geometry, not a PNG
                      {{"bufferView", 2}, {"mimeType", "image/png"}}};       // view past the buffer
    gltf["bufferViews"].push_back({{"buffer", 0}, {"byteOffset", 1000}, {"byteLength", 8}});
    gltf["textures"] = {{{"source", 0}}, {{"source", 1}}, {{"source", 2}}, {{"source", 3}}};
    gltf["materials"] = json::array();
    for (int texture : {0, 1, 2, 3, 9})
        gltf["materials"].push_back({{"pbrMetallicRoughness", {{"baseColorTexture", {{"index", texture}}}}}});
    gltf["meshes"][0]["primitives"][0]["material"] = 0;

    Scene scene = load_json(gltf, dir.path.string());
    EXPECT_TRUE(scene.textures.empty());
    ASSERT_EQ(scene.materials.size(), 6u);
    for (const Material& material : scene.materials)
        EXPECT_EQ(material.base_color_texture, -1);
    EXPECT_TRUE(has_warning(scene, "image 0: cannot decode"));
    EXPECT_TRUE(has_warning(scene, "missing.png"));
    EXPECT_TRUE(has_warning(scene, "image 2: cannot decode"));
    EXPECT_TRUE(has_warning(scene, "buffer view 2: byteOffset+byteLength (1008) exceeds buffer 0"));
    EXPECT_TRUE(has_warning(scene, "texture 9 out of range"));
    EXPECT_EQ(scene.triangle_count(), 1u);
}

TEST(GltfMalformed, TruncatedGlb) {
    std::vector<uint8_t> glb = make_glb();
    ASSERT_EQ(load_glb(glb).triangle_count(), 1u);
    // Every proper prefix is a truncated file: each must be refused, none may read past its end.
    for (size_t size = 0; size < glb.size(); ++size) {
        std::vector<uint8_t> prefix(glb.begin(), glb.begin() + size);
        try {
            load_glb(prefix);
            ADD_FAILURE() << "prefix of " << size << " bytes loaded";
        } catch (const SceneError&) {
        }
    }
    expect_error([&] { load_glb(std::vector<uint8_t>(glb.begin(), glb.end() - 4)); }, "truncated GLB");

    std::vector<uint8_t> bad_bin = glb;  // BIN chunk claims more bytes than the file holds
    uint32_t json_size = read_as<uint32_t>(&glb[12]);
    uint32_t huge = 0xFFFFFFF0u;
    memcpy(&bad_bin[20 + json_size], &huge, 4);
    expect_error([&] { load_glb(bad_bin); }, "BIN chunk");

    std::vector<uint8_t> bad_magic = glb;
    bad_magic[0] = 'x';
    expect_error([&] { load_glb(bad_magic); }, "bad magic");
}

// Deterministic byte flips over a GLB and a .gltf: whatever comes out must be a clean outcome.
// Run under ASan/UBSan this is a small fuzz pass over the bounds checks.
TEST(GltfMalformed, MutatedFilesNeverCrash) {
    std::vector<uint8_t> glb = make_glb();
    std::string text = make_gltf().dump();
    uint32_t state = 12345;
    auto next = [&] { return state = state * 1664525u + 1013904223u; };
    for (int round = 0; round < 400; ++round) {
        std::vector<uint8_t> mutated = glb;
        std::string mutated_text = text;
        for (int flips = 0; flips < 3; ++flips) {
            mutated[next() % mutated.size()] = uint8_t(next() >> 24);
            mutated_text[next() % mutated_text.size()] = "0123456789-e.,[]{}\":9"[next() % 21];
        }
        expect_clean_outcome([&] { return load_glb(mutated); });
        expect_clean_outcome([&] { return load_text(mutated_text); });
    }
}

// ---- Grid replication -----------------------------------------------------------------------------

TEST(SceneGrid, ReplicatesInstancesAndBounds) {
    Scene scene = load_json(make_gltf());  // bounds (0,0,0)-(1,1,0): spacing 1.2 * 1
    replicate_grid(scene, 1);
    EXPECT_EQ(scene.instances.size(), 1u);
    EXPECT_EQ(scene.grid, 1u);

    replicate_grid(scene, 3);
    EXPECT_EQ(scene.grid, 3u);
    EXPECT_EQ(scene.instances.size(), 9u);
    EXPECT_EQ(scene.triangle_count(), 9u);
    EXPECT_NEAR(scene.bounds_min.x, -1.2f, 1e-5f);
    EXPECT_NEAR(scene.bounds_max.x, 2.2f, 1e-5f);
    EXPECT_NEAR(scene.bounds_min.z, -1.2f, 1e-5f);
    EXPECT_NEAR(scene.bounds_max.z, 1.2f, 1e-5f);
    EXPECT_EQ(scene.bounds_min.y, 0.0f);
    EXPECT_EQ(scene.bounds_max.y, 1.0f);

    // The bounds kept up to date must equal a recomputation over the new instances.
    glm::vec3 min = scene.bounds_min, max = scene.bounds_max;
    update_bounds(scene);
    for (int axis = 0; axis < 3; ++axis) {
        EXPECT_NEAR(scene.bounds_min[axis], min[axis], 1e-5f);
        EXPECT_NEAR(scene.bounds_max[axis], max[axis], 1e-5f);
    }
}

// --unique-meshes: copy c's instances point at meshes of their own, whose indices point at copy c's
// vertices; the geometry (every drawn triangle's positions) is the same as with shared meshes.
TEST(SceneGrid, UniqueMeshesGiveEveryCopyItsOwnGeometry) {
    Scene shared = load_json(make_gltf());
    Scene unique = shared;
    const size_t vertices = shared.vertices.size(), indices = shared.indices.size(), meshes = shared.meshes.size();
    replicate_grid(shared, 3);
    replicate_grid(unique, 3, true);
    EXPECT_FALSE(shared.unique_meshes);
    EXPECT_TRUE(unique.unique_meshes);
    EXPECT_EQ(shared.vertices.size(), vertices);
    EXPECT_EQ(unique.vertices.size(), vertices * 9);
    EXPECT_EQ(unique.indices.size(), indices * 9);
    EXPECT_EQ(unique.meshes.size(), meshes * 9);
    ASSERT_EQ(unique.instances.size(), shared.instances.size());
    EXPECT_EQ(unique.triangle_count(), shared.triangle_count());
    std::set<uint32_t> first_indices, first_vertices;
    for (size_t i = 0; i < unique.instances.size(); ++i) {
        const Mesh& a = shared.meshes[shared.instances[i].mesh];
        const Mesh& b = unique.meshes[unique.instances[i].mesh];
        EXPECT_EQ(shared.instances[i].transform, unique.instances[i].transform);
        ASSERT_EQ(a.index_count, b.index_count);
        EXPECT_EQ(a.material, b.material);
        first_indices.insert(b.first_index);
        first_vertices.insert(unique.indices[b.first_index]);
        for (uint32_t k = 0; k < a.index_count; ++k) {
            uint32_t va = shared.indices[a.first_index + k], vb = unique.indices[b.first_index + k];
            ASSERT_LT(vb, unique.vertices.size());
            EXPECT_EQ(shared.vertices[va].position, unique.vertices[vb].position);
        }
    }
    EXPECT_EQ(first_indices.size(), 9u) << "each copy reads its own indices";
    EXPECT_EQ(first_vertices.size(), 9u) << "and its own vertices";
}

TEST(SceneGrid, BoxGridCounts) {
    Scene scene = load_scene(SGD_TEST_SCENES "/box.gltf");
    replicate_grid(scene, 4);
    EXPECT_EQ(scene.instances.size(), 16u);
    EXPECT_EQ(scene.triangle_count(), 16u * 12u);
    // Extent 1 on X and Z: 4 copies spaced 1.2 apart span 3 * 1.2 + 1.
    EXPECT_NEAR(scene.bounds_max.x - scene.bounds_min.x, 4.6f, 1e-5f);
    EXPECT_NEAR(scene.bounds_max.z - scene.bounds_min.z, 4.6f, 1e-5f);
    EXPECT_NEAR(scene.bounds_min.x + scene.bounds_max.x, 0.0f, 1e-5f);  // still centred
}

// The material's slots (docs/materials.md): data textures (metallic-roughness, normal, occlusion)
// linear and colour ones sRGB, an image used both ways decoded once per colour space; normal
// scale, occlusion strength (clamped), each slot's texCoord; TANGENT (normalized, w's sign) and
// TEXCOORD_1 in the material stream; a tangent of a type glTF does not allow is a warning.
TEST(GltfLoader, MaterialSlotsTangentsAndSecondUVs) {
    TempDir dir;
    json gltf = textured_triangle(dir, "map.png");
    gltf["materials"] = {{{"pbrMetallicRoughness", {{"baseColorTexture", {{"index", 0}}}, {"metallicRoughnessTexture", {{"index", 0}, {"texCoord", 1}}}}},
                          {"normalTexture", {{"index", 0}, {"scale", 0.5}}},
                          {"occlusionTexture", {{"index", 0}, {"strength", 3.0}}}}};
    gltf["meshes"][0]["primitives"][0]["material"] = 0;
    // Buffer 1: TANGENT (3 x VEC4: lengths 2, 1 and 0, w -1, 1, 1) and TEXCOORD_1 (3 x VEC2).
    std::vector<float> extra = {2, 0, 0, -1, 0, 1, 0, 1, 0, 0, 0, 1, 0.5f, 0.25f, 1, 2, -3, 4};
    std::vector<uint8_t> bytes(extra.size() * 4);
    memcpy(bytes.data(), extra.data(), bytes.size());
    gltf["buffers"].push_back({{"byteLength", bytes.size()}, {"uri", "data:application/octet-stream;base64," + base64(bytes)}});
    gltf["bufferViews"].push_back({{"buffer", 1}, {"byteOffset", 0}, {"byteLength", 48}});
    gltf["bufferViews"].push_back({{"buffer", 1}, {"byteOffset", 48}, {"byteLength", 24}});
    size_t views = gltf["bufferViews"].size();
    gltf["accessors"].push_back({{"bufferView", views - 2}, {"componentType", 5126}, {"count", 3}, {"type", "VEC4"}});
    gltf["accessors"].push_back({{"bufferView", views - 1}, {"componentType", 5126}, {"count", 3}, {"type", "VEC2"}});
    size_t accessors = gltf["accessors"].size();
    gltf["meshes"][0]["primitives"][0]["attributes"]["TANGENT"] = accessors - 2;
    gltf["meshes"][0]["primitives"][0]["attributes"]["TEXCOORD_1"] = accessors - 1;
    Scene scene = load_json(gltf, dir.path.string());
    EXPECT_TRUE(scene.warnings.empty()) << scene.warnings[0];
    const Material& m = scene.materials[1];
    ASSERT_EQ(scene.textures.size(), 2u);  // the image as colour, and as data
    EXPECT_TRUE(scene.textures[m.base_color_texture].srgb);
    EXPECT_FALSE(scene.textures[m.metallic_roughness_texture].srgb);
    EXPECT_EQ(m.normal_texture, m.metallic_roughness_texture);
    EXPECT_EQ(m.occlusion_texture, m.metallic_roughness_texture);
    EXPECT_EQ(m.normal_scale, 0.5f);
    EXPECT_EQ(m.occlusion_strength, 1.0f);
    EXPECT_EQ(m.uv[kSlotMetallicRoughness].texcoord, 1);
    EXPECT_EQ(m.uv[kSlotBaseColor].texcoord, 0);
    ASSERT_EQ(scene.vertex_materials.size(), scene.vertices.size());
    EXPECT_EQ(scene.vertex_materials[0].tangent, glm::vec4(1, 0, 0, -1));
    EXPECT_EQ(scene.vertex_materials[1].tangent, glm::vec4(0, 1, 0, 1));
    EXPECT_EQ(scene.vertex_materials[2].tangent, glm::vec4(0));  // zero length: the derivative frame
    EXPECT_EQ(scene.vertex_materials[1].uv1, glm::vec2(1, 2));
    // A TANGENT of unsigned bytes is not glTF's: a warning, and no tangents.
    gltf["accessors"][accessors - 2]["componentType"] = 5121;
    gltf["accessors"][accessors - 2]["normalized"] = true;
    Scene bytes_tangent = load_json(gltf, dir.path.string());
    ASSERT_EQ(bytes_tangent.warnings.size(), 1u);
    EXPECT_NE(bytes_tangent.warnings[0].find("TANGENT must be float or normalized byte/short"), std::string::npos);
    EXPECT_EQ(bytes_tangent.vertex_materials[0].tangent, glm::vec4(0));
}

// The bundled scene uses every map, so the paths' comparisons on it (Visibility.BundledSceneMatchesForward)
// cover them all.
TEST(GltfLoader, BundledSceneUsesEveryMaterialMap) {
    Scene scene = load_scene(SGD_DEFAULT_SCENE);
    int base = 0, metallic_roughness = 0, normal = 0, occlusion = 0, emissive = 0;
    for (const Material& m : scene.materials) {
        base += m.base_color_texture >= 0;
        metallic_roughness += m.metallic_roughness_texture >= 0;
        normal += m.normal_texture >= 0;
        occlusion += m.occlusion_texture >= 0;
        emissive += m.emissive_texture >= 0;
    }
    EXPECT_GT(base, 0);
    EXPECT_GT(metallic_roughness, 0);
    EXPECT_GT(normal, 0);
    EXPECT_GT(occlusion, 0);
    EXPECT_GT(emissive, 0);
}
