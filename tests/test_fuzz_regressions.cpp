// Inputs the fuzzer (tools/fuzz_scene.cpp) found, kept in tests/data/fuzz-regressions/, and its
// seed corpus (tests/fuzz-corpus/) with the counts each seed was written to have.
#include "scene/scene.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>

namespace fs = std::filesystem;

namespace {

fs::path source_dir() { return fs::path(SGD_TEST_DATA).parent_path().parent_path(); }

std::vector<uint8_t> read_bytes(const fs::path& path) {
    std::ifstream file(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

// What the fuzzer checks: either a SceneError or a scene, every message one printable line.
bool one_clean_line(const std::string& text) {
    for (unsigned char c : text)
        if (c < 0x20 || c == 0x7f) return false;
    return text.size() <= 1024;
}

struct Outcome {
    bool loaded = false;
    std::string error;
    Scene scene;
};

Outcome load_like_the_fuzzer(const fs::path& path) {
    std::vector<uint8_t> bytes = read_bytes(path);
    bool binary = bytes.size() >= 4 && std::equal(bytes.begin(), bytes.begin() + 4, "glTF");
    Outcome outcome;
    try {
        outcome.scene = load_scene_from_memory(bytes.data(), bytes.size(), "", binary);
        outcome.loaded = true;
    } catch (const SceneError& e) {
        outcome.error = e.what();
    }
    return outcome;
}

bool has_warning(const Scene& scene, const std::string& fragment) {
    for (const std::string& w : scene.warnings)
        if (w.find(fragment) != std::string::npos) return true;
    return false;
}

}  // namespace

TEST(FuzzRegressions, EveryKeptInputEndsCleanly) {
    int files = 0;
    for (const auto& entry : fs::directory_iterator(fs::path(SGD_TEST_DATA) / "fuzz-regressions")) {
        SCOPED_TRACE(entry.path().string());
        Outcome outcome = load_like_the_fuzzer(entry.path());
        EXPECT_TRUE(one_clean_line(outcome.error)) << outcome.error;
        for (const std::string& w : outcome.scene.warnings) EXPECT_TRUE(one_clean_line(w)) << w;
        ++files;
    }
    EXPECT_GE(files, 1);
}

// stb_image names an unknown PNG chunk by its four raw bytes; here they include a newline, which
// used to split the warning (and could carry terminal escape sequences). Found by fuzz-scene; its
// input now stops earlier (its chunk runs past the end, the check below), so the same chunk name
// is also kept in a well-formed PNG that reaches stb_image's message.
TEST(FuzzRegressions, PngChunkNameWithNewlineStaysOneLine) {
    Outcome found = load_like_the_fuzzer(fs::path(SGD_TEST_DATA) / "fuzz-regressions/png-chunk-name-with-newline.gltf");
    ASSERT_TRUE(found.loaded) << found.error;
    EXPECT_TRUE(has_warning(found.scene, "image 0: corrupt PNG (chunk at byte 62 declares"));
    EXPECT_TRUE(has_warning(found.scene, "'attributes' property is missing"));  // another mutation
    EXPECT_EQ(found.scene.triangle_count(), 0u);

    Outcome crafted =
        load_like_the_fuzzer(fs::path(SGD_TEST_DATA) / "fuzz-regressions/png-unknown-chunk-named-with-a-newline.gltf");
    ASSERT_TRUE(crafted.loaded) << crafted.error;
    EXPECT_TRUE(has_warning(crafted.scene, "image 0: cannot decode (\\x04\\x10A\\x0a PNG chunk not known); texture ignored"));
    for (const std::string& w : crafted.scene.warnings) EXPECT_TRUE(one_clean_line(w)) << w;
    EXPECT_TRUE(crafted.scene.textures.empty());
    EXPECT_EQ(crafted.scene.triangle_count(), 1u);
}

// Coordinates up to +-3e38 are legal, but --instances copies spaced by the scene's extent would
// sit at infinity (NaN transforms, a NaN camera). Found by reading the fuzzer's grid invariant;
// the seed huge_extent.gltf now lets the fuzzer reach it.
TEST(FuzzRegressions, GridCopiesBeyondTheFloatRangeAreRefused) {
    Outcome outcome = load_like_the_fuzzer(source_dir() / "tests/fuzz-corpus/huge_extent.gltf");
    ASSERT_TRUE(outcome.loaded) << outcome.error;
    EXPECT_FLOAT_EQ(outcome.scene.bounds_max.x, 3e38f);
    Scene copy = outcome.scene;
    try {
        replicate_grid(copy, 2);
        ADD_FAILURE() << "copies at infinity were accepted";
    } catch (const SceneError& e) {
        EXPECT_NE(std::string(e.what()).find("beyond the float range"), std::string::npos) << e.what();
    }
    // A scene of ordinary size still replicates, with finite bounds.
    Outcome small = load_like_the_fuzzer(source_dir() / "tests/fuzz-corpus/triangle.gltf");
    ASSERT_TRUE(small.loaded);
    replicate_grid(small.scene, 64);
    EXPECT_TRUE(std::isfinite(small.scene.bounds_max.x) && std::isfinite(small.scene.bounds_min.z));
    EXPECT_EQ(small.scene.instances.size(), 64u * 64u);
}

// A GLB whose PNG (77 bytes) declares a 1.97 GB chunk: stb_image reserved the declared size before
// reading, a 2 GB allocation per texture from a 816-byte file. Found by fuzz-scene (a timeout).
TEST(FuzzRegressions, PngChunkPastTheEndIsRefusedBeforeDecoding) {
    Outcome outcome = load_like_the_fuzzer(fs::path(SGD_TEST_DATA) / "fuzz-regressions/png-chunk-length-past-the-end.glb");
    ASSERT_TRUE(outcome.loaded) << outcome.error;
    EXPECT_TRUE(has_warning(outcome.scene,
                            "image 0: corrupt PNG (chunk at byte 33 declares 1970172946 bytes, past the end (75)); "
                            "texture ignored"));
    EXPECT_TRUE(outcome.scene.textures.empty());
    EXPECT_EQ(outcome.scene.triangle_count(), 1u);
    // The intact seed it was mutated from still decodes its texture.
    Outcome intact = load_like_the_fuzzer(source_dir() / "tests/fuzz-corpus/textured.glb");
    ASSERT_TRUE(intact.loaded) << intact.error;
    ASSERT_EQ(intact.scene.textures.size(), 1u);
    EXPECT_EQ(intact.scene.textures[0].width, 2);
}

TEST(FuzzCorpus, SeedsLoadWithTheCountsTheyWereWrittenWith) {
    struct Expected {
        uint64_t triangles;
        size_t textures;
    };
    const std::map<std::string, Expected> valid = {
        {"triangle.gltf", {1, 0}},   {"triangle.glb", {1, 0}},  {"strip_fan_attributes.gltf", {4, 0}},
        {"interleaved.gltf", {1, 0}}, {"sparse.gltf", {1, 0}},  {"nodes.gltf", {3, 0}},
        {"textured.gltf", {1, 1}},   {"textured.glb", {1, 1}},  {"broken_textures.gltf", {1, 0}},
        {"huge_extent.gltf", {1, 0}},
    };
    int seeds = 0;
    for (const auto& entry : fs::directory_iterator(source_dir() / "tests/fuzz-corpus")) {
        std::string name = entry.path().filename().string();
        SCOPED_TRACE(name);
        Outcome outcome = load_like_the_fuzzer(entry.path());
        ++seeds;
        auto it = valid.find(name);
        if (it == valid.end()) {
            EXPECT_FALSE(outcome.loaded) << "a broken seed loaded";
            EXPECT_FALSE(outcome.error.empty());
            continue;
        }
        ASSERT_TRUE(outcome.loaded) << outcome.error;
        EXPECT_EQ(outcome.scene.triangle_count(), it->second.triangles);
        EXPECT_EQ(outcome.scene.textures.size(), it->second.textures);
    }
    EXPECT_EQ(seeds, 15);
}
