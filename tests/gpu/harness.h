// Helpers for tests that run the real executable, the way a user or script does.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

struct DemoRun {
    int exit_code = -1;
    std::string output;  // stdout and stderr together
};

// Runs build/subgroup-demo with the arguments (shell-quoted here); captures its output. Every test
// process starts with XDG_CACHE_HOME at an empty folder of its own (isolated_cache()); while it is
// there, run_demo adds --no-tuning (auto by capabilities, no first-run measurement). A test that
// points XDG_CACHE_HOME elsewhere gets the real tuning: its file, or the first run's measurement.
DemoRun run_demo(const std::vector<std::string>& args);
std::string isolated_cache();
// The last line of a run's output (trailing newlines ignored).
std::string last_line(const std::string& output);
// The run of `args` exits `code`, and the last line of its output is the one-line error the
// contract promises ("error: ..."), holding `needle`.
void expect_exit(const std::vector<std::string>& args, int code, const std::string& needle);

// A dense closed mesh the build generates (tools/gen_scene.cpp --test-scenes: a torus knot of 4000
// triangles).
inline const std::string kKnot = SGD_TEST_SCENES "/knot.gltf";

// Why lavapipe cannot draw in this process, or "" when it can (or when it is not known not to).
// At LP_NATIVE_VECTOR_WIDTH=512 (subgroup size 16) Mesa 22.3 / LLVM 15 crashes compiling any
// graphics pipeline, even vkcube's; a one-frame probe render finds out. Every test that draws
// starts with REQUIRE_DRAWING(): there it is skipped (GTEST_SKIP, which ctest counts as a skip)
// with the reason; everywhere else it runs, and a crash later in the test is a failure.
std::string lavapipe_cannot_draw_reason();
#define REQUIRE_DRAWING()                                                            \
    if (const std::string why_not_ = lavapipe_cannot_draw_reason(); !why_not_.empty()) \
    GTEST_SKIP() << why_not_

// Tests of the compute rasterizer: skipped (with the reason) on a device without 64-bit buffer atomics.
#define REQUIRE_COMPUTE_RASTER()            \
    if (!test_context().features.int64_atomics) \
    GTEST_SKIP() << "device lacks 64-bit buffer atomics: no compute rasterizer"

// "" where the device draws --geometry meshlet, else why not (the demo's exit-2 message). Asked
// once per process.
std::string no_mesh_shaders_reason();

// A fresh folder under the system temp dir, unique per test, subgroup size and process (so
// parallel ctest runs, even from other checkouts, never share one).
std::string test_dir(const std::string& name);

struct Png {
    int width = 0, height = 0;
    std::vector<uint8_t> rgba;
    const uint8_t* at(int x, int y) const { return &rgba[(size_t(y) * width + x) * 4]; }
};
Png read_png(const std::string& path);

// The blank-frame guard of every image comparison (two blank frames are equal too): the pixels
// whose colour differs from the top-left pixel's, which is the clear colour in every test's
// framing (a corner that is geometry only lowers the count). Each test asks for a minimum.
int lit_pixels(const std::vector<uint8_t>& rgba);  // RGBA8, tightly packed
inline int lit_pixels(const Png& png) { return lit_pixels(png.rgba); }
// The suite's minimum: a tenth of the frame lit.
#define EXPECT_NOT_BLANK(rgba) \
    EXPECT_GE(lit_pixels(rgba), int((rgba).size() / 4 / 10)) << "a blank frame (" #rgba "): an image comparison would pass on it"
// Pixels whose RGB differs between two images of the same size (-1 for different sizes).
int differing_pixels(const Png& a, const Png& b);
// Peak signal-to-noise ratio of two RGBA8 images' RGB (alpha ignored), in dB; infinity where equal.
double rgb_psnr(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b);
nlohmann::json read_json(const std::string& path);
// A file's bytes (empty where it cannot be read): for comparing dumps byte for byte.
std::string file_bytes(const std::string& path);

// The subgroup size lavapipe runs at in this ctest instance (SGD_EXPECT_SUBGROUP, else
// LP_NATIVE_VECTOR_WIDTH / 32); neither set: a test failure and 0.
int expected_subgroup_size();

// Lines of the output that the validation layer printed.
int validation_lines(const std::string& output);
