// What the scene tests share: base64 for the data: URIs of the glTF files they write, the check
// that a load fails with one clear line, reading a file's bytes and finding a warning; and for the
// GPU tests that build their scenes by hand, a mesh of one plain material and the camera above it.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include "scene/camera.h"
#include "scene/scene.h"

inline std::string base64(const std::vector<uint8_t>& bytes) {
    static const char* table = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    for (size_t i = 0; i < bytes.size(); i += 3) {
        uint32_t n = uint32_t(bytes[i]) << 16;
        if (i + 1 < bytes.size()) n |= uint32_t(bytes[i + 1]) << 8;
        if (i + 2 < bytes.size()) n |= bytes[i + 2];
        out += table[(n >> 18) & 63];
        out += table[(n >> 12) & 63];
        out += i + 1 < bytes.size() ? table[(n >> 6) & 63] : '=';
        out += i + 2 < bytes.size() ? table[n & 63] : '=';
    }
    return out;
}

// `load` must throw a one-line SceneError whose message contains `fragment`.
inline void expect_error(const std::function<void()>& load, const std::string& fragment) {
    try {
        load();
        ADD_FAILURE() << "no SceneError; expected one mentioning '" << fragment << "'";
    } catch (const SceneError& e) {
        std::string message = e.what();
        EXPECT_NE(message.find(fragment), std::string::npos) << "message: " << message;
        EXPECT_EQ(message.find('\n'), std::string::npos) << "message: " << message;
    }
}

inline std::vector<uint8_t> read_bytes(const std::filesystem::path& path) {
    std::ifstream file(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

inline bool has_warning(const Scene& scene, const std::string& fragment) {
    for (const std::string& warning : scene.warnings)
        if (warning.find(fragment) != std::string::npos) return true;
    return false;
}

// `indices` (into scene.vertices) as a mesh of its own with a plain, non-metallic material of
// `colour` (alpha_cutoff > 0: alphaMode MASK), and one instance of it at the origin.
inline void add_mesh(Scene& scene, const std::vector<uint32_t>& indices, glm::vec4 colour, float alpha_cutoff = 0.0f) {
    Material material;
    material.base_color_factor = colour;
    material.metallic = 0.0f;
    material.alpha_cutoff = alpha_cutoff;
    scene.materials.push_back(material);
    Mesh mesh;
    mesh.first_index = uint32_t(scene.indices.size());
    mesh.index_count = uint32_t(indices.size());
    mesh.material = uint32_t(scene.materials.size() - 1);
    scene.indices.insert(scene.indices.end(), indices.begin(), indices.end());
    scene.meshes.push_back(mesh);
    scene.instances.push_back({uint32_t(scene.meshes.size() - 1), glm::mat4(1.0f)});
}

// The ground plane of the generated material scenes seen from above, a little tilted (lookAt's up
// is +y).
inline Camera above_camera() {
    Camera camera;
    camera.position = {0.0f, 12.0f, 4.0f};
    camera.target = {0.0f, 0.0f, 0.0f};
    camera.far_plane = 100.0f;
    return camera;
}
