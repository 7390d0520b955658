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

// The subgroup size lavapipe runs at in this ctest instance (SGD_EXPECT_SUBGROUP, else
// LP_NATIVE_VECTOR_WIDTH / 32), or 0.
int expected_subgroup_size();

// Lines of the output that the validation layer printed.
int validation_lines(const std::string& output);
