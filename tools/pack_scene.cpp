// pack-scene: writes a glTF scene again the way optimizing exporters do, so the loader's
// decoders are tested on files the project makes itself (no download, no gltfpack at test time).
//
//   pack-scene [--quantize] [--meshopt [--fallback]] [--draco] [--webp] IN.gltf OUT.gltf|OUT.glb
//
//   --quantize  KHR_mesh_quantization as gltfpack writes it by default: positions as 14-bit
//               unsigned shorts on a per-mesh grid whose dequantization (a translation and a
//               uniform scale) goes into a new child node; normals as normalized bytes; texture
//               coordinates as normalized unsigned shorts over each material's UV range, mapped
//               back by KHR_texture_transform on the base colour texture (untextured primitives
//               lose their UVs, as with gltfpack).
//   --meshopt   EXT_meshopt_compression (gltfpack -c): vertex views in ATTRIBUTES mode (normals
//               with the OCTAHEDRAL filter when quantized, float positions and UVs with the
//               EXPONENTIAL filter when not), index views in TRIANGLES mode, every other mesh's
//               in INDICES mode. The uncompressed views live in a fallback buffer without data,
//               unless --fallback writes it too (OUT's stem + .fallback.bin).
//   --draco     KHR_draco_mesh_compression: every primitive one Draco mesh (edgebreaker,
//               positions 14 bits, normals 10, UVs 12); accessors without buffer views.
//   --webp      EXT_texture_webp: every image re-encoded as lossless WebP (textures/NAME.webp
//               beside OUT), no PNG fallback.
//   --embed     images go into buffer 0 as buffer views (a self-contained GLB: the fuzz seeds).
//
// IN must be one of our own scenes (float attributes, u16/u32 indices, external .bin and images
// beside it, no sparse accessors): this is a test tool, not a converter for arbitrary files.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <draco/compression/decode.h>
#include <draco/compression/encode.h>
#include <draco/mesh/mesh.h>
#include <meshoptimizer.h>
#include <nlohmann/json.hpp>
#include <stb/stb_image.h>
#include <webp/encode.h>

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct Options {
    bool quantize = false, meshopt = false, fallback = false, draco = false, webp = false, embed = false;
    fs::path in, out;
};

[[noreturn]] void die(const std::string& message) {
    std::fprintf(stderr, "pack-scene: %s\n", message.c_str());
    std::exit(1);
}

std::vector<uint8_t> read_bytes(const fs::path& path) {
    std::ifstream file(path, std::ios::binary);
    if (!file) die("cannot read " + path.string());
    return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

void write_bytes(const fs::path& path, const void* data, size_t size) {
    std::ofstream file(path, std::ios::binary);
    file.write(static_cast<const char*>(data), std::streamsize(size));
    if (!file) die("cannot write " + path.string());
}

// ---- Reading our own input ---------------------------------------------------------------------

struct Primitive {
    std::vector<float> positions, normals, uvs;  // 3, 3, 2 per vertex (normals/uvs may be empty)
    std::vector<uint32_t> indices;
    json material;  // the primitive's "material" member, or null
    size_t vertex_count() const { return positions.size() / 3; }
};

struct Input {
    json gltf;
    std::vector<std::vector<uint8_t>> buffers;
    std::vector<std::vector<Primitive>> meshes;
};

template <typename T>
std::vector<T> read_accessor(const Input& in, int index, int components) {
    const json& accessor = in.gltf["accessors"][index];
    if (accessor.contains("sparse")) die("sparse accessors are not supported");
    const json& view = in.gltf["bufferViews"][accessor["bufferView"].get<int>()];
    const std::vector<uint8_t>& buffer = in.buffers[view["buffer"].get<int>()];
    size_t count = accessor["count"], stride = view.value("byteStride", sizeof(T) * components);
    size_t offset = view.value("byteOffset", size_t(0)) + accessor.value("byteOffset", size_t(0));
    std::vector<T> out(count * components);
    for (size_t i = 0; i < count; ++i) memcpy(&out[i * components], &buffer[offset + i * stride], sizeof(T) * components);
    return out;
}

Input read_input(const fs::path& path) {
    Input in;
    std::vector<uint8_t> text = read_bytes(path);
    in.gltf = json::parse(text.begin(), text.end());
    for (const json& buffer : in.gltf["buffers"]) in.buffers.push_back(read_bytes(path.parent_path() / buffer["uri"].get<std::string>()));
    for (const json& mesh : in.gltf["meshes"]) {
        std::vector<Primitive>& primitives = in.meshes.emplace_back();
        for (const json& p : mesh["primitives"]) {
            if (p.value("mode", 4) != 4) die("only triangle lists are supported");
            Primitive prim;
            const json& attributes = p["attributes"];
            for (const auto& [name, index] : attributes.items())
                if (in.gltf["accessors"][index.get<int>()]["componentType"] != 5126) die(name + " is not float");
            prim.positions = read_accessor<float>(in, attributes["POSITION"], 3);
            if (attributes.contains("NORMAL")) prim.normals = read_accessor<float>(in, attributes["NORMAL"], 3);
            if (attributes.contains("TEXCOORD_0")) prim.uvs = read_accessor<float>(in, attributes["TEXCOORD_0"], 2);
            int indices = p["indices"];
            int type = in.gltf["accessors"][indices]["componentType"];
            if (type == 5123) {
                for (uint16_t i : read_accessor<uint16_t>(in, indices, 1)) prim.indices.push_back(i);
            } else if (type == 5125) {
                prim.indices = read_accessor<uint32_t>(in, indices, 1);
            } else {
                die("indices must be u16 or u32");
            }
            prim.material = p.value("material", json());
            primitives.push_back(std::move(prim));
        }
    }
    return in;
}

// ---- Writing -----------------------------------------------------------------------------------

// The output's buffer views. Without meshopt every view lies in buffer 0 (the .bin or the GLB's
// BIN chunk). With meshopt buffer 0 holds the compressed streams and buffer 1 is the fallback,
// whose layout the views describe.
struct Writer {
    const Options& options;
    json accessors = json::array(), views = json::array();
    std::vector<uint8_t> bin, fallback;
    int mesh_index = 0;  // chooses TRIANGLES or INDICES mode for meshopt index views

    static void pad(std::vector<uint8_t>& bytes) { bytes.resize((bytes.size() + 3) / 4 * 4, 0); }

    // A view of `count` elements of `stride` bytes; `filter` applies to meshopt attribute views.
    int add_view(const std::vector<uint8_t>& data, size_t count, size_t stride, bool is_index,
                 const char* filter = "NONE") {
        json view;
        if (!options.meshopt) {
            pad(bin);
            view = {{"buffer", 0}, {"byteOffset", bin.size()}, {"byteLength", data.size()}};
            bin.insert(bin.end(), data.begin(), data.end());
        } else {
            pad(fallback);
            pad(bin);
            view = {{"buffer", 1}, {"byteOffset", fallback.size()}, {"byteLength", data.size()}};
            // The fallback holds what a decoder outputs: the data after its filter is undone.
            std::vector<uint8_t> decoded = data;
            if (std::string(filter) == "OCTAHEDRAL") meshopt_decodeFilterOct(decoded.data(), count, stride);
            if (std::string(filter) == "EXPONENTIAL") meshopt_decodeFilterExp(decoded.data(), count, stride);
            fallback.insert(fallback.end(), decoded.begin(), decoded.end());
            std::vector<uint8_t> encoded;
            std::string mode = "ATTRIBUTES";
            if (!is_index) {
                encoded.resize(meshopt_encodeVertexBufferBound(count, stride));
                encoded.resize(meshopt_encodeVertexBuffer(encoded.data(), encoded.size(), data.data(), count, stride));
            } else {
                std::vector<uint32_t> indices(count);
                for (size_t i = 0; i < count; ++i)
                    indices[i] = stride == 2 ? reinterpret_cast<const uint16_t*>(data.data())[i]
                                             : reinterpret_cast<const uint32_t*>(data.data())[i];
                size_t vertices = indices.empty() ? 0 : *std::max_element(indices.begin(), indices.end()) + 1;
                if (mesh_index % 2 == 0) {
                    mode = "TRIANGLES";
                    encoded.resize(meshopt_encodeIndexBufferBound(count, vertices));
                    encoded.resize(meshopt_encodeIndexBuffer(encoded.data(), encoded.size(), indices.data(), count));
                } else {
                    mode = "INDICES";
                    encoded.resize(meshopt_encodeIndexSequenceBound(count, vertices));
                    encoded.resize(meshopt_encodeIndexSequence(encoded.data(), encoded.size(), indices.data(), count));
                }
            }
            if (encoded.empty()) die("meshopt encoding failed");
            json extension = {{"buffer", 0}, {"byteOffset", bin.size()}, {"byteLength", encoded.size()},
                              {"byteStride", stride}, {"count", count}, {"mode", mode}};
            if (std::string(filter) != "NONE") extension["filter"] = filter;
            view["extensions"]["EXT_meshopt_compression"] = extension;
            bin.insert(bin.end(), encoded.begin(), encoded.end());
        }
        if (!is_index) view["byteStride"] = stride;
        views.push_back(view);
        return int(views.size() - 1);
    }

    int add_accessor(int view, int component_type, bool normalized, size_t count, const char* type) {
        json accessor = {{"bufferView", view}, {"componentType", component_type}, {"count", count}, {"type", type}};
        if (normalized) accessor["normalized"] = true;
        accessors.push_back(accessor);
        return int(accessors.size() - 1);
    }

    int add_float_accessor(const std::vector<float>& values, int components, const char* type, bool exp_filter) {
        size_t count = values.size() / components, stride = 4 * components;
        std::vector<uint8_t> data(values.size() * 4);
        if (exp_filter && options.meshopt) {
            // 15-bit mantissas, as gltfpack -vpf: what is decoded is exactly what is stored here.
            meshopt_encodeFilterExp(data.data(), count, stride, 15, values.data());
        } else {
            memcpy(data.data(), values.data(), data.size());
        }
        int accessor = add_accessor(add_view(data, count, stride, false, exp_filter && options.meshopt ? "EXPONENTIAL" : "NONE"),
                                    5126, false, count, type);
        if (std::string(type) == "VEC3") {  // POSITION needs min and max
            std::vector<float> decoded(values.size());
            memcpy(decoded.data(), data.data(), data.size());
            if (exp_filter && options.meshopt) meshopt_decodeFilterExp(decoded.data(), count, stride);
            json lo = json::array(), hi = json::array();
            for (int c = 0; c < 3; ++c) {
                float a = INFINITY, b = -INFINITY;
                for (size_t i = 0; i < count; ++i) a = std::min(a, decoded[i * 3 + c]), b = std::max(b, decoded[i * 3 + c]);
                lo.push_back(a);
                hi.push_back(b);
            }
            accessors.back()["min"] = lo;
            accessors.back()["max"] = hi;
        }
        return accessor;
    }

    int add_indices(const std::vector<uint32_t>& indices, size_t vertex_count) {
        bool small = vertex_count <= 65535;
        std::vector<uint8_t> data(indices.size() * (small ? 2 : 4));
        for (size_t i = 0; i < indices.size(); ++i) {
            if (small) {
                uint16_t v = uint16_t(indices[i]);
                memcpy(&data[i * 2], &v, 2);
            } else {
                memcpy(&data[i * 4], &indices[i], 4);
            }
        }
        return add_accessor(add_view(data, indices.size(), small ? 2 : 4, true), small ? 5123 : 5125, false,
                            indices.size(), "SCALAR");
    }
};

// ---- KHR_mesh_quantization ---------------------------------------------------------------------

struct Range {
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    void add(const float* v, int n) {
        for (int c = 0; c < n; ++c) lo[c] = std::min(lo[c], v[c]), hi[c] = std::max(hi[c], v[c]);
    }
};

constexpr int kPositionBits = 14;

// gltfpack's position grid: one uniform step for all three axes, so normals need no correction.
struct Grid {
    float offset[3] = {0, 0, 0};
    float step = 1.0f;
};

Grid mesh_grid(const std::vector<Primitive>& primitives) {
    Range range;
    for (const Primitive& p : primitives)
        for (size_t v = 0; v < p.vertex_count(); ++v) range.add(&p.positions[v * 3], 3);
    Grid grid;
    float extent = 0.0f;
    for (int c = 0; c < 3; ++c) {
        grid.offset[c] = range.lo[c];
        extent = std::max(extent, range.hi[c] - range.lo[c]);
    }
    grid.step = extent > 0.0f ? extent / float((1 << kPositionBits) - 1) : 1.0f;
    return grid;
}

int add_quantized_positions(Writer& w, const Primitive& p, const Grid& grid) {
    size_t count = p.vertex_count();
    std::vector<uint8_t> data(count * 8, 0);  // VEC3 u16 padded to 8 bytes
    for (size_t v = 0; v < count; ++v)
        for (int c = 0; c < 3; ++c) {
            float q = std::round((p.positions[v * 3 + c] - grid.offset[c]) / grid.step);
            uint16_t value = uint16_t(std::clamp(q, 0.0f, float((1 << kPositionBits) - 1)));
            memcpy(&data[v * 8 + c * 2], &value, 2);
        }
    int accessor = w.add_accessor(w.add_view(data, count, 8, false), 5123, false, count, "VEC3");
    json lo = json::array(), hi = json::array();
    for (int c = 0; c < 3; ++c) {
        uint16_t a = 65535, b = 0;
        for (size_t v = 0; v < count; ++v) {
            uint16_t value;
            memcpy(&value, &data[v * 8 + c * 2], 2);
            a = std::min(a, value), b = std::max(b, value);
        }
        lo.push_back(a);
        hi.push_back(b);
    }
    w.accessors.back()["min"] = lo;
    w.accessors.back()["max"] = hi;
    return accessor;
}

int add_quantized_normals(Writer& w, const Primitive& p) {
    size_t count = p.vertex_count();
    std::vector<uint8_t> data(count * 4, 0);  // VEC3 i8 padded to 4 bytes
    const char* filter = "NONE";
    if (w.options.meshopt) {
        // Octahedral: two 8-bit components encode the direction; the filter writes x, y, z back.
        std::vector<float> four(count * 4, 0.0f);
        for (size_t v = 0; v < count; ++v) memcpy(&four[v * 4], &p.normals[v * 3], 12);
        meshopt_encodeFilterOct(data.data(), count, 4, 8, four.data());
        filter = "OCTAHEDRAL";
    } else {
        for (size_t v = 0; v < count; ++v)
            for (int c = 0; c < 3; ++c) data[v * 4 + c] = uint8_t(int8_t(std::round(std::clamp(p.normals[v * 3 + c], -1.0f, 1.0f) * 127.0f)));
    }
    return w.add_accessor(w.add_view(data, count, 4, false, filter), 5120, true, count, "VEC3");
}

int add_quantized_uvs(Writer& w, const Primitive& p, const Range& range) {
    size_t count = p.vertex_count();
    std::vector<uint8_t> data(count * 4);
    for (size_t v = 0; v < count; ++v)
        for (int c = 0; c < 2; ++c) {
            float extent = range.hi[c] - range.lo[c];
            float t = extent > 0.0f ? (p.uvs[v * 2 + c] - range.lo[c]) / extent : 0.0f;
            uint16_t value = uint16_t(std::round(std::clamp(t, 0.0f, 1.0f) * 65535.0f));
            memcpy(&data[v * 4 + c * 2], &value, 2);
        }
    return w.add_accessor(w.add_view(data, count, 4, false), 5123, true, count, "VEC2");
}

// ---- KHR_draco_mesh_compression ----------------------------------------------------------------

std::unique_ptr<draco::Mesh> draco_mesh(const Primitive& p, int& position, int& normal, int& uv) {
    auto mesh = std::make_unique<draco::Mesh>();
    size_t count = p.vertex_count();
    mesh->set_num_points(uint32_t(count));
    auto add = [&](draco::GeometryAttribute::Type type, const std::vector<float>& values, int components) {
        if (values.empty()) return -1;
        draco::GeometryAttribute attribute;
        attribute.Init(type, nullptr, uint8_t(components), draco::DT_FLOAT32, false, 4 * components, 0);
        int id = mesh->AddAttribute(attribute, true, uint32_t(count));
        for (size_t v = 0; v < count; ++v)
            mesh->attribute(id)->SetAttributeValue(draco::AttributeValueIndex(uint32_t(v)), &values[v * components]);
        return id;
    };
    position = add(draco::GeometryAttribute::POSITION, p.positions, 3);
    normal = add(draco::GeometryAttribute::NORMAL, p.normals, 3);
    uv = add(draco::GeometryAttribute::TEX_COORD, p.uvs, 2);
    for (size_t t = 0; t + 2 < p.indices.size(); t += 3)
        mesh->AddFace({draco::PointIndex(p.indices[t]), draco::PointIndex(p.indices[t + 1]), draco::PointIndex(p.indices[t + 2])});
    return mesh;
}

json add_draco_primitive(Writer& w, const Primitive& p) {
    int position, normal, uv;
    std::unique_ptr<draco::Mesh> mesh = draco_mesh(p, position, normal, uv);
    draco::Encoder encoder;
    encoder.SetAttributeQuantization(draco::GeometryAttribute::POSITION, 14);
    encoder.SetAttributeQuantization(draco::GeometryAttribute::NORMAL, 10);
    encoder.SetAttributeQuantization(draco::GeometryAttribute::TEX_COORD, 12);
    encoder.SetEncodingMethod(draco::MESH_EDGEBREAKER_ENCODING);
    draco::EncoderBuffer encoded;
    if (!encoder.EncodeMeshToBuffer(*mesh, &encoded).ok()) die("draco encoding failed");
    // The accessors describe the decoded mesh, whose point count edgebreaker may change.
    draco::DecoderBuffer buffer;
    buffer.Init(encoded.data(), encoded.size());
    draco::Decoder decoder;
    auto decoded = decoder.DecodeMeshFromBuffer(&buffer);
    if (!decoded.ok()) die("draco round trip failed");
    size_t points = decoded.value()->num_points(), faces = decoded.value()->num_faces();

    std::vector<uint8_t> bytes(encoded.data(), encoded.data() + encoded.size());
    Writer::pad(w.bin);
    w.views.push_back({{"buffer", 0}, {"byteOffset", w.bin.size()}, {"byteLength", bytes.size()}});
    w.bin.insert(w.bin.end(), bytes.begin(), bytes.end());
    json attributes, ids;
    auto accessor = [&](int component_type, size_t count, const char* type) {
        w.accessors.push_back({{"componentType", component_type}, {"count", count}, {"type", type}});
        return int(w.accessors.size() - 1);
    };
    attributes["POSITION"] = accessor(5126, points, "VEC3");
    Range range;
    for (size_t v = 0; v < p.vertex_count(); ++v) range.add(&p.positions[v * 3], 3);
    w.accessors.back()["min"] = {range.lo[0], range.lo[1], range.lo[2]};
    w.accessors.back()["max"] = {range.hi[0], range.hi[1], range.hi[2]};
    ids["POSITION"] = mesh->attribute(position)->unique_id();
    if (normal >= 0) {
        attributes["NORMAL"] = accessor(5126, points, "VEC3");
        ids["NORMAL"] = mesh->attribute(normal)->unique_id();
    }
    if (uv >= 0) {
        attributes["TEXCOORD_0"] = accessor(5126, points, "VEC2");
        ids["TEXCOORD_0"] = mesh->attribute(uv)->unique_id();
    }
    json primitive = {{"attributes", attributes}, {"indices", accessor(points <= 65535 ? 5123 : 5125, faces * 3, "SCALAR")}};
    primitive["extensions"]["KHR_draco_mesh_compression"] = {{"bufferView", w.views.size() - 1}, {"attributes", ids}};
    return primitive;
}

// ---- The whole file ----------------------------------------------------------------------------

void add_used(json& gltf, const char* name, bool required) {
    for (const char* key : {"extensionsUsed", required ? "extensionsRequired" : nullptr}) {
        if (!key) continue;
        json& list = gltf[key];
        if (!list.is_array()) list = json::array();
        if (std::find(list.begin(), list.end(), name) == list.end()) list.push_back(name);
    }
}

void write_glb(const fs::path& path, const json& gltf, std::vector<uint8_t> bin) {
    std::string text = gltf.dump();
    text.resize((text.size() + 3) / 4 * 4, ' ');
    bin.resize((bin.size() + 3) / 4 * 4, 0);
    std::vector<uint32_t> header = {0x46546C67, 2, uint32_t(28 + text.size() + bin.size()), uint32_t(text.size()), 0x4E4F534A};
    std::vector<uint8_t> out(reinterpret_cast<uint8_t*>(header.data()), reinterpret_cast<uint8_t*>(header.data()) + 20);
    out.insert(out.end(), text.begin(), text.end());
    uint32_t chunk[2] = {uint32_t(bin.size()), 0x004E4942};
    out.insert(out.end(), reinterpret_cast<uint8_t*>(chunk), reinterpret_cast<uint8_t*>(chunk) + 8);
    out.insert(out.end(), bin.begin(), bin.end());
    write_bytes(path, out.data(), out.size());
}

// Images: copied beside OUT (or re-encoded as WebP), keeping their relative URIs.
void write_images(const Options& o, json& gltf, Writer& w) {
    if (!gltf.contains("images")) return;
    for (json& image : gltf["images"]) {
        fs::path uri = image["uri"].get<std::string>();
        fs::path source = o.in.parent_path() / uri, target = o.out.parent_path() / uri;
        if (!o.embed) fs::create_directories(target.parent_path());
        if (!o.webp && o.embed) {
            std::vector<uint8_t> bytes = read_bytes(source);
            Writer::pad(w.bin);
            w.views.push_back({{"buffer", 0}, {"byteOffset", w.bin.size()}, {"byteLength", bytes.size()}});
            w.bin.insert(w.bin.end(), bytes.begin(), bytes.end());
            image = {{"bufferView", w.views.size() - 1}, {"mimeType", "image/png"}};
            continue;
        }
        if (!o.webp) {
            if (fs::absolute(source) != fs::absolute(target)) fs::copy_file(source, target, fs::copy_options::overwrite_existing);
            continue;
        }
        int width, height, channels;
        uint8_t* rgba = stbi_load(source.string().c_str(), &width, &height, &channels, 4);
        if (!rgba) die("cannot decode " + source.string());
        uint8_t* webp = nullptr;
        size_t size = WebPEncodeLosslessRGBA(rgba, width, height, width * 4, &webp);
        stbi_image_free(rgba);
        if (size == 0) die("webp encoding failed");
        uri.replace_extension(".webp");
        if (o.embed) {
            Writer::pad(w.bin);
            w.views.push_back({{"buffer", 0}, {"byteOffset", w.bin.size()}, {"byteLength", size}});
            w.bin.insert(w.bin.end(), webp, webp + size);
            image = {{"bufferView", w.views.size() - 1}, {"mimeType", "image/webp"}};
        } else {
            write_bytes(o.out.parent_path() / uri, webp, size);
            image = {{"uri", uri.generic_string()}, {"mimeType", "image/webp"}};
        }
        WebPFree(webp);
    }
    if (o.webp) {
        for (json& texture : gltf["textures"]) {
            texture["extensions"]["EXT_texture_webp"]["source"] = texture["source"];
            texture.erase("source");
        }
        add_used(gltf, "EXT_texture_webp", true);
    }
}

// A material's texture infos (base colour, metallic-roughness, normal, occlusion, emissive) that it has.
std::vector<json*> texture_infos(json& material) {
    std::vector<json*> out;
    auto add = [&](json& parent, const char* key) {
        if (parent.is_object() && parent.contains(key) && parent[key].is_object()) out.push_back(&parent[key]);
    };
    if (material.contains("pbrMetallicRoughness")) {
        add(material["pbrMetallicRoughness"], "baseColorTexture");
        add(material["pbrMetallicRoughness"], "metallicRoughnessTexture");
    }
    for (const char* key : {"normalTexture", "occlusionTexture", "emissiveTexture"}) add(material, key);
    return out;
}

int run(const Options& o) {
    Input in = read_input(o.in);
    json gltf = in.gltf;
    Writer w{o};

    // Per-material UV ranges (quantized UVs of primitives sharing a material share a transform).
    std::map<int, Range> uv_ranges;
    auto textured = [&](const json& material) {
        return material.is_number() && !texture_infos(gltf["materials"][material.get<int>()]).empty();
    };
    for (const auto& primitives : in.meshes)
        for (const Primitive& p : primitives)
            if (textured(p.material) && !p.uvs.empty())
                for (size_t v = 0; v < p.vertex_count(); ++v) uv_ranges[p.material.get<int>()].add(&p.uvs[v * 2], 2);

    std::vector<Grid> grids;
    json meshes = json::array();
    for (size_t m = 0; m < in.meshes.size(); ++m, ++w.mesh_index) {
        json mesh = gltf["meshes"][m];
        mesh["primitives"] = json::array();
        Grid grid = mesh_grid(in.meshes[m]);
        grids.push_back(grid);
        for (const Primitive& p : in.meshes[m]) {
            json primitive;
            if (o.draco) {
                primitive = add_draco_primitive(w, p);
            } else if (o.quantize) {
                primitive["attributes"]["POSITION"] = add_quantized_positions(w, p, grid);
                if (!p.normals.empty()) primitive["attributes"]["NORMAL"] = add_quantized_normals(w, p);
                if (!p.uvs.empty() && textured(p.material))
                    primitive["attributes"]["TEXCOORD_0"] = add_quantized_uvs(w, p, uv_ranges[p.material.get<int>()]);
                primitive["indices"] = w.add_indices(p.indices, p.vertex_count());
            } else {
                primitive["attributes"]["POSITION"] = w.add_float_accessor(p.positions, 3, "VEC3", true);
                if (!p.normals.empty()) primitive["attributes"]["NORMAL"] = w.add_float_accessor(p.normals, 3, "VEC3", false);
                if (!p.uvs.empty()) primitive["attributes"]["TEXCOORD_0"] = w.add_float_accessor(p.uvs, 2, "VEC2", true);
                primitive["indices"] = w.add_indices(p.indices, p.vertex_count());
            }
            if (!p.material.is_null()) primitive["material"] = p.material;
            mesh["primitives"].push_back(primitive);
        }
        meshes.push_back(mesh);
    }
    gltf["meshes"] = meshes;
    gltf["accessors"] = w.accessors;
    gltf["bufferViews"] = w.views;

    if (o.quantize && !o.draco) {
        // The position grid's dequantization: each mesh moves to a new child node of the node
        // that held it, with the grid's translation and uniform scale (as gltfpack does).
        size_t original = gltf["nodes"].size();
        for (size_t n = 0; n < original; ++n) {
            json& node = gltf["nodes"][n];
            if (!node.contains("mesh")) continue;
            int mesh = node["mesh"];
            node.erase("mesh");
            const Grid& g = grids[mesh];
            json child = {{"mesh", mesh}, {"translation", {g.offset[0], g.offset[1], g.offset[2]}}, {"scale", {g.step, g.step, g.step}}};
            gltf["nodes"].push_back(child);
            gltf["nodes"][n]["children"].push_back(gltf["nodes"].size() - 1);
        }
        // Every texture of the material that reads TEXCOORD_0 gets the dequantization, as gltfpack
        // writes it (the renderer applies each slot's own transform).
        for (const auto& [material, range] : uv_ranges) {
            json transform = {{"offset", {range.lo[0], range.lo[1]}}, {"scale", {range.hi[0] - range.lo[0], range.hi[1] - range.lo[1]}}};
            for (json* info : texture_infos(gltf["materials"][material]))
                if (info->value("texCoord", 0) == 0) (*info)["extensions"]["KHR_texture_transform"] = transform;
        }
        add_used(gltf, "KHR_mesh_quantization", true);
        if (!uv_ranges.empty()) add_used(gltf, "KHR_texture_transform", true);
    }
    if (o.draco) add_used(gltf, "KHR_draco_mesh_compression", true);
    if (o.meshopt) add_used(gltf, "EXT_meshopt_compression", !o.fallback);
    write_images(o, gltf, w);
    gltf["bufferViews"] = w.views;

    bool glb = o.out.extension() == ".glb";
    std::string stem = o.out.stem().string();
    gltf["buffers"] = json::array({{{"byteLength", w.bin.size()}}});
    if (!glb) {
        gltf["buffers"][0]["uri"] = stem + ".bin";
        write_bytes(o.out.parent_path() / (stem + ".bin"), w.bin.data(), w.bin.size());
    }
    if (o.meshopt) {
        json fallback = {{"byteLength", w.fallback.size()}};
        if (o.fallback) {
            fallback["uri"] = stem + ".fallback.bin";
            write_bytes(o.out.parent_path() / (stem + ".fallback.bin"), w.fallback.data(), w.fallback.size());
        } else {
            fallback["extensions"]["EXT_meshopt_compression"]["fallback"] = true;
        }
        gltf["buffers"].push_back(fallback);
    }
    gltf["asset"]["generator"] = "subgroup-demo tools/pack_scene.cpp";
    if (glb) {
        write_glb(o.out, gltf, w.bin);
    } else {
        std::string text = gltf.dump(1);
        write_bytes(o.out, text.data(), text.size());
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    std::vector<std::string> files;
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg == "--quantize") o.quantize = true;
        else if (arg == "--meshopt") o.meshopt = true;
        else if (arg == "--fallback") o.fallback = true;
        else if (arg == "--draco") o.draco = true;
        else if (arg == "--webp") o.webp = true;
        else if (arg == "--embed") o.embed = true;
        else if (arg.rfind("--", 0) == 0) die("unknown option " + arg);
        else files.push_back(arg);
    }
    if (files.size() != 2 || (o.draco && (o.meshopt || o.quantize)) || (o.fallback && !o.meshopt)) {
        std::fprintf(stderr, "usage: %s [--quantize] [--meshopt [--fallback]] [--draco] [--webp] IN.gltf OUT.gltf|OUT.glb\n", argv[0]);
        return 2;
    }
    o.in = files[0];
    o.out = files[1];
    if (o.out.has_parent_path()) fs::create_directories(o.out.parent_path());
    else o.out = fs::path(".") / o.out;
    return run(o);
}
