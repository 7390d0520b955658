#include "compare/tuning.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>
#include <unistd.h>

#include "render/text_format.h"

namespace fs = std::filesystem;

std::string tuning_folder() {
    if (const char* xdg = getenv("XDG_CACHE_HOME"); xdg && *xdg) return (fs::path(xdg) / "subgroup-demo").string();
    if (const char* home = getenv("HOME"); home && *home) return (fs::path(home) / ".cache" / "subgroup-demo").string();
    return "";
}

const SizeClass& size_class(uint32_t width, uint32_t height) {
    static constexpr std::array<SizeClass, 3> kClasses = {{
        {"up to 640x360", "to640x360", 640ull * 360},
        {"up to 1920x1080", "to1920x1080", 1920ull * 1080},
        {"above 1920x1080", "above1920x1080", UINT64_MAX},
    }};
    uint64_t pixels = uint64_t(width) * height;
    for (const SizeClass& c : kClasses)
        if (pixels <= c.max_pixels) return c;
    return kClasses.back();
}

namespace {

// The band of n: the least 16^k >= n with k >= min_exponent (capped where 16^k would overflow).
uint64_t band(uint64_t n, int min_exponent) {
    uint64_t top = 1;
    for (int k = 0; k < min_exponent; ++k) top *= 16;
    while (top < n && top <= UINT64_MAX / 16) top *= 16;
    return top;
}

// 256, 4K, 64K, 1M, 16M, 256M, 4G: a band's bound in binary units, as the file name spells it.
std::string short_count(uint64_t n) {
    const char* units[] = {"", "K", "M", "G", "T", "P"};
    int u = 0;
    while (n >= 1024 && n % 1024 == 0 && u < 5) n /= 1024, ++u;
    return std::to_string(n) + units[u];
}

std::string grouped(uint64_t n) {  // 1,048,576
    std::string digits = std::to_string(n), text;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i && (digits.size() - i) % 3 == 0) text += ',';
        text += digits[i];
    }
    return text;
}

}  // namespace

SceneClass scene_class(uint64_t triangles, uint32_t lights) { return {band(triangles, 5), band(lights, 2)}; }

std::string SceneClass::name() const {
    return "up to " + short_count(max_triangles) + " triangles and " + short_count(max_lights) + " lights";
}

std::string SceneClass::tag() const { return "to" + short_count(max_triangles) + "tri-to" + short_count(max_lights) + "lights"; }

std::string key_text(const TuningKey& key) {
    return std::to_string(key.width) + "x" + std::to_string(key.height) + ", " + grouped(key.triangles) + " triangles, " +
           grouped(key.lights) + " lights";
}

TuningKey tuning_key(const Options& options, uint64_t triangles) {
    return {options.width, options.height, triangles, options.lights};
}

std::string tuning_path(const DeviceInfo& device, const TuningKey& key) {
    // The driver string names the version ("Mesa 25.0.7", "NVIDIA 570.86.15"): a new driver is a
    // new file, so an upgrade starts untuned instead of trusting the old driver's timings.
    std::string driver;
    for (char c : device.driver) driver += std::isalnum(uint8_t(c)) || c == '.' ? c : '-';
    char ids[32];
    snprintf(ids, sizeof ids, "%04x-%04x", device.vendor_id, device.device_id);
    return (fs::path(tuning_folder()) /
            ("tuning-" + std::string(ids) + "-" + driver + "-" + size_class(key.width, key.height).tag + "-" +
             scene_class(key.triangles, key.lights).tag() + ".json")).string();
}

std::string build_id(const std::string& executable) {
    // FNV-1a over the executable's bytes, then each shader's name and bytes in name order.
    uint64_t hash = 0xcbf29ce484222325ull;
    auto add = [&](const std::string& bytes) {
        for (unsigned char c : bytes) hash = (hash ^ c) * 0x100000001b3ull;
    };
    auto read = [](const fs::path& path) {
        std::ifstream in(path, std::ios::binary);
        return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    };
    add(read(executable));
    std::error_code error;
    std::vector<fs::path> shaders;
    for (const auto& entry : fs::directory_iterator(fs::path(executable).parent_path() / "shaders", error))
        if (entry.path().extension() == ".spv") shaders.push_back(entry.path());
    std::sort(shaders.begin(), shaders.end());
    for (const fs::path& shader : shaders) add(shader.filename().string() + "\n" + read(shader));
    char text[24];
    snprintf(text, sizeof text, "%016llx", (unsigned long long)hash);
    return text;
}

std::string current_build_id() {
    static const std::string id = [] {
        std::error_code error;
        fs::path self = fs::read_symlink("/proc/self/exe", error);
        return build_id(error ? std::string("") : self.string());
    }();
    return id;
}

namespace {

nlohmann::json device_identity(const DeviceInfo& d) {
    return {{"name", d.name}, {"vendor_id", d.vendor_id}, {"device_id", d.device_id}, {"driver", d.driver}};
}

nlohmann::json bound(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

// One ratio's entry: its ratio, interval and verdict (null without a ratio, and then the reason).
nlohmann::json measured_in_json(MeasuredIn in) {
    return {{"geometry", geometry_name(in.geometry)}, {"shading", shading_name(in.shading)}};
}

nlohmann::json verdict_json(const PassRatio& r, MeasuredIn in) {
    nlohmann::json j = {
        {"measured_in", measured_in_json(in)},
        {"ratio", r.ratio ? nlohmann::json(*r.ratio) : nlohmann::json(nullptr)},
        {"ratio_ci95", r.ci95 ? nlohmann::json::array({bound(r.ci95->lo), bound(r.ci95->hi)}) : nlohmann::json(nullptr)},
        {"verdict", r.ratio ? nlohmann::json(verdict_name(r.verdict)) : nlohmann::json(nullptr)}};
    if (!r.ratio) j["reason"] = r.reason;
    return j;
}

nlohmann::json member(const nlohmann::json& o, const char* key) {
    return o.is_object() && o.contains(key) ? o[key] : nlohmann::json();
}

// An entry's winner where its verdict was significant: "level" (the interval holds 1.0), no ratio
// or an entry of the wrong shape leave auto to the capability rule.
// The entry's `measured_in`, where it has one of the right shape, else the section's configuration.
std::optional<MeasuredPreference> preference(const nlohmann::json& entry, const std::string& made_by, const std::string& date,
                                             MeasuredIn in) {
    nlohmann::json ratio = member(entry, "ratio"), verdict = member(entry, "verdict");
    if (!ratio.is_number() || ratio.get<double>() <= 0 || !verdict.is_string()) return std::nullopt;
    std::string word = verdict.get<std::string>();
    if (word != "faster" && word != "slower") return std::nullopt;
    nlohmann::json where = member(entry, "measured_in"), geometry = member(where, "geometry"), shading = member(where, "shading");
    if (geometry.is_string())
        if (auto g = parse_geometry(geometry.get<std::string>())) in.geometry = *g;
    if (shading.is_string())
        if (auto s = parse_shading(shading.get<std::string>())) in.shading = *s;
    return MeasuredPreference{word == "faster" ? Variant::subgroup : Variant::fallback, ratio.get<double>(), made_by, date, in};
}

constexpr MeasuredIn kForwardRows{Geometry::indexed, Shading::forward};
constexpr MeasuredIn kVisibilityRows{Geometry::indexed, Shading::visibility};
// The passes whose verdict under visibility is one of its own (verdict_applies): "visibility.mip", "visibility.ray_trace".
constexpr std::array<PassId, 2> kVisibilityPasses = {PassId::mip, PassId::ray_trace};

}  // namespace

std::string today_utc() {
    std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm utc{};
    gmtime_r(&now, &utc);
    char date[16];
    strftime(date, sizeof date, "%Y-%m-%d", &utc);
    return date;
}

const std::array<PathDecision, 4> kPathDecisions = {{
    {"shading", 0, &LoadedTuning::shading, &PlanRequest::measured_shading, Shading::forward},
    {"derivatives", 1, &LoadedTuning::derivatives, &PlanRequest::measured_derivatives, Shading::visibility},
    {"raster", 2, &LoadedTuning::raster, &PlanRequest::measured_raster, Shading::visibility},
    {"raster_path", 3, &LoadedTuning::raster_path, &PlanRequest::measured_raster_path, Shading::visibility},
}};

nlohmann::json tuning_json(const DeviceInfo& device, const std::string& made_by, const std::string& date, const TuningKey& key,
                           const PassRatios& ratios, const ShadingRatios& shading,
                           const PassRatios& under_visibility, const std::string& build, const nlohmann::json& quick) {
    nlohmann::json passes = nlohmann::json::object();
    for (const PassInfo& pass : kPasses) passes[std::string(pass.key)] = verdict_json(ratios[size_t(pass.id)], kForwardRows);
    nlohmann::json visibility = nlohmann::json::object();
    // The forward/visibility verdict names the indexed path its rows draw; its shading is forward's side.
    for (const PathDecision& d : kPathDecisions)
        visibility[d.key] = verdict_json(shading[d.ratio], {Geometry::indexed, d.measured_under});
    for (PassId id : kVisibilityPasses) visibility[std::string(pass_info(id).key)] = verdict_json(under_visibility[size_t(id)], kVisibilityRows);
    return {{"format", kTuningFormat}, {"device", device_identity(device)}, {"build", build}, {"made_by", made_by},
            {"date", date}, {"size", {key.width, key.height}},
            {"scene", {{"triangles", key.triangles}, {"lights", key.lights}}}, {"passes", passes}, {"visibility", visibility}, {"quick", quick}};
}

size_t LoadedTuning::count() const {
    size_t n = 0;
    for (const auto& m : measured) n += m.has_value();
    for (const auto& m : measured_visibility) n += m.has_value();
    for (const PathDecision& d : kPathDecisions) n += (this->*d.loaded).has_value();
    return n;
}

void set_measured(PlanRequest& request, const LoadedTuning* tuning) {
    request.measured = tuning ? tuning->measured : MeasuredPreferences{};
    request.measured_visibility = tuning ? tuning->measured_visibility : MeasuredPreferences{};
    for (const PathDecision& d : kPathDecisions) request.*d.request = tuning ? tuning->*d.loaded : std::nullopt;
}

bool has_measured(const PlanRequest& request) {
    bool any = request.measured != MeasuredPreferences{} || request.measured_visibility != MeasuredPreferences{};
    for (const PathDecision& d : kPathDecisions) any = any || (request.*d.request).has_value();
    return any;
}

LoadedTuning parse_tuning(const std::string& text, const DeviceInfo& device, const TuningKey& key, const std::string& build) {
    LoadedTuning t;
    t.found = true;
    t.run = key;
    nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
        t.ignored = "not a valid tuning file (corrupt JSON)";
        return t;
    }
    // Every field is checked for its type before use: a hand-edited file must not throw.
    auto get = member;
    nlohmann::json format = get(j, "format"), d = get(j, "device"), passes = get(j, "passes");
    if (!format.is_number_integer()) {
        t.ignored = "not a valid tuning file (no format version)";
        return t;
    }
    if (format.get<int>() != kTuningFormat) {
        t.ignored = "written in tuning format " + std::to_string(format.get<int>()) + ", this build reads format " +
                    std::to_string(kTuningFormat) + "; run --tune again";
        return t;
    }
    nlohmann::json name = get(d, "name"), vendor = get(d, "vendor_id"), id = get(d, "device_id"), driver = get(d, "driver");
    if (!name.is_string() || !vendor.is_number_unsigned() || !id.is_number_unsigned() || !driver.is_string() ||
        !passes.is_object() || !get(j, "date").is_string() || !get(j, "made_by").is_string()) {
        t.ignored = "not a valid tuning file (device, date or passes missing)";
        return t;
    }
    if (name.get<std::string>() != device.name || vendor.get<uint32_t>() != device.vendor_id || id.get<uint32_t>() != device.device_id) {
        t.ignored = "measured on another device (" + name.get<std::string>() + "), not " + device.name;
        return t;
    }
    if (driver.get<std::string>() != device.driver) {
        t.ignored = "measured with another driver (" + driver.get<std::string>() + "), this one is " + device.driver;
        return t;
    }
    if (!get(j, "build").is_string()) {
        t.ignored = "not a valid tuning file (no build id)";
        return t;
    }
    if (j["build"].get<std::string>() != build) {
        t.ignored = "measured with another build of subgroup-demo (" + j["build"].get<std::string>() + "), this one is " + build;
        return t;
    }
    // The size class: a file holds the verdicts of the class it was measured at (its name says
    // which); a file of another class, copied or renamed, is not used at this size.
    nlohmann::json size = get(j, "size");
    if (!size.is_array() || size.size() != 2 || !size[0].is_number_unsigned() || !size[1].is_number_unsigned()) {
        t.ignored = "not a valid tuning file (no size)";
        return t;
    }
    t.measured_for.width = size[0].get<uint32_t>(), t.measured_for.height = size[1].get<uint32_t>();
    const SizeClass &measured = size_class(t.measured_for.width, t.measured_for.height), &run = size_class(key.width, key.height);
    if (&measured != &run) {
        t.ignored = "measured at " + std::to_string(t.measured_for.width) + "x" + std::to_string(t.measured_for.height) + " (" +
                    measured.name + "), this run is " + std::to_string(key.width) + "x" + std::to_string(key.height) + " (" +
                    run.name + "): another size class";
        return t;
    }
    // The scene class, the same way: a verdict of a scene with other bands of triangles or lights.
    nlohmann::json scene = get(j, "scene"), triangles = get(scene, "triangles"), lights = get(scene, "lights");
    if (!triangles.is_number_unsigned() || !lights.is_number_unsigned()) {
        t.ignored = "not a valid tuning file (no scene)";
        return t;
    }
    t.measured_for.triangles = triangles.get<uint64_t>(), t.measured_for.lights = lights.get<uint32_t>();
    SceneClass measured_scene = scene_class(t.measured_for.triangles, t.measured_for.lights);
    SceneClass run_scene = scene_class(key.triangles, key.lights);
    if (measured_scene != run_scene) {
        t.ignored = "measured on a scene of " + grouped(t.measured_for.triangles) + " triangles and " +
                    grouped(t.measured_for.lights) + " lights (" + measured_scene.name() + "), this one has " +
                    grouped(key.triangles) + " and " + grouped(key.lights) + " (" + run_scene.name() + "): another scene class";
        return t;
    }
    t.made_by = j["made_by"].get<std::string>();
    t.date = j["date"].get<std::string>();
    for (const PassInfo& pass : kPasses)
        t.measured[size_t(pass.id)] = preference(get(passes, std::string(pass.key).c_str()), t.made_by, t.date, kForwardRows);
    nlohmann::json visibility = get(j, "visibility");
    for (const PathDecision& d : kPathDecisions)
        t.*d.loaded = preference(get(visibility, d.key), t.made_by, t.date, {Geometry::indexed, d.measured_under});
    for (PassId id : kVisibilityPasses)
        t.measured_visibility[size_t(id)] = preference(get(visibility, std::string(pass_info(id).key).c_str()), t.made_by, t.date, kVisibilityRows);
    return t;
}

LoadedTuning load_tuning(const DeviceInfo& device, const TuningKey& key) {
    LoadedTuning t;
    t.path = tuning_path(device, key);
    t.run = key;
    std::ifstream file(t.path);
    if (tuning_folder().empty() || !file) return t;
    std::stringstream text;
    text << file.rdbuf();
    std::string path = t.path;
    t = parse_tuning(text.str(), device, key);
    t.path = path;
    return t;
}

LoadedTuning apply_tuning(const Context& ctx, Options& options, uint64_t triangles) {
    set_measured(options.plan, nullptr);
    if (options.no_tuning) return {};
    LoadedTuning t = load_tuning(ctx.info, tuning_key(options, triangles));
    if (!t.ignored.empty()) fprintf(stderr, "note: tuning file %s ignored: %s\n", t.path.c_str(), t.ignored.c_str());
    else set_measured(options.plan, &t);
    return t;
}

std::string save_tuning(const DeviceInfo& device, const std::string& made_by, const TuningKey& key,
                        const PassRatios& ratios, const ShadingRatios& shading, const PassRatios& under_visibility,
                        const nlohmann::json& quick) {
    if (tuning_folder().empty()) throw std::runtime_error("no cache folder for the tuning file: set XDG_CACHE_HOME or HOME");
    std::error_code error;
    fs::create_directories(tuning_folder(), error);
    std::string path = tuning_path(device, key);
    // This process's own temporary file, renamed over the old one (atomic within a folder): a
    // reader sees the old file or the new one, and of two writers the last rename wins whole.
    std::string temporary = path + ".tmp." + std::to_string(getpid());
    {
        std::ofstream file(temporary);
        nlohmann::json j = tuning_json(device, made_by, today_utc(), key, ratios, shading, under_visibility,
                                       current_build_id(), quick);
        if (!file || !(file << j.dump(2) << "\n") || !file.flush()) {
            fs::remove(temporary, error);
            throw std::runtime_error("cannot write the tuning file " + temporary);
        }
    }
    fs::rename(temporary, path, error);
    if (error) {
        fs::remove(temporary, error);
        throw std::runtime_error("cannot replace the tuning file " + path + ": " + error.message());
    }
    return path;
}

bool needs_quick_tune(const LoadedTuning& t, const Options& options) {
    return !options.no_tuning && !t.usable() && !options.plan.shading && !tuning_folder().empty();
}

namespace {

// The pass rows --tune renders: each pass's subgroup and fallback, and its off where its subgroup
// path is timed inside another pass (the quad mip's cost is the resolve pass's time over mip-off);
// then the shading rows (forward, visibility with each derivative variant) and, under visibility, the
// mip's pair and the ray tracer's fallback (visibility_pass_rows: the shading pass's quad mip against
// the compute downsample, the ray tracer's two paths where it takes its surfaces from the visibility image).
std::vector<CompareConfig> tune_rows() {
    std::vector<CompareConfig> rows;
    for (const CompareConfig& c : comparison_matrix()) {
        if (c.shading) rows.push_back(c);
        if (c.name == "shading-visibility")
            for (const CompareConfig& row : visibility_pass_rows()) rows.push_back(row);
        for (const PassInfo& pass : kPasses) {
            std::string prefix = std::string(pass.name) + "-";
            if (c.geometry != Geometry::indexed || c.name.rfind(prefix, 0) != 0) continue;
            std::string variant = c.name.substr(prefix.size());
            if (variant == "subgroup" || variant == "fallback" || (variant == "off" && pass.host_timer)) rows.push_back(c);
        }
    }
    return rows;
}

// Planned as --compare plans it (every row with the same --lod), with the tuning's winners if given.
CompareRun planned(const Context& ctx, const CompareConfig& config, bool lod, const LoadedTuning* tuning = nullptr) {
    CompareRun run;
    run.config = config;
    PlanRequest request = plan_request(config, lod);
    set_measured(request, tuning);
    try {
        run.plan = make_plan(ctx.subgroup, ctx.features, request);
    } catch (const UnsupportedRequest& e) {
        run.skipped = true;
        run.skip_reason = e.what();
    }
    return run;
}

void progress_line(const std::string& name, bool skipped) {
    fprintf(stderr, "  %-22s %s\n", name.c_str(), skipped ? "skipped" : "");
}

const CompareRun* run_named(const std::vector<CompareRun>& runs, const std::string& name) {
    for (const CompareRun& r : runs)
        if (r.config.name == name && !r.skipped) return &r;
    return nullptr;
}

// The quick measurement's row of fallbacks: the compute rasterizer's fallback path and the ray tracer's.
constexpr const char* kQuickFallbacks = "raster-compute-fallback+ray-trace-fallback";

std::string measured_text(const PassRatio& r) {
    return r.ratio ? fixed(*r.ratio, 2) + "x " + (r.ci95 ? "[" + fixed(r.ci95->lo, 3) + ", " + fixed(r.ci95->hi, 3) + "]" : "[none]") +
                         " " + std::string(verdict_name(r.verdict))
                   : "no ratio: " + r.reason;
}

}  // namespace

LoadedTuning quick_tune(const Context& ctx, const Scene& scene, const Options& options) {
    using clock = std::chrono::steady_clock;
    auto started = clock::now();
    const TuningKey key = tuning_key(options, scene.triangle_count());
    // The rows of the decisions that change the frame (docs/comparison.md, "The first run"):
    // forward against visibility (one visibility row: the derivatives auto runs, the quad swaps,
    // else the analytic row; the derivatives verdict is --tune's); that visibility row, which is
    // the hardware rasterizer, against the compute rasterizer's subgroup path (raster-hardware plans
    // the same frame untuned: not rendered twice); and one row of fallbacks, the compute
    // rasterizer's fallback path with the ray tracer's fallback, against raster-compute: each of
    // the two ratios reads its own pass's timer (depth, ray_trace), so four renderers, not five.
    // Where the compute rasterizer cannot run, the ray tracer's fallback has a visibility row of its own.
    const bool ray_tracing = pass_info(PassId::ray_trace).unavailable(ctx.features).empty();
    std::vector<CompareRun> runs;
    std::string names;
    for (const CompareConfig& c : comparison_matrix()) {
        if (!c.shading || c.name == "raster-hardware") continue;
        bool quads_run = !runs.empty() && runs.back().config.name == "shading-visibility" && !runs.back().skipped;
        if (c.name == "shading-visibility-fallback" && quads_run) continue;
        CompareConfig row = c;
        if (c.name == "raster-compute-fallback" && ray_tracing) {
            row.name = kQuickFallbacks;
            row.requests[size_t(PassId::ray_trace)] = Request::fallback;
        }
        runs.push_back(planned(ctx, row, options.plan.lod));
    }
    const CompareRun* compute = run_named(runs, "raster-compute");
    const CompareRun* visibility = run_named(runs, "shading-visibility") ? run_named(runs, "shading-visibility")
                                                                          : run_named(runs, "shading-visibility-fallback");
    std::string ray_fallback = kQuickFallbacks, ray_subgroup = "raster-compute";
    if (ray_tracing && !compute && visibility) {
        CompareConfig row = visibility->config;
        row.name = ray_fallback = "shading-visibility-ray-trace-fallback";
        row.requests[size_t(PassId::ray_trace)] = Request::fallback;
        ray_subgroup = visibility->config.name;
        runs.push_back(planned(ctx, row, options.plan.lod));
    }
    for (const CompareRun& r : runs)
        if (!r.skipped) names += (names.empty() ? "" : ", ") + r.config.name;
    fprintf(stderr, "auto: no verdict stored for this device, driver and build: measuring this device for at most %.0f s "
                    "(%s; --tune measures every pass, --no-tuning skips this)\n", kQuickSeconds, names.c_str());
    // The decisions' ratios from the rows' timings so far (between rounds) or in the end.
    ShadingRatios shading;
    PassRatios under_visibility;
    auto ratios_of = [&](const std::vector<CompareRun>& rows) {
        shading = compute_shading_ratios(rows);
        if (ray_tracing) {  // the fallbacks row holds the compute rasterizer's fallback path
            PassRatio& path = shading[3];
            path = timer_ratio(rows, "raster_path", "raster-path", kQuickFallbacks, "raster-compute", Timer::depth);
            path.measured_as = "depth pass median in " + std::string(kQuickFallbacks) + " over the same in raster-compute (subgroup path)";
        }
        under_visibility = ray_tracing ? compute_visibility_ratios(rows, ray_fallback, ray_subgroup) : PassRatios{};
        under_visibility[size_t(PassId::mip)] = PassRatio{};  // not measured here: --tune's
        std::vector<PassRatio> all(shading.begin(), shading.end());
        all.push_back(under_visibility[size_t(PassId::ray_trace)]);
        return all;
    };
    // One renderer for every row (its scene upload and pipelines made once: most of the time of a
    // renderer per row), two warm-up frames per row, then rounds of one frame: adaptive (a row
    // stops once every decision it is a side of is decided, after kMinAdaptiveRounds), at most 10,
    // and none started past the budget once kMinBudgetRounds are done.
    Options o = options;
    o.warmup = 2;
    o.frames = o.warmup + 10;
    o.screenshot.clear(), o.mip_dump.clear(), o.report.clear(), o.cull_dump.clear(), o.ray_dump.clear();
    o.bandwidth_probe = false;
    CompareMethod method = render_in_rounds(
        ctx, scene, o, runs, {}, kQuickSeconds * 0.6,
        [&](const std::vector<CompareRun>& rows) { return sides_of_undecided(rows, ratios_of(rows)); }, true);
    ratios_of(runs);
    double seconds = std::chrono::duration<double>(clock::now() - started).count();
    nlohmann::json rows = nlohmann::json::array(), row_rounds = nlohmann::json::object();
    for (const CompareRun& r : runs) {
        rows.push_back(r.config.name);
        if (!r.skipped) row_rounds[r.config.name] = r.result.rounds[size_t(Timer::frame)].size();
    }
    nlohmann::json quick = {{"seconds", seconds},         {"setup_seconds", method.setup_seconds},
                            {"rounds", method.rounds()},  {"row_rounds", row_rounds},
                            {"warmup_frames", o.warmup},  {"rows", rows}};
    std::string result;
    for (const PathDecision& d : kPathDecisions)
        if (shading[d.ratio].measured)  // a decision whose rows the quick measurement did not render is --tune's
            result += std::string(result.empty() ? "" : "; ") + d.key + " " + measured_text(shading[d.ratio]);
    if (under_visibility[size_t(PassId::ray_trace)].measured)
        result += "; ray_trace under visibility " + measured_text(under_visibility[size_t(PassId::ray_trace)]);
    LoadedTuning t;
    try {
        std::string path = save_tuning(ctx.info, "quick", key, PassRatios{}, shading, under_visibility, quick);
        t = load_tuning(ctx.info, key);
        fprintf(stderr, "auto: measured this device in %.2f s (one renderer's set-up and warm-up %.2f s, %u rounds): %s; "
                "stored as a quick verdict in %s\n", seconds, method.setup_seconds, method.rounds(), result.c_str(), path.c_str());
    } catch (const std::exception& e) {
        // Not stored: the verdicts still serve this run, read back from the file's text.
        t = parse_tuning(tuning_json(ctx.info, "quick", today_utc(), key, PassRatios{}, shading, under_visibility,
                                     current_build_id(), quick).dump(), ctx.info, key);
        fprintf(stderr, "warning: auto measured this device in %.2f s (%s) but cannot store it (%s): the next run measures again\n",
                seconds, result.c_str(), e.what());
    }
    t.measured_now = true;
    t.measure_seconds = seconds;
    return t;
}

int run_tune(const Options& options) {
    Context ctx;
    create_context(ctx, context_options(options));
    Scene scene = load_requested_scene(options);
    check_device_limits(ctx, options, scene);
    fprintf(stderr, "tune: %s, %ux%u, %llu triangles, %u lights, %u frames (%u warm-up) per configuration\n",
            ctx.info.name.c_str(), options.width, options.height, (unsigned long long)scene.triangle_count(), options.lights,
            options.frames, options.warmup);
    if (!options.out_dir.empty()) fs::create_directories(options.out_dir);

    // The file this tune replaces: a quick one's choice is set against the tuned one's in the check.
    const TuningKey key = tuning_key(options, scene.triangle_count());
    LoadedTuning before = options.no_tuning ? LoadedTuning{} : load_tuning(ctx.info, key);
    bool replaces_quick = before.usable() && before.made_by == "quick";

    // 1. The pass rows, planned by capabilities alone (like --compare's), in rounds.
    std::vector<CompareRun> runs;
    for (const CompareConfig& c : tune_rows()) runs.push_back(planned(ctx, c, options.plan.lod));
    render_in_rounds(ctx, scene, options, runs, progress_line);
    PassRatios ratios = compute_ratios(runs);
    ShadingRatios shading = compute_shading_ratios(runs);
    PassRatios under_visibility = compute_visibility_ratios(runs);
    const PassRatio& visibility_mip = under_visibility[size_t(PassId::mip)];
    std::string path = save_tuning(ctx.info, "tune", key, ratios, shading, under_visibility);
    LoadedTuning tuning = load_tuning(ctx.info, key);  // read back: the check uses what auto will read
    if (!tuning.ignored.empty()) throw std::runtime_error("the tuning file just written was ignored: " + tuning.ignored);

    // 2. The check: tuned auto against the faster of all-subgroup and all-fallback, in rounds.
    std::vector<CompareRun> check;
    for (const CompareConfig& c : comparison_matrix())
        if (c.name == "all-subgroup" || c.name == "all-fallback") check.push_back(planned(ctx, c, options.plan.lod));
    if (replaces_quick) check.push_back(planned(ctx, CompareConfig{"quick-auto", {}}, options.plan.lod, &before));
    check.push_back(planned(ctx, CompareConfig{"tuned-auto", {}}, options.plan.lod, &tuning));
    render_in_rounds(ctx, scene, options, check, progress_line);
    const CompareRun *sg = run_named(check, "all-subgroup"), *fb = run_named(check, "all-fallback");
    std::string best = !fb || (sg && sg->result.timings[size_t(Timer::frame)].median <= fb->result.timings[size_t(Timer::frame)].median)
                           ? "all-subgroup" : "all-fallback";
    PassRatio verdict = timer_ratio(check, "tuned_auto", "tuned-auto", best, "tuned-auto", Timer::frame);

    // How far the quick choice it replaces was from the tuned one: quick auto's frame over tuned auto's.
    std::optional<PassRatio> quick_gap;
    if (replaces_quick) quick_gap = timer_ratio(check, "quick_auto", "quick-auto", "quick-auto", "tuned-auto", Timer::frame);

    const Plan& tuned = check.back().plan;
    auto measured = measured_text;
    for (const PassInfo& pass : kPasses)
        printf("%-12s %-40s auto -> %s (%s)\n", std::string(pass.key).c_str(), measured(ratios[size_t(pass.id)]).c_str(),
               std::string(variant_name(tuned[pass.id].variant)).c_str(), tuned[pass.id].reason.c_str());
    // The shading line names the shading and visibility's derivatives auto now takes; the
    // derivatives line the same (off: auto shades forward).
    for (const PassRatio& r : shading)
        printf("%-12s %-40s auto -> %s (%s)\n", r.key.c_str(), measured(r).c_str(),
               (r.key == "shading"       ? shading_variant_name(tuned.shading)
                : r.key == "derivatives" ? std::string(variant_name(tuned.shading.derivatives))
                                         : raster_variant_name(tuned.raster)).c_str(),
               (r.key == "shading" || r.key == "derivatives" ? tuned.shading.reason : tuned.raster.reason).c_str());
    printf("%-12s %-40s auto -> %s under visibility (%s)\n", "mip (vis.)", measured(visibility_mip).c_str(),
           tuned.shading.quad_mip ? "the shading pass's quad mip" : std::string(variant_name(tuned[PassId::mip].variant)).c_str(),
           tuned.shading.shading == Shading::visibility ? tuned[PassId::mip].reason.c_str() : "auto shades forward here");
    printf("%-12s %-40s auto -> %s under visibility (%s)\n", "ray_trace (vis.)", measured(under_visibility[size_t(PassId::ray_trace)]).c_str(),
           std::string(variant_name(tuned[PassId::ray_trace].variant)).c_str(),
           tuned.shading.shading == Shading::visibility ? tuned[PassId::ray_trace].reason.c_str() : "auto shades forward here");
    printf("tuning: wrote %s (replacing %s)\n", path.c_str(),
           before.usable() ? (before.made_by + " of " + before.date).c_str() : before.found ? "an ignored file" : "no file");
    if (quick_gap && quick_gap->ratio) {
        const CompareRun& q = *run_named(check, "quick-auto");
        bool same = plan_json(q.plan) == plan_json(tuned);
        printf("quick: the quick choice of %s (shading %s) frame %s ms, tuned auto %s ms: %.3fx tuned auto, 95%% interval [%s, %s]%s\n",
               before.date.c_str(), shading_variant_name(q.plan.shading).c_str(), format_ms(quick_gap->fallback_ms).c_str(),
               format_ms(quick_gap->subgroup_ms).c_str(), *quick_gap->ratio, quick_gap->ci95 ? fixed(quick_gap->ci95->lo, 3).c_str() : "-",
               quick_gap->ci95 ? fixed(quick_gap->ci95->hi, 3).c_str() : "-", same ? " (the same plan)" : "");
    } else if (quick_gap) {
        printf("quick: no ratio: %s\n", quick_gap->reason.c_str());
    }
    if (verdict.ratio)
        printf("check: %s frame %s ms, tuned auto %s ms: %s over tuned auto %.3fx, 95%% interval [%s, %s]: tuned auto is %s\n",
               best.c_str(), format_ms(verdict.fallback_ms).c_str(), format_ms(verdict.subgroup_ms).c_str(), best.c_str(),
               *verdict.ratio, verdict.ci95 ? fixed(verdict.ci95->lo, 3).c_str() : "-",
               verdict.ci95 ? fixed(verdict.ci95->hi, 3).c_str() : "-",
               verdict.verdict == Verdict::slower ? "SLOWER than the faster of all-subgroup and all-fallback"
                                                  : "at least as fast as the faster of all-subgroup and all-fallback, within the interval");
    else
        printf("check: no ratio: %s\n", verdict.reason.c_str());

    if (!options.out_dir.empty()) {
        nlohmann::json frames = nlohmann::json::object();
        for (const CompareRun& r : check)
            frames[r.config.name] = r.skipped ? nlohmann::json(nullptr) : nlohmann::json(r.result.timings[size_t(Timer::frame)].median);
        // Each row's medians (ms) per timer that ran in it: what the ratios of `tuning` divide, so a
        // reader can check each ratio against the measurement it came from.
        nlohmann::json rows = nlohmann::json::object();
        for (const CompareRun& r : runs) {
            nlohmann::json medians = nlohmann::json::object();
            for (const TimerInfo& t : kTimers)
                if (!r.skipped && r.result.ran[size_t(t.timer)]) medians[std::string(t.key)] = r.result.timings[size_t(t.timer)].median;
            rows[r.config.name] = r.skipped ? nlohmann::json(nullptr) : medians;
        }
        nlohmann::json out = {
            {"tuning_file", path},
            {"rows", rows},
            {"tuning", tuning_json(ctx.info, "tune", tuning.date, key, ratios, shading, under_visibility)},
            {"quick", !quick_gap ? nlohmann::json(nullptr)
                                 : nlohmann::json{{"date", before.date},
                                                  {"ratio", quick_gap->ratio ? nlohmann::json(*quick_gap->ratio) : nlohmann::json(nullptr)},
                                                  {"ratio_ci95", quick_gap->ci95 ? nlohmann::json::array({bound(quick_gap->ci95->lo), bound(quick_gap->ci95->hi)})
                                                                                 : nlohmann::json(nullptr)},
                                                  {"meaning", "frame median of the quick choice's plan over tuned auto's: 1.0 is the same speed"}}},
            {"check",
             {{"frame_ms", frames},
              {"faster_of_all", best},
              {"ratio", verdict.ratio ? nlohmann::json(*verdict.ratio) : nlohmann::json(nullptr)},
              {"ratio_ci95", verdict.ci95 ? nlohmann::json::array({bound(verdict.ci95->lo), bound(verdict.ci95->hi)}) : nlohmann::json(nullptr)},
              {"verdict", verdict.ratio ? nlohmann::json(verdict_name(verdict.verdict)) : nlohmann::json(nullptr)},
              {"meaning", "frame median of the faster of all-subgroup and all-fallback over that of tuned auto: "
                          "faster or level means tuned auto is at least as fast within the interval"}}},
            {"plan", plan_json(tuned)}};
        std::string file = (fs::path(options.out_dir) / "tune.json").string();
        std::ofstream(file) << out.dump(2) << "\n";
        printf("wrote %s\n", file.c_str());
    }
    return 0;
}

std::string tuning_summary(const LoadedTuning& t, bool disabled) {
    if (disabled) return "off (--no-tuning): auto follows the capabilities and nothing is measured";
    constexpr const char* kNext = "; the next run measures this device for at most 3 s, --tune thoroughly";
    std::string run_class = size_class(t.run.width, t.run.height).name;
    std::string run_scene = scene_class(t.run.triangles, t.run.lights).name();
    if (!t.found)
        return "none for " + key_text(t.run) + " (size class " + run_class + ", scene class " + run_scene + ": no file " +
               (t.path.empty() ? std::string("in the cache folder") : t.path) + ")" + kNext;
    if (!t.ignored.empty()) return t.path + " ignored: " + t.ignored + kNext;
    std::string what = t.path + ": " + std::to_string(t.count()) + " significant verdict(s) (" + t.made_by + " of " + t.date +
                       " at " + key_text(t.measured_for) + "); applies to " + key_text(t.run) + ": the same size class, " +
                       run_class + ", and scene class, " + run_scene;
    if (t.made_by == "quick")
        what += "; quick: the shading, the rasterizer, its path and the ray tracer under visibility, --tune measures every pass";
    return what;
}

nlohmann::json tuning_report_json(const LoadedTuning& t, bool disabled) {
    auto text = [](const std::string& s) { return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s); };
    return {{"disabled", disabled},
            {"file", text(t.path)},
            {"used", t.usable() && !disabled},
            {"made_by", text(t.made_by)},
            {"date", text(t.date)},
            {"build", disabled ? nlohmann::json(nullptr) : nlohmann::json(current_build_id())},
            {"ignored", text(t.ignored)},
            {"size_class", disabled ? nlohmann::json(nullptr) : nlohmann::json(size_class(t.run.width, t.run.height).name)},
            {"measured_size", t.measured_for.width ? nlohmann::json::array({t.measured_for.width, t.measured_for.height})
                                                   : nlohmann::json(nullptr)},
            {"scene_class", disabled ? nlohmann::json(nullptr) : nlohmann::json(scene_class(t.run.triangles, t.run.lights).name())},
            {"measured_scene", t.measured_for.width ? nlohmann::json{{"triangles", t.measured_for.triangles}, {"lights", t.measured_for.lights}}
                                                    : nlohmann::json(nullptr)},
            {"measured_now", t.measured_now},
            {"measure_seconds", t.measured_now ? nlohmann::json(t.measure_seconds) : nlohmann::json(nullptr)}};
}

int run_compare(const Options& options) {
    Context ctx;
    create_context(ctx, context_options(options));
    Scene scene = load_requested_scene(options);
    check_device_limits(ctx, options, scene);

    fprintf(stderr, "compare: %s, subgroup size %u, %ux%u, %llu triangles, %u lights, %u frames (%u warm-up)\n",
            ctx.info.name.c_str(), ctx.subgroup.size, options.width, options.height,
            (unsigned long long)scene.triangle_count(), options.lights, options.frames, options.warmup);
    // The rows run in auto's plan on this device: a typed --shading / --raster, else the stored
    // verdicts of this size class (none: the capabilities'; --no-tuning: the capabilities').
    Options tuned = options;
    apply_tuning(ctx, tuned, scene.triangle_count());
    CompareResult c = run_comparison(ctx, scene, tuned, [](const CompareProgress& p) {
        std::string eta = p.eta_s < 0 ? std::string("estimating") : "about " + std::to_string(int(std::ceil(p.eta_s))) + " s left";
        fprintf(stderr, "[%zu/%zu] %-20s %s  (%.0f s elapsed, %s)\n", p.index, p.count, p.name.c_str(),
                p.skipped ? "skipped" : "running", p.elapsed_s, eta.c_str());
    });
    for (const CompareRun& r : c.runs)
        if (r.skipped) fprintf(stderr, "skipped %s: %s\n", r.config.name.c_str(), r.skip_reason.c_str());
    for (const PassRatio& r : all_ratios(c)) {
        if (r.ratio)
            printf("%-12s speed-up %.2fx, 95%% interval %s: %s (fallback %s ms / subgroup %s ms)\n", r.key.c_str(), *r.ratio,
                   interval_text(r).c_str(), std::string(verdict_name(r.verdict)).c_str(), format_ms(r.fallback_ms).c_str(),
                   format_ms(r.subgroup_ms).c_str());
        else
            printf("%-12s no ratio: %s\n", r.key.c_str(), r.reason.c_str());
    }
    printf("%s\n", stage_probe_summary(c.probe).c_str());
    printf("plan: every row measured in auto's plan here: %s\n", base_plan_text(c.base).c_str());
    // The verdicts are what tuned auto reads (compare/tuning.h): kept for this device, driver and
    // size class. The pass rows ran in the base plan's shading: under visibility the mip's and the
    // ray tracer's verdicts are visibility's own, and the light loop's (the shading pass's) is not stored.
    PassRatios passes = c.ratios, under_visibility;
    if (c.base.shading.shading == Shading::visibility) {
        for (PassId id : {PassId::mip, PassId::ray_trace}) under_visibility[size_t(id)] = std::exchange(passes[size_t(id)], PassRatio{});
        passes[size_t(PassId::light_loop)] = PassRatio{};
    }
    printf("tuning: wrote %s (auto takes the faster path where a verdict is faster or slower)\n",
           save_tuning(ctx.info, "compare", tuning_key(options, scene.triangle_count()), passes, c.shading_ratios,
                       under_visibility).c_str());
    printf("wrote the sheet %s, the chart %s, %s, %s and %zu screenshots\n", c.sheet.c_str(), c.chart.c_str(),
           c.report_md.c_str(), c.report_json.c_str(),
           c.runs.size() - std::count_if(c.runs.begin(), c.runs.end(), [](const CompareRun& r) { return r.skipped; }));
    return 0;
}
