// Optimized and compressed glTF (docs/scenes.md): KHR_mesh_quantization, EXT_meshopt_compression,
// KHR_draco_mesh_compression, EXT_texture_webp and KHR_texture_transform.
//
// The packed scenes are written at build time by tools/pack_scene.cpp from the generated test
// scenes (build/test-scenes): each must load to the same triangles as its original, within the
// error its encoding allows (derived below from what the file says: the grid step, the Draco
// quantization bits), or exactly where the encoding is lossless. Hostile variants are made here
// from those files, and every component type of the quantization extension is checked on a
// hand-written triangle against the glTF formulas.
#include "scene/mesh_decode.h"
#include "scene/scene.h"

#include <gtest/gtest.h>

#include "scene_test_helpers.h"
#include <glm/gtc/matrix_transform.hpp>
#include <meshoptimizer.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const fs::path kScenes = SGD_TEST_SCENES;

// ---- GLB pieces, to make hostile variants of the packed GLBs -------------------------------------

struct Glb {
    json gltf;
    std::vector<uint8_t> bin;
};

Glb split_glb(const std::vector<uint8_t>& bytes) {
    uint32_t json_size, bin_size;
    memcpy(&json_size, &bytes[12], 4);
    memcpy(&bin_size, &bytes[20 + json_size], 4);
    return {json::parse(bytes.begin() + 20, bytes.begin() + 20 + json_size),
            std::vector<uint8_t>(bytes.begin() + 28 + json_size, bytes.begin() + 28 + json_size + bin_size)};
}

std::vector<uint8_t> join_glb(const Glb& glb) {
    std::string text = glb.gltf.dump();
    text.resize((text.size() + 3) / 4 * 4, ' ');
    std::vector<uint8_t> bin = glb.bin;
    bin.resize((bin.size() + 3) / 4 * 4, 0);
    uint32_t header[5] = {0x46546C67, 2, uint32_t(28 + text.size() + bin.size()), uint32_t(text.size()), 0x4E4F534A};
    std::vector<uint8_t> out(reinterpret_cast<uint8_t*>(header), reinterpret_cast<uint8_t*>(header) + 20);
    out.insert(out.end(), text.begin(), text.end());
    uint32_t chunk[2] = {uint32_t(bin.size()), 0x004E4942};
    out.insert(out.end(), reinterpret_cast<uint8_t*>(chunk), reinterpret_cast<uint8_t*>(chunk) + 8);
    out.insert(out.end(), bin.begin(), bin.end());
    return out;
}

// Loaded with the test scenes' folder as base, so external textures resolve.
Scene load_glb(const Glb& glb) {
    std::vector<uint8_t> bytes = join_glb(glb);
    return load_scene_from_memory(bytes.data(), bytes.size(), kScenes.string(), true);
}

Scene load_text(const json& gltf, const fs::path& base = kScenes) {
    std::string text = gltf.dump();
    return load_scene_from_memory(reinterpret_cast<const uint8_t*>(text.data()), text.size(), base.string(), false);
}

// ---- Comparing a packed scene with its original --------------------------------------------------

// World-space corners of every drawn triangle, instance by instance, with normals and UVs.
struct Corner {
    glm::vec3 position, normal;
    glm::vec2 uv;
};
struct Drawn {
    std::vector<std::vector<Corner>> instances;  // 3 corners per triangle
    std::vector<float> tolerance;                // per instance: the position error its encoding allows
    std::vector<bool> textured;                  // per instance: its material samples a texture
    std::vector<float> uv_extent;                // per instance: the largest UV range
};

// `grid_error(transform)`: the world-space error a position may have in that instance.
Drawn drawn(const Scene& scene, const std::function<float(const glm::mat4&)>& grid_error) {
    Drawn out;
    for (const MeshInstance& instance : scene.instances) {
        const Mesh& mesh = scene.meshes[instance.mesh];
        glm::mat3 normal_matrix = glm::transpose(glm::inverse(glm::mat3(instance.transform)));
        std::vector<Corner>& corners = out.instances.emplace_back();
        // The UVs the base colour texture samples: through its KHR_texture_transform (the shader's).
        const glm::mat3& uv_map = scene.materials[mesh.material].uv[kSlotBaseColor].map;
        for (uint32_t i = 0; i < mesh.index_count; ++i) {
            const Vertex& v = scene.vertices[scene.indices[mesh.first_index + i]];
            corners.push_back({glm::vec3(instance.transform * glm::vec4(v.position, 1.0f)),
                               glm::normalize(normal_matrix * v.normal), glm::vec2(uv_map * glm::vec3(v.uv, 1.0f))});
        }
        out.tolerance.push_back(grid_error(instance.transform));
        out.textured.push_back(scene.materials[mesh.material].base_color_texture >= 0);
        glm::vec2 lo(INFINITY), hi(-INFINITY);
        for (const Corner& c : corners) lo = glm::min(lo, c.uv), hi = glm::max(hi, c.uv);
        out.uv_extent.push_back(corners.empty() ? 0.0f : std::max(hi.x - lo.x, hi.y - lo.y));
    }
    return out;
}

// Half a grid step along each axis, through the instance's matrix (which holds the step):
// the Frobenius norm bounds how far it stretches the half-diagonal of one grid cell.
float half_cell(const glm::mat4& m) {
    float norm = 0.0f;
    for (int c = 0; c < 3; ++c) norm += glm::dot(glm::vec3(m[c]), glm::vec3(m[c]));
    return 0.5f * std::sqrt(3.0f) * std::sqrt(norm) + 1e-5f;
}

struct Limits {
    float normal_dot = 0.999f;  // normals within ~2.5 degrees
    float uv = 1e-6f;           // absolute UV error, or with uv_bits:
    int uv_bits = 0;            // UVs quantized to this many bits over the instance's UV range
    float uv_limit(const Drawn& original, size_t i) const {
        return uv_bits ? original.uv_extent[i] / float((1 << uv_bits) - 1) + 1e-5f : uv;
    }
};

// How near a packed instance's corners must come to the original's.
struct CornerTolerance {
    float position, normal_dot, uv;
    bool check_uv;  // the instance is textured and its UVs are compared
    bool near(const Corner& x, const Corner& y) const {
        return glm::length(x.position - y.position) <= position && glm::dot(x.normal, y.normal) >= normal_dot &&
               (!check_uv || glm::length(x.uv - y.uv) <= uv);
    }
    // The triangle of corners x[0..2] is y[0..2] with its corners rotated by 0, 1 or 2 places.
    bool same_triangle(const Corner* x, const Corner* y) const {
        for (int rotation = 0; rotation < 3; ++rotation)
            if (near(x[0], y[rotation]) && near(x[1], y[(1 + rotation) % 3]) && near(x[2], y[(2 + rotation) % 3]))
                return true;
        return false;
    }
};

CornerTolerance corner_tolerance(const Drawn& original, const Drawn& packed, const Limits& limits, bool check_uv, size_t i) {
    return {packed.tolerance[i], limits.normal_dot, limits.uv_limit(original, i), check_uv && packed.textured[i]};
}

// Same triangles in the same order (quantization and meshopt keep the order; meshopt's index
// codec may rotate a triangle's corners, keeping its winding).
void expect_same_triangles(const Drawn& original, const Drawn& packed, const Limits& limits, bool check_uv) {
    ASSERT_EQ(original.instances.size(), packed.instances.size());
    for (size_t i = 0; i < original.instances.size(); ++i) {
        const auto& a = original.instances[i];
        const auto& b = packed.instances[i];
        ASSERT_EQ(a.size(), b.size()) << "instance " << i;
        CornerTolerance tolerance = corner_tolerance(original, packed, limits, check_uv, i);
        int worst = 0;
        for (size_t t = 0; t < a.size(); t += 3) {
            if (!tolerance.same_triangle(&a[t], &b[t]) && ++worst <= 3) {
                std::ostringstream corners;
                for (int k = 0; k < 3; ++k)
                    corners << " | " << glm::length(a[t + k].position - b[t + k].position) << " "
                            << glm::length(a[t + k].uv - b[t + k].uv) << " " << glm::dot(a[t + k].normal, b[t + k].normal);
                ADD_FAILURE() << "instance " << i << " triangle " << t / 3 << ": position, uv and normal errors"
                              << corners.str() << " (tolerances " << tolerance.position << " " << tolerance.uv << " "
                              << tolerance.normal_dot << ")";
            }
        }
        EXPECT_EQ(worst, 0) << "instance " << i << ": triangles outside the tolerance";
    }
}

// Same triangles in any order (Draco's edgebreaker reorders faces and vertices): each original
// triangle must have a decoded one whose corners match it, up to rotation.
void expect_same_triangle_set(const Drawn& original, const Drawn& packed, const Limits& limits, bool check_uv) {
    ASSERT_EQ(original.instances.size(), packed.instances.size());
    for (size_t i = 0; i < original.instances.size(); ++i) {
        const auto& a = original.instances[i];
        const auto& b = packed.instances[i];
        ASSERT_EQ(a.size(), b.size()) << "instance " << i << ": triangle counts differ";
        CornerTolerance tolerance = corner_tolerance(original, packed, limits, check_uv, i);
        std::vector<uint8_t> used(b.size() / 3, 0);
        int missing = 0;
        for (size_t t = 0; t < a.size(); t += 3) {
            bool matched = false;
            for (size_t u = 0; u < b.size() && !matched; u += 3)
                if (!used[u / 3] && tolerance.same_triangle(&a[t], &b[u])) matched = true, used[u / 3] = 1;
            if (!matched) ++missing;
        }
        EXPECT_EQ(missing, 0) << "instance " << i << ": " << missing << " of " << a.size() / 3
                              << " triangles have no decoded match within " << tolerance.position;
    }
}

float exact(const glm::mat4&) { return 0.0f; }

// The largest KHR_texture_transform scale in a packed file: its UVs are 16-bit steps of it.
float uv_step(const json& gltf) {
    float step = 0.0f;
    for (const json& material : gltf["materials"]) {
        json info = material.value("pbrMetallicRoughness", json::object()).value("baseColorTexture", json::object());
        if (info.contains("extensions"))
            for (const json& s : info["extensions"]["KHR_texture_transform"]["scale"]) step = std::max(step, s.get<float>());
    }
    return step / 65535.0f;
}

json read_json(const fs::path& path) {
    std::vector<uint8_t> bytes = read_bytes(path);
    if (path.extension() == ".glb") return split_glb(bytes).gltf;
    return json::parse(bytes.begin(), bytes.end());
}

}  // namespace

// ---- Packed copies of the generated scenes ------------------------------------------------------

TEST(PackedScenes, QuantizedCopiesMatchTheOriginalsWithinHalfAGridStep) {
    for (const char* name : {"props", "knot"}) {
        SCOPED_TRACE(name);
        fs::path packed_path = kScenes / (std::string(name) + "-quantized.gltf");
        json gltf = read_json(packed_path);
        ASSERT_EQ(gltf["extensionsRequired"][0], "KHR_mesh_quantization");
        ASSERT_EQ(gltf["accessors"][0]["componentType"], 5123);  // positions as unsigned shorts
        Scene original = load_scene((kScenes / (std::string(name) + ".gltf")).string());
        Scene packed = load_scene(packed_path.string());
        EXPECT_TRUE(packed.warnings.empty()) << packed.warnings.front();
        EXPECT_EQ(packed.triangle_count(), original.triangle_count());
        EXPECT_EQ(packed.vertices.size(), original.vertices.size());
        EXPECT_EQ(packed.textures.size(), original.textures.size());
        Limits limits;
        limits.uv = 0.5f * std::sqrt(2.0f) * uv_step(gltf) + 1e-6f;  // half a step on each axis
        // Textured primitives' UVs are dequantized through KHR_texture_transform; untextured
        // ones lose their UVs (as with gltfpack), so UVs are compared where a texture is drawn.
        expect_same_triangles(drawn(original, exact), drawn(packed, half_cell), limits, true);
        // The grid's dequantization is a node transform: bounds agree within a grid step.
        EXPECT_NEAR(glm::length(packed.bounds_max - original.bounds_max), 0.0f, 1e-3f);
        EXPECT_NEAR(glm::length(packed.bounds_min - original.bounds_min), 0.0f, 1e-3f);
    }
}

// gltfpack -c: meshopt streams over quantized data. The codecs are lossless, so positions and
// UVs decode to exactly the quantized copy's; normals went through the octahedral filter.
TEST(PackedScenes, MeshoptCopiesDecodeToTheQuantizedData) {
    for (const char* file : {"props-meshopt.glb", "knot-meshopt.gltf"}) {
        SCOPED_TRACE(file);
        std::string name = std::string(file).substr(0, std::string(file).find('-'));
        json gltf = read_json(kScenes / file);
        std::set<std::string> modes, filters;
        for (const json& view : gltf["bufferViews"]) {
            modes.insert(view["extensions"]["EXT_meshopt_compression"]["mode"].get<std::string>());
            filters.insert(view["extensions"]["EXT_meshopt_compression"].value("filter", "NONE"));
        }
        EXPECT_TRUE(filters.count("OCTAHEDRAL"));
        Scene quantized = load_scene((kScenes / (name + "-quantized.gltf")).string());
        Scene packed = load_scene((kScenes / file).string());
        EXPECT_TRUE(packed.warnings.empty()) << packed.warnings.front();
        EXPECT_EQ(packed.triangle_count(), quantized.triangle_count());
        ASSERT_EQ(packed.vertices.size(), quantized.vertices.size());
        for (size_t v = 0; v < packed.vertices.size(); ++v) {
            ASSERT_EQ(packed.vertices[v].position, quantized.vertices[v].position) << "vertex " << v;
            ASSERT_EQ(packed.vertices[v].uv, quantized.vertices[v].uv) << "vertex " << v;
            ASSERT_GE(glm::dot(packed.vertices[v].normal, quantized.vertices[v].normal), 0.998f) << "vertex " << v;
        }
        Limits limits;
        limits.normal_dot = 0.998f;
        expect_same_triangles(drawn(quantized, exact), drawn(packed, exact), limits, true);
        if (name == "props") {
            EXPECT_TRUE(modes.count("TRIANGLES") && modes.count("INDICES") && modes.count("ATTRIBUTES"));
        }
    }
}

// Float positions and UVs through the EXPONENTIAL filter: 15-bit signed mantissas, the exponent
// shared by the vector, so each component is within one mantissa step of the vector's largest
// (max |x| * 2^-13).
TEST(PackedScenes, MeshoptFloatCopyMatchesTheOriginalWithinTheMantissa) {
    json gltf = read_json(kScenes / "props-meshopt-float.gltf");
    bool exponential = false;
    for (const json& view : gltf["bufferViews"])
        exponential |= view["extensions"]["EXT_meshopt_compression"].value("filter", "") == "EXPONENTIAL";
    ASSERT_TRUE(exponential);
    Scene original = load_scene((kScenes / "props.gltf").string());
    Scene packed = load_scene((kScenes / "props-meshopt-float.gltf").string());
    ASSERT_EQ(packed.vertices.size(), original.vertices.size());
    for (size_t v = 0; v < packed.vertices.size(); ++v)
        for (int c = 0; c < 3; ++c) {
            glm::vec3 p = glm::abs(original.vertices[v].position);
            float x = original.vertices[v].position[c], step = std::max({p.x, p.y, p.z}) * 0x1p-13f;
            ASSERT_NEAR(packed.vertices[v].position[c], x, step + 1e-7f) << "vertex " << v;
            ASSERT_EQ(packed.vertices[v].normal[c], original.vertices[v].normal[c]) << "vertex " << v;  // no filter
        }
    // TRIANGLES streams keep the order of triangles, and may rotate the corners of each.
    ASSERT_EQ(packed.indices.size(), original.indices.size());
    for (size_t t = 0; t < packed.indices.size(); t += 3) {
        const uint32_t* a = &original.indices[t];
        const uint32_t* b = &packed.indices[t];
        bool same = false;
        for (int r = 0; r < 3; ++r) same |= a[0] == b[r] && a[1] == b[(r + 1) % 3] && a[2] == b[(r + 2) % 3];
        ASSERT_TRUE(same) << "triangle " << t / 3;
    }
}

// The fallback rule: a view whose fallback buffer has its data needs no decoding. With the
// compressed bytes destroyed, the scene must still load, to exactly what decoding gives.
TEST(PackedScenes, MeshoptViewsWithFallbackDataAreNotDecoded) {
    fs::path dir = fs::temp_directory_path() / ("sgd_meshopt_fallback_" + std::to_string(getpid()));
    fs::create_directories(dir / "textures");
    for (const char* f : {"props-meshopt-fallback.gltf", "props-meshopt-fallback.fallback.bin", "textures/props_checker.png"})
        fs::copy_file(kScenes / f, dir / f, fs::copy_options::overwrite_existing);
    std::vector<uint8_t> garbage(fs::file_size(kScenes / "props-meshopt-fallback.bin"), 0xA5);
    std::ofstream(dir / "props-meshopt-fallback.bin", std::ios::binary)
        .write(reinterpret_cast<const char*>(garbage.data()), std::streamsize(garbage.size()));
    json gltf = read_json(dir / "props-meshopt-fallback.gltf");
    EXPECT_FALSE(gltf.contains("extensionsRequired") &&
                 std::find(gltf["extensionsRequired"].begin(), gltf["extensionsRequired"].end(), "EXT_meshopt_compression") !=
                     gltf["extensionsRequired"].end());
    Scene from_fallback = load_scene((dir / "props-meshopt-fallback.gltf").string());
    Scene decoded = load_scene((kScenes / "props-meshopt.glb").string());
    ASSERT_EQ(from_fallback.vertices.size(), decoded.vertices.size());
    for (size_t v = 0; v < decoded.vertices.size(); ++v) {
        ASSERT_EQ(from_fallback.vertices[v].position, decoded.vertices[v].position) << "vertex " << v;
        ASSERT_EQ(from_fallback.vertices[v].normal, decoded.vertices[v].normal) << "vertex " << v;
        ASSERT_EQ(from_fallback.vertices[v].uv, decoded.vertices[v].uv) << "vertex " << v;
    }
    EXPECT_EQ(from_fallback.triangle_count(), decoded.triangle_count());
    // Without the fallback file the garbage must be decoded, and is refused.
    fs::remove(dir / "props-meshopt-fallback.fallback.bin");
    gltf["buffers"][1].erase("uri");
    gltf["buffers"][1]["extensions"]["EXT_meshopt_compression"]["fallback"] = true;
    expect_error([&] { load_text(gltf, dir); }, "EXT_meshopt_compression");
    fs::remove_all(dir);
}

// Draco reorders faces and may split vertices: the same triangles, in any order, within the
// quantization the packer chose (14-bit positions over each primitive's extent, 10-bit normals,
// 12-bit UVs).
TEST(PackedScenes, DracoCopiesHoldTheSameTrianglesWithinTheirQuantization) {
    for (const char* file : {"props-draco.gltf", "knot-draco.glb"}) {
        SCOPED_TRACE(file);
        std::string name = std::string(file).substr(0, std::string(file).find('-'));
        json gltf = read_json(kScenes / file);
        ASSERT_EQ(gltf["extensionsRequired"][0], "KHR_draco_mesh_compression");
        Scene original = load_scene((kScenes / (name + ".gltf")).string());
        Scene packed = load_scene((kScenes / file).string());
        EXPECT_TRUE(packed.warnings.empty()) << packed.warnings.front();
        EXPECT_EQ(packed.triangle_count(), original.triangle_count());
        // Vertex counts: what the file's accessors declare (edgebreaker may split seams).
        uint64_t declared = 0;
        for (const json& mesh : gltf["meshes"])
            for (const json& p : mesh["primitives"]) declared += gltf["accessors"][p["attributes"]["POSITION"].get<int>()]["count"].get<uint64_t>();
        EXPECT_EQ(packed.vertices.size(), declared);
        EXPECT_GE(packed.vertices.size(), original.vertices.size());
        // Error bound: a primitive's extent / (2^14 - 1) per axis, half of it after rounding.
        auto draco_error = [&](const glm::mat4& m) {
            float extent = 0.0f;
            for (const json& accessor : gltf["accessors"])
                if (accessor.contains("min") && accessor["type"] == "VEC3")
                    for (int c = 0; c < 3; ++c)
                        extent = std::max(extent, accessor["max"][c].get<float>() - accessor["min"][c].get<float>());
            return half_cell(m * glm::scale(glm::mat4(1.0f), glm::vec3(extent / 16383.0f))) + 1e-5f;
        };
        Limits limits;
        limits.normal_dot = 0.995f;
        limits.uv_bits = 12;  // a step of the primitive's UV range (rounding is half of one)
        expect_same_triangle_set(drawn(original, exact), drawn(packed, draco_error), limits, true);
    }
}

TEST(PackedScenes, WebpCopyDecodesToTheSameTexels) {
    json gltf = read_json(kScenes / "props-webp.gltf");
    ASSERT_EQ(gltf["images"][0]["mimeType"], "image/webp");
    ASSERT_FALSE(gltf["textures"][0].contains("source"));  // no PNG fallback: WebP or nothing
    Scene original = load_scene((kScenes / "props.gltf").string());
    Scene packed = load_scene((kScenes / "props-webp.gltf").string());
    EXPECT_TRUE(packed.warnings.empty()) << packed.warnings.front();
    ASSERT_EQ(packed.textures.size(), 1u);
    EXPECT_EQ(packed.textures[0].width, original.textures[0].width);
    EXPECT_EQ(packed.textures[0].height, original.textures[0].height);
    EXPECT_EQ(packed.textures[0].rgba, original.textures[0].rgba);  // lossless WebP
    EXPECT_EQ(packed.materials.size(), original.materials.size());
    for (size_t m = 0; m < packed.materials.size(); ++m)
        EXPECT_EQ(packed.materials[m].base_color_texture, original.materials[m].base_color_texture);
}

// ---- KHR_mesh_quantization: every component type, by the glTF formulas -----------------------------

namespace {

// A triangle whose `attribute` is stored as three elements of `type` (padded to 4 bytes each) from
// the raw integers given, normalized or not; the other attributes are float.
json quantized_triangle(const std::string& attribute, int type, bool normalized, const std::vector<int>& raw,
                        int components) {
    int size = type == 5120 || type == 5121 ? 1 : 2;
    std::vector<uint8_t> buffer;
    std::vector<float> positions = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    buffer.resize(36);
    memcpy(buffer.data(), positions.data(), 36);
    size_t offset = buffer.size();
    size_t stride = (components * size + 3) / 4 * 4;
    buffer.resize(offset + 3 * stride, 0);
    for (int v = 0; v < 3; ++v)
        for (int c = 0; c < components; ++c) {
            int value = raw[v * components + c];
            if (size == 1) buffer[offset + v * stride + c] = uint8_t(value);
            else {
                uint16_t u = uint16_t(value);
                memcpy(&buffer[offset + v * stride + c * 2], &u, 2);
            }
        }
    json accessor = {{"bufferView", 1}, {"componentType", type}, {"count", 3}, {"type", components == 3 ? "VEC3" : "VEC2"}};
    if (normalized) accessor["normalized"] = true;
    json attributes = {{"POSITION", 0}, {attribute, 1}};
    if (attribute == "POSITION") attributes = {{"POSITION", 1}};
    return {{"asset", {{"version", "2.0"}}},
            {"extensionsUsed", {"KHR_mesh_quantization"}},
            {"extensionsRequired", {"KHR_mesh_quantization"}},
            {"scene", 0},
            {"scenes", {{{"nodes", {0}}}}},
            {"nodes", {{{"mesh", 0}}}},
            {"meshes", {{{"primitives", {{{"attributes", attributes}}}}}}},
            {"accessors", {{{"bufferView", 0}, {"componentType", 5126}, {"count", 3}, {"type", "VEC3"}}, accessor}},
            {"bufferViews",
             {{{"buffer", 0}, {"byteOffset", 0}, {"byteLength", 36}},
              {{"buffer", 0}, {"byteOffset", offset}, {"byteLength", 3 * stride}, {"byteStride", stride}}}},
            {"buffers", {{{"byteLength", buffer.size()}, {"uri", "data:application/octet-stream;base64," + base64(buffer)}}}}};
}

// glTF 2.0, "Animations" / accessor normalization: the reference formulas, written out.
float reference(int type, bool normalized, int raw) {
    switch (type) {
    case 5120: return normalized ? std::max(float(int8_t(raw)) / 127.0f, -1.0f) : float(int8_t(raw));
    case 5121: return normalized ? float(uint8_t(raw)) / 255.0f : float(uint8_t(raw));
    case 5122: return normalized ? std::max(float(int16_t(raw)) / 32767.0f, -1.0f) : float(int16_t(raw));
    default: return normalized ? float(uint16_t(raw)) / 65535.0f : float(uint16_t(raw));
    }
}

}  // namespace

TEST(Quantization, PositionsOfEveryIntegerTypeDequantizeByTheFormula) {
    // Three non-collinear points per type, including each type's extremes.
    struct Case {
        int type;
        std::vector<int> raw;
    } cases[] = {{5120, {-128, 0, 5, 127, -1, 0, 3, 100, -7}},
                 {5121, {0, 0, 0, 255, 1, 2, 3, 200, 9}},
                 {5122, {-32768, 0, 10, 32767, -1, 0, 30, 20000, -5}},
                 {5123, {0, 0, 0, 65535, 1, 2, 3, 40000, 9}}};
    for (const Case& c : cases)
        for (bool normalized : {false, true}) {
            SCOPED_TRACE(std::to_string(c.type) + (normalized ? " normalized" : ""));
            Scene scene = load_text(quantized_triangle("POSITION", c.type, normalized, c.raw, 3));
            ASSERT_EQ(scene.vertices.size(), 3u);
            for (int v = 0; v < 3; ++v)
                for (int k = 0; k < 3; ++k)
                    EXPECT_EQ(scene.vertices[v].position[k], reference(c.type, normalized, c.raw[v * 3 + k]));
        }
}

TEST(Quantization, NormalsAreSignedNormalizedAndComeOutUnitLength) {
    for (int type : {5120, 5122}) {
        int one = type == 5120 ? 127 : 32767;
        std::vector<int> raw = {0, 0, one, one, 0, 0, -one / 2, -one / 2, 0};
        Scene scene = load_text(quantized_triangle("NORMAL", type, true, raw, 3));
        EXPECT_EQ(scene.vertices[0].normal, glm::vec3(0, 0, 1));
        EXPECT_EQ(scene.vertices[1].normal, glm::vec3(1, 0, 0));
        EXPECT_NEAR(scene.vertices[2].normal.x, -std::sqrt(0.5f), 1e-6f);
        EXPECT_NEAR(glm::length(scene.vertices[2].normal), 1.0f, 1e-6f);
    }
    // Unsigned or unnormalized normals are not unit vectors: refused, naming the rule.
    expect_error([] { load_text(quantized_triangle("NORMAL", 5121, true, {0, 0, 1, 1, 0, 0, 0, 1, 0}, 3)); },
                 "normalized byte/short");
    expect_error([] { load_text(quantized_triangle("NORMAL", 5120, false, {0, 0, 1, 1, 0, 0, 0, 1, 0}, 3)); },
                 "normalized byte/short");
}

TEST(Quantization, TexcoordsOfEveryIntegerType) {
    for (int type : {5120, 5121, 5122, 5123})
        for (bool normalized : {false, true}) {
            std::vector<int> raw = {1, 2, 100, 7, type == 5121 || type == 5123 ? 255 : -3, 9};
            Scene scene = load_text(quantized_triangle("TEXCOORD_0", type, normalized, raw, 2));
            for (int v = 0; v < 3; ++v)
                for (int k = 0; k < 2; ++k) EXPECT_EQ(scene.vertices[v].uv[k], reference(type, normalized, raw[v * 2 + k]));
        }
}

// KHR_texture_transform on a texture slot becomes that slot's map (applied in the shader, per
// slot): offset, rotation (counter-clockwise as the image shows the UVs, v down: u' = c u + s v,
// v' = -s u + c v) and scale, in that order of application scale, rotate, translate. The
// primitive's UVs stay as stored.
TEST(Quantization, TextureTransformIsTheSlotsMap) {
    json gltf = quantized_triangle("TEXCOORD_0", 5123, false, {0, 0, 2, 0, 0, 4}, 2);
    json transform = {{"offset", {0.5, 0.25}}, {"rotation", M_PI / 2}, {"scale", {0.5, 0.25}}};
    gltf["materials"] = {{{"pbrMetallicRoughness", {{"baseColorTexture", {{"index", 0}, {"extensions", {{"KHR_texture_transform", transform}}}}}}},
                          {"occlusionTexture", {{"index", 0}, {"texCoord", 1}}}}};
    gltf["meshes"][0]["primitives"][0]["material"] = 0;
    Scene scene = load_text(gltf);
    EXPECT_EQ(scene.vertices[1].uv, glm::vec2(2.0f, 0.0f));
    const Material& m = scene.materials[1];
    auto mapped = [&](glm::vec2 uv) { return glm::vec2(m.uv[kSlotBaseColor].map * glm::vec3(uv, 1.0f)); };
    // (2, 0) -> scaled (1, 0) -> rotated (0, -1), up the image -> offset (0.5, -0.75);
    // (0, 4) -> (0, 1), down the image -> (1, 0), to the right -> (1.5, 0.25)
    EXPECT_NEAR(mapped(scene.vertices[1].uv).x, 0.5f, 1e-6f);
    EXPECT_NEAR(mapped(scene.vertices[1].uv).y, -0.75f, 1e-6f);
    EXPECT_NEAR(mapped(scene.vertices[2].uv).x, 1.5f, 1e-6f);
    EXPECT_NEAR(mapped(scene.vertices[2].uv).y, 0.25f, 1e-6f);
    EXPECT_NEAR(glm::distance(mapped(scene.vertices[0].uv), glm::vec2(0.5f, 0.25f)), 0.0f, 1e-6f);
    EXPECT_EQ(m.uv[kSlotBaseColor].texcoord, 0);
    // The other slots keep their own: occlusion reads TEXCOORD_1 with no transform.
    EXPECT_EQ(m.uv[kSlotOcclusion].texcoord, 1);
    EXPECT_EQ(m.uv[kSlotOcclusion].map, glm::mat3(1.0f));
    EXPECT_EQ(m.uv[kSlotEmissive].map, glm::mat3(1.0f));
}

// ---- meshoptimizer streams: every mode and filter, against the original values ------------------

TEST(MeshoptDecode, FiltersRestoreTheirInputWithinTheirBits) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
    const size_t count = 1000;
    // Octahedral (8 and 16 bits), quaternion (12 bits), exponential (15-bit mantissa).
    struct Case {
        const char* filter;
        size_t stride;
        int bits;
    } cases[] = {{"OCTAHEDRAL", 4, 8}, {"OCTAHEDRAL", 8, 16}, {"QUATERNION", 8, 12}, {"EXPONENTIAL", 16, 15}};
    for (const Case& c : cases) {
        SCOPED_TRACE(std::string(c.filter) + " stride " + std::to_string(c.stride));
        std::vector<float> input(count * 4);
        for (size_t i = 0; i < count; ++i) {
            glm::vec4 v(unit(rng), unit(rng), unit(rng), unit(rng));
            if (std::string(c.filter) == "EXPONENTIAL") v *= 1000.0f;
            else if (std::string(c.filter) == "QUATERNION") v = glm::normalize(v);
            else v = glm::vec4(glm::normalize(glm::vec3(v)), 0.0f);
            memcpy(&input[i * 4], &v, 16);
        }
        std::vector<uint8_t> filtered(count * c.stride);
        std::string filter = c.filter;
        if (filter == "OCTAHEDRAL") meshopt_encodeFilterOct(filtered.data(), count, c.stride, c.bits, input.data());
        if (filter == "QUATERNION") meshopt_encodeFilterQuat(filtered.data(), count, c.stride, c.bits, input.data());
        if (filter == "EXPONENTIAL") meshopt_encodeFilterExp(filtered.data(), count, c.stride, c.bits, input.data());
        std::vector<uint8_t> stream(meshopt_encodeVertexBufferBound(count, c.stride));
        stream.resize(meshopt_encodeVertexBuffer(stream.data(), stream.size(), filtered.data(), count, c.stride));

        std::vector<uint8_t> out;
        MeshoptStream s{count, c.stride, "ATTRIBUTES", c.filter};
        ASSERT_EQ(decode_meshopt(s, stream.data(), stream.size(), out), "");
        ASSERT_EQ(out.size(), count * c.stride);
        for (size_t i = 0; i < count; ++i) {
            const float* x = &input[i * 4];
            if (filter == "EXPONENTIAL") {  // one mantissa step of the vector's largest component
                float step = std::max({std::fabs(x[0]), std::fabs(x[1]), std::fabs(x[2]), std::fabs(x[3])}) * 0x1p-13f;
                for (int k = 0; k < 4; ++k) {
                    float y;
                    memcpy(&y, &out[i * 16 + k * 4], 4);
                    ASSERT_NEAR(y, x[k], step) << i;
                }
                continue;
            }
            // Signed normalized components of 8 or 16 bits.
            float y[4];
            for (int k = 0; k < 4; ++k) {
                if (c.stride == 4) y[k] = float(int8_t(out[i * 4 + k])) / 127.0f;
                else {
                    int16_t v;
                    memcpy(&v, &out[i * 8 + k * 2], 2);
                    y[k] = float(v) / 32767.0f;
                }
            }
            if (filter == "OCTAHEDRAL") {
                glm::vec3 a(x[0], x[1], x[2]), b = glm::normalize(glm::vec3(y[0], y[1], y[2]));
                ASSERT_GE(glm::dot(a, b), c.bits == 8 ? 0.999f : 0.99999f) << i;
            } else {  // a quaternion and its negation are the same rotation
                float dot = std::fabs(x[0] * y[0] + x[1] * y[1] + x[2] * y[2] + x[3] * y[3]);
                ASSERT_GE(dot, 0.9999f) << i;
            }
        }
    }
}

TEST(MeshoptDecode, IndexModesAreLossless) {
    std::vector<uint32_t> indices;
    for (uint32_t t = 0; t < 300; ++t) indices.insert(indices.end(), {t, t + 1, t + 2});
    std::vector<uint8_t> triangles(meshopt_encodeIndexBufferBound(indices.size(), 302));
    triangles.resize(meshopt_encodeIndexBuffer(triangles.data(), triangles.size(), indices.data(), indices.size()));
    std::vector<uint8_t> sequence(meshopt_encodeIndexSequenceBound(indices.size(), 302));
    sequence.resize(meshopt_encodeIndexSequence(sequence.data(), sequence.size(), indices.data(), indices.size()));
    for (size_t stride : {2, 4}) {
        std::vector<uint8_t> out;
        ASSERT_EQ(decode_meshopt({indices.size(), stride, "INDICES", "NONE"}, sequence.data(), sequence.size(), out), "");
        for (size_t i = 0; i < indices.size(); ++i) {
            uint32_t v = 0;
            memcpy(&v, &out[i * stride], stride);
            ASSERT_EQ(v, indices[i]);
        }
        ASSERT_EQ(decode_meshopt({indices.size(), stride, "TRIANGLES", "NONE"}, triangles.data(), triangles.size(), out), "");
        for (size_t t = 0; t < indices.size(); t += 3) {  // corners may rotate, winding kept
            uint32_t tri[3] = {0, 0, 0};
            for (int k = 0; k < 3; ++k) memcpy(&tri[k], &out[(t + k) * stride], stride);
            bool same = false;
            for (int r = 0; r < 3; ++r)
                same |= tri[r] == indices[t] && tri[(r + 1) % 3] == indices[t + 1] && tri[(r + 2) % 3] == indices[t + 2];
            ASSERT_TRUE(same) << "triangle " << t / 3;
        }
    }
}

TEST(MeshoptDecode, HostileStreamsAreRefusedBeforeTheLibrarySeesThem) {
    std::vector<uint8_t> stream(64, 0), out;
    EXPECT_NE(decode_meshopt({16, 6, "ATTRIBUTES", "NONE"}, stream.data(), stream.size(), out).find("multiple of 4"), std::string::npos);
    EXPECT_NE(decode_meshopt({16, 260, "ATTRIBUTES", "NONE"}, stream.data(), stream.size(), out).find("4..256"), std::string::npos);
    EXPECT_NE(decode_meshopt({16, 3, "INDICES", "NONE"}, stream.data(), stream.size(), out).find("not 2 or 4"), std::string::npos);
    EXPECT_NE(decode_meshopt({16, 4, "TRIANGLES", "NONE"}, stream.data(), stream.size(), out).find("multiple of 3"), std::string::npos);
    EXPECT_NE(decode_meshopt({16, 12, "ATTRIBUTES", "OCTAHEDRAL"}, stream.data(), stream.size(), out).find("does not fit"), std::string::npos);
    EXPECT_NE(decode_meshopt({16, 4, "ATTRIBUTES", "QUATERNION"}, stream.data(), stream.size(), out).find("does not fit"), std::string::npos);
    EXPECT_NE(decode_meshopt({15, 4, "INDICES", "EXPONENTIAL"}, stream.data(), stream.size(), out).find("filter"), std::string::npos);
    EXPECT_NE(decode_meshopt({16, 4, "STRIPS", "NONE"}, stream.data(), stream.size(), out).find("unknown mode"), std::string::npos);
    EXPECT_NE(decode_meshopt({16, 4, "ATTRIBUTES", "ZIP"}, stream.data(), stream.size(), out).find("unknown filter"), std::string::npos);
    // Sixty-four bytes cannot hold a million vertices: refused before a byte is allocated.
    EXPECT_NE(decode_meshopt({1u << 20, 16, "ATTRIBUTES", "NONE"}, stream.data(), stream.size(), out).find("cannot come from"),
              std::string::npos);
    EXPECT_TRUE(out.empty());
    // Zeros are not a stream (bad header byte).
    EXPECT_NE(decode_meshopt({16, 4, "ATTRIBUTES", "NONE"}, stream.data(), stream.size(), out).find("corrupt"), std::string::npos);
}

// ---- Hostile files: exit 3 (a SceneError naming the view or primitive) or a warning ------------

namespace {

Glb meshopt_glb() { return split_glb(read_bytes(kScenes / "props-meshopt.glb")); }
Glb draco_glb() { return split_glb(read_bytes(kScenes / "knot-draco.glb")); }

// 200 loads of `clean`, each with 1 to max_flips random bits of its binary chunk flipped (from
// `seed`): every load is refused with a SceneError or gives indices within its vertices.
struct Damage {
    int refused = 0, loaded = 0;
};
Damage load_damaged(const Glb& clean, uint32_t seed, int max_flips) {
    std::mt19937 rng(seed);
    Damage d;
    for (int round = 0; round < 200; ++round) {
        Glb glb = clean;
        for (int flips = 0; flips < 1 + round % max_flips; ++flips) glb.bin[rng() % glb.bin.size()] ^= uint8_t(1u << (rng() % 8));
        try {
            Scene scene = load_glb(glb);
            for (uint32_t index : scene.indices)
                if (index >= scene.vertices.size()) {
                    ADD_FAILURE() << "round " << round << ": index " << index << " past " << scene.vertices.size() << " vertices";
                    break;
                }
            ++d.loaded;
        } catch (const SceneError&) {
            ++d.refused;
        }
    }
    return d;
}
json& meshopt_of(Glb& glb, int view) { return glb.gltf["bufferViews"][view]["extensions"]["EXT_meshopt_compression"]; }

}  // namespace

TEST(MeshoptHostile, TruncatedStreamsExit3) {
    for (int view : {0, 1, 2}) {  // positions, octahedral normals, and a TRIANGLES index stream
        Glb glb = meshopt_glb();
        json& ext = meshopt_of(glb, view);
        for (int cut : {1, 7, 40}) {
            json saved = ext;
            if (ext["byteLength"].get<int>() <= cut) continue;
            ext["byteLength"] = ext["byteLength"].get<int>() - cut;
            expect_error([&] { load_glb(glb); }, "buffer view " + std::to_string(view) + " (EXT_meshopt_compression)");
            ext = saved;
        }
        // The BIN chunk itself cut short inside the stream.
        Glb cut = meshopt_glb();
        size_t end = meshopt_of(cut, view)["byteOffset"].get<size_t>() + 3;
        cut.bin.resize(end);
        cut.gltf["buffers"][0]["byteLength"] = end;
        expect_error([&] { load_glb(cut); }, "past the end of buffer 0");
    }
}

TEST(MeshoptHostile, WrongStridesCountsAndOffsetsExit3) {
    Glb glb = meshopt_glb();
    json& ext = meshopt_of(glb, 0);
    json saved = ext;
    ext["byteStride"] = 6;
    expect_error([&] { load_glb(glb); }, "x byteStride 6 is not the view's byteLength");
    glb.gltf["bufferViews"][0]["byteLength"] = ext["count"].get<int>() * 6;
    glb.gltf["bufferViews"][0]["byteStride"] = 6;
    expect_error([&] { load_glb(glb); }, "multiple of 4");
    glb = meshopt_glb();
    meshopt_of(glb, 0)["byteStride"] = 4;
    glb.gltf["bufferViews"][0]["byteLength"] = meshopt_of(glb, 0)["count"].get<int>() * 4;
    expect_error([&] { load_glb(glb); }, "the view's byteStride 8 is not the stream's 4");
    // A count past the view (and so past the fallback buffer's layout).
    glb = meshopt_glb();
    meshopt_of(glb, 0)["count"] = meshopt_of(glb, 0)["count"].get<int>() + 1;
    expect_error([&] { load_glb(glb); }, "is not the view's byteLength");
    // A count whose view agrees, but which the stream cannot hold.
    glb = meshopt_glb();
    meshopt_of(glb, 0)["count"] = 1 << 24;
    glb.gltf["bufferViews"][0]["byteLength"] = (1 << 24) * 8;
    expect_error([&] { load_glb(glb); }, "cannot come from");
    // Compressed bytes outside their buffer; a negative or non-integer member.
    glb = meshopt_glb();
    meshopt_of(glb, 0)["byteOffset"] = 1 << 30;
    expect_error([&] { load_glb(glb); }, "past the end of buffer 0");
    glb = meshopt_glb();
    meshopt_of(glb, 0)["count"] = -3;
    expect_error([&] { load_glb(glb); }, "count must be a non-negative integer");
    glb = meshopt_glb();
    meshopt_of(glb, 0)["count"] = 4294967296ull;  // would wrap through tinygltf's int
    expect_error([&] { load_glb(glb); }, "out of range");
    glb = meshopt_glb();
    meshopt_of(glb, 0)["buffer"] = 1;  // the fallback, which has no data
    expect_error([&] { load_glb(glb); }, "has no data");
    // An accessor reading past a decoded view fails the same check as an uncompressed one.
    glb = meshopt_glb();
    glb.gltf["accessors"][0]["count"] = glb.gltf["accessors"][0]["count"].get<int>() + 1;
    expect_error([&] { load_glb(glb); }, "exceeds buffer view 0");
}

TEST(MeshoptHostile, RandomDamageToTheStreamsNeverCrashes) {
    Damage d = load_damaged(meshopt_glb(), 23, 8);
    printf("damaged meshopt streams: %d refused, %d loaded\n", d.refused, d.loaded);
    EXPECT_GT(d.refused, 0);  // index streams whose damage names a vertex past the end, at least
}

TEST(DracoHostile, BadBytesCountsAndIdsExit3) {
    Glb clean = draco_glb();
    int view = clean.gltf["meshes"][0]["primitives"][0]["extensions"]["KHR_draco_mesh_compression"]["bufferView"];
    size_t offset = clean.gltf["bufferViews"][view].value("byteOffset", size_t(0));
    size_t length = clean.gltf["bufferViews"][view]["byteLength"];
    // Garbage in place of the Draco header; then the mesh cut short at several points.
    Glb glb = clean;
    for (size_t i = 0; i < 16; ++i) glb.bin[offset + i] = uint8_t(0x5A ^ i);
    expect_error([&] { load_glb(glb); }, "(Draco): libdraco");
    for (size_t keep : {size_t(4), size_t(20), length / 2, length - 3}) {
        glb = clean;
        glb.gltf["bufferViews"][view]["byteLength"] = keep;
        expect_error([&] { load_glb(glb); }, "(Draco)");
    }
    // Accessors that disagree with what decodes; an attribute id that is not in the mesh.
    glb = clean;
    int position = glb.gltf["meshes"][0]["primitives"][0]["attributes"]["POSITION"];
    glb.gltf["accessors"][position]["count"] = glb.gltf["accessors"][position]["count"].get<int>() + 1;
    expect_error([&] { load_glb(glb); }, "decoded points");
    glb = clean;
    int indices = glb.gltf["meshes"][0]["primitives"][0]["indices"];
    glb.gltf["accessors"][indices]["count"] = 3;
    expect_error([&] { load_glb(glb); }, "indices, the accessor says 3");
    glb = clean;
    glb.gltf["meshes"][0]["primitives"][0]["extensions"]["KHR_draco_mesh_compression"]["attributes"]["POSITION"] = 77;
    expect_error([&] { load_glb(glb); }, "no attribute with id 77");
    glb = clean;
    glb.gltf["accessors"][position]["type"] = "VEC2";
    expect_error([&] { load_glb(glb); }, "components");
    glb = clean;
    glb.gltf["meshes"][0]["primitives"][0]["extensions"]["KHR_draco_mesh_compression"]["bufferView"] = 99;
    expect_error([&] { load_glb(glb); }, "buffer view 99 out of range");
}

TEST(DracoHostile, RandomDamageNeverCrashes) {
    Damage d = load_damaged(draco_glb(), 5, 6);
    printf("damaged Draco meshes: %d refused, %d loaded\n", d.refused, d.loaded);
    EXPECT_GT(d.refused, 0) << "no damage was detected: the decoder's checks are not reached";
}

TEST(WebpHostile, BadImagesWarnOnceAndLoadUntextured) {
    std::vector<uint8_t> webp = read_bytes(kScenes / "textures/props_checker.webp");
    ASSERT_GT(webp.size(), 40u);
    json gltf = read_json(kScenes / "props-webp.gltf");
    auto with_image = [&](const std::vector<uint8_t>& bytes) {
        json g = gltf;
        g["images"][0] = {{"uri", "data:image/webp;base64," + base64(bytes)}};
        return load_text(g);
    };
    Scene good = with_image(webp);
    ASSERT_EQ(good.textures.size(), 1u);
    std::vector<std::vector<uint8_t>> bad;
    bad.push_back(std::vector<uint8_t>(webp.begin(), webp.begin() + webp.size() / 2));  // truncated
    std::vector<uint8_t> garbled = webp;
    for (size_t i = 30; i < garbled.size(); i += 3) garbled[i] ^= 0x55;
    bad.push_back(garbled);
    std::vector<uint8_t> header_only(webp.begin(), webp.begin() + 12);
    bad.push_back(header_only);
    for (const auto& bytes : bad) {
        Scene scene = with_image(bytes);
        EXPECT_TRUE(scene.textures.empty());
        int warnings = 0;
        for (const std::string& w : scene.warnings) warnings += w.find("image 0") != std::string::npos;
        EXPECT_EQ(warnings, 1);
        EXPECT_TRUE(has_warning(scene, "texture ignored"));
        EXPECT_EQ(scene.triangle_count(), good.triangle_count());
    }
    // A lossless WebP's header says 16384 x 16384: refused from the header, before decoding.
    std::vector<uint8_t> huge = webp;
    ASSERT_EQ(huge[15], 'L');  // VP8L: 14-bit width-1 and height-1 after the signature byte
    uint32_t bits;
    memcpy(&bits, &huge[21], 4);
    bits = (bits & ~0x0FFFFFFFu) | 0x3FFFu | (0x3FFFu << 14);
    memcpy(&huge[21], &bits, 4);
    Scene scene = with_image(huge);
    EXPECT_TRUE(scene.textures.empty());
    EXPECT_TRUE(has_warning(scene, "16384x16384 is too large")) << (scene.warnings.empty() ? "" : scene.warnings[0]);
}

// gltfpack -cz and -ce khr write the ratified KHR_meshopt_compression (a newer stream format than
// Debian's meshoptimizer 0.18 decodes): refused, saying how to re-pack.
TEST(Extensions, KhrMeshoptIsRefusedWithAWayOut) {
    json gltf = read_json(kScenes / "props-webp.gltf");
    gltf["extensionsRequired"] = {"KHR_meshopt_compression"};
    expect_error([&] { load_text(gltf); }, "re-pack with gltfpack -c or -cc");
}

// EXT_texture_webp with a PNG `source` fallback: the WebP is used; when it does not decode, the
// fallback is (one warning for the broken WebP, the PNG's texels).
TEST(WebpHostile, ABrokenWebpFallsBackToTheTexturesSource) {
    std::vector<uint8_t> webp = read_bytes(kScenes / "textures/props_checker.webp");
    Scene original = load_scene((kScenes / "props.gltf").string());
    json gltf = read_json(kScenes / "props-webp.gltf");
    gltf["textures"][0] = {{"source", 1}, {"extensions", {{"EXT_texture_webp", {{"source", 0}}}}}};
    for (bool broken : {false, true}) {
        std::vector<uint8_t> bytes = webp;
        if (broken) bytes.resize(bytes.size() / 3);
        gltf["images"] = {{{"uri", "data:image/webp;base64," + base64(bytes)}}, {{"uri", "textures/props_checker.png"}}};
        Scene scene = load_text(gltf);
        ASSERT_EQ(scene.textures.size(), 1u) << broken;
        EXPECT_EQ(scene.textures[0].rgba, original.textures[0].rgba) << broken;  // lossless either way
        EXPECT_EQ(scene.warnings.size(), broken ? 1u : 0u);
        if (broken) EXPECT_TRUE(has_warning(scene, "image 0"));
    }
}

TEST(Extensions, KtxTexturesStayRefusedWithAClearMessage) {
    json gltf = read_json(kScenes / "props-webp.gltf");
    gltf["extensionsRequired"] = {"KHR_texture_basisu"};
    expect_error([&] { load_text(gltf); }, "KHR_texture_basisu: KTX2 / Basis Universal textures cannot be decoded");
    gltf.erase("extensionsRequired");
    gltf["textures"][0]["extensions"] = {{"KHR_texture_basisu", {{"source", 0}}}};
    Scene scene = load_text(gltf);
    EXPECT_TRUE(scene.textures.empty());
    EXPECT_TRUE(has_warning(scene, "KHR_texture_basisu"));
}

// ---- Real files (the optional "samples" suite: ../shared/gltf-samples) ------------------------------

TEST(GltfSamples, DracoBoxHoldsThePlainBoxTriangles) {
    fs::path samples = SGD_GLTF_SAMPLES_DIR;
    if (!fs::is_regular_file(samples / "Box/glTF-Draco/Box.gltf"))
        GTEST_SKIP() << "glTF samples not found at " << samples;
    Scene plain = load_scene((samples / "Box/glTF/Box.gltf").string());
    Scene draco = load_scene((samples / "Box/glTF-Draco/Box.gltf").string());
    EXPECT_EQ(draco.triangle_count(), plain.triangle_count());
    // The file's own accessors show its Draco grid: the box's 0.5 comes back as 0.50049, one step
    // of 1/2047 (11 bits over the unit box) away; two such steps, through the node's matrix,
    // bound the error.
    auto draco_error = [](const glm::mat4& m) { return half_cell(m * glm::scale(glm::mat4(1.0f), glm::vec3(2.0f / 2047.0f))); };
    Limits limits;
    limits.normal_dot = 0.99f;
    expect_same_triangle_set(drawn(plain, exact), drawn(draco, draco_error), limits, false);
}
