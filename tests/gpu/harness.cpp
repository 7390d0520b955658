#include "gpu/harness.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <gtest/gtest.h>
#include <stb/stb_image.h>

namespace {

// The probe render's exit code, run once per suite and demo build: the first test process at 512
// bits runs it and leaves the code in the suite's shader-cache folder (tests/shared_shader_cache.cpp),
// keyed by the demo's modification time, so a rebuilt demo is probed again. Each probe costs
// seconds (LLVM compiles until it crashes), and a hundred drawing tests ask.
int draw_probe_exit_code() {
    namespace fs = std::filesystem;
    std::error_code error;
    auto built = fs::last_write_time(SGD_DEMO, error).time_since_epoch().count();
    fs::path record = fs::path(SGD_TEST_SHADER_CACHE) / "draw-probe.lp512.txt";
    long long recorded_build = 0;
    int recorded_code = -1;
    if (std::ifstream in(record); in >> recorded_build >> recorded_code && !error && recorded_build == built)
        return recorded_code;
    DemoRun probe = run_demo({"--headless", "--size", "32x32", "--frames", "1", "--warmup", "0", "--lights", "1"});
    if (!error) {
        fs::create_directories(record.parent_path(), error);
        fs::path partial = record.string() + "." + std::to_string(getpid());
        std::ofstream(partial) << built << " " << probe.exit_code << "\n";
        fs::rename(partial, record, error);  // atomic: a parallel test reads the old record or this one
    }
    return probe.exit_code;
}

}  // namespace

// Probed only at LP_NATIVE_VECTOR_WIDTH=512, the one width where Mesa with LLVM 15 is known to crash
// when it compiles any graphics pipeline (docs/testing.md). At any other width drawing is never excused.
std::string lavapipe_cannot_draw_reason() {
    static const std::string reason = [] {
        const char* width = getenv("LP_NATIVE_VECTOR_WIDTH");
        if (!width || std::string(width) != "512") return std::string();
        int exit_code = draw_probe_exit_code();
        if (exit_code < 128) return std::string();  // drew, or failed in a way the test itself must report
        return "lavapipe at LP_NATIVE_VECTOR_WIDTH=512 cannot draw here: a one-frame render died with exit " +
               std::to_string(exit_code) +
               " (Mesa 22.3 / LLVM 15 crash compiling any graphics pipeline 16 lanes wide; see docs/testing.md). "
               "Not run: this test draws.";
    }();
    return reason;
}

std::string last_line(const std::string& output) {
    std::string s = output;
    while (!s.empty() && s.back() == '\n') s.pop_back();
    size_t nl = s.rfind('\n');
    return nl == std::string::npos ? s : s.substr(nl + 1);
}

void expect_exit(const std::vector<std::string>& args, int code, const std::string& needle) {
    DemoRun run = run_demo(args);
    EXPECT_EQ(run.exit_code, code) << run.output;
    EXPECT_NE(last_line(run.output).find(needle), std::string::npos) << "message: " << run.output;
    EXPECT_EQ(last_line(run.output).rfind("error: ", 0), 0u) << run.output;
}

std::string no_mesh_shaders_reason() {
    static const std::string reason = [] {
        DemoRun r = run_demo({"--info", "--geometry", "meshlet"});
        if (r.exit_code == 2 && r.output.find("VK_EXT_mesh_shader") != std::string::npos)
            return std::string("device lacks VK_EXT_mesh_shader: no meshlet path to test here");
        return std::string();
    }();
    return reason;
}

DemoRun run_demo(const std::vector<std::string>& args) {
    std::string command = "'" SGD_DEMO "'";
    for (const std::string& a : args) command += " '" + a + "'";
    // Tests draw full detail unless they ask for --lod: their oracles (the CPU cull reference,
    // the other geometry path's image, a known count) are of the full meshes (docs/lod.md).
    bool renders = std::find(args.begin(), args.end(), "--headless") != args.end() ||
                   std::find(args.begin(), args.end(), "--compare") != args.end();
    if (renders && std::find(args.begin(), args.end(), "--lod") == args.end()) command += " --lod off";
    // A test that did not choose a cache folder of its own plans by capabilities alone and measures
    // nothing: no first-run measurement (seconds, and timings are not deterministic) in every test.
    // The tuning tests (test_tune.cpp) set XDG_CACHE_HOME and run the real first-run path.
    const char* cache = getenv("XDG_CACHE_HOME");
    bool modal = std::find(args.begin(), args.end(), "--help") != args.end() ||
                 std::find(args.begin(), args.end(), "--version") != args.end();
    if (cache && cache == isolated_cache() && !modal) command.insert(sizeof("'" SGD_DEMO "'") - 1, " --no-tuning");
    command += " 2>&1";
    DemoRun run;
    auto started = std::chrono::steady_clock::now();
    FILE* pipe = popen(command.c_str(), "r");
    if (!pipe) return run;
    char buffer[4096];
    size_t n;
    while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) run.output.append(buffer, n);
    int status = pclose(pipe);
    run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (const char* log = getenv("SGD_RUN_LOG")) {
        auto* info = testing::UnitTest::GetInstance()->current_test_info();
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        std::ofstream(log, std::ios::app) << s << "\t" << (info ? info->test_suite_name() + std::string(".") + info->name() : "") << "\t" << command << "\n";
    }
    return run;
}

namespace {

// ctest sets LP_NATIVE_VECTOR_WIDTH and SGD_EXPECT_SUBGROUP per instance, but
// gtest_discover_tests splits an ENVIRONMENT list, so only the first variable arrives:
// derive the lane count from the vector width (32-bit lanes) when the second is missing.
std::string expected_subgroup_text() {
    if (const char* sg = getenv("SGD_EXPECT_SUBGROUP")) return sg;
    if (const char* width = getenv("LP_NATIVE_VECTOR_WIDTH")) return std::to_string(atoi(width) / 32);
    return "";
}

}  // namespace

std::string test_dir(const std::string& name) {
    std::string sg_text = expected_subgroup_text();
    const char* sg = sg_text.empty() ? nullptr : sg_text.c_str();
    auto* info = testing::UnitTest::GetInstance()->current_test_info();
    std::string leaf = std::string(info ? info->test_suite_name() : "t") + "." + (info ? info->name() : "t") + "." +
                       name + ".sg" + (sg ? sg : "x") + "." + std::to_string(getpid());
    std::filesystem::path dir = std::filesystem::temp_directory_path() / "subgroup-demo-tests" / leaf;
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir.string();
}

Png read_png(const std::string& path) {
    Png png;
    int channels = 0;
    uint8_t* data = stbi_load(path.c_str(), &png.width, &png.height, &channels, 4);
    if (!data) return png;
    png.rgba.assign(data, data + size_t(png.width) * png.height * 4);
    stbi_image_free(data);
    return png;
}

int lit_pixels(const std::vector<uint8_t>& rgba) {
    if (rgba.size() < 4) return 0;
    const uint8_t* clear = rgba.data();
    int lit = 0;
    for (size_t i = 0; i + 3 < rgba.size(); i += 4)
        lit += rgba[i] != clear[0] || rgba[i + 1] != clear[1] || rgba[i + 2] != clear[2];
    return lit;
}

int differing_pixels(const Png& a, const Png& b) {
    if (a.width != b.width || a.height != b.height || a.rgba.size() != b.rgba.size()) return -1;
    int n = 0;
    for (size_t i = 0; i < a.rgba.size(); i += 4)
        n += a.rgba[i] != b.rgba[i] || a.rgba[i + 1] != b.rgba[i + 1] || a.rgba[i + 2] != b.rgba[i + 2];
    return n;
}

double rgb_psnr(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
    double squared = 0.0;
    size_t samples = 0;
    for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
        if (i % 4 == 3) continue;
        double d = double(a[i]) - double(b[i]);
        squared += d * d;
        ++samples;
    }
    if (squared == 0.0) return INFINITY;
    return 10.0 * std::log10(255.0 * 255.0 / (squared / double(samples)));
}

nlohmann::json read_json(const std::string& path) {
    std::ifstream file(path);
    if (!file) return nullptr;
    return nlohmann::json::parse(file, nullptr, false);
}

std::string file_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Neither variable set (the binary run by hand): a failure naming them, so the size checks fail
// instead of silently disappearing.
int expected_subgroup_size() {
    std::string text = expected_subgroup_text();
    if (text.empty())
        ADD_FAILURE() << "set SGD_EXPECT_SUBGROUP (or LP_NATIVE_VECTOR_WIDTH) to the subgroup size this run expects; "
                         "ctest does (tests/CMakeLists.txt)";
    return atoi(text.c_str());
}

int validation_lines(const std::string& output) {
    int count = 0;
    for (size_t pos = 0; (pos = output.find("validation ", pos)) != std::string::npos; ++pos)
        if (output.compare(pos, 17, "validation error:") == 0 || output.compare(pos, 19, "validation warning:") == 0)
            ++count;
    return count;
}

namespace {

// Tuned auto reads the user's cache folder (compare/tuning.h): a tuning file there would change what
// `auto` means in every test that runs the demo. Tests see an empty cache of their own; the tuning
// tests point XDG_CACHE_HOME at their own folders.
const bool g_isolated_cache = [] {
    setenv("XDG_CACHE_HOME", isolated_cache().c_str(), 1);
    return true;
}();

}  // namespace

std::string isolated_cache() {
    static const std::string path = (std::filesystem::temp_directory_path() / "subgroup-demo-tests" /
                                     ("empty-cache." + std::to_string(getpid()))).string();
    return path;
}
