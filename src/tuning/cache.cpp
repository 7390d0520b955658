#include "tuning/cache.h"

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

std::string tuning_summary(const LoadedTuning& t, bool disabled) {
    if (disabled) return "off (--no-tuning): auto follows the capabilities and nothing is measured";
    constexpr const char* kNext = "; the next run measures this device in a few seconds, --tune thoroughly";
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
            {"measure_seconds", t.measured_now ? nlohmann::json(t.measure_seconds) : nlohmann::json(nullptr)},
            {"measure_setup_seconds", t.measured_now ? nlohmann::json(t.measure_setup_seconds) : nlohmann::json(nullptr)},
            {"measure_rounds_seconds", t.measured_now ? nlohmann::json(t.measure_rounds_seconds) : nlohmann::json(nullptr)},
            {"measure_renderers", t.measured_now ? nlohmann::json(t.measure_renderers) : nlohmann::json(nullptr)}};
}
