// Exit codes and one-line messages of the contract, from the user's side of the command line.
#include <fstream>

#include <gtest/gtest.h>

#include "gpu/harness.h"
#include "gpu/light_frame.h"  // test_context()
#include "scoped_env.h"

namespace {

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

// --subgroup-size N: the device's range from its own report (--info), checked against the size
// this ctest instance runs lavapipe at. Lavapipe offers one size; a size outside the range is
// refused before anything runs, with the range in the message, and so is anything that is not a
// subgroup size at all.
struct OfferedSizes {
    uint32_t min = 0, max = 0;
    std::string text;  // as the refusal names them
};

OfferedSizes offered_sizes() {
    std::string dir = test_dir("subgroup-size-info");
    DemoRun info = run_demo({"--info", "--report", dir + "/info.json"});
    EXPECT_EQ(info.exit_code, 0) << info.output;
    nlohmann::json sg = read_json(dir + "/info.json")["subgroup"];
    OfferedSizes o{sg["min_size"].get<uint32_t>(), sg["max_size"].get<uint32_t>(), ""};
    if (int expected = expected_subgroup_size()) {
        EXPECT_EQ(o.min, uint32_t(expected));
        EXPECT_EQ(o.max, uint32_t(expected));
    }
    o.text = o.min == o.max ? "subgroup size " + std::to_string(o.min) + " only"
                            : "subgroup sizes " + std::to_string(o.min) + "-" + std::to_string(o.max);
    return o;
}

TEST(Cli, SubgroupSizeOutsideTheOfferedRangeOrMalformedExits2) {
    OfferedSizes offered = offered_sizes();
    ASSERT_GT(offered.min, 0u);
    if (offered.min > 1) expect_exit({"--headless", "--subgroup-size", std::to_string(offered.min / 2)}, 2, offered.text);
    if (offered.max < 128) expect_exit({"--headless", "--subgroup-size", std::to_string(offered.max * 2)}, 2, offered.text);
    expect_exit({"--info", "--subgroup-size", std::to_string(offered.max * 2)}, 2, offered.text);
    for (const char* bad : {"0", "3", "eight", "256", "-8"}) expect_exit({"--headless", "--subgroup-size", bad}, 2, "--subgroup-size");
}

// The offered size runs, through every pass that takes it (and the task and mesh stages where the
// device has them), validation clean, and the report says what was forced.
TEST(Cli, SubgroupSizeEqualToTheOfferedOneRunsAndValidates) {
    REQUIRE_DRAWING();
    OfferedSizes offered = offered_sizes();
    ASSERT_EQ(offered.min, offered.max) << "lavapipe offers one size; elsewhere run this with each size of the range";
    std::vector<std::string> geometries = {"indexed"};
    if (test_context().features.mesh_shader) geometries.push_back("meshlet");
    for (const std::string& geometry : geometries) {
        std::string dir = test_dir("subgroup-size-" + geometry);
        DemoRun run = run_demo({"--headless", "--size", "160x90", "--frames", "2", "--warmup", "1", "--validate",
                                "--geometry", geometry, "--cull", "subgroup", "--light-cull", "subgroup", "--exposure",
                                "subgroup", "--subgroup-size", std::to_string(offered.min), "--report", dir + "/r.json"});
        ASSERT_EQ(run.exit_code, 0) << geometry << ": " << run.output;
        EXPECT_EQ(validation_lines(run.output), 0) << run.output;
        nlohmann::json report = read_json(dir + "/r.json");
        EXPECT_EQ(report["subgroup"]["forced_size"], offered.min) << geometry;
        EXPECT_EQ(report["validation"]["messages"], 0) << geometry;
    }
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

// The demo's output as a terminal shows it: run under script(1), which gives it a pseudo-terminal
// (whose line discipline turns each "\n" into "\r\n").
std::string run_in_terminal(const std::vector<std::string>& args) {
    std::string command = "script -qec \"'" SGD_DEMO "'";
    for (const std::string& a : args) command += " '" + a + "'";
    command += "\" /dev/null 2>&1";
    std::string output;
    FILE* pipe = popen(command.c_str(), "r");
    if (!pipe) return output;
    char buffer[4096];
    size_t n;
    while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) output.append(buffer, n);
    pclose(pipe);
    return output;
}

TEST(Cli, ProgressIsALinePerUpdateIntoAPipeAndOneLineRedrawnOnATerminal) {
    REQUIRE_DRAWING();
    std::vector<std::string> args = {"--headless", "--size", "32x18", "--frames", "20", "--warmup", "0", "--lights", "1",
                                     "--lod", "off"};
    DemoRun piped = run_demo(args);
    ASSERT_EQ(piped.exit_code, 0) << piped.output;
    EXPECT_NE(piped.output.find("frame 10/20\nframe 20/20\n"), std::string::npos) << piped.output;
    EXPECT_EQ(piped.output.find('\r'), std::string::npos) << piped.output;
    // run_demo adds --no-tuning where the cache is the harness's empty one; this command does not,
    // so the demo finds no verdict there and measures first: its steps on one line too, redrawn.
    std::string terminal = run_in_terminal(args);
    EXPECT_NE(terminal.find("\rframe 10/20\rframe 20/20\r\n"), std::string::npos) << terminal;
    EXPECT_NE(terminal.find("\r  measuring round 1/"), std::string::npos) << terminal;
    EXPECT_EQ(terminal.find("\n  measuring "), std::string::npos) << "a line per step on a terminal: " << terminal;
    EXPECT_NE(terminal.find("\r\nauto: measured this device in "), std::string::npos) << "the line ended before the result: " << terminal;
}

TEST(Cli, ListDevicesAndVersion) {
    DemoRun list = run_demo({"--list-devices"});
    EXPECT_EQ(list.exit_code, 0);
    EXPECT_NE(list.output.find("0: "), std::string::npos) << list.output;
    DemoRun version = run_demo({"--version"});
    EXPECT_EQ(version.exit_code, 0);
    EXPECT_NE(version.output.find("subgroup-demo "), std::string::npos);
}

// The diagnosis knob SGD_PIPELINE_STATS (src/vk/pipeline_stats.h): where the device reports its
// pipelines' statistics, one JSON line per pipeline the run compiled, the cull's and the depth
// pass's among them, each with its executables' statistics; where it does not (lavapipe), one note
// and no file. Either way the frame is rendered as without it.
TEST(Cli, PipelineStatisticsWrittenWhereTheDeviceReportsThemElseOneNote) {
    REQUIRE_DRAWING();
    std::string dir = test_dir("pipeline-stats"), path = dir + "/stats.jsonl";
    std::filesystem::remove(path);
    ScopedEnv knob("SGD_PIPELINE_STATS", path);
    DemoRun run = run_demo({"--headless", "--size", "32x18", "--frames", "1", "--warmup", "0", "--cull", "subgroup",
                            "--scene", SGD_TEST_SCENES "/props.gltf"});
    ASSERT_EQ(run.exit_code, 0) << run.output;
    bool refused = run.output.find("does not offer VK_KHR_pipeline_executable_properties") != std::string::npos;
    if (run.output.find("llvmpipe") != std::string::npos) EXPECT_TRUE(refused) << "lavapipe offers no pipeline statistics";
    if (refused) {
        EXPECT_FALSE(std::filesystem::exists(path));
        return;
    }
    std::ifstream file(path);
    std::set<std::string> pipelines;
    for (std::string line; std::getline(file, line);) {
        nlohmann::json entry = nlohmann::json::parse(line);
        pipelines.insert(entry["pipeline"].get<std::string>());
        ASSERT_FALSE(entry["executables"].empty()) << line;
        for (const auto& e : entry["executables"]) EXPECT_FALSE(e["statistics"].empty()) << line;
    }
    EXPECT_TRUE(pipelines.count("cull.comp.switch [64] (subgroup)")) << run.output;
    EXPECT_TRUE(std::any_of(pipelines.begin(), pipelines.end(), [](const std::string& p) { return p.find("scene.vert") == 0; }));
}

}  // namespace
