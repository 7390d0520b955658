// `--compare` end to end on the Vulkan device: every configuration of the matrix runs validated,
// report.json holds every run and the ratios (recomputed here from the runs' own timings),
// compare.png has the layout and shows each configuration's screenshot reduced, and the subgroup
// and fallback paths of each pass draw the same frame within that pass's tolerance.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>

#include "compare/compare.h"
#include "gpu/harness.h"
#include "gpu/light_frame.h"  // test_context()
#include "known_drivers.h"

namespace {

constexpr int kCompareWidth = 160, kCompareHeight = 90;
// The full comparison renders every configuration of the matrix three times (rounds, its image,
// the repeat) under validation: on the generated props scene (textured, several materials and
// primitives) that is 16 s, on the bundled 300k triangles 48 s (issue 39). What it checks is the
// comparison's structure and its images, not the scene.
const std::string kCompareScene = SGD_TEST_SCENES "/props.gltf";

double srgb_to_linear(double c) { return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4); }
double linear_to_srgb(double c) { return c <= 0.0031308 ? c * 12.92 : 1.055 * std::pow(c, 1 / 2.4) - 0.055; }

// The oracle for a thumbnail: each texel averages a k x k block of the screenshot in linear light.
Png reduce_in_linear_light(const Png& src, int k) {
    Png out;
    out.width = src.width / k;
    out.height = src.height / k;
    out.rgba.resize(size_t(out.width) * out.height * 4);
    for (int y = 0; y < out.height; ++y)
        for (int x = 0; x < out.width; ++x)
            for (int c = 0; c < 4; ++c) {
                double sum = 0;
                for (int dy = 0; dy < k; ++dy)
                    for (int dx = 0; dx < k; ++dx) {
                        double v = src.at(x * k + dx, y * k + dy)[c] / 255.0;
                        sum += c == 3 ? v : srgb_to_linear(v);
                    }
                double mean = sum / (k * k);
                out.rgba[(size_t(y) * out.width + x) * 4 + c] = uint8_t(std::lround((c == 3 ? mean : linear_to_srgb(mean)) * 255));
            }
    return out;
}

struct RgbDifference {
    double mean = 0;  // over all colour channels, in 8-bit steps
    int max = 0;
    int pixels = 0;  // pixels with any channel different
};

// b against the b-sized window of a at (ax, ay).
RgbDifference rgb_difference(const Png& a, const Png& b, int ax = 0, int ay = 0) {
    RgbDifference d;
    double sum = 0;
    for (int y = 0; y < b.height; ++y)
        for (int x = 0; x < b.width; ++x) {
            int pixel_max = 0;
            for (int c = 0; c < 3; ++c) {
                int diff = std::abs(int(a.at(ax + x, ay + y)[c]) - int(b.at(x, y)[c]));
                sum += diff;
                pixel_max = std::max(pixel_max, diff);
            }
            d.max = std::max(d.max, pixel_max);
            d.pixels += pixel_max > 0;
        }
    d.mean = sum / (double(b.width) * b.height * 3);
    return d;
}

// Pixels of the rect that differ from its most common colour (the strip's background).
int non_background_pixels(const Png& png, PixelRect r) {
    std::map<uint32_t, int> histogram;
    auto pixel = [&](int x, int y) {
        const uint8_t* p = png.at(x, y);
        return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16;
    };
    for (int y = r.y; y < r.y + r.h; ++y)
        for (int x = r.x; x < r.x + r.w; ++x) histogram[pixel(x, y)]++;
    int most = 0;
    for (const auto& [colour, count] : histogram) most = std::max(most, count);
    return r.w * r.h - most;
}

// Pixels of the rect that are pure black (an amplified difference: black where two images agree).
int black_pixels(const Png& png, PixelRect r) {
    int count = 0;
    for (int y = r.y; y < r.y + r.h; ++y)
        for (int x = r.x; x < r.x + r.w; ++x) {
            const uint8_t* p = png.at(x, y);
            count += p[0] == 0 && p[1] == 0 && p[2] == 0;
        }
    return count;
}

std::string read_text_file(const std::string& path) {
    std::ifstream file(path);
    return std::string(std::istreambuf_iterator<char>(file), {});
}

// The screenshot is a real frame, not a clear colour: "identical to the other path" must mean something.
int geometry_pixels(const Png& png) {
    const uint8_t* clear = png.at(0, 0);
    int count = 0;
    for (int y = 0; y < png.height; ++y)
        for (int x = 0; x < png.width; ++x) {
            const uint8_t* p = png.at(x, y);
            count += p[0] != clear[0] || p[1] != clear[1] || p[2] != clear[2];
        }
    return count;
}

// The visibility path's bound against forward's frame (tests/gpu/test_visibility.cpp's kMinPsnr,
// docs/visibility.md).
constexpr double kMinShadingPsnr = 60.0;

const nlohmann::json* find_run(const nlohmann::json& report, const std::string& name) {
    for (const nlohmann::json& run : report["runs"])
        if (run["name"] == name) return &run;
    return nullptr;
}

// Rows this device cannot run for want of ray tracing, or of subgroups in its six stages (the
// Mesa 25 lavapipe: ray-trace-subgroup), each skipped with that reason: their names. Where the
// running driver has a record (tests/known_drivers.h), exactly the rows it implies.
std::set<std::string> ray_tracing_skips(const nlohmann::json& report) {
    std::set<std::string> names;
    for (const nlohmann::json& s : report["skipped"]) {
        std::string reason = s["reason"].get<std::string>();
        if (reason.rfind("--ray-trace ", 0) == 0 &&
            (reason.find("stages have no subgroup support") != std::string::npos ||
             reason.find("VK_KHR_ray_tracing_pipeline") != std::string::npos))
            names.insert(s["name"].get<std::string>());
    }
    for (const std::string& n : names) EXPECT_TRUE(n == "ray-trace-subgroup" || n == "ray-trace-fallback") << n;
    // Held to the record where the running driver has one: the Mesa 25 lavapipe traces but has no
    // subgroups in the six stages, so only ray-trace-subgroup may be skipped there.
    if (const KnownDriver* k = known_driver()) {
        std::set<std::string> expected;
        if (!k->ray_tracing) expected = {"ray-trace-subgroup", "ray-trace-fallback"};
        else if (!record_rt_stages_without_subgroups(*k).empty()) expected = {"ray-trace-subgroup"};
        EXPECT_EQ(names, expected) << "ray-tracing rows skipped, against the record of " << k->name << ": "
                                   << report["skipped"].dump();
    }
    return names;
}

// The --headless command line of a configuration of the matrix: its requests as options, auto
// without the tuning file (as the comparison plans), then `more`.
std::vector<std::string> headless_args(const CompareConfig& config, std::vector<std::string> more) {
    std::vector<std::string> args = {"--headless", "--no-tuning", "--geometry", std::string(geometry_name(config.geometry))};
    if (config.shading) args.insert(args.end(), {"--shading", std::string(shading_name(*config.shading))});
    for (const PassInfo& pass : kPasses)
        if (config[pass.id] != Request::automatic) args.insert(args.end(), {"--" + std::string(pass.name), std::string(request_name(config[pass.id]))});
    args.insert(args.end(), more.begin(), more.end());
    return args;
}

double pass_median(const nlohmann::json& run, const char* pass) { return run["timings_ms"][pass]["median"].get<double>(); }

TEST(Compare, EveryConfigurationRunsValidatedAndTheSheetShowsEachScreenshot) {
    REQUIRE_DRAWING();
    std::string dir = test_dir("compare");
    DemoRun run = run_demo({"--compare", "--out", dir, "--validate", "--size",
                            std::to_string(kCompareWidth) + "x" + std::to_string(kCompareHeight), "--frames", "3", "--warmup", "1",
                            "--lights", "64", "--scene", kCompareScene});
    ASSERT_EQ(run.exit_code, 0) << run.output;
    EXPECT_EQ(validation_lines(run.output), 0) << run.output;
    // run_demo ran it with --no-tuning (the harness's empty cache): auto planned by capabilities and
    // nothing was stored in the cache.
    EXPECT_NE(run.output.find("tuning: not written (--no-tuning)"), std::string::npos) << run.output;
    EXPECT_FALSE(std::filesystem::exists(isolated_cache() + "/subgroup-demo")) << "--compare --no-tuning wrote into the cache";
    std::vector<CompareConfig> matrix = comparison_matrix();
    // Progress counts each configuration's set-up, the two rounds (two measured frames, one each),
    // the images (frame 2 of each configuration's rounds, written at once), the stage probe and the
    // run-to-run repeat of all-fallback, which comes last.
    std::string steps = std::to_string(matrix.size() + 2 + 1 + 2);
    EXPECT_NE(run.output.find("/" + steps + "] round 2/2 "), std::string::npos) << "progress: " << run.output;
    EXPECT_NE(run.output.find("/" + steps + "] graphics-to-compute probe "), std::string::npos) << "progress: " << run.output;
    EXPECT_NE(run.output.find("[" + std::to_string(matrix.size()) + "/" + steps + "] all-fallback "), std::string::npos)
        << "progress: " << run.output;
    EXPECT_NE(run.output.find("[" + steps + "/" + steps + "] all-fallback (again, run to run)"), std::string::npos)
        << "progress: " << run.output;

    // report.json: every configuration of the matrix ran (lavapipe supports every subgroup path
    // unmasked), each with its own validation count, request and screenshot.
    nlohmann::json report = read_json(dir + "/report.json");
    ASSERT_TRUE(report.is_object()) << "report.json is not JSON";
    EXPECT_EQ(report["schema"], 1);
    EXPECT_TRUE(report["device"].contains("name"));
    if (int sg = expected_subgroup_size()) EXPECT_EQ(report["subgroup"]["size"], sg);
    std::set<std::string> no_rt = ray_tracing_skips(report);
    EXPECT_NE(run.output.find("[" + std::to_string(matrix.size() + 3) + "/" + steps + "] " +
                              std::to_string(matrix.size() - no_rt.size()) + " screenshots (frame 2)"),
              std::string::npos)
        << "progress: " << run.output;
    EXPECT_EQ(report["runs"].size(), matrix.size() - no_rt.size()) << report["skipped"].dump();
    EXPECT_EQ(report["skipped"].size(), no_rt.size()) << report["skipped"].dump();
    for (const CompareConfig& config : matrix) {
        if (no_rt.count(config.name)) continue;
        const nlohmann::json* r = find_run(report, config.name);
        ASSERT_NE(r, nullptr) << config.name;
        EXPECT_EQ((*r)["schema"], 1);
        EXPECT_EQ((*r)["validation"]["enabled"], true);
        EXPECT_EQ((*r)["validation"]["messages"], 0) << config.name;
        EXPECT_EQ((*r)["frame"]["width"], kCompareWidth);
        EXPECT_EQ((*r)["frame"]["frames"], 3);
        for (const PassInfo& pass : kPasses) {
            std::string key(pass.key);
            Request req = config[pass.id];
            EXPECT_EQ((*r)["config"][key], request_name(req)) << config.name;
            // An explicit request is what the plan used.
            if (req != Request::automatic) EXPECT_EQ((*r)["plan"][key]["variant"], request_name(req)) << config.name;
        }
        // The shading rows: the shading and the derivatives asked for are what the plan used.
        bool visibility = config.shading == Shading::visibility;
        EXPECT_EQ((*r)["config"]["shading"], config.shading ? shading_name(*config.shading) : "auto") << config.name;
        EXPECT_EQ((*r)["config"]["derivatives"], request_name(config.derivatives)) << config.name;
        EXPECT_EQ((*r)["plan"]["shading"]["mode"], visibility ? "visibility" : "forward") << config.name;
        EXPECT_EQ((*r)["plan"]["shading"]["derivatives_requested"], request_name(config.derivatives)) << config.name;
        if (visibility && config.derivatives != Request::automatic)
            EXPECT_EQ((*r)["plan"]["shading"]["derivatives"], request_name(config.derivatives)) << config.name;
        // And the materials (the waterfall's pair, the all-* rows): asked for is what a visibility plan used.
        EXPECT_EQ((*r)["config"]["materials"], request_name(config.materials)) << config.name;
        EXPECT_EQ((*r)["plan"]["shading"]["materials_requested"], request_name(config.materials)) << config.name;
        if (visibility && config.materials != Request::automatic)
            EXPECT_EQ((*r)["plan"]["shading"]["materials"], request_name(config.materials)) << config.name;
        // Visibility shades in its compute pass instead of forward's.
        for (const char* pass : {"depth", visibility ? "shade" : "forward", "frame"})
            EXPECT_TRUE((*r)["timings_ms"].contains(pass)) << config.name << " " << pass;
        EXPECT_EQ((*r)["timings_ms"].contains(visibility ? "forward" : "shade"), false) << config.name;
        EXPECT_EQ((*r)["outputs"]["screenshot"], dir + "/" + config.name + ".png");
        // How its frames were taken: one warm-up, two rounds of one frame, and its outliers per
        // timer over those two frames (too few for quartiles: none).
        const nlohmann::json& m = (*r)["measurement"];
        EXPECT_EQ(m["warmup_frames"], 1) << config.name;
        EXPECT_EQ(m["rounds"], 2) << config.name;
        EXPECT_EQ(m["outliers"]["frame"]["samples"], 2) << config.name;
        EXPECT_EQ(m["outliers"]["frame"]["high_severe"], 0) << config.name;
    }
    EXPECT_EQ(report["method"]["rounds"], 2);
    EXPECT_EQ(report["method"]["round_frames"], nlohmann::json::array({1, 1}));
    EXPECT_EQ(report["method"]["warmup_frames"], 1);
    EXPECT_EQ(report["method"]["interval"]["resamples"], kBootstrapResamples);

    // Every ratio has its interval and its word, and the word follows from the interval alone.
    for (const auto& [key, ratio] : report["ratios"].items()) {
        const nlohmann::json& d = report["ratio_details"][key];
        ASSERT_TRUE(d.contains("ratio_ci95") && d.contains("verdict")) << key;
        if (!ratio.is_number()) {
            EXPECT_TRUE(d["verdict"].is_null()) << key;
            continue;
        }
        ASSERT_TRUE(d["ratio_ci95"].is_array()) << key << ": two rounds give an interval";
        double lo = d["ratio_ci95"][0].get<double>(), r = ratio.get<double>();
        double hi = d["ratio_ci95"][1].is_null() ? INFINITY : d["ratio_ci95"][1].get<double>();
        // Two rounds: the resamples are round 0 twice, round 1 twice or both, and the ratio of the
        // pooled medians of both lies between those of each alone.
        EXPECT_LE(lo, r * (1 + 1e-12)) << key;
        EXPECT_GE(hi, r * (1 - 1e-12)) << key;
        std::string expected = lo > 1 ? "faster" : hi < 1 ? "slower" : "level";
        EXPECT_EQ(d["verdict"], expected) << key;
    }
    // The stage probe, and its figure beside the two ratios that set a graphics stage against compute.
    const nlohmann::json& probe = report["probe"];
    ASSERT_TRUE(probe.is_object());
    EXPECT_GT(probe["fragment_over_compute"].get<double>(), 0.0);
    EXPECT_TRUE(std::isfinite(probe["fragment_over_compute"].get<double>()));
    EXPECT_EQ(probe["differing_texels"], 0);
    EXPECT_EQ(probe["invocations"], uint64_t(kStageProbeSize) * kStageProbeSize);
    for (const char* key : {"mip", "geometry", "shading"})
        EXPECT_EQ(report["ratio_details"][key]["graphics_to_compute"], probe["fragment_over_compute"]) << key;
    for (const char* key : {"cull", "light_cull", "frame", "meshlet_cull", "derivatives"})
        EXPECT_FALSE(report["ratio_details"][key].contains("graphics_to_compute")) << key;
    std::string md = read_text_file(dir + "/report.md");
    for (const char* text : {"95% interval", "| verdict |", "## Graphics-to-compute probe", "## Method", "2 graphics-capable TPCs"})
        EXPECT_NE(md.find(text), std::string::npos) << text;

    // Ratios: the three keys, each a number that the runs' own medians reproduce, or null with a reason.
    ASSERT_TRUE(report["ratios"].is_object());
    auto expect_ratio = [&](const char* key, std::optional<std::pair<double, double>> fallback_subgroup) {
        ASSERT_TRUE(report["ratios"].contains(key)) << key;
        const nlohmann::json& ratio = report["ratios"][key];
        if (!fallback_subgroup || fallback_subgroup->second <= 0) {
            EXPECT_TRUE(ratio.is_null()) << key << " " << ratio;
            EXPECT_FALSE(report["ratio_details"][key]["reason"].get<std::string>().empty()) << key;
            return;
        }
        ASSERT_TRUE(ratio.is_number()) << key << ": " << report["ratio_details"][key].dump();
        EXPECT_NEAR(ratio.get<double>(), fallback_subgroup->first / fallback_subgroup->second, 1e-9) << key;
    };
    auto both = [&](const std::string& fallback, const std::string& subgroup, const char* fallback_pass,
                    const char* subgroup_pass) -> std::optional<std::pair<double, double>> {
        const nlohmann::json& fb = *find_run(report, fallback);
        const nlohmann::json& sg = *find_run(report, subgroup);
        if (!fb["timings_ms"].contains(fallback_pass) || !sg["timings_ms"].contains(subgroup_pass)) return std::nullopt;
        return std::pair{pass_median(fb, fallback_pass), pass_median(sg, subgroup_pass)};
    };
    expect_ratio("cull", both("cull-fallback", "cull-subgroup", "cull", "cull"));
    expect_ratio("light_cull", both("light-cull-fallback", "light-cull-subgroup", "light_cull", "light_cull"));
    expect_ratio("frame", both("all-fallback", "all-subgroup", "frame", "frame"));
    // The meshlet path: its culling (in the depth pass), and the indexed frame over the meshlet frame.
    expect_ratio("meshlet_cull", both("meshlet-fallback", "meshlet-subgroup", "depth", "depth"));
    expect_ratio("geometry", both("cull-subgroup", "meshlet-subgroup", "frame", "frame"));
    // The visibility path: forward's frame over visibility's, and its shading pass with analytic
    // derivatives over the same with quad swaps.
    expect_ratio("shading", both("shading-forward", "shading-visibility", "frame", "frame"));
    expect_ratio("derivatives", both("shading-visibility-fallback", "shading-visibility", "shade", "shade"));
    // Within visibility, its shading pass with nonuniformEXT materials over the same with the waterfall.
    expect_ratio("materials", both("shading-visibility-materials-fallback", "shading-visibility", "shade", "shade"));
    EXPECT_EQ(find_run(report, "shading-visibility")->at("plan")["shading"]["materials"], "subgroup");
    for (const char* key : {"shading", "derivatives", "materials"}) {
        EXPECT_NE(md.find("| " + std::string(key) + " |"), std::string::npos) << key;
        EXPECT_NE(run.output.find("\n" + std::string(key) + " "), std::string::npos) << key << ": " << run.output;
    }
    expect_ratio("ray_trace", no_rt.empty() ? both("ray-trace-fallback", "ray-trace-subgroup", "ray_trace", "ray_trace")
                                            : std::nullopt);
    {
        // The quad mip is stored by the resolve pass: without a mip timing of its own, its cost is
        // the resolve time it adds over mip-off.
        const nlohmann::json& sg = *find_run(report, "mip-subgroup");
        if (sg["timings_ms"].contains("mip")) {
            expect_ratio("mip", both("mip-fallback", "mip-subgroup", "mip", "mip"));
        } else {
            auto fb = both("mip-fallback", "mip-subgroup", "mip", "resolve");
            if (fb) fb->second -= pass_median(*find_run(report, "mip-off"), "resolve");
            expect_ratio("mip", fb);
        }
    }

    // Screenshots: subgroup and fallback of each pass draw the same frame, within the pass's tolerance.
    std::map<std::string, Png> shots;
    for (const CompareConfig& config : matrix) {
        if (no_rt.count(config.name)) continue;
        shots[config.name] = read_png(dir + "/" + config.name + ".png");
        ASSERT_EQ(shots[config.name].width, kCompareWidth) << config.name;
        ASSERT_EQ(shots[config.name].height, kCompareHeight) << config.name;
    }
    EXPECT_GT(geometry_pixels(shots["all-subgroup"]), kCompareWidth * kCompareHeight / 5) << "the frame is mostly clear colour";
    // Culling is conservative: the surviving triangles draw exactly the pixels of drawing everything
    // (the cull pass's own test: identical to --cull off).
    EXPECT_EQ(shots["cull-subgroup"].rgba, shots["cull-fallback"].rgba);
    EXPECT_EQ(shots["cull-subgroup"].rgba, shots["cull-off"].rgba);
    // The mip is a by-product: the frame never changes with its variant (the mips are identical,
    // so is the exposure measured from them), nor with the exposure's. Without a mip the exposure
    // is fixed: that frame is exposure-off's.
    EXPECT_EQ(shots["mip-subgroup"].rgba, shots["mip-fallback"].rgba);
    EXPECT_EQ(shots["mip-forward"].rgba, shots["mip-fallback"].rgba);
    EXPECT_EQ(shots["exposure-subgroup"].rgba, shots["exposure-fallback"].rgba);
    EXPECT_EQ(shots["mip-off"].rgba, shots["exposure-off"].rgba);
    // Light lists shade with the same lights in another order, so only float rounding of the sum
    // differs. The light-cull pass's own tolerance against brute force (--light-cull off): every
    // channel within 2 of 255, and at most 0.5% of pixels different at all.
    for (auto [a, b] : {std::pair{"light-cull-subgroup", "light-cull-fallback"}, std::pair{"light-cull-subgroup", "light-cull-off"},
                        std::pair{"light-cull-fallback", "light-cull-off"}, std::pair{"all-subgroup", "all-fallback"}}) {
        RgbDifference d = rgb_difference(shots[a], shots[b]);
        EXPECT_LE(d.max, 2) << a << " vs " << b;
        EXPECT_LE(d.pixels * 200, kCompareWidth * kCompareHeight) << a << " vs " << b << ": " << d.pixels << " pixels differ";
    }
    // The visibility frames against forward's, within the bound; the two derivative variants
    // against each other within the same (they differ by rounding at most: docs/visibility.md). Not
    // pairs of the difference panel, which holds only frames that must be identical.
    for (const char* row : {"shading-visibility", "shading-visibility-fallback"}) {
        EXPECT_GE(rgb_psnr(shots[row].rgba, shots["shading-forward"].rgba), kMinShadingPsnr) << row;
        printf("%s against shading-forward: %.2f dB\n", row, rgb_psnr(shots[row].rgba, shots["shading-forward"].rgba));
    }
    EXPECT_GE(rgb_psnr(shots["shading-visibility"].rgba, shots["shading-visibility-fallback"].rgba), kMinShadingPsnr);
    // Every row but the shading ones shades as auto does, without tuning: forward.
    EXPECT_EQ(shots["shading-forward"].rgba, shots["cull-subgroup"].rgba);
    // Ray tracing: the variants trace the same rays (only their statistics are counted otherwise),
    // and the traced frame has shadows and reflections that the untraced one lacks.
    if (!no_rt.count("ray-trace-fallback")) {
        if (!no_rt.count("ray-trace-subgroup")) EXPECT_EQ(shots["ray-trace-subgroup"].rgba, shots["ray-trace-fallback"].rgba);
        EXPECT_GT(rgb_difference(shots["ray-trace-fallback"], shots["ray-trace-off"]).pixels, kCompareWidth * kCompareHeight / 50);
    }

    // compare.png: the layout's size; each cell's thumbnail is its screenshot reduced in linear
    // light; each label strip and the header carry text.
    Png sheet = read_png(dir + "/compare.png");
    SheetLayout layout = compare_sheet_layout(kCompareWidth, kCompareHeight, matrix.size());
    ASSERT_EQ(sheet.width, layout.width);
    ASSERT_EQ(sheet.height, layout.height);
    EXPECT_GT(non_background_pixels(sheet, layout.header()), 500);
    // The grid opens with the difference panel (one cell per pair), then the configurations.
    const size_t first = difference_cells();
    for (size_t i = 0; i < matrix.size(); ++i) {
        if (no_rt.count(matrix[i].name)) continue;  // an empty cell saying why (checked in the masked test)
        PixelRect t = layout.thumb(first + i);
        Png expected = reduce_in_linear_light(shots[matrix[i].name], layout.downscale);
        ASSERT_EQ(expected.width, t.w);
        ASSERT_EQ(expected.height, t.h);
        RgbDifference d = rgb_difference(sheet, expected, t.x, t.y);
        EXPECT_LT(d.mean, 0.5) << matrix[i].name;
        EXPECT_LE(d.max, 2) << matrix[i].name;
        EXPECT_GT(non_background_pixels(sheet, layout.label(first + i)), 400) << matrix[i].name;
    }
    // The chart band carries the bars.
    EXPECT_GT(non_background_pixels(sheet, layout.band()), 5000);

    // The difference panel's counts are a CPU comparison of the screenshots, pair by pair.
    std::vector<DifferencePair> pairs = difference_pairs();
    ASSERT_EQ(report["differences"].size(), pairs.size());
    for (size_t i = 0; i < pairs.size(); ++i) {
        const nlohmann::json& d = report["differences"][i];
        EXPECT_EQ(d["subgroup_run"], pairs[i].subgroup_run);
        EXPECT_EQ(d["fallback_run"], pairs[i].fallback_run);
        if (no_rt.count(pairs[i].subgroup_run) || no_rt.count(pairs[i].fallback_run)) continue;  // not compared
        RgbDifference cpu = rgb_difference(shots[pairs[i].subgroup_run], shots[pairs[i].fallback_run]);
        EXPECT_EQ(d["differing_pixels"].get<size_t>(), size_t(cpu.pixels)) << pairs[i].subgroup_run;
        // Its thumbnail is all black for identical images, and not for different ones.
        PixelRect t = layout.thumb(i);
        if (cpu.pixels == 0) EXPECT_EQ(black_pixels(sheet, t), t.w * t.h) << pairs[i].subgroup_run;
        else EXPECT_LT(black_pixels(sheet, t), t.w * t.h) << pairs[i].subgroup_run;
    }

    // The run-to-run cell after the pairs: all-fallback rendered twice, compared on the CPU here too.
    // lavapipe draws a draw's triangles in order, so its frames are the same from run to run: 0,
    // unless something of one configuration's run leaked into the next (exposure, buffers, state).
    Png again = read_png(dir + "/all-fallback-again.png");
    RgbDifference noise = rgb_difference(again, shots["all-fallback"]);
    EXPECT_EQ(noise.pixels, 0);
    EXPECT_EQ(report["run_to_run"]["run"], "all-fallback");
    EXPECT_EQ(report["run_to_run"]["differing_pixels"].get<size_t>(), size_t(noise.pixels));
    PixelRect noise_cell = layout.thumb(pairs.size());
    EXPECT_EQ(black_pixels(sheet, noise_cell), noise_cell.w * noise_cell.h);
    EXPECT_GT(non_background_pixels(sheet, layout.label(pairs.size())), 200);

    // Each image is the frame a process of its own renders (issue 43): the second configuration of
    // the matrix and all-fallback, occlusion on, against separate --headless runs, byte for byte.
    for (const CompareConfig& config : {matrix[1], matrix[matrix.size() - 1]}) {
        std::string fresh = dir + "/fresh-" + config.name + ".png";
        DemoRun alone = run_demo(headless_args(config, {"--validate", "--size",
                                                        std::to_string(kCompareWidth) + "x" + std::to_string(kCompareHeight),
                                                        "--frames", "3", "--warmup", "1", "--lights", "64", "--scene", kCompareScene,
                                                        "--screenshot", fresh}));
        ASSERT_EQ(alone.exit_code, 0) << alone.output;
        EXPECT_EQ(read_png(fresh).rgba, shots[config.name].rgba) << config.name;
    }

    // chart.svg: one pair per ratio of report.json, with its numbers.
    std::string svg = read_text_file(dir + "/chart.svg");
    ASSERT_NE(svg.find("<svg"), std::string::npos);
    for (const auto& [key, ratio] : report["ratios"].items()) {
        size_t at = svg.find("data-key=\"" + key + "\"");
        ASSERT_NE(at, std::string::npos) << key;
        std::string element = svg.substr(at, svg.find("/>", at) - at);
        if (ratio.is_number())
            EXPECT_NE(element.find("data-verdict=\"" + report["ratio_details"][key]["verdict"].get<std::string>() + "\""),
                      std::string::npos)
                << element;
    }
    for (const PassInfo& pass : kPasses) {
        std::string key(pass.key), name(pass.name);
        std::string tag = "data-pass=\"" + name + "\"";
        size_t at = svg.find(tag);
        ASSERT_NE(at, std::string::npos) << name;
        std::string element = svg.substr(at, svg.find("/>", at) - at);
        const nlohmann::json& detail = report["ratio_details"][key];
        bool measured = detail.contains("subgroup_ms");
        EXPECT_NE(element.find(measured ? "data-measured=\"1\"" : "data-measured=\"0\""), std::string::npos) << element;
        if (!measured) continue;
        auto attribute = [&](const std::string& a) {
            size_t p = element.find(a + "=\"");
            return p == std::string::npos ? -1.0 : std::stod(element.substr(p + a.size() + 2));
        };
        EXPECT_NEAR(attribute("data-subgroup-ms"), detail["subgroup_ms"].get<double>(), 1e-5) << name;
        EXPECT_NEAR(attribute("data-fallback-ms"), detail["fallback_ms"].get<double>(), 1e-5) << name;
        if (report["ratios"][key].is_number())
            EXPECT_NEAR(attribute("data-ratio"), report["ratios"][key].get<double>(), 1e-5) << name;
    }
    EXPECT_NE(run.output.find("the chart " + dir + "/chart.svg"), std::string::npos) << run.output;
}

// A device without quad operations cannot run the quad mip: those configurations are skipped
// with the reason, the rest still run, and the mip ratio is null with the reason. A debug view
// asked for on the command line is not what a comparison times: every run is shaded.
TEST(Compare, UnsupportedSubgroupPathIsSkippedWithItsReason) {
    REQUIRE_DRAWING();
    std::string dir = test_dir("masked");
    // A small generated model (tools/gen_scene.cpp --test-scenes) keeps this second comparison
    // cheap; it also shows --scene and --lights are honoured.
    std::string scene = SGD_TEST_SCENES "/knot.gltf";
    DemoRun run = run_demo({"--compare", "--out", dir, "--mask-ops", "quad", "--size", "96x54", "--frames", "2", "--warmup", "1",
                            "--lights", "16", "--scene", scene, "--view", "lane-id"});
    ASSERT_EQ(run.exit_code, 0) << run.output;
    nlohmann::json report = read_json(dir + "/report.json");
    ASSERT_TRUE(report.is_object());
    std::set<std::string> skipped, no_rt = ray_tracing_skips(report);
    for (const nlohmann::json& s : report["skipped"]) {
        skipped.insert(s["name"].get<std::string>());
        if (!no_rt.count(s["name"])) EXPECT_NE(s["reason"].get<std::string>().find("quad"), std::string::npos) << s.dump();
    }
    // The pyramid's subgroup variant reduces 2x2 texels with quad swaps in compute; so do
    // visibility's quad-swap derivatives, which the raster rows shade with too.
    std::set<std::string> expected = {"mip-subgroup",    "mip-forward",     "occlusion-subgroup", "shading-visibility",
                                      "raster-hardware", "raster-compute", "raster-compute-fallback", "all-subgroup"};
    expected.insert(no_rt.begin(), no_rt.end());
    EXPECT_EQ(skipped, expected);
    EXPECT_EQ(report["runs"].size(), comparison_matrix().size() - expected.size());
    for (const nlohmann::json& r : report["runs"]) {
        EXPECT_EQ(r["scene"]["path"], scene);
        EXPECT_EQ(r["scene"]["lights"], 16);
        EXPECT_EQ(r["frame"]["height"], 54);
        EXPECT_EQ(r["subgroup"]["masked_operations"], nlohmann::json::array({"quad"}));
        EXPECT_EQ(r["plan"]["view"]["mode"], "shaded") << "a comparison times the passes of the shaded frame";
    }
    EXPECT_TRUE(report["ratios"]["mip"].is_null());
    EXPECT_NE(report["ratio_details"]["mip"]["reason"].get<std::string>().find("mip-subgroup was skipped"), std::string::npos);
    EXPECT_TRUE(report["ratios"]["frame"].is_null());
    // Visibility against forward is still measured, with the analytic derivatives auto runs here;
    // the derivatives ratio is null with the reason.
    EXPECT_EQ(report["ratio_details"]["shading"]["subgroup_run"], "shading-visibility-fallback");
    EXPECT_TRUE(report["ratios"]["shading"].is_number()) << report["ratio_details"]["shading"].dump();
    EXPECT_TRUE(report["ratios"]["derivatives"].is_null());
    // The materials pair runs with the analytic derivatives here: waterfall and nonuniformEXT both.
    EXPECT_EQ(report["ratio_details"]["materials"]["subgroup_run"], "shading-visibility-fallback");
    EXPECT_TRUE(report["ratios"]["materials"].is_number()) << report["ratio_details"]["materials"].dump();
    EXPECT_NE(report["ratio_details"]["derivatives"]["reason"].get<std::string>().find("shading-visibility was skipped"),
              std::string::npos)
        << report["ratio_details"]["derivatives"].dump();
    EXPECT_TRUE(report["ratios"].contains("cull"));
    EXPECT_TRUE(report["ratios"].contains("light_cull"));
    EXPECT_FALSE(std::filesystem::exists(dir + "/mip-subgroup.png"));

    // The sheet keeps every cell: a skipped one has an empty thumbnail and says why.
    std::vector<CompareConfig> matrix = comparison_matrix();
    Png sheet = read_png(dir + "/compare.png");
    SheetLayout layout = compare_sheet_layout(96, 54, matrix.size());
    ASSERT_EQ(sheet.width, layout.width);
    ASSERT_EQ(sheet.height, layout.height);
    const size_t first = difference_cells();  // the difference panel's cells come first
    for (size_t i = 0; i < matrix.size(); ++i) {
        bool is_skipped = skipped.count(matrix[i].name) > 0;
        EXPECT_EQ(non_background_pixels(sheet, layout.thumb(first + i)) == 0, is_skipped) << matrix[i].name;
        EXPECT_GT(non_background_pixels(sheet, layout.label(first + i)), 200) << matrix[i].name;
    }
}

}  // namespace

// Issue 43: inside one --compare on an NVIDIA H100 the cull pair and the run-to-run cell read 17 to
// 26 pixels one step apart while separate processes rendered identical frames, and the images then
// came from renderers that shared the device. Now every row renders on one renderer, switched by
// plan, each row keeping its own exposure and occlusion history across the others' frames, and
// keeps its frame image_frame from the rounds (write_images). Held here: one renderer alive through
// the set-up and the rounds, none after; each image, lights and exposure moving from frame to
// frame, equals byte for byte the screenshot of a separate --headless process of that
// configuration with --frames image_frame + 1, with a row of another frame (ray-trace-off: no
// shadows, another exposure) and one without occlusion (occlusion-off: the next row renders an
// untimed frame for its pyramid first) interleaved with the others; and rendering it all again
// gives the same bytes.
TEST(Compare, EachImageIsAFrameOfItsRoundsAndEqualsAProcessOfItsOwn) {
    REQUIRE_DRAWING();
    const Context& ctx = test_context();
    std::string dir = test_dir("compare-images");
    Options o;
    o.scene = kCompareScene;
    o.width = 96, o.height = 54;
    o.lights = 16;
    o.frames = 7, o.warmup = 1;  // 6 rounds of one frame: the image is frame 4, the last of the first 4
    o.plan.lod = false;  // as run_demo adds --lod off to the separate processes
    Scene scene = load_requested_scene(o);
    auto planned = [&] {
        std::vector<CompareRun> runs;
        for (const CompareConfig& config : comparison_matrix())
            if (config.name == "cull-subgroup" || config.name == "cull-fallback" || config.name == "ray-trace-off" ||
                config.name == "occlusion-off") {
                runs.push_back({config, false, "", make_plan(ctx.subgroup, ctx.features, plan_request(config, o.plan.lod))});
                if (config.name != "ray-trace-off") EXPECT_NE(runs.back().plan[PassId::ray_trace].variant, Variant::off) << config.name;
                if (config.name != "occlusion-off") EXPECT_NE(runs.back().plan[PassId::occlusion].variant, Variant::off) << config.name;
            }
        return runs;
    };
    std::vector<CompareRun> runs = planned();
    ASSERT_EQ(runs.size(), 4u);
    if (runs[0].plan[PassId::ray_trace].variant == Variant::off) GTEST_SKIP() << "no ray tracing: every row draws the same frame";

    const uint32_t before = Renderer::alive();
    std::vector<uint32_t> at_step;
    CompareMethod method;
    {
        SharedRenderer shared;
        method = render_in_rounds(ctx, scene, o, runs, [&](const std::string&, bool) { at_step.push_back(Renderer::alive()); },
                                  0, {}, &shared, true);
        EXPECT_EQ(method.renderers, 1u);
    }
    EXPECT_EQ(Renderer::alive(), before);
    // One renderer: none before the first set-up, the shared one before each later step.
    std::vector<uint32_t> steps(4 + method.rounds(), before + 1);
    steps[0] = before;
    EXPECT_EQ(at_step, steps);
    ASSERT_EQ(method.rounds(), 6u);
    EXPECT_EQ(method.image_frame, 4u);
    write_images(ctx, scene, o, runs, dir, method);

    for (const CompareRun& run : runs) {
        EXPECT_EQ(run.validation_messages, 0u) << run.config.name;
        EXPECT_EQ(run.result.rounds[size_t(Timer::frame)].size(), method.rounds()) << run.config.name;
        EXPECT_EQ(run.result.image_frame, method.image_frame) << run.config.name;
        EXPECT_EQ(run.result.screenshot, dir + "/" + run.config.name + ".png");
        EXPECT_EQ(run.report["outputs"]["screenshot"], run.result.screenshot) << run.config.name;
        std::string fresh = dir + "/fresh-" + run.config.name + ".png";
        DemoRun alone = run_demo(headless_args(run.config, {"--scene", o.scene, "--size", "96x54", "--frames", "5", "--warmup", "1",
                                                            "--lights", "16", "--screenshot", fresh}));
        ASSERT_EQ(alone.exit_code, 0) << alone.output;
        Png image = read_png(run.result.screenshot), process = read_png(fresh);
        EXPECT_GT(geometry_pixels(image), 500) << run.config.name;
        EXPECT_EQ(image.rgba, process.rgba) << run.config.name;
        if (run.config.name != "ray-trace-off")
            EXPECT_GT(rgb_difference(image, read_png(dir + "/ray-trace-off.png")).pixels, 96 * 54 / 50) << run.config.name;
    }
    // The frames repeat: the same rows rendered again give the same bytes.
    std::vector<CompareRun> again = planned();
    SharedRenderer shared;
    render_in_rounds(ctx, scene, o, again, {}, 0, {}, &shared, true);
    for (size_t i = 0; i < runs.size(); ++i) EXPECT_EQ(again[i].result.image, runs[i].result.image) << runs[i].config.name;
}
