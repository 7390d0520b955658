#include "gpu/harness.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <filesystem>
#include <stb/stb_image.h>


// Before any GPU test at LP_NATIVE_VECTOR_WIDTH=512: can lavapipe draw at all? If a one-frame
// render dies by a signal, every test of this process is skipped with the reason (a process
// crash would otherwise take in-process tests down with it). Any other width is never skipped.
class LavapipeDrawProbe : public testing::Environment {
public:
    void SetUp() override {
        const char* width = getenv("LP_NATIVE_VECTOR_WIDTH");
        if (!width || std::string(width) != "512") return;
        DemoRun probe = run_demo({"--headless", "--size", "32x32", "--frames", "1", "--warmup", "0", "--lights", "1"});
        if (probe.exit_code >= 128)
            GTEST_SKIP() << "lavapipe at LP_NATIVE_VECTOR_WIDTH=512 cannot draw: a one-frame render died with exit "
                         << probe.exit_code << " (Mesa 22.3 / LLVM 15 crash compiling graphics shaders 16 lanes "
                         << "wide on this CPU; see docs/testing.md)";
    }
};
testing::Environment* const g_draw_probe = testing::AddGlobalTestEnvironment(new LavapipeDrawProbe);

bool lavapipe_512_crash(const DemoRun& run) {
    const char* width = getenv("LP_NATIVE_VECTOR_WIDTH");
    return run.exit_code >= 128 && width && std::string(width) == "512";
}

DemoRun run_demo(const std::vector<std::string>& args) {
    std::string command = "'" SGD_DEMO "'";
    for (const std::string& a : args) command += " '" + a + "'";
    command += " 2>&1";
    DemoRun run;
    FILE* pipe = popen(command.c_str(), "r");
    if (!pipe) return run;
    char buffer[4096];
    size_t n;
    while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) run.output.append(buffer, n);
    int status = pclose(pipe);
    run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
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

nlohmann::json read_json(const std::string& path) {
    std::ifstream file(path);
    if (!file) return nullptr;
    return nlohmann::json::parse(file, nullptr, false);
}

int expected_subgroup_size() { return atoi(expected_subgroup_text().c_str()); }

int validation_lines(const std::string& output) {
    int count = 0;
    for (size_t pos = 0; (pos = output.find("validation ", pos)) != std::string::npos; ++pos)
        if (output.compare(pos, 17, "validation error:") == 0 || output.compare(pos, 19, "validation warning:") == 0)
            ++count;
    return count;
}
