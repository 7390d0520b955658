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

// With a shader cache of its own, lavapipe at LP_NATIVE_VECTOR_WIDTH=512 (subgroup size 16) crashes
// in LLVM 15 while compiling graphics shaders for a draw (even the overlay's) on this machine's
// CPUs: no frame can be drawn at that width. Tests that draw skip that run with this note; any
// other failure, at any width, fails.
bool lavapipe_512_crash(const DemoRun& run);
#define SKIP_IF_LAVAPIPE_512_CRASH(run)                                                                   \
    if (lavapipe_512_crash(run))                                                                          \
    GTEST_SKIP() << "lavapipe at LP_NATIVE_VECTOR_WIDTH=512 crashed (exit " << (run).exit_code             \
                 << "): Mesa 22.3 / LLVM 15 cannot compile graphics shaders 16 lanes wide here; see "     \
                    "docs/testing.md"

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

// The subgroup size lavapipe runs at in this ctest instance (from SGD_EXPECT_SUBGROUP), or 0.
int expected_subgroup_size();

// Lines of the output that the validation layer printed.
int validation_lines(const std::string& output);
