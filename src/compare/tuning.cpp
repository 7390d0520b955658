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

namespace {

// The pass rows --tune renders: each pass's subgroup and fallback, and its off where its subgroup
// path is timed inside another pass (the quad mip's cost is the resolve pass's time over mip-off);
// then the shading rows (forward, visibility with each derivative variant).
std::vector<CompareConfig> tune_rows() {
    std::vector<CompareConfig> rows;
    for (const CompareConfig& c : comparison_matrix()) {
        if (c.shading) rows.push_back(c);
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

}  // namespace

int run_tune(const Options& options) {
    Context ctx;
    create_context(ctx, context_options(options));
    Scene scene = load_requested_scene(options);
    check_device_limits(ctx, options, scene);
    fprintf(stderr, "tune: %s, %ux%u, %llu triangles, %u lights, %u frames (%u warm-up) per configuration\n",
            ctx.info.name.c_str(), options.width, options.height, (unsigned long long)scene.triangle_count(), options.lights,
            options.frames, options.warmup);
    if (!options.out_dir.empty()) fs::create_directories(options.out_dir);

    // 1. The pass rows, planned by capabilities alone (like --compare's), in rounds.
    std::vector<CompareRun> runs;
    for (const CompareConfig& c : tune_rows()) runs.push_back(planned(ctx, c, options.plan.lod));
    render_in_rounds(ctx, scene, options, runs, progress_line);
    PassRatios ratios = compute_ratios(runs);
    ShadingRatios shading = compute_shading_ratios(runs);
    std::string path = save_tuning(ctx.info, "tune", options.width, options.height, ratios, shading);
    LoadedTuning tuning = load_tuning(ctx.info);  // read back: the check uses what auto will read
    if (!tuning.ignored.empty()) throw std::runtime_error("the tuning file just written was ignored: " + tuning.ignored);

    // 2. The check: tuned auto against the faster of all-subgroup and all-fallback, in rounds.
    std::vector<CompareRun> check;
    for (const CompareConfig& c : comparison_matrix())
        if (c.name == "all-subgroup" || c.name == "all-fallback") check.push_back(planned(ctx, c, options.plan.lod));
    check.push_back(planned(ctx, CompareConfig{"tuned-auto", {}}, options.plan.lod, &tuning));
    render_in_rounds(ctx, scene, options, check, progress_line);
    const CompareRun *sg = run_named(check, "all-subgroup"), *fb = run_named(check, "all-fallback");
    std::string best = !fb || (sg && sg->result.timings[size_t(Timer::frame)].median <= fb->result.timings[size_t(Timer::frame)].median)
                           ? "all-subgroup" : "all-fallback";
    PassRatio verdict = timer_ratio(check, "tuned_auto", "tuned-auto", best, "tuned-auto", Timer::frame);

    const Plan& tuned = check.back().plan;
    auto measured = [](const PassRatio& r) {
        return r.ratio ? fixed(*r.ratio, 2) + "x " + (r.ci95 ? "[" + fixed(r.ci95->lo, 3) + ", " + fixed(r.ci95->hi, 3) + "]" : "[none]") +
                             " " + std::string(verdict_name(r.verdict))
                       : "no ratio: " + r.reason;
    };
    for (const PassInfo& pass : kPasses)
        printf("%-12s %-40s auto -> %s (%s)\n", std::string(pass.key).c_str(), measured(ratios[size_t(pass.id)]).c_str(),
               std::string(variant_name(tuned[pass.id].variant)).c_str(), tuned[pass.id].reason.c_str());
    // The shading line names the shading and visibility's derivatives auto now takes; the
    // derivatives line the same (off: auto shades forward).
    for (const PassRatio& r : shading)
        printf("%-12s %-40s auto -> %s (%s)\n", r.key.c_str(), measured(r).c_str(),
               (r.key == "shading" ? shading_variant_name(tuned.shading) : std::string(variant_name(tuned.shading.derivatives))).c_str(),
               tuned.shading.reason.c_str());
    printf("tuning: wrote %s\n", path.c_str());
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
            {"tuning", tuning_json(ctx.info, "tune", tuning.date, options.width, options.height, ratios, shading)},
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
    if (disabled) return "off (--no-tuning): auto follows the capabilities";
    if (!t.found) return "none (no file " + (t.path.empty() ? std::string("in the cache folder") : t.path) + "; run --tune)";
    if (!t.ignored.empty()) return t.path + " ignored: " + t.ignored;
    return t.path + ": " + std::to_string(t.count()) + " significant verdict(s) (" + t.made_by + " of " + t.date + ")";
}
