// libFuzzer target: arbitrary bytes -> Scene, through the same loader `--scene` uses.
//
// Build and run (see docs/robustness.md):
//   cmake --preset fuzz && cmake --build --preset fuzz
//   build-fuzz/fuzz-scene -dict=tools/fuzz_scene.dict -max_total_time=600 build-fuzz/corpus tests/fuzz-corpus
//
// Input starting with the GLB magic "glTF" takes the .glb path, anything else the .gltf (JSON)
// path. External files are forbidden (empty base_dir), so only data: URIs and the GLB's BIN
// chunk are read and a run never touches the file system or Vulkan. The loader must either throw
// a SceneError or return a scene that keeps the invariants the renderer's upload relies on;
// anything else (a crash, a sanitizer report, another exception, a broken invariant) is a finding.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "scene/scene.h"

namespace {

// The image decoders (libjpeg-turbo, libpng, libwebp) are Debian's uninstrumented libraries, so coverage
// stops at their boundary: every failed decode looks the same to libFuzzer, and an input that
// reaches a new error deep in a decoder would be dropped. Each distinct image warning's reason (digits
// left out, so byte counts do not make endless variants) and each decoded texture's format
// therefore sets one of these extra counters, which libFuzzer treats as coverage features.
__attribute__((section("__libfuzzer_extra_counters"))) uint8_t decoder_outcomes[4096];

void count_outcome(const std::string& text) {
    uint32_t hash = 2166136261u;  // FNV-1a
    for (unsigned char c : text) {
        if (c >= '0' && c <= '9') continue;
        hash = (hash ^ c) * 16777619u;
    }
    uint8_t& counter = decoder_outcomes[hash % sizeof(decoder_outcomes)];
    if (counter < 255) ++counter;
}

void count_image_outcomes(const Scene& scene) {
    for (const std::string& warning : scene.warnings)
        if (warning.rfind("image ", 0) == 0) {
            // The reason follows the last ": " ("image 0 (URI): cannot decode (libjpeg: ...)"): not
            // the first ':', which may lie inside a data: URI and would make every URI a feature
            // (run 4's mistake). A warning printable() capped at 400 characters may have none.
            size_t at = warning.rfind(": ");
            count_outcome(at == std::string::npos ? std::string("capped") : warning.substr(at));
        }
    for (const Texture& texture : scene.textures)
        count_outcome("decoded " + std::string(1, char('a' + texture.width % 16)) + char('a' + texture.height % 16));
}

[[noreturn]] void broken(const char* what) {
    fprintf(stderr, "fuzz-scene: invariant broken: %s\n", what);
    abort();
}

// One printable line: no newline, no terminal control sequence, however hostile the file.
bool one_clean_line(const std::string& text) {
    for (unsigned char c : text)
        if (c < 0x20 || c == 0x7f) return false;
    return text.size() <= 1024;
}

bool finite(glm::vec3 v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }

// What build_draws() and upload_scene() index with, without checks of their own.
void check_invariants(const Scene& scene) {
    if (scene.materials.empty()) broken("no default material");
    for (const Vertex& v : scene.vertices)
        if (!finite(v.position)) broken("non-finite vertex position");
    for (uint32_t index : scene.indices)
        if (index >= scene.vertices.size()) broken("index past the vertex array");
    for (const Mesh& mesh : scene.meshes) {
        if (mesh.index_count % 3 != 0) broken("mesh index count not a multiple of 3");
        if (uint64_t(mesh.first_index) + mesh.index_count > scene.indices.size()) broken("mesh past the index array");
        if (mesh.material >= scene.materials.size()) broken("mesh material out of range");
    }
    for (const MeshInstance& instance : scene.instances)
        if (instance.mesh >= scene.meshes.size()) broken("instance mesh out of range");
    for (const Material& material : scene.materials)
        for (int texture : {material.base_color_texture, material.metallic_roughness_texture, material.normal_texture,
                            material.occlusion_texture, material.emissive_texture})
            if (texture < -1 || texture >= int(scene.textures.size())) broken("material texture out of range");
    if (!scene.vertex_materials.empty() && scene.vertex_materials.size() != scene.vertices.size())
        broken("vertex material stream not one per vertex");
    for (const Texture& texture : scene.textures)
        if (texture.width <= 0 || texture.height <= 0 ||
            texture.rgba.size() != size_t(texture.width) * size_t(texture.height) * 4)
            broken("texture size does not match its pixels");
    if (!finite(scene.bounds_min) || !finite(scene.bounds_max)) broken("non-finite bounds");
    if (!scene.instances.empty() &&
        (scene.bounds_min.x > scene.bounds_max.x || scene.bounds_min.y > scene.bounds_max.y ||
         scene.bounds_min.z > scene.bounds_max.z))
        broken("inverted bounds");
    for (const std::string& warning : scene.warnings)
        if (!one_clean_line(warning)) broken("warning with control characters or too long");
    (void)scene.triangle_count();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    bool binary = size >= 4 && memcmp(data, "glTF", 4) == 0;
    try {
        Scene scene = load_scene_from_memory(data, size, "", binary);
        check_invariants(scene);
        count_image_outcomes(scene);
        // --instances 2: the grid copy must keep the bounds finite or refuse cleanly.
        replicate_grid(scene, 2);
        check_invariants(scene);
    } catch (const SceneError& e) {
        if (!one_clean_line(e.what())) broken("error message with control characters or too long");
        // meshoptimizer and libdraco are uninstrumented too: their distinct refusals are features.
        std::string message = e.what();
        if (message.find("(EXT_meshopt_compression)") != std::string::npos || message.find("(Draco)") != std::string::npos)
            count_outcome(message.substr(message.rfind(": ")));
    }
    return 0;
}
