// Exit codes and one-line messages of the contract, from the user's side of the command line.
#include <fstream>

#include <gtest/gtest.h>

#include "gpu/harness.h"

namespace {

// The last line of the output: the one-line error the contract promises.
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

TEST(Cli, BadUsageExits2) {
    expect_exit({"--frobnicate"}, 2, "unknown option");
    expect_exit({"--headless", "--size", "100"}, 2, "WxH");
    expect_exit({"--headless", "--cull", "maybe"}, 2, "--cull");
    expect_exit({"--headless", "--mask-ops", "quad,teleport"}, 2, "teleport");
    expect_exit({"--headless", "--probe"}, 2, "--probe is only used with --info");
}

TEST(Cli, UnsupportedSubgroupRequestExits2NamingWhatIsMissing) {
    expect_exit({"--headless", "--cull", "subgroup", "--mask-stages", "compute"}, 2, "compute stage");
    expect_exit({"--headless", "--mip", "subgroup", "--mask-ops", "quad"}, 2, "quad");
}

TEST(Cli, MissingOrMalformedSceneExits3) {
    std::string dir = test_dir("scenes");
    expect_exit({"--headless", "--scene", dir + "/nope.gltf"}, 3, "not found");
    std::ofstream(dir + "/bad.gltf") << "{ \"asset\": { \"version\": \"2.0\" }, \"meshes\": [ ";
    expect_exit({"--headless", "--scene", dir + "/bad.gltf"}, 3, "bad scene");
    std::ofstream(dir + "/bad.glb", std::ios::binary) << "glTF\x02";
    expect_exit({"--headless", "--scene", dir + "/bad.glb"}, 3, "bad scene");
}

TEST(Cli, AbsentDeviceExits4) { expect_exit({"--headless", "--device", "99"}, 4, "--device 99"); }

TEST(Cli, WindowWithoutDisplayExits2PointingToHeadless) {
    std::string saved = getenv("DISPLAY") ? getenv("DISPLAY") : "";
    unsetenv("DISPLAY");
    unsetenv("WAYLAND_DISPLAY");
    expect_exit({}, 2, "--headless");
    if (!saved.empty()) setenv("DISPLAY", saved.c_str(), 1);
}

TEST(Cli, ListDevicesAndVersion) {
    DemoRun list = run_demo({"--list-devices"});
    EXPECT_EQ(list.exit_code, 0);
    EXPECT_NE(list.output.find("0: "), std::string::npos) << list.output;
    DemoRun version = run_demo({"--version"});
    EXPECT_EQ(version.exit_code, 0);
    EXPECT_NE(version.output.find("subgroup-demo "), std::string::npos);
}

}  // namespace
