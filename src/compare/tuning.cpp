#include "compare/tuning.h"

#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "render/text_format.h"

namespace fs = std::filesystem;

std::string tuning_folder() {
    if (const char* xdg = getenv("XDG_CACHE_HOME"); xdg && *xdg) return (fs::path(xdg) / "subgroup-demo").string();
    if (const char* home = getenv("HOME"); home && *home) return (fs::path(home) / ".cache" / "subgroup-demo").string();
    return "";
}

std::string tuning_path(const DeviceInfo& device) {
    // The driver string names the version ("Mesa 25.0.7", "NVIDIA 570.86.15"): a new driver is a
    // new file, so an upgrade starts untuned instead of trusting the old driver's timings.
    std::string driver;
    for (char c : device.driver) driver += std::isalnum(uint8_t(c)) || c == '.' ? c : '-';
    char ids[32];
    snprintf(ids, sizeof ids, "%04x-%04x", device.vendor_id, device.device_id);
    return (fs::path(tuning_folder()) / ("tuning-" + std::string(ids) + "-" + driver + ".json")).string();
}

namespace {

nlohmann::json device_identity(const DeviceInfo& d) {
    return {{"name", d.name}, {"vendor_id", d.vendor_id}, {"device_id", d.device_id}, {"driver", d.driver}};
}

nlohmann::json bound(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

// One ratio's entry: its ratio, interval and verdict (null without a ratio, and then the reason).
nlohmann::json verdict_json(const PassRatio& r) {
    nlohmann::json j = {
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
std::optional<MeasuredPreference> preference(const nlohmann::json& entry, const std::string& made_by, const std::string& date) {
    nlohmann::json ratio = member(entry, "ratio"), verdict = member(entry, "verdict");
    if (!ratio.is_number() || ratio.get<double>() <= 0 || !verdict.is_string()) return std::nullopt;
    std::string word = verdict.get<std::string>();
    if (word != "faster" && word != "slower") return std::nullopt;
    return MeasuredPreference{word == "faster" ? Variant::subgroup : Variant::fallback, ratio.get<double>(), made_by, date};
}

}  // namespace

std::string today_utc() {
    std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm utc{};
    gmtime_r(&now, &utc);
    char date[16];
    strftime(date, sizeof date, "%Y-%m-%d", &utc);
    return date;
}

nlohmann::json tuning_json(const DeviceInfo& device, const std::string& made_by, const std::string& date, uint32_t width,
                           uint32_t height, const PassRatios& ratios, const ShadingRatios& shading) {
    nlohmann::json passes = nlohmann::json::object();
    for (const PassInfo& pass : kPasses) passes[std::string(pass.key)] = verdict_json(ratios[size_t(pass.id)]);
    nlohmann::json visibility = {{"shading", verdict_json(shading[0])}, {"derivatives", verdict_json(shading[1])}};
    // "visibility" is new in format 1 without raising it: a file without it reads as no verdict.
    return {{"format", kTuningFormat}, {"device", device_identity(device)}, {"made_by", made_by}, {"date", date},
            {"size", {width, height}}, {"passes", passes}, {"visibility", visibility}};
}

size_t LoadedTuning::count() const {
    size_t n = 0;
    for (const auto& m : measured) n += m.has_value();
    return n + shading.has_value() + derivatives.has_value();
}

void set_measured(PlanRequest& request, const LoadedTuning* tuning) {
    request.measured = tuning ? tuning->measured : MeasuredPreferences{};
    request.measured_shading = tuning ? tuning->shading : std::nullopt;
    request.measured_derivatives = tuning ? tuning->derivatives : std::nullopt;
}

bool has_measured(const PlanRequest& request) {
    return request.measured != MeasuredPreferences{} || request.measured_shading || request.measured_derivatives;
}

LoadedTuning parse_tuning(const std::string& text, const DeviceInfo& device) {
    LoadedTuning t;
    t.found = true;
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
    t.made_by = j["made_by"].get<std::string>();
    t.date = j["date"].get<std::string>();
    for (const PassInfo& pass : kPasses)
        t.measured[size_t(pass.id)] = preference(get(passes, std::string(pass.key).c_str()), t.made_by, t.date);
    nlohmann::json visibility = get(j, "visibility");
    t.shading = preference(get(visibility, "shading"), t.made_by, t.date);
    t.derivatives = preference(get(visibility, "derivatives"), t.made_by, t.date);
    return t;
}

LoadedTuning load_tuning(const DeviceInfo& device) {
    LoadedTuning t;
    t.path = tuning_path(device);
    std::ifstream file(t.path);
    if (tuning_folder().empty() || !file) return t;
    std::stringstream text;
    text << file.rdbuf();
    std::string path = t.path;
    t = parse_tuning(text.str(), device);
    t.path = path;
    return t;
}

LoadedTuning apply_tuning(const Context& ctx, Options& options) {
    set_measured(options.plan, nullptr);
    if (options.no_tuning) return {};
    LoadedTuning t = load_tuning(ctx.info);
    if (!t.ignored.empty()) fprintf(stderr, "note: tuning file %s ignored: %s\n", t.path.c_str(), t.ignored.c_str());
    else set_measured(options.plan, &t);
    return t;
}

std::string save_tuning(const DeviceInfo& device, const std::string& made_by, uint32_t width, uint32_t height,
                        const PassRatios& ratios, const ShadingRatios& shading) {
    if (tuning_folder().empty()) throw std::runtime_error("no cache folder for the tuning file: set XDG_CACHE_HOME or HOME");
    std::error_code error;
    fs::create_directories(tuning_folder(), error);
    std::string path = tuning_path(device);
    std::ofstream file(path);
    if (!file || !(file << tuning_json(device, made_by, today_utc(), width, height, ratios, shading).dump(2) << "\n"))
        throw std::runtime_error("cannot write the tuning file " + path);
    return path;
}

std::string tuning_summary(const LoadedTuning& t, bool disabled) {
    if (disabled) return "off (--no-tuning): auto follows the capabilities";
    if (!t.found) return "none (no file " + (t.path.empty() ? std::string("in the cache folder") : t.path) + "; run --tune)";
    if (!t.ignored.empty()) return t.path + " ignored: " + t.ignored;
    return t.path + ": " + std::to_string(t.count()) + " significant verdict(s) (" + t.made_by + " of " + t.date + ")";
}
