#include "gpu/harness.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <stb/stb_image.h>

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

std::string test_dir(const std::string& name) {
    int sg = expected_subgroup_size();
    auto* info = testing::UnitTest::GetInstance()->current_test_info();
    std::string leaf = std::string(info ? info->test_suite_name() : "t") + "." + (info ? info->name() : "t") + "." +
                       name + ".sg" + (sg ? std::to_string(sg) : "x") + "." + std::to_string(getpid());
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

int expected_subgroup_size() {
    if (const char* sg = getenv("SGD_EXPECT_SUBGROUP")) return atoi(sg);
    // lavapipe's subgroup is its native vector width in 32-bit lanes (ctest sets the width).
    if (const char* width = getenv("LP_NATIVE_VECTOR_WIDTH")) return atoi(width) / 32;
    return 0;
}

int validation_lines(const std::string& output) {
    int count = 0;
    for (size_t pos = 0; (pos = output.find("validation ", pos)) != std::string::npos; ++pos)
        if (output.compare(pos, 17, "validation error:") == 0 || output.compare(pos, 19, "validation warning:") == 0)
            ++count;
    return count;
}
