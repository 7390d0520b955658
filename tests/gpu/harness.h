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

// Runs build/subgroup-demo with the arguments (shell-quoted here); captures its output.
DemoRun run_demo(const std::vector<std::string>& args);

// Why lavapipe cannot draw in this process, or "" when it can (or when it is not known not to).
// At LP_NATIVE_VECTOR_WIDTH=512 (subgroup size 16) Mesa 22.3 / LLVM 15 crashes compiling any
// graphics pipeline, even vkcube's; a one-frame probe render finds out. Every test that draws
// starts with REQUIRE_DRAWING(): there it is skipped (GTEST_SKIP, which ctest counts as a skip)
// with the reason; everywhere else it runs, and a crash later in the test is a failure.
std::string lavapipe_cannot_draw_reason();
#define REQUIRE_DRAWING()                                                            \
    if (const std::string why_not_ = lavapipe_cannot_draw_reason(); !why_not_.empty()) \
    GTEST_SKIP() << why_not_

// A fresh folder under the system temp dir, unique per test, subgroup size and process (so
// parallel ctest runs, even from other checkouts, never share one).
std::string test_dir(const std::string& name);

struct Png {
    int width = 0, height = 0;
    std::vector<uint8_t> rgba;
    const uint8_t* at(int x, int y) const { return &rgba[(size_t(y) * width + x) * 4]; }
};
Png read_png(const std::string& path);
nlohmann::json read_json(const std::string& path);
// A file's bytes (empty where it cannot be read): for comparing dumps byte for byte.
std::string file_bytes(const std::string& path);

// The subgroup size lavapipe runs at in this ctest instance (from SGD_EXPECT_SUBGROUP), or 0.
int expected_subgroup_size();

// Lines of the output that the validation layer printed.
int validation_lines(const std::string& output);
