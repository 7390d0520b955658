// The exposure pass (docs/exposure.md) through the executable, validated: its two variants give the
// same exposure, the same luminance average and the same frame, byte for byte (integer sums); the
// frame index drives the adaptation (the same run twice is the same); without a mip, or with
// --exposure off, the exposure is fixed and the plan says why; masking arithmetic (or the compute
// stage) makes auto fall back with the reason. The reduction itself against a known sum:
// tests/gpu_compute/test_exposure_compute.cpp.
#include <gtest/gtest.h>

#include <fstream>

#include "gpu/harness.h"

namespace {

struct ExposureRun {
    nlohmann::json report;
    std::string frame;  // the PNG file's bytes
};

// The generated props scene (textured, lit, a dark background like the bundled scene's): the exposure's
// oracles are of whatever frame was drawn, and its start-up is a third of the bundled scene's.
// Two frames (--frames counts the warm-up): frame 0 measures and jumps to its target, frame 1 applies
// it and adapts with the frame-index rate (docs/exposure.md): the report's exposure is a measured one.
const std::string kExposureScene = SGD_TEST_SCENES "/props.gltf";

ExposureRun run_case(const std::string& dir, const std::string& name, std::vector<std::string> extra, const std::string& size = "161x91") {
    std::vector<std::string> args = {"--headless", "--validate", "--scene", kExposureScene, "--size", size, "--frames", "2",
                                     "--warmup", "1", "--lights", "64", "--report", dir + "/" + name + ".json",
                                     "--screenshot", dir + "/" + name + ".png"};
    args.insert(args.end(), extra.begin(), extra.end());
    DemoRun r = run_demo(args);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(validation_lines(r.output), 0) << r.output;
    ExposureRun out;
    if (r.exit_code != 0) return out;
    out.report = read_json(dir + "/" + name + ".json");
    std::ifstream file(dir + "/" + name + ".png", std::ios::binary);
    out.frame.assign(std::istreambuf_iterator<char>(file), {});
    return out;
}

TEST(Exposure, VariantsGiveTheSameExposureAndTheSameFrameBitForBit) {
    REQUIRE_DRAWING();
    std::string dir = test_dir("exposure_variants");
    // Both variants at an odd size (partial subgroups and workgroups in the reduction) and a working
    // size. The same run twice (determinism) at the larger size, where more workgroups meet in the
    // atomics; --exposure off once: what it asserts (a fixed exposure, no pass, the plan's reason, another
    // frame) does not depend on the size.
    for (const char* size : {"161x91", "320x180"}) {
        SCOPED_TRACE(size);
        bool large = std::string(size) == "320x180";
        ExposureRun sub = run_case(dir, "subgroup", {"--exposure", "subgroup"}, size);
        ExposureRun fb = run_case(dir, "fallback", {"--exposure", "fallback"}, size);
        ASSERT_FALSE(sub.frame.empty());
        ASSERT_FALSE(fb.frame.empty());
        EXPECT_EQ(sub.report["plan"]["exposure"]["variant"], "subgroup");
        EXPECT_EQ(fb.report["plan"]["exposure"]["variant"], "fallback");
        EXPECT_TRUE(sub.report["timings_ms"].contains("exposure"));
        const nlohmann::json &a = sub.report["counters"], &b = fb.report["counters"];
        printf("[ exposure ] %s: exposure %.6f, luminance average %.6f (log2 %.6f), next %.6f\n", size, double(a["exposure"]),
               double(a["luminance_average"]), double(a["log2_luminance_average"]), double(a["exposure_next"]));
        EXPECT_EQ(a["exposure"], b["exposure"]);
        EXPECT_EQ(a["luminance_average"], b["luminance_average"]);
        EXPECT_EQ(a["exposure_next"], b["exposure_next"]);
        EXPECT_NE(a["exposure"], 1.0) << "the measured exposure was not applied";
        EXPECT_GT(double(a["luminance_average"]), 0.0);
        EXPECT_TRUE(sub.frame == fb.frame) << "the frame differs between the exposure variants";
        if (large) {
            ExposureRun again = run_case(dir, "again", {"--exposure", "subgroup"}, size);
            EXPECT_TRUE(sub.frame == again.frame) << "the same run twice gave two frames: not deterministic";
        } else {
            ExposureRun off = run_case(dir, "off", {"--exposure", "off"}, size);
            EXPECT_EQ(off.report["counters"]["exposure"], 1.0);
            EXPECT_TRUE(off.report["counters"]["luminance_average"].is_null());
            EXPECT_FALSE(off.report["timings_ms"].contains("exposure"));
            EXPECT_NE(std::string(off.report["plan"]["exposure"]["reason"]).find("fixed"), std::string::npos);
            EXPECT_FALSE(off.frame == sub.frame) << "the fixed exposure gave the measured exposure's frame";
        }
    }
}

TEST(Exposure, WithoutAMipExposureIsFixedAndThePlanSaysWhy) {
    REQUIRE_DRAWING();
    std::string dir = test_dir("exposure_no_mip");
    ExposureRun r = run_case(dir, "nomip", {"--mip", "off"});
    EXPECT_EQ(r.report["plan"]["exposure"]["variant"], "off");
    std::string reason = r.report["plan"]["exposure"]["reason"];
    EXPECT_NE(reason.find("--mip off"), std::string::npos) << reason;
    EXPECT_EQ(r.report["counters"]["exposure"], 1.0);
    DemoRun refused = run_demo({"--headless", "--size", "64x64", "--frames", "1", "--warmup", "0", "--mip", "off",
                                "--exposure", "subgroup"});
    EXPECT_EQ(refused.exit_code, 2) << refused.output;
    EXPECT_NE(refused.output.find("--mip off"), std::string::npos) << refused.output;
}

TEST(Exposure, MaskingArithmeticOrComputeFallsBackWithTheReason) {
    REQUIRE_DRAWING();
    std::string dir = test_dir("exposure_mask");
    struct Mask {
        const char *flag, *value, *reason;
    };
    for (Mask m : {Mask{"--mask-ops", "arithmetic", "arithmetic"}, Mask{"--mask-stages", "compute", "compute"}}) {
        ExposureRun r = run_case(dir, m.value, {m.flag, m.value});
        EXPECT_EQ(r.report["plan"]["exposure"]["requested"], "auto");
        EXPECT_EQ(r.report["plan"]["exposure"]["variant"], "fallback");
        std::string reason = r.report["plan"]["exposure"]["reason"];
        EXPECT_NE(reason.find(m.reason), std::string::npos) << reason;
        EXPECT_NE(reason.find("masked"), std::string::npos) << reason;
        EXPECT_TRUE(r.report["timings_ms"].contains("exposure"));
        DemoRun refused = run_demo({"--headless", "--size", "64x64", "--frames", "1", "--warmup", "0", "--exposure", "subgroup",
                                    m.flag, m.value});
        EXPECT_EQ(refused.exit_code, 2) << refused.output;
        EXPECT_NE(refused.output.find(m.reason), std::string::npos) << refused.output;
    }
}

}  // namespace
