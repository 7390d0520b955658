// --unique-meshes: with --instances every copy draws its own vertex and index bytes. Oracles: the
// image and the culled triangles equal the shared-mesh run's (same geometry), the report's distinct
// bytes grow while the bytes read stay the same, and requests no device can hold exit 2.
#include <gtest/gtest.h>

#include "gpu/harness.h"

namespace {

TEST(UniqueMeshes, SameImageAndTrianglesDistinctBytes) {
    REQUIRE_DRAWING();
    std::string dir = test_dir("unique-meshes");
    nlohmann::json report[2];
    Png shot[2];
    for (int unique = 0; unique < 2; ++unique) {
        std::string name = unique ? "unique" : "shared";
        std::vector<std::string> args = {"--headless", "--validate", "--size", "256x144", "--frames", "2", "--warmup", "1",
                                         "--instances", "2", "--report", dir + "/" + name + ".json",
                                         "--screenshot", dir + "/" + name + ".png"};
        if (unique) args.push_back("--unique-meshes");
        DemoRun run = run_demo(args);
        ASSERT_EQ(run.exit_code, 0) << run.output.substr(0, 4000);
        report[unique] = read_json(dir + "/" + name + ".json");
        shot[unique] = read_png(dir + "/" + name + ".png");
        EXPECT_EQ(report[unique]["scene"]["unique_meshes"], bool(unique));
    }
    EXPECT_EQ(shot[0].rgba, shot[1].rgba) << "the same geometry must give the same frame";
    EXPECT_EQ(report[0]["scene"]["triangles"], report[1]["scene"]["triangles"]);
    EXPECT_EQ(report[1]["scene"]["vertices"].get<uint64_t>(), 4 * report[0]["scene"]["vertices"].get<uint64_t>());
    EXPECT_EQ(report[0]["counters"]["triangles_visible"], report[1]["counters"]["triangles_visible"]);
    const nlohmann::json& s = report[0]["bandwidth"];
    const nlohmann::json& u = report[1]["bandwidth"];
    EXPECT_EQ(s["cull_bytes"], u["cull_bytes"]) << "the cull pass reads as many bytes either way";
    EXPECT_GT(u["cull_unique_bytes"].get<uint64_t>(), s["cull_unique_bytes"].get<uint64_t>());
    EXPECT_LE(u["cull_unique_bytes"].get<uint64_t>(), u["cull_bytes"].get<uint64_t>());
}

TEST(UniqueMeshes, RequestsPastTheLimitsExitTwo) {
    // Past 4 GiB of vertices: refused before anything is copied.
    DemoRun huge = run_demo({"--headless", "--size", "64x64", "--frames", "1", "--warmup", "0", "--instances", "64",
                             "--unique-meshes"});
    EXPECT_EQ(huge.exit_code, 2) << huge.output;
    EXPECT_NE(huge.output.find("drop --unique-meshes"), std::string::npos) << huge.output;
    // Within 4 GiB but past this device's storage buffer range (lavapipe: 128 MiB): the device
    // check refuses it, with the same advice.
    DemoRun big = run_demo({"--headless", "--size", "64x64", "--frames", "1", "--warmup", "0", "--instances", "8",
                            "--unique-meshes"});
    if (big.output.find("storage buffer range") == std::string::npos)
        GTEST_SKIP() << "166 MiB of vertices fit this device's storage buffer range";
    EXPECT_EQ(big.exit_code, 2) << big.output;
    EXPECT_NE(big.output.find("drop --unique-meshes"), std::string::npos) << big.output;
}

}  // namespace
