// glTF 2.0 (.gltf / .glb) -> Scene.
//
// tinygltf (Debian's libtinygltf.so) parses the JSON and resolves buffers and image files, but it
// trusts the offsets, counts and indices it hands back, truncates integers through `int` and
// quietly drops malformed optional sizes. So the file is vetted before tinygltf sees it (GLB
// layout, JSON nesting and integer fields), and every byte read from a buffer afterwards goes
// through read_accessor / view_bytes, which check it with saturating 64-bit arithmetic.
#include "scene.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <new>
#include <sstream>
#include <string_view>

#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/quaternion.hpp>
#include <nlohmann/json.hpp>
#include <tiny_gltf.h>

#include "image_decode.h"
#include "mesh_decode.h"

static_assert(std::endian::native == std::endian::little, "glTF buffers are little-endian");

namespace {

using tinygltf::Model;

constexpr uint64_t kMaxFileBytes = (1ull << 31) - 1;  // tinygltf takes sizes as 32-bit ints
constexpr uint64_t kMaxAccessorBytes = 1ull << 30;
constexpr uint64_t kMaxVertices = (1ull << 30) / sizeof(Vertex);  // 1 GiB of vertex data
constexpr uint64_t kMaxIndices = (1ull << 30) / sizeof(uint32_t);  // 1 GiB of index data
constexpr uint64_t kMaxInstances = 1ull << 24;
constexpr uint64_t kMaxTexturePixels = 1ull << 26;  // 8192 x 8192
constexpr int kMaxNodeDepth = 256;
constexpr int kMaxJsonDepth = 128;  // tinygltf converts `extras` recursively

// Messages quote the file (URIs, names, tinygltf's and the image decoders' reasons, which may
// embed raw bytes: stb_image put an unknown PNG chunk's four bytes in its message). Control characters are
// escaped so a message stays one line and can't drive the terminal, and length is capped so a
// data: URI can't make it megabytes long.
std::string printable(std::string_view text) {
    constexpr size_t kMaxLength = 400;
    std::string out;
    for (unsigned char c : text) {
        if (out.size() >= kMaxLength) {
            out += "...";
            break;
        }
        if (c < 0x20 || c == 0x7f) {
            char escaped[8];
            snprintf(escaped, sizeof(escaped), "\\x%02x", c);
            out += escaped;
        } else {
            out += char(c);
        }
    }
    return out;
}

template <typename... Args>
[[noreturn]] void fail(const Args&... args) {
    std::ostringstream message;
    (message << ... << args);
    throw SceneError(printable(message.str()));
}

// offset + (count - 1) * stride + size: the end of the last element. Saturates instead of
// wrapping, so a hostile count or offset always fails the bounds check that follows.
uint64_t span_end(uint64_t offset, uint64_t count, uint64_t stride, uint64_t size) {
    if (count == 0)
        return offset;
    uint64_t end = 0;
    if (__builtin_mul_overflow(count - 1, stride, &end) || __builtin_add_overflow(end, offset, &end) ||
        __builtin_add_overflow(end, size, &end))
        return std::numeric_limits<uint64_t>::max();
    return end;
}

template <typename T>
T load(const uint8_t* p) {
    T value;
    memcpy(&value, p, sizeof(T));  // buffer data has no alignment guarantee
    return value;
}

// ---- Reading files --------------------------------------------------------------------------

// Reports failure instead of throwing because tinygltf's file callback uses it too.
bool read_file(const std::string& path, std::vector<uint8_t>& out, std::string& error) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) {
        error = "not a regular file";
        return false;
    }
    uint64_t size = std::filesystem::file_size(path, ec);
    if (ec) {
        error = ec.message();
        return false;
    }
    if (size > kMaxFileBytes) {
        error = "file is larger than 2 GiB";
        return false;
    }
    std::ifstream file(path, std::ios::binary);
    out.resize(size);
    if (!file.read(reinterpret_cast<char*>(out.data()), std::streamsize(size))) {
        error = "read failed";
        return false;
    }
    return true;
}

// What tinygltf's callbacks see. An empty base_dir forbids all external files.
struct FileAccess {
    std::string base_dir;
};

// tinygltf also tries "./uri" relative to the working directory; only files below base_dir count.
bool file_exists(const std::string& path, void* user) {
    const auto& access = *static_cast<FileAccess*>(user);
    if (access.base_dir.empty() || path.rfind(access.base_dir + "/", 0) != 0)
        return false;
    std::error_code ec;
    return std::filesystem::is_regular_file(path, ec);
}

std::string expand_file_path(const std::string& path, void*) { return path; }

bool read_whole_file(std::vector<unsigned char>* out, std::string* err, const std::string& path, void* user) {
    std::string error;
    if (!file_exists(path, user))
        error = "not found";
    else if (read_file(path, *out, error))
        return true;
    if (err)
        *err = error;
    return false;
}

bool write_whole_file(std::string* err, const std::string&, const std::vector<unsigned char>&, void*) {
    if (err)
        *err = "writing is not supported";
    return false;
}

// tinygltf calls this while parsing. Only URI images are kept (still encoded); decoding happens
// later, for the images a material uses. For bufferView images tinygltf passes a pointer it never
// bounds-checked, so those bytes are not touched here; decode_image re-reads them with checks.
bool keep_encoded_image(tinygltf::Image* image, int, std::string*, std::string*, int, int,
                        const unsigned char* bytes, int size, void*) {
    if (image->bufferView == -1 && bytes && size > 0)
        image->image.assign(bytes, bytes + size);
    image->as_is = true;
    return true;
}

// ---- Vetting the file before tinygltf parses it -----------------------------------------------

// Returns the JSON chunk and the GLB's declared length, after checking that every chunk lies
// inside the data (tinygltf 2.7 lets the BIN chunk run 8 bytes past the end).
std::string_view check_glb(const uint8_t* data, size_t size, uint32_t& length) {
    if (size < 12)
        fail("truncated GLB: ", size, " bytes is shorter than the 12-byte header");
    if (memcmp(data, "glTF", 4) != 0)
        fail("not a GLB file (bad magic)");
    if (uint32_t version = load<uint32_t>(data + 4); version != 2)
        fail("unsupported GLB version ", version);
    length = load<uint32_t>(data + 8);
    if (length > size)
        fail("truncated GLB: header says ", length, " bytes but only ", size, " are present");
    if (length < 20)
        fail("truncated GLB: no room for the JSON chunk header");
    uint64_t json_size = load<uint32_t>(data + 12);
    if (load<uint32_t>(data + 16) != 0x4E4F534A)
        fail("GLB: first chunk is not JSON");
    uint64_t json_end = 20 + json_size;
    if (json_end > length)
        fail("truncated GLB: JSON chunk ends at byte ", json_end, " past the end (", length, ")");
    if (json_end < length) {
        if (json_end + 8 > length)
            fail("truncated GLB: incomplete BIN chunk header");
        uint64_t bin_end = json_end + 8 + load<uint32_t>(data + json_end);
        if (load<uint32_t>(data + json_end + 4) != 0x004E4942)
            fail("GLB: second chunk is not BIN");
        if (bin_end > length)
            fail("truncated GLB: BIN chunk ends at byte ", bin_end, " past the end (", length, ")");
    }
    return {reinterpret_cast<const char*>(data + 20), size_t(json_size)};
}

// A cheap scan (strings skipped) so deeply nested input can't overflow anyone's stack.
void check_nesting(std::string_view text) {
    int depth = 0;
    bool in_string = false, escaped = false;
    for (char c : text) {
        if (in_string) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth > kMaxJsonDepth)
                fail("invalid glTF: JSON nested deeper than ", kMaxJsonDepth, " levels");
        } else if (c == ']' || c == '}') {
            --depth;
        }
    }
}

bool is_size_key(const std::string& key) {
    return key == "byteOffset" || key == "byteLength" || key == "byteStride" || key == "count";
}

// tinygltf reads sizes as unsigned (silently defaulting when they're negative or fractional) and
// indices through `int` (silently truncating). Reject both so a value is never misread.
void check_integers(const nlohmann::json& value, const std::string& path) {
    if (value.is_object()) {
        for (const auto& [key, child] : value.items()) {
            // Free-form or read as doubles by tinygltf, so no truncation to worry about. Extensions
            // are checked: tinygltf truncates their integers through `int` too, and the meshopt
            // and Draco objects hold offsets, lengths and counts.
            if (key == "extras" || key == "min" || key == "max")
                continue;
            std::string child_path = path + "/" + key;
            if (is_size_key(key) && !child.is_number_unsigned())
                fail("invalid glTF: ", child_path, " must be a non-negative integer (got ", child.dump(), ")");
            check_integers(child, child_path);
        }
    } else if (value.is_array()) {
        for (size_t i = 0; i < value.size(); ++i)
            check_integers(value[i], path + "/" + std::to_string(i));
    } else if (value.is_number_integer()) {
        bool fits = value.is_number_unsigned() ? value.get<uint64_t>() <= INT32_MAX
                                               : value.get<int64_t>() >= INT32_MIN && value.get<int64_t>() <= INT32_MAX;
        if (!fits)
            fail("invalid glTF: ", path, " = ", value.dump(), " is out of range");
    }
}

// What the loader decodes (docs/scenes.md); material extensions only change shading and are
// ignored with a warning; anything else that changes geometry or textures is refused. Checked on
// the raw JSON because tinygltf rejects e.g. Draco files with a less helpful message first.
bool decoded_extension(const std::string& name) {
    return name == "KHR_mesh_quantization" || name == "KHR_texture_transform" || name == "EXT_meshopt_compression" ||
           name == "KHR_draco_mesh_compression" || name == "EXT_texture_webp" || name == "KHR_materials_emissive_strength";
}

void check_required_extensions(const nlohmann::json& root, std::vector<std::string>& warnings) {
    auto it = root.find("extensionsRequired");
    if (it == root.end())
        return;
    if (!it->is_array())
        fail("invalid glTF: extensionsRequired is not an array");
    for (const nlohmann::json& entry : *it) {
        if (!entry.is_string())
            fail("invalid glTF: extensionsRequired holds a non-string");
        std::string name = entry.get<std::string>();
        if (decoded_extension(name))
            continue;
        if (name.rfind("KHR_materials_", 0) == 0)
            warnings.push_back("required extension " + name + " is ignored");
        else if (name == "KHR_meshopt_compression")
            fail("unsupported required extension KHR_meshopt_compression (gltfpack -cz or -ce khr): Debian's "
                 "meshoptimizer 0.18 decodes EXT_meshopt_compression only; re-pack with gltfpack -c or -cc");
        else if (name == "KHR_texture_basisu")
            fail("unsupported required extension KHR_texture_basisu: KTX2 / Basis Universal textures cannot be "
                 "decoded (no KTX library in Debian); re-export the textures as PNG, JPEG or WebP");
        else
            fail("unsupported required extension ", name);
    }
}

nlohmann::json check_json(std::string_view text, std::vector<std::string>& warnings) {
    check_nesting(text);
    nlohmann::json root;
    try {
        root = nlohmann::json::parse(text.begin(), text.end());
    } catch (const nlohmann::json::exception& e) {
        fail("invalid JSON: ", e.what());
    }
    if (!root.is_object())
        fail("invalid glTF: top level is not a JSON object");
    check_integers(root, "");
    check_required_extensions(root, warnings);
    return root;
}

// What the JSON given to tinygltf says differently from the file, to be put back after parsing.
struct Patches {
    // EXT_meshopt_compression's fallback buffers may have no data at all (gltfpack -c writes them
    // without a URI): tinygltf would call that an error in a .gltf and, in a .glb, fill it from the
    // BIN chunk. Each gets a one-byte data: URI instead; its data is dropped again after parsing,
    // so nothing can read it without decoding (decode_meshopt_views).
    std::vector<int> stubbed_buffers;
    // KHR_draco_mesh_compression's index accessors have no buffer view, which tinygltf 2.7 refuses
    // ("invalid bufferView"): those primitives' "indices" are hidden from it. {mesh, primitive, accessor}
    std::vector<std::array<int, 3>> draco_indices;
    // tinygltf 2.7 knows no data:image/webp URI (it would look for a file of that name): such
    // images are handed to it as application/octet-stream; the decoder tells formats apart anyway.
    bool webp_uris = false;
    bool empty() const { return stubbed_buffers.empty() && draco_indices.empty() && !webp_uris; }
};

const nlohmann::json* json_extension(const nlohmann::json& object, const char* name) {
    if (!object.is_object())
        return nullptr;
    auto extensions = object.find("extensions");
    if (extensions == object.end() || !extensions->is_object())
        return nullptr;
    auto it = extensions->find(name);
    return it != extensions->end() && it->is_object() ? &*it : nullptr;
}

Patches patch_for_tinygltf(nlohmann::json& root) {
    Patches patches;
    if (auto buffers = root.find("buffers"); buffers != root.end() && buffers->is_array())
        for (size_t b = 0; b < buffers->size(); ++b) {
            nlohmann::json& buffer = (*buffers)[b];
            const nlohmann::json* meshopt = json_extension(buffer, "EXT_meshopt_compression");
            if (buffer.contains("uri") || !meshopt || meshopt->value("fallback", false) != true)
                continue;
            buffer["uri"] = "data:application/octet-stream;base64,AA==";
            buffer["byteLength"] = 1;
            patches.stubbed_buffers.push_back(int(b));
        }
    if (auto images = root.find("images"); images != root.end() && images->is_array())
        for (nlohmann::json& image : *images) {
            constexpr std::string_view kWebp = "data:image/webp;base64,";
            auto uri = image.is_object() ? image.find("uri") : image.end();
            if (uri == image.end() || !uri->is_string() || !uri->get_ref<const std::string&>().starts_with(kWebp))
                continue;
            *uri = "data:application/octet-stream;base64," + uri->get<std::string>().substr(kWebp.size());
            patches.webp_uris = true;
        }
    auto meshes = root.find("meshes");
    if (meshes == root.end() || !meshes->is_array())
        return patches;
    for (size_t m = 0; m < meshes->size(); ++m) {
        nlohmann::json& mesh = (*meshes)[m];
        if (!mesh.is_object() || !mesh.contains("primitives") || !mesh["primitives"].is_array())
            continue;
        for (size_t p = 0; p < mesh["primitives"].size(); ++p) {
            nlohmann::json& primitive = mesh["primitives"][p];
            if (!json_extension(primitive, "KHR_draco_mesh_compression"))
                continue;
            auto indices = primitive.find("indices");
            if (indices == primitive.end() || !indices->is_number_integer())
                continue;
            patches.draco_indices.push_back({int(m), int(p), indices->get<int>()});
            primitive.erase(indices);
        }
    }
    return patches;
}

// A GLB with a new JSON chunk and the original's BIN chunk (json_end: where its JSON chunk ended).
std::vector<uint8_t> rebuild_glb(const std::string& json, const uint8_t* data, uint32_t length, uint64_t json_end) {
    std::string text = json;
    text.resize((text.size() + 3) / 4 * 4, ' ');
    std::vector<uint8_t> out(20);
    uint32_t header[5] = {0x46546C67, 2, uint32_t(20 + text.size() + (length - json_end)), uint32_t(text.size()),
                          0x4E4F534A};
    memcpy(out.data(), header, 20);
    out.insert(out.end(), text.begin(), text.end());
    out.insert(out.end(), data + json_end, data + length);
    return out;
}

// One line per message, without tinygltf's trailing newlines.
void add_lines(std::vector<std::string>& out, const std::string& text, const char* prefix) {
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);)
        if (!line.empty())
            out.push_back(prefix + line);
}

Model parse_gltf(const uint8_t* data, size_t size, const std::string& base_dir, bool binary,
                 std::vector<std::string>& warnings, Patches& patches) {
    uint32_t glb_length = 0;
    std::string_view json = binary ? check_glb(data, size, glb_length)
                                   : std::string_view(reinterpret_cast<const char*>(data), size);
    nlohmann::json root = check_json(json, warnings);
    patches = patch_for_tinygltf(root);
    std::string patched;
    std::vector<uint8_t> patched_glb;
    if (!patches.empty()) {
        patched = root.dump();
        if (binary) {
            patched_glb = rebuild_glb(patched, data, glb_length, 20 + json.size());
            data = patched_glb.data();
            glb_length = uint32_t(patched_glb.size());
        } else {
            json = patched;
        }
    }

    FileAccess access{base_dir};
    tinygltf::TinyGLTF parser;
    parser.SetFsCallbacks({file_exists, expand_file_path, read_whole_file, write_whole_file, &access});
    parser.SetImageLoader(keep_encoded_image, nullptr);

    Model model;
    std::string err, warn;
    bool ok = binary ? parser.LoadBinaryFromMemory(&model, &err, &warn, data, glb_length, base_dir)
                     : parser.LoadASCIIFromString(&model, &err, &warn, json.data(), unsigned(json.size()), base_dir);
    if (!ok) {
        std::vector<std::string> errors;
        add_lines(errors, err, "");
        std::string joined = errors.empty() ? "unknown error" : errors[0];
        for (size_t i = 1; i < errors.size(); ++i)
            joined += "; " + errors[i];
        fail("cannot load glTF: ", joined);
    }
    add_lines(warnings, err + warn, "glTF: ");
    return model;
}

// ---- Accessors ----------------------------------------------------------------------------------

int component_size(int type) {
    switch (type) {
    case TINYGLTF_COMPONENT_TYPE_BYTE:
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: return 1;
    case TINYGLTF_COMPONENT_TYPE_SHORT:
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: return 2;
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT:
    case TINYGLTF_COMPONENT_TYPE_FLOAT: return 4;
    default: return 0;  // INT and DOUBLE are not valid glTF accessor types
    }
}

// Matrices are left out: their columns are padded, and no attribute we read uses them.
int component_count(int type) {
    switch (type) {
    case TINYGLTF_TYPE_SCALAR: return 1;
    case TINYGLTF_TYPE_VEC2: return 2;
    case TINYGLTF_TYPE_VEC3: return 3;
    case TINYGLTF_TYPE_VEC4: return 4;
    default: return 0;
    }
}

bool is_index_type(int type) {
    return type == TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE || type == TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT ||
           type == TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT;
}

uint32_t load_index(const uint8_t* p, uint64_t size) {
    return size == 1 ? *p : size == 2 ? load<uint16_t>(p) : load<uint32_t>(p);
}

struct Bytes {
    const uint8_t* data = nullptr;
    uint64_t size = 0;
};

// The bytes of buffer view `index`, checked against its buffer.
Bytes view_bytes(const Model& model, int index, const std::string& who) {
    if (index < 0 || size_t(index) >= model.bufferViews.size())
        fail(who, ": buffer view ", index, " out of range (", model.bufferViews.size(), " buffer views)");
    const tinygltf::BufferView& view = model.bufferViews[index];
    if (view.buffer < 0 || size_t(view.buffer) >= model.buffers.size())
        fail("buffer view ", index, ": buffer ", view.buffer, " out of range (", model.buffers.size(), " buffers)");
    const std::vector<unsigned char>& buffer = model.buffers[view.buffer].data;
    uint64_t end = span_end(view.byteOffset, 1, 0, view.byteLength);
    if (end > buffer.size())
        fail("buffer view ", index, ": byteOffset+byteLength (", end, ") exceeds buffer ", view.buffer, " length (",
             buffer.size(), ")");
    return {buffer.data() + view.byteOffset, view.byteLength};
}

const tinygltf::Accessor& accessor_at(const Model& model, int index, const std::string& who) {
    if (index < 0 || size_t(index) >= model.accessors.size())
        fail(who, ": accessor ", index, " out of range (", model.accessors.size(), " accessors)");
    return model.accessors[index];
}

// Overwrites the elements a sparse accessor lists (glTF 3.6.2.3), checking every index.
void apply_sparse(const Model& model, const tinygltf::Accessor& accessor, int index, uint8_t* out,
                  uint64_t element_size) {
    const auto& sparse = accessor.sparse;
    std::string who = "accessor " + std::to_string(index) + " sparse";
    if (sparse.count < 0 || uint64_t(sparse.count) > accessor.count)
        fail(who, ": count ", sparse.count, " out of range (accessor count ", accessor.count, ")");
    uint64_t count = uint64_t(sparse.count);
    if (!is_index_type(sparse.indices.componentType))
        fail(who, ": indices have unsupported component type ", sparse.indices.componentType);
    uint64_t index_size = component_size(sparse.indices.componentType);
    if (sparse.indices.byteOffset < 0 || sparse.values.byteOffset < 0)
        fail(who, ": negative byteOffset");

    Bytes indices = view_bytes(model, sparse.indices.bufferView, who + " indices");
    Bytes values = view_bytes(model, sparse.values.bufferView, who + " values");
    uint64_t indices_end = span_end(uint64_t(sparse.indices.byteOffset), count, index_size, index_size);
    if (indices_end > indices.size)
        fail(who, ": indices end (", indices_end, ") exceeds buffer view ", sparse.indices.bufferView, " length (",
             indices.size, ")");
    uint64_t values_end = span_end(uint64_t(sparse.values.byteOffset), count, element_size, element_size);
    if (values_end > values.size)
        fail(who, ": values end (", values_end, ") exceeds buffer view ", sparse.values.bufferView, " length (",
             values.size, ")");

    const uint8_t* index_data = indices.data + sparse.indices.byteOffset;
    const uint8_t* value_data = values.data + sparse.values.byteOffset;
    for (uint64_t i = 0; i < count; ++i) {
        uint64_t target = load_index(index_data + i * index_size, index_size);
        if (target >= accessor.count)
            fail(who, ": index ", target, " at position ", i, " is >= accessor count ", accessor.count);
        memcpy(out + target * element_size, value_data + i * element_size, element_size);
    }
}

// The accessor's elements, tightly packed, with sparse substitution applied.
std::vector<uint8_t> read_accessor(const Model& model, int index, const std::string& who) {
    const tinygltf::Accessor& accessor = accessor_at(model, index, who);
    std::string name = "accessor " + std::to_string(index);
    uint64_t element_size = uint64_t(component_size(accessor.componentType)) * component_count(accessor.type);
    if (element_size == 0)
        fail(name, ": unsupported type ", accessor.type, " / component type ", accessor.componentType);
    if (accessor.count > kMaxAccessorBytes / element_size)
        fail(name, ": count ", accessor.count, " is too large (over 1 GiB of data)");

    std::vector<uint8_t> out(accessor.count * element_size);  // no buffer view means all zeros
    if (accessor.bufferView != -1) {
        Bytes view = view_bytes(model, accessor.bufferView, name);
        uint64_t stride = model.bufferViews[accessor.bufferView].byteStride;
        if (stride == 0)
            stride = element_size;
        if (stride < element_size)
            fail(name, ": byteStride ", stride, " is smaller than the element size ", element_size);
        uint64_t end = span_end(accessor.byteOffset, accessor.count, stride, element_size);
        if (end > view.size)
            fail(name, ": byteOffset+count*stride (", end, ") exceeds buffer view ", accessor.bufferView, " length (",
                 view.size, ")");
        for (uint64_t i = 0; i < accessor.count; ++i)
            memcpy(out.data() + i * element_size, view.data + accessor.byteOffset + i * stride, element_size);
    }
    if (accessor.sparse.isSparse)
        apply_sparse(model, accessor, index, out.data(), element_size);
    return out;
}

std::vector<uint32_t> read_indices(const Model& model, int index, const std::string& who) {
    const tinygltf::Accessor& accessor = accessor_at(model, index, who);
    if (!is_index_type(accessor.componentType) || accessor.type != TINYGLTF_TYPE_SCALAR)
        fail(who, ": index accessor ", index, " must be unsigned byte/short/int SCALAR");
    uint64_t size = component_size(accessor.componentType);
    std::vector<uint8_t> raw = read_accessor(model, index, who);
    std::vector<uint32_t> out(accessor.count);
    for (size_t i = 0; i < out.size(); ++i)
        out[i] = load_index(&raw[i * size], size);
    return out;
}

// The attributes we read and the component types each may have: glTF 2.0 core (float, and
// normalized u8/u16 texture coordinates) plus KHR_mesh_quantization (8- and 16-bit integers,
// normalized or not, as gltfpack writes them). Tangents are read as normals are (float, or
// normalized byte/short); a tangent of another type is ignored with a warning.
enum class Attribute { position, normal, texcoord, tangent };

bool allowed_type(Attribute attribute, int type, bool normalized) {
    if (type == TINYGLTF_COMPONENT_TYPE_FLOAT)
        return !normalized;
    bool integer = type == TINYGLTF_COMPONENT_TYPE_BYTE || type == TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE ||
                   type == TINYGLTF_COMPONENT_TYPE_SHORT || type == TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT;
    if (attribute == Attribute::normal || attribute == Attribute::tangent)  // unit vectors: only signed normalized
        return normalized && (type == TINYGLTF_COMPONENT_TYPE_BYTE || type == TINYGLTF_COMPONENT_TYPE_SHORT);
    return integer;
}

// glTF 2.0 section 3.11: normalized signed values map c to max(c / (2^(n-1) - 1), -1), unsigned
// ones to c / (2^n - 1); unnormalized integers are taken as they are (the node transform or
// KHR_texture_transform scales them).
float dequantize(const uint8_t* p, int type, bool normalized) {
    switch (type) {
    case TINYGLTF_COMPONENT_TYPE_FLOAT: return load<float>(p);
    case TINYGLTF_COMPONENT_TYPE_BYTE: {
        float v = float(int8_t(*p));
        return normalized ? std::max(v / 127.0f, -1.0f) : v;
    }
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: return normalized ? float(*p) / 255.0f : float(*p);
    case TINYGLTF_COMPONENT_TYPE_SHORT: {
        float v = float(load<int16_t>(p));
        return normalized ? std::max(v / 32767.0f, -1.0f) : v;
    }
    default: {  // UNSIGNED_SHORT: allowed_type() admits nothing else
        float v = float(load<uint16_t>(p));
        return normalized ? v / 65535.0f : v;
    }
    }
}

// An attribute as floats, `components` per element, dequantized.
std::vector<float> read_floats(const Model& model, int index, int components, Attribute attribute,
                               const std::string& who) {
    const tinygltf::Accessor& accessor = accessor_at(model, index, who);
    int type = accessor.componentType;
    if (component_count(accessor.type) != components || !allowed_type(attribute, type, accessor.normalized))
        fail(who, ": accessor ", index, " must be float VEC", components,
             attribute == Attribute::normal || attribute == Attribute::tangent ? " or normalized byte/short (KHR_mesh_quantization)"
                                            : " or byte/short, normalized or not (KHR_mesh_quantization)",
             ", not component type ", type, accessor.normalized ? " normalized" : "");
    std::vector<uint8_t> raw = read_accessor(model, index, who);
    std::vector<float> out(accessor.count * components);
    int size = component_size(type);
    for (size_t i = 0; i < out.size(); ++i)
        out[i] = dequantize(&raw[i * size], type, accessor.normalized);
    return out;
}

// ---- Extension data (tinygltf keeps extensions as generic Values) --------------------------------

const tinygltf::Value* extension(const tinygltf::ExtensionMap& extensions, const char* name) {
    auto it = extensions.find(name);
    return it != extensions.end() && it->second.IsObject() ? &it->second : nullptr;
}

// A number member of an extension object, or `fallback` when absent or not a finite number.
double number(const tinygltf::Value& object, const char* key, double fallback) {
    if (!object.Has(key))
        return fallback;
    const tinygltf::Value& value = object.Get(key);
    double number = value.IsNumber() || value.IsInt() ? value.GetNumberAsDouble() : fallback;
    return std::isfinite(number) ? number : fallback;
}

// ---- Compressed geometry: decoded into buffers of their own before anything reads the model ---

// A member of an extension object that must be a non-negative integer (check_integers() has
// already made sure integers fit an int, so tinygltf's Value holds them exactly).
uint64_t ext_integer(const tinygltf::Value& object, const char* key, const std::string& who, bool required,
                     uint64_t fallback = 0) {
    if (!object.Has(key)) {
        if (required)
            fail(who, ": ", key, " is missing");
        return fallback;
    }
    const tinygltf::Value& value = object.Get(key);
    if (!value.IsInt() || value.GetNumberAsInt() < 0)
        fail(who, ": ", key, " must be a non-negative integer");
    return uint64_t(value.GetNumberAsInt());
}

std::string ext_string(const tinygltf::Value& object, const char* key, const std::string& who, const char* fallback) {
    if (!object.Has(key))
        return fallback;
    if (!object.Get(key).IsString())
        fail(who, ": ", key, " must be a string");
    return object.Get(key).Get<std::string>();
}

// Appends decoded bytes as a buffer of their own; returns its index.
int add_buffer(Model& model, std::vector<uint8_t> bytes) {
    tinygltf::Buffer buffer;
    buffer.data = std::move(bytes);
    model.buffers.push_back(std::move(buffer));
    return int(model.buffers.size() - 1);
}

// EXT_meshopt_compression: every compressed buffer view whose fallback buffer has no data is
// decoded once into a buffer of its own, and the view then points at it, so every accessor read
// afterwards goes through the same bounds checks as an uncompressed file's. A view whose fallback
// buffer has its data is used as it is: the extension says it needs no decoding then.
void decode_meshopt_views(Model& model, const std::vector<int>& stubbed) {
    std::vector<uint8_t> without_data(model.buffers.size(), 0);
    for (int b : stubbed)
        if (size_t(b) < model.buffers.size()) {
            without_data[b] = 1;
            model.buffers[b].data.clear();  // the stub's byte: nothing may read a fallback without data
        }
    for (size_t v = 0; v < model.bufferViews.size(); ++v) {
        tinygltf::BufferView& view = model.bufferViews[v];
        const tinygltf::Value* ext = extension(view.extensions, "EXT_meshopt_compression");
        if (!ext)
            continue;
        std::string who = "buffer view " + std::to_string(v) + " (EXT_meshopt_compression)";
        if (view.buffer < 0 || size_t(view.buffer) >= without_data.size())
            fail(who, ": buffer ", view.buffer, " out of range (", model.buffers.size(), " buffers)");
        if (!without_data[view.buffer])
            continue;  // the fallback holds the data
        uint64_t source = ext_integer(*ext, "buffer", who, true);
        if (source >= without_data.size() || without_data[source])
            fail(who, ": compressed data in buffer ", source, ", which is out of range or has no data");
        MeshoptStream stream;
        stream.count = ext_integer(*ext, "count", who, true);
        stream.stride = ext_integer(*ext, "byteStride", who, true);
        stream.mode = ext_string(*ext, "mode", who, "");
        stream.filter = ext_string(*ext, "filter", who, "NONE");
        uint64_t offset = ext_integer(*ext, "byteOffset", who, false), length = ext_integer(*ext, "byteLength", who, true);
        const std::vector<unsigned char>& data = model.buffers[source].data;
        if (span_end(offset, 1, 0, length) > data.size())
            fail(who, ": compressed bytes ", offset, "+", length, " past the end of buffer ", source, " (",
                 data.size(), " bytes)");
        // The decoded view is exactly count elements of byteStride bytes, and an attribute view's
        // own byteStride must be the stream's: accessors read it with that stride.
        if (span_end(0, stream.count, stream.stride, stream.stride) != view.byteLength)
            fail(who, ": count ", stream.count, " x byteStride ", stream.stride, " is not the view's byteLength ",
                 view.byteLength);
        if (view.byteStride != 0 && view.byteStride != stream.stride)
            fail(who, ": the view's byteStride ", view.byteStride, " is not the stream's ", stream.stride);
        std::vector<uint8_t> decoded;
        if (std::string problem = decode_meshopt(stream, data.data() + offset, length, decoded); !problem.empty())
            fail(who, ": ", problem);
        view.buffer = add_buffer(model, std::move(decoded));
        view.byteOffset = 0;
    }
}

// KHR_draco_mesh_compression: each compressed primitive is decoded, and its attributes and
// indices are replaced by new float / u32 accessors over the decoded data. The file's accessors
// must describe what comes out (count, components): anything else is refused, not guessed at.
void decode_draco_primitives(Model& model) {
    for (size_t m = 0; m < model.meshes.size(); ++m)
        for (size_t p = 0; p < model.meshes[m].primitives.size(); ++p) {
            tinygltf::Primitive& primitive = model.meshes[m].primitives[p];
            const tinygltf::Value* ext = extension(primitive.extensions, "KHR_draco_mesh_compression");
            if (!ext)
                continue;
            std::string who = "mesh " + std::to_string(m) + " primitive " + std::to_string(p) + " (Draco)";
            if (primitive.mode != TINYGLTF_MODE_TRIANGLES && primitive.mode != TINYGLTF_MODE_TRIANGLE_STRIP)
                fail(who, ": mode ", primitive.mode, " is not triangles");
            if (!ext->Has("attributes") || !ext->Get("attributes").IsObject())
                fail(who, ": attributes must be an object");
            const tinygltf::Value& ids = ext->Get("attributes");
            Bytes compressed = view_bytes(model, int(ext_integer(*ext, "bufferView", who, true)), who);

            DracoMesh mesh;
            std::vector<std::pair<std::string, int>> targets;  // glTF attribute name, its accessor
            for (const std::string& name : ids.Keys()) {
                auto it = primitive.attributes.find(name);
                if (it == primitive.attributes.end())
                    continue;  // compressed but not used by the primitive
                const tinygltf::Accessor& accessor = accessor_at(model, it->second, who + " " + name);
                int components = component_count(accessor.type);
                if (components == 0)
                    fail(who, ": ", name, " accessor has unsupported type ", accessor.type);
                mesh.attributes.push_back({int(ext_integer(ids, name.c_str(), who, true)), components, {}});
                targets.push_back({name, it->second});
            }
            if (std::string problem = decode_draco(compressed.data, compressed.size, mesh); !problem.empty())
                fail(who, ": ", problem);
            uint64_t index_count = primitive.indices == -1 ? 0 : accessor_at(model, primitive.indices, who).count;
            if (primitive.indices != -1 && index_count != mesh.indices.size())
                fail(who, ": decoded ", mesh.indices.size(), " indices, the accessor says ", index_count);

            // New accessors, so accessors shared with other primitives keep their meaning.
            auto add_accessor = [&](const tinygltf::Accessor& like, std::vector<uint8_t> bytes, int component_type,
                                    uint64_t count) {
                tinygltf::BufferView view;
                view.buffer = add_buffer(model, std::move(bytes));
                view.byteLength = model.buffers.back().data.size();
                model.bufferViews.push_back(view);
                tinygltf::Accessor accessor;
                accessor.type = like.type;
                accessor.componentType = component_type;
                accessor.count = count;
                accessor.bufferView = int(model.bufferViews.size() - 1);
                model.accessors.push_back(accessor);
                return int(model.accessors.size() - 1);
            };
            for (size_t a = 0; a < targets.size(); ++a) {
                const tinygltf::Accessor& declared = model.accessors[targets[a].second];
                if (declared.count != mesh.points)
                    fail(who, ": ", targets[a].first, " accessor count ", declared.count, " is not the ", mesh.points,
                         " decoded points");
                const std::vector<float>& values = mesh.attributes[a].values;
                std::vector<uint8_t> bytes(values.size() * sizeof(float));
                memcpy(bytes.data(), values.data(), bytes.size());
                tinygltf::Accessor like = declared;
                primitive.attributes[targets[a].first] =
                    add_accessor(like, std::move(bytes), TINYGLTF_COMPONENT_TYPE_FLOAT, mesh.points);
            }
            std::vector<uint8_t> bytes(mesh.indices.size() * sizeof(uint32_t));
            memcpy(bytes.data(), mesh.indices.data(), bytes.size());
            tinygltf::Accessor scalar;
            scalar.type = TINYGLTF_TYPE_SCALAR;
            primitive.indices = add_accessor(scalar, std::move(bytes), TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT,
                                             mesh.indices.size());
            primitive.mode = TINYGLTF_MODE_TRIANGLES;  // Draco decodes to a triangle list
        }
}

void decode_extensions(Model& model, const Patches& patches) {
    for (auto [mesh, primitive, accessor] : patches.draco_indices)  // primitives as tinygltf read them
        model.meshes.at(mesh).primitives.at(primitive).indices = accessor;
    decode_meshopt_views(model, patches.stubbed_buffers);
    decode_draco_primitives(model);
}

// ---- Primitives ---------------------------------------------------------------------------------

// Strips and fans become lists with the winding the glTF spec (3.7.2.1) prescribes.
std::vector<uint32_t> to_triangle_list(const std::vector<uint32_t>& in, int mode) {
    if (mode == TINYGLTF_MODE_TRIANGLES) {
        std::vector<uint32_t> out = in;
        out.resize(in.size() / 3 * 3);  // a trailing partial triangle is not drawable
        return out;
    }
    std::vector<uint32_t> out;
    for (size_t i = 0; i + 2 < in.size(); ++i) {
        if (mode == TINYGLTF_MODE_TRIANGLE_FAN)
            out.insert(out.end(), {in[i + 1], in[i + 2], in[0]});
        else if (i % 2 == 0)
            out.insert(out.end(), {in[i], in[i + 1], in[i + 2]});
        else
            out.insert(out.end(), {in[i], in[i + 2], in[i + 1]});
    }
    return out;
}

// Area-weighted: the unnormalised cross product of a face is twice its area.
void compute_normals(Vertex* vertices, size_t vertex_count, const std::vector<uint32_t>& triangles) {
    std::vector<glm::vec3> sums(vertex_count, glm::vec3(0.0f));
    for (size_t i = 0; i + 2 < triangles.size(); i += 3) {
        glm::vec3 a = vertices[triangles[i]].position;
        glm::vec3 b = vertices[triangles[i + 1]].position;
        glm::vec3 c = vertices[triangles[i + 2]].position;
        glm::vec3 face = glm::cross(b - a, c - a);
        for (size_t k = 0; k < 3; ++k)
            sums[triangles[i + k]] += face;
    }
    for (size_t v = 0; v < vertex_count; ++v) {
        float length = glm::length(sums[v]);
        bool usable = length > 0.0f && std::isfinite(length);
        vertices[v].normal = usable ? sums[v] / length : glm::vec3(0.0f, 1.0f, 0.0f);
    }
}

// Optional attribute: empty when absent, otherwise exactly one element per vertex.
std::vector<float> read_attribute(const Model& model, const tinygltf::Primitive& primitive, const char* name,
                                  int components, Attribute kind, size_t vertex_count, const std::string& who) {
    auto it = primitive.attributes.find(name);
    if (it == primitive.attributes.end())
        return {};
    std::string attribute = who + " " + name;
    uint64_t count = accessor_at(model, it->second, attribute).count;
    if (count != vertex_count)  // checked before reading, which may allocate count elements
        fail(attribute, ": ", count, " elements but POSITION has ", vertex_count);
    std::vector<float> values = read_floats(model, it->second, components, kind, attribute);
    for (float& value : values)
        if (!std::isfinite(value))
            value = 0.0f;  // shading glitch at worst; not worth rejecting the file
    return values;
}

std::vector<uint32_t> primitive_indices(const Model& model, const tinygltf::Primitive& primitive,
                                        size_t vertex_count, const std::string& who) {
    std::vector<uint32_t> indices;
    if (primitive.indices == -1) {
        indices.resize(vertex_count);
        for (size_t i = 0; i < vertex_count; ++i)
            indices[i] = uint32_t(i);
        return indices;
    }
    indices = read_indices(model, primitive.indices, who);
    for (size_t i = 0; i < indices.size(); ++i)
        if (indices[i] >= vertex_count)
            fail(who, ": index ", indices[i], " at position ", i, " is >= vertex count ", vertex_count);
    return indices;
}

// A texture slot's KHR_texture_transform as a 2D affine map (identity without one), applied in the
// shader to the slot's own texCoord set (shaders/material.glsl). gltfpack stores quantized texture
// coordinates with their dequantization here (offset = the UV minimum, scale = the UV range).
glm::mat3 uv_transform(const tinygltf::ExtensionMap& extensions) {
    const tinygltf::Value* transform = extension(extensions, "KHR_texture_transform");
    if (!transform)
        return glm::mat3(1.0f);
    auto pair = [&](const char* key, double fallback) {
        glm::vec2 out = glm::vec2(float(fallback));
        if (transform->Has(key) && transform->Get(key).IsArray() && transform->Get(key).ArrayLen() == 2)
            for (int i = 0; i < 2; ++i) {
                const tinygltf::Value& v = transform->Get(key).Get(i);
                double n = v.IsNumber() || v.IsInt() ? v.GetNumberAsDouble() : fallback;
                out[i] = std::isfinite(n) ? float(n) : float(fallback);
            }
        return out;
    };
    glm::vec2 offset = pair("offset", 0.0), scale = pair("scale", 1.0);
    double rotation_value = number(*transform, "rotation", 0.0);
    float rotation = std::isfinite(rotation_value) ? float(rotation_value) : 0.0f;
    float c = std::cos(rotation), s = std::sin(rotation);
    // translation * rotation * scale (columns below). The rotation turns the UVs counter-clockwise
    // as the image shows them (v down): u' = c u + s v, v' = -s u + c v, so (1, 0) goes to (0, -1), up
    // the image, at 90 degrees. This is the extension's definition and what its sample model
    // TextureTransformTest checks (the arrow on the green marker; the opposite turn points it at the
    // red one); some copies of the extension's GLSL snippet have the transposed matrix.
    return glm::mat3(glm::vec3(c * scale.x, -s * scale.x, 0.0f), glm::vec3(s * scale.y, c * scale.y, 0.0f),
                     glm::vec3(offset, 1.0f));
}

// The POSITION accessor of a primitive we can draw, or -1 (with a warning) for one we skip.
int drawable_positions(const tinygltf::Primitive& primitive, const std::string& who, Scene& scene) {
    int mode = primitive.mode;
    if (mode < TINYGLTF_MODE_POINTS || mode > TINYGLTF_MODE_TRIANGLE_FAN)
        fail(who, ": invalid mode ", mode);
    if (mode < TINYGLTF_MODE_TRIANGLES) {
        scene.warnings.push_back(who + ": points and lines are not drawn (mode " + std::to_string(mode) + ")");
        return -1;
    }
    auto position = primitive.attributes.find("POSITION");
    if (position == primitive.attributes.end()) {
        scene.warnings.push_back(who + ": no POSITION attribute, skipped");
        return -1;
    }
    return position->second;
}

// Checks the scene-wide limits from the accessor counts alone, before anything is allocated
// (an accessor without a buffer view is all zeros, so a tiny file can claim a huge count).
void check_limits(const Model& model, const tinygltf::Primitive& primitive, int positions, const std::string& who,
                  const Scene& scene) {
    uint64_t vertex_count = accessor_at(model, positions, who + " POSITION").count;
    if (vertex_count > kMaxVertices - scene.vertices.size())
        fail(who, ": scene exceeds 1 GiB of vertex data (", vertex_count, " more vertices)");
    uint64_t count = primitive.indices == -1 ? vertex_count : accessor_at(model, primitive.indices, who).count;
    uint64_t list_size = primitive.mode == TINYGLTF_MODE_TRIANGLES ? count / 3 * 3 : count >= 3 ? (count - 2) * 3 : 0;
    if (list_size > kMaxIndices - scene.indices.size())
        fail(who, ": scene exceeds 1 GiB of index data (", list_size, " more indices)");
}

// TANGENT (VEC4: xyz and the bitangent's sign), or empty: absent, or of a type glTF does not allow
// (then a warning: the material's normal map takes the derivative frame).
std::vector<float> read_tangents(const Model& model, const tinygltf::Primitive& primitive, size_t vertex_count,
                                 const std::string& who, Scene& scene) {
    auto it = primitive.attributes.find("TANGENT");
    if (it == primitive.attributes.end())
        return {};
    const tinygltf::Accessor& accessor = accessor_at(model, it->second, who + " TANGENT");
    if (component_count(accessor.type) != 4 || !allowed_type(Attribute::tangent, accessor.componentType, accessor.normalized)) {
        scene.warnings.push_back(who + ": TANGENT must be float or normalized byte/short VEC4; normals mapped without it");
        return {};
    }
    return read_attribute(model, primitive, "TANGENT", 4, Attribute::tangent, vertex_count, who);
}

// Appends one primitive's vertices and indices; returns false when it has nothing to draw.
bool load_primitive(const Model& model, const tinygltf::Primitive& primitive, const std::string& who,
                    Scene& scene) {
    int position = drawable_positions(primitive, who, scene);
    if (position == -1)
        return false;
    check_limits(model, primitive, position, who, scene);

    std::vector<float> positions = read_floats(model, position, 3, Attribute::position, who + " POSITION");
    size_t vertex_count = positions.size() / 3;
    for (float value : positions)
        if (!std::isfinite(value))
            fail(who, ": POSITION contains a non-finite value");
    std::vector<float> normals = read_attribute(model, primitive, "NORMAL", 3, Attribute::normal, vertex_count, who);
    std::vector<float> uvs = read_attribute(model, primitive, "TEXCOORD_0", 2, Attribute::texcoord, vertex_count, who);
    std::vector<float> uvs1 = read_attribute(model, primitive, "TEXCOORD_1", 2, Attribute::texcoord, vertex_count, who);
    std::vector<float> tangents = read_tangents(model, primitive, vertex_count, who, scene);
    std::vector<uint32_t> triangles =
        to_triangle_list(primitive_indices(model, primitive, vertex_count, who), primitive.mode);
    if (triangles.empty())
        return false;

    // Quantized normals (KHR_mesh_quantization) are a rounding away from unit length.
    bool quantized_normals = !normals.empty() && accessor_at(model, primitive.attributes.at("NORMAL"), who).componentType !=
                                                     TINYGLTF_COMPONENT_TYPE_FLOAT;
    size_t base = scene.vertices.size();
    scene.vertices.resize(base + vertex_count);  // value-initialised: missing UVs are zero
    scene.vertex_materials.resize(base + vertex_count);  // no tangent (w = 0), TEXCOORD_1 zero
    Vertex* vertices = scene.vertices.data() + base;
    VertexMaterial* extras = scene.vertex_materials.data() + base;
    for (size_t v = 0; v < vertex_count; ++v) {
        vertices[v].position = {positions[v * 3], positions[v * 3 + 1], positions[v * 3 + 2]};
        if (!normals.empty()) {
            glm::vec3 n(normals[v * 3], normals[v * 3 + 1], normals[v * 3 + 2]);
            float length = glm::length(n);
            vertices[v].normal = quantized_normals && length > 0.0f ? n / length : n;
        }
        // Texture transforms are the material's, per slot, applied in the shader.
        if (!uvs.empty())
            vertices[v].uv = {uvs[v * 2], uvs[v * 2 + 1]};
        if (!uvs1.empty())
            extras[v].uv1 = {uvs1[v * 2], uvs1[v * 2 + 1]};
        if (!tangents.empty()) {
            glm::vec3 t(tangents[v * 4], tangents[v * 4 + 1], tangents[v * 4 + 2]);
            float length = glm::length(t);
            // w is +-1 in a valid file; a zero-length tangent leaves the derivative frame (w = 0).
            if (length > 0.0f)
                extras[v].tangent = glm::vec4(t / length, tangents[v * 4 + 3] < 0.0f ? -1.0f : 1.0f);
        }
    }
    if (normals.empty())
        compute_normals(vertices, vertex_count, triangles);

    scene.meshes.push_back({uint32_t(scene.indices.size()), uint32_t(triangles.size()), 0});
    for (uint32_t index : triangles)
        scene.indices.push_back(uint32_t(base) + index);
    return true;
}

// Scene meshes for every glTF mesh: result[m] lists the Scene::meshes of glTF mesh m.
std::vector<std::vector<uint32_t>> load_meshes(const Model& model, Scene& scene) {
    std::vector<std::vector<uint32_t>> result(model.meshes.size());
    for (size_t m = 0; m < model.meshes.size(); ++m) {
        const auto& primitives = model.meshes[m].primitives;
        for (size_t p = 0; p < primitives.size(); ++p) {
            std::string who = "mesh " + std::to_string(m) + " primitive " + std::to_string(p);
            int material = primitives[p].material;
            if (material < -1 || material >= int(model.materials.size()))
                fail(who, ": material ", material, " out of range (", model.materials.size(), " materials)");
            if (!load_primitive(model, primitives[p], who, scene))
                continue;
            scene.meshes.back().material = uint32_t(material + 1);  // Scene material 0 is the default
            result[m].push_back(uint32_t(scene.meshes.size() - 1));
        }
    }
    return result;
}

// ---- Materials and textures ---------------------------------------------------------------------

// stb_image grew its IDAT buffer to each chunk's declared length before reading the chunk, so a
// 100-byte PNG declaring a 256 MiB chunk cost a 256 MiB allocation (found by fuzz-scene as a
// timeout under ASan). libpng reads chunk by chunk within its own limits, but the check is cheap
// and names the bad chunk: every chunk must fit in the bytes there are; returns what is wrong.
std::string png_layout_problem(const uint8_t* data, uint64_t size) {
    static const uint8_t kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (size < 8 || memcmp(data, kSignature, 8) != 0)
        return {};  // not a PNG: the decoder decides
    for (uint64_t at = 8; at < size;) {
        if (size - at < 12)
            return "incomplete chunk header at byte " + std::to_string(at);
        const uint8_t* p = data + at;
        uint64_t length = uint64_t(p[0]) << 24 | uint64_t(p[1]) << 16 | uint64_t(p[2]) << 8 | p[3];
        if (length > size - at - 12)
            return "chunk at byte " + std::to_string(at) + " declares " + std::to_string(length) +
                   " bytes, past the end (" + std::to_string(size) + ")";
        at += 12 + length;
        if (memcmp(p + 4, "IEND", 4) == 0)
            break;
    }
    return {};
}

// Decodes image `index` to RGBA8; any problem is a warning and yields no texture. PNG goes to
// libpng, JPEG to libjpeg-turbo (image_decode.cpp); stb_image never sees a scene's bytes.
bool decode_image(const Model& model, int index, Texture& texture, std::vector<std::string>& warnings) {
    const tinygltf::Image& image = model.images[index];
    std::string who = "image " + std::to_string(index) + (image.uri.empty() ? "" : " (" + image.uri + ")");
    Bytes encoded{image.image.data(), image.image.size()};
    if (image.bufferView != -1) {
        try {
            encoded = view_bytes(model, image.bufferView, who);
        } catch (const SceneError& e) {
            warnings.push_back(std::string(e.what()) + "; texture ignored");
            return false;
        }
    }
    if (encoded.size == 0 || encoded.size > INT32_MAX) {
        warnings.push_back(who + ": missing or unreadable; texture ignored");
        return false;
    }
    if (std::string problem = png_layout_problem(encoded.data, encoded.size); !problem.empty()) {
        warnings.push_back(who + ": corrupt PNG (" + problem + "); texture ignored");
        return false;
    }
    DecodedImage decoded;
    if (std::string problem = decode_image_rgba8(encoded.data, encoded.size, kMaxTexturePixels, decoded);
        !problem.empty()) {
        if (problem.ends_with(" is too large"))  // refused from its header, before decoding
            warnings.push_back(who + ": " + problem + "; texture ignored");
        else
            warnings.push_back(who + ": cannot decode (" + problem + "); texture ignored");
        return false;
    }
    texture.width = decoded.width;
    texture.height = decoded.height;
    texture.rgba = std::move(decoded.rgba);
    return true;
}

// Scene texture index for glTF image `source` as colour (sRGB) or data (linear), or -1; decodes each
// image once per colour space (an image both slots use is two textures: they filter differently).
int image_texture(const Model& model, int source, bool srgb, std::map<int, int>& image_textures, Scene& scene) {
    int key = source * 2 + (srgb ? 1 : 0);
    if (auto it = image_textures.find(key); it != image_textures.end())
        return it->second;
    Texture texture;
    int result = -1;
    if (decode_image(model, source, texture, scene.warnings)) {
        texture.srgb = srgb;
        result = int(scene.textures.size());
        scene.textures.push_back(std::move(texture));
    }
    image_textures[key] = result;  // remember failures too, so each warns once
    return result;
}

// Scene texture index for glTF texture `index`, or -1.
int load_texture(const Model& model, int index, bool srgb, const std::string& who, std::map<int, int>& image_textures,
                 Scene& scene) {
    if (index < 0 || size_t(index) >= model.textures.size()) {
        scene.warnings.push_back(who + ": texture " + std::to_string(index) + " out of range; texture ignored");
        return -1;
    }
    const tinygltf::Texture& gltf_texture = model.textures[index];
    int source = gltf_texture.source;
    auto usable = [&](int image) { return image >= 0 && size_t(image) < model.images.size(); };
    // EXT_texture_webp names its image in the extension; `source`, if any, is the fallback for
    // loaders without WebP, used here when the WebP image does not decode.
    if (const tinygltf::Value* webp = extension(gltf_texture.extensions, "EXT_texture_webp");
        webp && webp->Has("source") && webp->Get("source").IsInt() && usable(webp->Get("source").GetNumberAsInt())) {
        int result = image_texture(model, webp->Get("source").GetNumberAsInt(), srgb, image_textures, scene);
        if (result != -1 || !usable(source))
            return result;
    } else if (source == -1 && extension(gltf_texture.extensions, "KHR_texture_basisu")) {
        scene.warnings.push_back(who + ": texture " + std::to_string(index) +
                                 " is KTX2 (KHR_texture_basisu), which cannot be decoded here; texture ignored");
        return -1;
    }
    if (!usable(source)) {
        scene.warnings.push_back(who + ": texture " + std::to_string(index) + " has no usable image; texture ignored");
        return -1;
    }
    return image_texture(model, source, srgb, image_textures, scene);
}

// A texture slot: the scene texture (or -1), its texCoord set and KHR_texture_transform. texCoord
// 0 and 1 are read; any other set is drawn with TEXCOORD_0 (a warning).
int load_slot(const Model& model, int index, int texcoord, const tinygltf::ExtensionMap& extensions, bool srgb,
              const std::string& slot, const std::string& who, std::map<int, int>& image_textures, Scene& scene,
              TextureUv& uv) {
    if (index == -1)
        return -1;
    uv.map = uv_transform(extensions);
    uv.texcoord = texcoord == 1 ? 1 : 0;
    if (texcoord != 0 && texcoord != 1)
        scene.warnings.push_back(who + ": " + slot + " texture is drawn with TEXCOORD_0, not TEXCOORD_" +
                                 std::to_string(texcoord));
    // KHR_texture_transform's own texCoord overrides the texture info's.
    if (const tinygltf::Value* transform = extension(extensions, "KHR_texture_transform");
        transform && transform->Has("texCoord") && transform->Get("texCoord").IsInt())
        uv.texcoord = transform->Get("texCoord").GetNumberAsInt() == 1 ? 1 : 0;
    return load_texture(model, index, srgb, who, image_textures, scene);
}

void load_materials(const Model& model, Scene& scene) {
    scene.materials.push_back(Material{});  // the default: white, untextured
    std::map<int, int> image_textures;
    auto finite_or = [](double v, float fallback) { return std::isfinite(v) ? float(v) : fallback; };
    for (size_t m = 0; m < model.materials.size(); ++m) {
        std::string who = "material " + std::to_string(m);
        const tinygltf::Material& gm = model.materials[m];
        const tinygltf::PbrMetallicRoughness& pbr = gm.pbrMetallicRoughness;
        Material material;
        if (pbr.baseColorFactor.size() == 4)
            material.base_color_factor = glm::vec4(pbr.baseColorFactor[0], pbr.baseColorFactor[1],
                                                   pbr.baseColorFactor[2], pbr.baseColorFactor[3]);
        else
            scene.warnings.push_back(who + ": baseColorFactor must have 4 numbers; using white");
        auto slot = [&](const auto& info, bool srgb, const char* name, MaterialSlot s) {
            return load_slot(model, info.index, info.texCoord, info.extensions, srgb, name, who, image_textures, scene,
                             material.uv[s]);
        };
        material.base_color_texture = slot(pbr.baseColorTexture, true, "base colour", kSlotBaseColor);
        material.metallic_roughness_texture = slot(pbr.metallicRoughnessTexture, false, "metallic-roughness", kSlotMetallicRoughness);
        material.normal_texture = slot(gm.normalTexture, false, "normal", kSlotNormal);
        material.normal_scale = finite_or(gm.normalTexture.scale, 1.0f);
        material.occlusion_texture = slot(gm.occlusionTexture, false, "occlusion", kSlotOcclusion);
        material.occlusion_strength = std::clamp(finite_or(gm.occlusionTexture.strength, 1.0f), 0.0f, 1.0f);
        if (gm.emissiveFactor.size() == 3) {
            for (int c = 0; c < 3; ++c) {
                double v = gm.emissiveFactor[c];
                material.emissive[c] = std::isfinite(v) ? std::clamp(float(v), 0.0f, 1.0f) : 0.0f;
            }
        } else if (!gm.emissiveFactor.empty()) {
            scene.warnings.push_back(who + ": emissiveFactor must have 3 numbers; no emission");
        }
        if (const tinygltf::Value* strength = extension(gm.extensions, "KHR_materials_emissive_strength"))
            material.emissive *= float(std::max(0.0, number(*strength, "emissiveStrength", 1.0)));
        material.emissive_texture = slot(gm.emissiveTexture, true, "emissive", kSlotEmissive);
        auto unit = [](double v) { return std::isfinite(v) ? std::clamp(float(v), 0.0f, 1.0f) : 1.0f; };
        material.metallic = unit(pbr.metallicFactor);
        material.roughness = unit(pbr.roughnessFactor);
        if (gm.alphaMode == "MASK") {
            // A cutoff of 0 would keep every texel; the smallest positive float keeps "is a mask".
            material.alpha_cutoff = std::isfinite(gm.alphaCutoff) ? std::clamp(float(gm.alphaCutoff), 1e-6f, 1.0f) : 0.5f;
            // The alpha test (depth pre-pass, rasterizers, any-hit) reads TEXCOORD_0 only.
            if (material.base_color_texture >= 0 && material.uv[kSlotBaseColor].texcoord == 1)
                scene.warnings.push_back(who + ": alpha-masked base colour on TEXCOORD_1: holes are cut with TEXCOORD_0");
        } else if (gm.alphaMode != "OPAQUE" && gm.alphaMode != "BLEND") {
            scene.warnings.push_back(who + ": unknown alphaMode '" + gm.alphaMode + "'; drawn opaque");
        }
        scene.materials.push_back(material);
    }
}

// ---- Nodes --------------------------------------------------------------------------------------

glm::mat4 node_transform(const tinygltf::Node& node, size_t index) {
    std::string who = "node " + std::to_string(index);
    if (!node.matrix.empty()) {
        if (node.matrix.size() != 16)
            fail(who, ": matrix must have 16 numbers");
        glm::mat4 m;
        for (int i = 0; i < 16; ++i)
            m[i / 4][i % 4] = float(node.matrix[i]);  // glTF matrices are column-major, like glm
        return m;
    }
    if ((!node.translation.empty() && node.translation.size() != 3) ||
        (!node.rotation.empty() && node.rotation.size() != 4) || (!node.scale.empty() && node.scale.size() != 3))
        fail(who, ": translation/rotation/scale have the wrong number of components");
    glm::mat4 m(1.0f);
    if (!node.translation.empty())
        m = glm::translate(m, glm::vec3(node.translation[0], node.translation[1], node.translation[2]));
    if (!node.rotation.empty()) {
        glm::quat q(float(node.rotation[3]), float(node.rotation[0]), float(node.rotation[1]), float(node.rotation[2]));
        float length = glm::length(q);
        if (length > 0.0f && std::isfinite(length))
            m *= glm::mat4_cast(q / length);  // exporters round; an unnormalised quaternion would shear
    }
    if (!node.scale.empty())
        m = glm::scale(m, glm::vec3(node.scale[0], node.scale[1], node.scale[2]));
    return m;
}

// Index checks up front, so traversal only has to watch for cycles and depth.
void check_nodes(const Model& model) {
    for (size_t n = 0; n < model.nodes.size(); ++n) {
        const tinygltf::Node& node = model.nodes[n];
        if (node.mesh < -1 || node.mesh >= int(model.meshes.size()))
            fail("node ", n, ": mesh ", node.mesh, " out of range (", model.meshes.size(), " meshes)");
        for (int child : node.children)
            if (child < 0 || size_t(child) >= model.nodes.size())
                fail("node ", n, ": child ", child, " out of range (", model.nodes.size(), " nodes)");
    }
}

struct NodeWalk {
    const Model& model;
    const std::vector<std::vector<uint32_t>>& mesh_primitives;
    Scene& scene;
    std::vector<uint8_t> on_path;  // nodes between the root and the current one

    void visit(int index, const glm::mat4& parent, int depth) {
        if (depth > kMaxNodeDepth)
            fail("node hierarchy is deeper than ", kMaxNodeDepth, " levels");
        if (on_path[index])
            fail("node graph has a cycle through node ", index);
        on_path[index] = 1;
        const tinygltf::Node& node = model.nodes[index];
        glm::mat4 world = parent * node_transform(node, size_t(index));
        if (node.mesh != -1)
            for (uint32_t mesh : mesh_primitives[node.mesh]) {
                if (scene.instances.size() >= kMaxInstances)
                    fail("scene has more than ", kMaxInstances, " mesh instances");
                scene.instances.push_back({mesh, world});
            }
        for (int child : node.children)
            visit(child, world, depth + 1);
        on_path[index] = 0;
    }
};

// The default scene's nodes, or every node that is nobody's child when there is no default.
std::vector<int> root_nodes(const Model& model) {
    if (model.defaultScene != -1) {
        if (model.defaultScene < 0 || size_t(model.defaultScene) >= model.scenes.size())
            fail("default scene ", model.defaultScene, " out of range (", model.scenes.size(), " scenes)");
        const std::vector<int>& nodes = model.scenes[model.defaultScene].nodes;
        for (int node : nodes)
            if (node < 0 || size_t(node) >= model.nodes.size())
                fail("scene ", model.defaultScene, ": node ", node, " out of range (", model.nodes.size(), " nodes)");
        return nodes;
    }
    std::vector<uint8_t> is_child(model.nodes.size(), 0);
    for (const tinygltf::Node& node : model.nodes)
        for (int child : node.children)
            is_child[child] = 1;
    std::vector<int> roots;
    for (size_t n = 0; n < model.nodes.size(); ++n)
        if (!is_child[n])
            roots.push_back(int(n));
    // Every node having a parent is only possible if the parent links form a cycle.
    if (roots.empty() && !model.nodes.empty())
        fail("node graph has a cycle: no node is a root");
    return roots;
}

void place_instances(const Model& model, const std::vector<std::vector<uint32_t>>& mesh_primitives, Scene& scene) {
    check_nodes(model);
    NodeWalk walk{model, mesh_primitives, scene, std::vector<uint8_t>(model.nodes.size(), 0)};
    for (int root : root_nodes(model))
        walk.visit(root, glm::mat4(1.0f), 0);
}

Scene build_scene(const Model& model, std::vector<std::string> warnings) {
    Scene scene;
    scene.warnings = std::move(warnings);
    load_materials(model, scene);
    std::vector<std::vector<uint32_t>> mesh_primitives = load_meshes(model, scene);
    place_instances(model, mesh_primitives, scene);
    update_bounds(scene);
    auto finite = [](glm::vec3 v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); };
    if (!finite(scene.bounds_min) || !finite(scene.bounds_max))
        fail("scene bounds are not finite (extreme node transforms)");
    return scene;
}

std::string lowercase_extension(const std::string& path) {
    std::string extension = std::filesystem::path(path).extension().string();
    std::transform(extension.begin(), extension.end(), extension.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    return extension;
}

}  // namespace

Scene load_scene_from_memory(const uint8_t* data, size_t size, const std::string& base_dir, bool binary) {
    if (size > kMaxFileBytes)
        fail("glTF data is larger than 2 GiB");
    if (!data && size > 0)
        fail("no glTF data");
    try {
        std::vector<std::string> warnings;
        Patches patches;
        Model model = parse_gltf(data, size, base_dir, binary, warnings, patches);
        decode_extensions(model, patches);
        Scene scene = build_scene(model, std::move(warnings));
        for (std::string& warning : scene.warnings)
            warning = printable(warning);
        return scene;
    } catch (const SceneError&) {
        throw;
    } catch (const std::bad_alloc&) {
        fail("out of memory while loading glTF");
    } catch (const std::exception& e) {
        fail("glTF loading failed: ", e.what());  // e.g. a JSON type error from inside tinygltf
    }
}

Scene load_scene(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        fail("scene file not found: ", path);
    std::string extension = lowercase_extension(path);
    if (extension != ".gltf" && extension != ".glb")
        fail("unsupported scene file type '", extension, "' (expected .gltf or .glb): ", path);

    std::vector<uint8_t> bytes;
    std::string error;
    if (!read_file(path, bytes, error))
        fail("cannot read scene file ", path, ": ", error);
    std::string base_dir = std::filesystem::path(path).parent_path().string();
    if (base_dir.empty())
        base_dir = ".";
    try {
        Scene scene = load_scene_from_memory(bytes.data(), bytes.size(), base_dir, extension == ".glb");
        scene.path = path;
        return scene;
    } catch (const SceneError& e) {
        fail(path, ": ", e.what());
    }
}
