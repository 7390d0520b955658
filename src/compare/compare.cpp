#include "compare/compare.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <numeric>
#include <thread>

#include "compare/chart.h"
#include "run/image_io.h"
#include "passes/ray_trace_pass.h"  // ray_trace_rays_per_second
#include "render/text_format.h"

std::vector<CompareConfig> comparison_matrix() {
    std::vector<CompareConfig> m;
    for (const PassInfo& pass : kPasses)
        for (Request r : {Request::subgroup, Request::forward, Request::fallback, Request::off}) {
            if (!offers(pass, r)) continue;
            CompareConfig c{std::string(pass.name) + "-" + std::string(request_name(r)), {}};
            c.requests[size_t(pass.id)] = r;
            m.push_back(c);
        }
    for (Request r : {Request::subgroup, Request::fallback, Request::off}) {
        CompareConfig c{"meshlet-" + std::string(request_name(r)), {}};
        c.requests[size_t(PassId::cull)] = r;
        c.geometry = Geometry::meshlet;
        m.push_back(c);
    }
    // The frame shaded each way; within visibility, its derivatives each way.
    CompareConfig forward{"shading-forward", {}};
    forward.shading = Shading::forward;
    CompareConfig visibility{"shading-visibility", {}};
    visibility.shading = Shading::visibility;
    visibility.derivatives = Request::subgroup;
    CompareConfig analytic = visibility;
    analytic.name = "shading-visibility-fallback";
    analytic.derivatives = Request::fallback;
    // Within visibility, the per-pixel materials: nonuniformEXT against the waterfall auto runs,
    // both with the derivatives auto takes (quad swaps, as shading-visibility; analytic where the
    // device cannot, as shading-visibility-fallback: compute_shading_ratios pairs it with that).
    CompareConfig nonuniform{"shading-visibility-materials-fallback", {}};
    nonuniform.shading = Shading::visibility;
    nonuniform.materials = Request::fallback;
    m.insert(m.end(), {forward, visibility, analytic, nonuniform});
    // The visibility pre-pass drawn by each rasterizer (docs/raster.md); the compute one's two paths.
    CompareConfig hardware = visibility;
    hardware.name = "raster-hardware";
    hardware.raster = Raster::hardware;
    CompareConfig compute = hardware;
    compute.name = "raster-compute";
    compute.raster = Raster::compute;
    compute.raster_variant = Request::subgroup;
    CompareConfig compute_fallback = compute;
    compute_fallback.name = "raster-compute-fallback";
    compute_fallback.raster_variant = Request::fallback;
    m.insert(m.end(), {hardware, compute, compute_fallback});
    for (Request r : {Request::subgroup, Request::fallback}) {
        CompareConfig c{"all-" + std::string(request_name(r)), {}};
        for (const PassInfo& pass : kPasses) c.requests[size_t(pass.id)] = pass.in_all_rows ? r : Request::automatic;
        c.materials = r;  // under visibility: the waterfall, or nonuniformEXT
        m.push_back(c);
    }
    return m;
}

PlanRequest comparison_base(const PlanRequest& plan) {
    PlanRequest base = plan;
    base.passes = {};
    base.view = ViewMode::shaded;
    base.view_stage = Stage::fragment;
    base.view_level = 0;
    base.geometry = Geometry::indexed;
    return base;
}

PlanRequest plan_request(const CompareConfig& config, const PlanRequest& base) {
    PlanRequest request = base;
    request.passes = config.requests;
    request.geometry = config.geometry;
    if (config.shading) request.shading = config.shading;
    if (config.derivatives != Request::automatic) request.derivatives = config.derivatives;
    if (config.materials != Request::automatic) request.materials = config.materials;
    if (config.raster) request.raster = config.raster;
    if (config.raster_variant != Request::automatic) request.raster_variant = config.raster_variant;
    return request;
}

PlanRequest plan_request(const CompareConfig& config, bool lod) {
    PlanRequest base;
    base.lod = lod;
    return plan_request(config, base);
}

std::string base_plan_text(const Plan& plan) {
    std::string text = shading_variant_name(plan.shading) + " shading, " + raster_variant_name(plan.raster) + " rasterizer, " +
                       std::string(geometry_name(plan.geometry)) + " geometry";
    std::string measured;
    if (plan.shading.source == PlanSource::measured) measured = plan.shading.measured_by + " of " + plan.shading.measured_on;
    for (const PassPlan& p : plan.passes)
        if (measured.empty() && p.source == PlanSource::measured) measured = p.measured_by + " of " + p.measured_on;
    bool typed = plan.shading.requested || plan.raster.requested;
    return text + (typed ? " (requested)" : "") +
           (measured.empty() ? (typed ? "" : " (capabilities: no stored verdict)") : " (stored verdicts: " + measured + ")");
}

namespace {

const CompareRun* find_run(const std::vector<CompareRun>& runs, const std::string& name) {
    for (const CompareRun& r : runs)
        if (r.config.name == name) return &r;
    return nullptr;
}

std::string format_ratio(const PassRatio& r) { return r.ratio ? fixed(*r.ratio, 2) + "x" : "n/a"; }

std::string format_bound(double v) { return std::isfinite(v) ? fixed(v, 3) : std::string("inf"); }
// "[0.981, 1.012]"; "none" without one.
std::string format_interval(const PassRatio& r) {
    return r.ci95 ? "[" + format_bound(r.ci95->lo) + ", " + format_bound(r.ci95->hi) + "]" : "none";
}

// One side of a ratio: a timer's frames in one run, less (for a pass hosted in another's timer,
// the quad mip) the same timer's frames in a second run, both pooled over the same rounds.
struct Cost {
    const CompareRun* run = nullptr;
    Timer timer{};
    const CompareRun* minus = nullptr;
    double median(std::span<const uint32_t> picks) const {
        double ms = pooled_median(run->result.rounds[size_t(timer)], picks);
        return minus ? ms - pooled_median(minus->result.rounds[size_t(timer)], picks) : ms;
    }
    uint32_t rounds() const {
        size_t n = run->result.rounds[size_t(timer)].size();
        return uint32_t(minus ? std::min(n, minus->result.rounds[size_t(timer)].size()) : n);
    }
};

// Fills in both costs, the whiskers, the ratio, its interval and its word. Both sides are taken
// from the same round picks in every resample: a round's drift falls on both and cancels.
void finish_ratio(PassRatio& r, const Cost& fallback, const Cost& subgroup) {
    r.measured = true;
    const TimingStats& f = fallback.run->result.timings[size_t(fallback.timer)];
    const TimingStats& g = subgroup.run->result.timings[size_t(subgroup.timer)];
    r.fallback_ms = f.median;
    r.fallback_min = f.min, r.fallback_max = f.max;
    // A hosted cost: the host's time less its median with the pass off, whiskers on the same basis.
    double shift = subgroup.minus ? subgroup.minus->result.timings[size_t(subgroup.timer)].median : 0.0;
    r.subgroup_ms = g.median - shift;
    r.subgroup_min = g.min - shift, r.subgroup_max = g.max - shift;
    if (r.subgroup_ms <= 0) {
        r.reason = "the subgroup path's cost measured " + format_ms(r.subgroup_ms) + " ms (" + r.measured_as +
                   "): not above the run-to-run noise, so no ratio";
        return;
    }
    r.ratio = r.fallback_ms / r.subgroup_ms;
    // A resample whose subgroup cost vanishes (a hosted cost within the noise) has an unbounded ratio.
    r.ci95 = bootstrap_ci95(std::min(fallback.rounds(), subgroup.rounds()), [&](std::span<const uint32_t> picks) {
        double s = subgroup.median(picks);
        return s > 0 ? fallback.median(picks) / s : INFINITY;
    });
    r.verdict = verdict_of(r.ci95);
}

// Why `run` cannot provide `timer`'s frames, or empty if it can.
std::string missing_timing(const CompareRun* run, const std::string& name, Timer timer) {
    if (!run) return name + " is not in this comparison";
    if (run->skipped) return name + " was skipped: " + run->skip_reason;
    if (!run->result.ran[size_t(timer)])
        return "the " + std::string(timer_info(timer).key) + " pass recorded no GPU time in " + name +
               " (it did not run in that configuration)";
    return "";
}

// A pass whose subgroup path runs inside another pass (the quad mip, stored by the resolve pass's
// fragment shader) has no time of its own there: its cost is what it adds to the host pass over
// the same frame with the pass off, from the same run.
PassRatio hosted_ratio(const std::vector<CompareRun>& runs, const PassInfo& pass, const std::string& fallback_run,
                       const std::string& subgroup_run, const std::string& off_run, Timer host_timer) {
    std::string own(timer_info(pass.timer).key), host(timer_info(host_timer).key);
    PassRatio r;
    r.key = pass.key;
    r.name = pass.name;
    r.fallback_run = fallback_run;
    r.subgroup_run = subgroup_run;
    r.measured_as = own + " pass median in " + r.fallback_run + " over the " + host + " pass median in " + r.subgroup_run +
                    " minus that in " + off_run;
    // The quad mip's host is the resolve pass's fragment shader; its fallback, a compute dispatch.
    r.graphics_vs_compute = host_timer != Timer::shade;
    const CompareRun* sg = find_run(runs, r.subgroup_run);
    const CompareRun* fb = find_run(runs, r.fallback_run);
    const CompareRun* off = find_run(runs, off_run);
    r.reason = missing_timing(sg, r.subgroup_run, host_timer);
    if (r.reason.empty()) r.reason = missing_timing(off, off_run, host_timer);
    if (r.reason.empty()) r.reason = missing_timing(fb, r.fallback_run, pass.timer);
    if (r.reason.empty()) finish_ratio(r, {fb, pass.timer}, {sg, host_timer, off});
    return r;
}

// The timer a hosted pass's subgroup path runs inside in that run's plan (hosting_timer): the
// resolve pass or forward, or under visibility the shading pass.
Timer host_in(const CompareRun* run, const PassInfo& pass) {
    return run && !run->skipped ? hosting_timer(pass, run->plan).value_or(*pass.host_timer) : *pass.host_timer;
}

PassRatio hosted_ratio(const std::vector<CompareRun>& runs, const PassInfo& pass) {
    std::string name(pass.name);
    return hosted_ratio(runs, pass, name + "-fallback", name + "-subgroup", name + "-off",
                        host_in(find_run(runs, name + "-subgroup"), pass));
}

PassRatio ratio_of(const std::vector<CompareRun>& runs, const PassInfo& pass) {
    std::string prefix(pass.name);
    const CompareRun* sg = find_run(runs, prefix + "-subgroup");
    bool own_time = has_own_timer(pass) && sg && !sg->skipped && sg->result.ran[size_t(pass.timer)];
    if (!pass.host_timer || own_time)
        return timer_ratio(runs, pass.key, pass.name, prefix + "-fallback", prefix + "-subgroup", pass.timer);
    // Hosted, with an off variant (the quad mip): its subgroup cost is what it adds to the host.
    if (offers(pass, Request::off)) return hosted_ratio(runs, pass);
    // Hosted without one (the light loop: forward always runs some loop): both variants are the
    // host's work, so the ratio is the host's time in the fallback run over that in the subgroup run.
    Timer host = host_in(sg, pass);
    PassRatio r = timer_ratio(runs, pass.key, pass.name, prefix + "-fallback", prefix + "-subgroup", host);
    r.measured_as = std::string(timer_info(host).key) + " pass median (it runs the " + std::string(pass.name) +
                    ") in " + r.fallback_run + " over the same in " + r.subgroup_run;
    return r;
}

PassRatio frame_ratio(const std::vector<CompareRun>& runs) {
    PassRatio r = timer_ratio(runs, "frame", "frame", "all-fallback", "all-subgroup", Timer::frame);
    r.measured_as = "frame median in all-fallback over the same in all-subgroup";
    return r;
}

nlohmann::json config_json(const CompareConfig& c) {
    nlohmann::json j = nlohmann::json::object();
    for (const PassInfo& pass : kPasses) j[std::string(pass.key)] = request_name(c[pass.id]);
    j["geometry"] = geometry_name(c.geometry);
    j["shading"] = c.shading ? shading_name(*c.shading) : "auto";
    j["derivatives"] = request_name(c.derivatives);
    j["materials"] = request_name(c.materials);
    j["raster"] = c.raster ? raster_name(*c.raster) : "auto";
    return j;
}

void write_text(const std::string& path, const std::string& text) {
    std::ofstream file(path);
    if (!file || !(file << text)) throw std::runtime_error("cannot write " + path + " (is the folder writable?)");
}

// An interval end as JSON: null for an unbounded one (JSON has no infinity).
nlohmann::json bound_json(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

nlohmann::json ratio_detail_json(const PassRatio& r, const StageProbe& probe) {
    nlohmann::json j = {{"fallback_run", r.fallback_run}, {"subgroup_run", r.subgroup_run}, {"measured_as", r.measured_as}};
    if (r.measured) {
        j["fallback_ms"] = r.fallback_ms;
        j["subgroup_ms"] = r.subgroup_ms;
    }
    j["ratio_ci95"] = r.ci95 ? nlohmann::json::array({bound_json(r.ci95->lo), bound_json(r.ci95->hi)}) : nlohmann::json(nullptr);
    j["verdict"] = r.ratio ? nlohmann::json(verdict_name(r.verdict)) : nlohmann::json(nullptr);
    if (r.graphics_vs_compute) {
        auto g = probe.ratio();
        j["graphics_to_compute"] = g ? nlohmann::json(*g) : nlohmann::json(nullptr);
    }
    if (!r.reason.empty()) j["reason"] = r.reason;
    return j;
}

nlohmann::json outliers_json(const Outliers& o) {
    return {{"samples", o.samples}, {"low_severe", o.low_severe}, {"low_mild", o.low_mild}, {"high_mild", o.high_mild},
            {"high_severe", o.high_severe}};
}

// How one configuration's frames were taken, and its outliers per timer (Criterion's classes).
nlohmann::json measurement_json(const RunResult& r, const CompareMethod& method) {
    nlohmann::json outliers = nlohmann::json::object();
    for (size_t t = 0; t < kTimerCount; ++t) {
        if (!r.ran[t]) continue;
        std::vector<double> all;
        for (const std::vector<double>& round : r.rounds[t]) all.insert(all.end(), round.begin(), round.end());
        outliers[std::string(kTimers[t].key)] = outliers_json(tukey_outliers(all));
    }
    // Its own rounds: with adaptive rounds a configuration stops once its ratios are decided.
    uint32_t rounds = r.ran[size_t(Timer::frame)] ? uint32_t(r.rounds[size_t(Timer::frame)].size()) : method.rounds();
    std::vector<uint32_t> round_frames(method.round_frames.begin(), method.round_frames.begin() + std::min<size_t>(rounds, method.rounds()));
    return {{"warmup_frames", method.warmup_frames}, {"rounds", rounds}, {"round_frames", round_frames},
            {"outliers", outliers}};
}

nlohmann::json method_json(const CompareMethod& m, const CompareResult::Seconds& s) {
    return {{"warmup_frames", m.warmup_frames},
            {"seconds", {{"setup", s.setup}, {"rounds", s.rounds}, {"images", s.images}, {"probe", s.probe},
                         {"repeat", s.repeat}, {"total", s.total}}},
            {"rounds", m.rounds()},
            {"round_frames", m.round_frames},
            {"order", "round r renders every configuration, starting at the r-th (mod their count)"},
            {"adaptive", {{"cap_rounds", m.cap_rounds},
                          {"min_rounds", kMinAdaptiveRounds},
                          {"noise_floor", kNoiseFloor},
                          {"rule", "a configuration renders more rounds while a ratio it is a side of has a 95% interval that "
                                   "holds 1 and reaches past 1 +- noise_floor; none left: the rounds end"}}},
            {"images", "each configuration's frame image_frame, rendered in its rounds (the last frame of the first "
                       "min_rounds rounds, which every configuration renders): its screenshot, counters and exposure, the "
                       "frame a --headless run of its own renders with --frames image_frame + 1"},
            {"image_frame", m.image_frame},
            {"interval", {{"confidence", 0.95},
                          {"method", "percentile bootstrap over rounds, both sides of a ratio resampled together"},
                          {"statistic", "ratio of the medians of the resampled rounds' frames"},
                          {"resamples", kBootstrapResamples},
                          {"seed", kBootstrapSeed}}},
            {"verdict", "faster or slower only when the interval excludes 1.0, else level"},
            {"outliers", "Tukey's fences over each configuration's measured frames: mild beyond 1.5 IQR, severe beyond 3"}};
}

nlohmann::json comparison_json(const Context& ctx, const Options& o, const Scene& scene, const CompareResult& c) {
    nlohmann::json runs = nlohmann::json::array(), skipped = nlohmann::json::array();
    for (const CompareRun& r : c.runs) {
        if (r.skipped)
            skipped.push_back({{"name", r.config.name}, {"config", config_json(r.config)}, {"reason", r.skip_reason}});
        else
            runs.push_back(r.report);
    }
    nlohmann::json ratios = nlohmann::json::object(), details = nlohmann::json::object();
    for (const PassRatio& r : all_ratios(c)) {
        ratios[r.key] = r.ratio ? nlohmann::json(*r.ratio) : nlohmann::json(nullptr);
        details[r.key] = ratio_detail_json(r, c.probe);
    }
    nlohmann::json differences = nlohmann::json::array();
    for (const CompareDifference& d : c.differences)
        differences.push_back({{"subgroup_run", d.pair.subgroup_run},
                               {"fallback_run", d.pair.fallback_run},
                               {"differing_pixels", d.compared ? nlohmann::json(d.differing) : nlohmann::json(nullptr)}});
    return {{"schema", 1},
            {"device", device_json(ctx)},
            {"subgroup", subgroup_json(ctx)},
            {"scene",
             {{"path", scene.path}, {"triangles", scene.triangle_count()}, {"instances", o.instances}, {"lights", o.lights}}},
            {"frame", {{"width", o.width}, {"height", o.height}, {"frames", o.frames}, {"warmup", o.warmup}}},
            {"base_plan", {{"text", base_plan_text(c.base)},
                           {"shading", shading_name(c.base.shading.shading)},
                           {"derivatives", variant_name(c.base.shading.derivatives)},
                           {"materials", variant_name(c.base.shading.materials)},
                           {"raster", raster_name(c.base.raster.raster)},
                           {"raster_variant", variant_name(c.base.raster.variant)},
                           {"geometry", geometry_name(c.base.geometry)}}},
            {"validation", {{"enabled", o.validate}, {"messages", c.validation_messages}}},
            {"method", method_json(c.method, c.seconds)},
            {"probe", stage_probe_json(c.probe)},
            {"runs", runs},
            {"skipped", skipped},
            {"ratios", ratios},
            {"ratio_details", details},
            {"differences", differences},
            {"run_to_run", {{"run", kRunToRunRun},
                            {"differing_pixels", c.run_to_run.compared ? nlohmann::json(c.run_to_run.differing)
                                                                       : nlohmann::json(nullptr)}}}};
}

// The pass whose work ran inside another pass's timer in this run instead of its own (the quad
// mip, inside resolve or the shading pass), or null.
const PassInfo* hosted_elsewhere(const CompareRun& r, Timer t) {
    for (const PassInfo& pass : kPasses)
        // (A pass timed in its host's own slot, the light loop in forward, is not hosted elsewhere:
        // under visibility that slot did not run at all, and the sheet says "-".)
        if (pass.timer == t && pass.host_timer && has_own_timer(pass) && !r.result.ran[size_t(t)] && r.plan[pass.id].variant == Variant::subgroup)
            return &pass;
    return nullptr;
}

std::string pass_ms(const CompareRun& r, Timer t) {
    if (r.result.ran[size_t(t)]) return format_ms(r.result.timings[size_t(t)].median);
    const PassInfo* hosted = hosted_elsewhere(r, t);
    return hosted ? "in " + std::string(timer_info(*hosting_timer(*hosted, r.plan)).brief) : "-";
}

// The ray tracer's rays per second of each kind in run `name` (its rays over its median ray_trace
// time in this comparison's rounds), for the ray_trace row: "fallback: primary 0, shadow 1.2 G/s,
// reflection 80 M/s". Empty where the run did not trace.
std::string rays_per_second_text(const CompareResult& c, const std::string& side, const std::string& name) {
    for (const CompareRun& r : c.runs) {
        if (r.skipped || r.config.name != name || !r.result.ran[size_t(Timer::ray_trace)]) continue;
        const nlohmann::json& counters = r.report["counters"]["ray_trace"];
        if (!counters.is_object()) return "";
        nlohmann::json per_second = ray_trace_rays_per_second(counters["rays"], r.result.timings[size_t(Timer::ray_trace)].median);
        if (per_second.is_null()) return "";
        auto rate = [](double v) {
            char text[32];
            if (v >= 1e9) snprintf(text, sizeof(text), "%.2f G/s", v / 1e9);
            else if (v >= 1e6) snprintf(text, sizeof(text), "%.1f M/s", v / 1e6);
            else snprintf(text, sizeof(text), "%.0f /s", v);
            return std::string(text);
        };
        std::string text = side + " rays/s: ";
        for (const char* kind : {"primary", "shadow", "reflection"})
            text += std::string(kind) + " " + rate(per_second[kind].get<double>()) + (std::string(kind) == "reflection" ? "" : ", ");
        return text;
    }
    return "";
}

// The timers of report.md's pass table: every slot but the views'.
std::vector<Timer> table_timers() {
    std::vector<Timer> timers;
    for (const TimerInfo& t : kTimers)
        if (t.timer != Timer::view) timers.push_back(t.timer);
    return timers;
}

std::string markdown_report(const Context& ctx, const Options& o, const Scene& scene, const CompareResult& c) {
    std::string md;
    auto line = [&](const std::string& s) { md += s + "\n"; };
    line("# subgroup-demo comparison");
    line("");
    line("- device: " + ctx.info.name + " (" + ctx.info.type + (ctx.info.type == "cpu" ? ": a CPU rasterizer, not a GPU" : "") +
         "), driver " + ctx.info.driver + ", Vulkan " + ctx.info.api_version);
    line("- subgroup size " + std::to_string(ctx.subgroup.size) + " (min " + std::to_string(ctx.subgroup.min_size) + ", max " +
         std::to_string(ctx.subgroup.max_size) + ")" +
         (ctx.subgroup.masked_stages || ctx.subgroup.masked_ops ? ", with masks applied (see report.json)" : ""));
    line("- scene: " + scene.path + ", " + std::to_string(scene.triangle_count()) + " triangles (--instances " +
         std::to_string(o.instances) + "), " + std::to_string(o.lights) + " lights");
    line("- " + std::to_string(o.width) + "x" + std::to_string(o.height) + ", " + std::to_string(o.frames) + " frames of which " +
         std::to_string(o.warmup) + " warm-up frames are not timed; GPU timestamps, milliseconds");
    line("- validation: " + std::string(o.validate ? std::to_string(c.validation_messages) + " message(s)" : "off"));
    line("- run to run: " + std::string(kRunToRunRun) + " rendered twice, " +
         (c.run_to_run.compared ? std::to_string(c.run_to_run.differing) + " pixels differ" : std::string("not compared (skipped)")) +
         " (the noise floor of the difference panel)");
    line("");
    line("## Speed-up of each subgroup path over its fallback");
    line("");
    line("Above 1 the subgroup path is faster. The word is `faster` or `slower` only where the 95% interval excludes 1.0, "
         "else `level` (method below).");
    line("");
    line("| ratio | fallback ms | subgroup ms | speed-up | 95% interval | verdict | measured as |");
    line("| --- | ---: | ---: | ---: | --- | --- | --- |");
    std::optional<double> graphics = c.probe.ratio();
    for (const PassRatio& r : all_ratios(c)) {
        std::string how = r.ratio ? r.measured_as : r.reason;
        if (r.graphics_vs_compute)
            how += "; graphics stage against compute: the probe's fragment/compute is " +
                   (graphics ? fixed(*graphics, *graphics < 10 ? 2 : 1) + "x" : std::string("not measured")) + " on this device";
        // Beside the ray tracer's row: the rays per second of each kind it traced on each side.
        if (r.key == "ray_trace")
            for (const auto& [side, run] : {std::pair{std::string("fallback"), r.fallback_run}, std::pair{std::string("subgroup"), r.subgroup_run}})
                if (std::string text = rays_per_second_text(c, side, run); !text.empty()) how += "; " + text;
        std::string costs = r.measured ? format_ms(r.fallback_ms) + " | " + format_ms(r.subgroup_ms) : " | ";
        line("| " + r.key + " | " + costs + " | " + format_ratio(r) + " | " + format_interval(r) + " | " +
             (r.ratio ? std::string(verdict_name(r.verdict)) : "n/a") + " | " + how + " |");
    }
    line("");
    line("## Graphics-to-compute probe");
    line("");
    line(stage_probe_summary(c.probe) + ".");
    if (graphics) {
        line("");
        line("Fragment " + fixed(*graphics, *graphics < 10 ? 2 : 1) + "x compute: " + kStageProbeMeaning + ". It stands beside `mip` (the quad mip in "
             "the resolve pass's fragment shader against the compute downsample), `geometry` (the meshlet path's task/mesh "
             "culling against the compute cull) and `shading` (forward's fragment shading against visibility's compute "
             "shading). The two stages' results differ in " + std::to_string(c.probe.differing_texels) +
             " texels (the same loop on the same inputs: 0).");
    }
    line("");
    line("## Method");
    line("");
    // "5" or "5 or 6": round sizes differ by at most one (round_sizes()).
    std::string sizes = c.method.rounds() ? std::to_string(c.method.round_frames.front()) : "0";
    if (c.method.rounds() && c.method.round_frames.back() != c.method.round_frames.front())
        sizes = std::to_string(c.method.round_frames.back()) + " or " + sizes;
    line("- Every configuration renders one instrumented frame and " + std::to_string(c.method.warmup_frames) +
         " warm-up frames (not timed), then the configurations are rendered in " + std::to_string(c.method.rounds()) +
         " rounds of " + sizes + (sizes == "1" ? " frame" : " frames") +
         " each; round r starts at the r-th configuration, so clock and thermal drift fall on all alike.");
    line("- Each ratio's 95% interval is a percentile bootstrap over the rounds: " + std::to_string(kBootstrapResamples) +
         " resamples of the rounds with replacement (the same rounds for both sides), the ratio of the medians of their "
         "frames in each, fixed seed. With fewer than two rounds there is no interval and the word is `level`.");
    line("- Outliers: Tukey's fences over each configuration's measured frames (mild beyond 1.5 IQR, severe beyond 3), "
         "counted as Criterion does; they stay in the medians.");
    line("");
    line("| configuration | measured frames | frame outliers: low severe / low mild / high mild / high severe |");
    line("| --- | ---: | --- |");
    for (const CompareRun& r : c.runs) {
        if (r.skipped) continue;
        const nlohmann::json& o = r.report["measurement"]["outliers"]["frame"];
        line("| " + r.config.name + " | " + std::to_string(o["samples"].get<uint32_t>()) + " | " +
             std::to_string(o["low_severe"].get<uint32_t>()) + " / " + std::to_string(o["low_mild"].get<uint32_t>()) + " / " +
             std::to_string(o["high_mild"].get<uint32_t>()) + " / " + std::to_string(o["high_severe"].get<uint32_t>()) + " |");
    }
    line("");
    line("## Configurations");
    line("");
    line("Requested variants and what the plan resolved them to; frame time is the median GPU frame.");
    line("");
    std::string columns = "| configuration |", rules = "| --- |", empty_cells;
    for (const PassInfo& pass : kPasses) {
        columns += " " + std::string(pass.name) + " |";
        rules += " --- |";
        empty_cells += " |";
    }
    columns += " shading |";
    rules += " --- |";
    empty_cells += " |";
    line(columns + " frame ms | triangles visible | light-list entries | screenshot |");
    line(rules + " ---: | ---: | ---: | --- |");
    for (const CompareRun& r : c.runs) {
        if (r.skipped) {
            line("| " + r.config.name + " |" + empty_cells + " skipped | | | " + r.skip_reason + " |");
            continue;
        }
        std::string cells;
        for (const PassInfo& pass : kPasses) {
            std::string variant(variant_name(r.plan[pass.id].variant));
            cells += " " + (r.config[pass.id] == Request::automatic ? "auto: " + variant : variant) + " |";
        }
        // "auto: forward", "visibility/subgroup" (its derivatives), as --info names them.
        cells += " " + std::string(r.config.shading ? "" : "auto: ") + shading_variant_name(r.plan.shading) + " |";
        const nlohmann::json& counters = r.report["counters"];
        line("| " + r.config.name + " |" + cells + " " + format_ms(r.result.timings[size_t(Timer::frame)].median) + " | " +
             std::to_string(counters["triangles_visible"].get<uint64_t>()) + " | " +
             std::to_string(counters["light_list_entries"].get<uint64_t>()) + " | [" + r.config.name + ".png](" + r.config.name +
             ".png) |");
    }
    line("");
    line("## Pass times, median / min / max ms");
    line("");
    std::string header = "| configuration |", rule = "| --- |";
    for (Timer t : table_timers()) {
        header += " " + std::string(timer_info(t).key) + " |";
        rule += " ---: |";
    }
    line(header);
    line(rule);
    for (const CompareRun& r : c.runs) {
        if (r.skipped) continue;
        std::string row = "| " + r.config.name + " |";
        for (Timer t : table_timers()) {
            const TimingStats& s = r.result.timings[size_t(t)];
            const PassInfo* hosted = hosted_elsewhere(r, t);
            if (r.result.ran[size_t(t)])
                row += " " + format_ms(s.median) + " / " + format_ms(s.min) + " / " + format_ms(s.max) + " |";
            else
                row += hosted ? " in " + std::string(timer_info(*hosted->host_timer).key) + " |" : " - |";
        }
        line(row);
    }
    line("");
    std::string note = "A `-` means the pass did not run in that configuration";
    for (const PassInfo& pass : kPasses)
        if (pass.host_timer && has_own_timer(pass)) {
            std::string host(timer_info(*pass.host_timer).key);
            note += "; `in " + host + "`: the " + std::string(pass.hosted_label) + " (--" + std::string(pass.name) +
                    " subgroup) runs inside the " + host + " pass, so its cost is part of the " + host + " time";
        }
    line(note + ". The sheet is compare.png; the numbers are in report.json.");
    return md;
}

// "--mip subgroup: quad ... on this device; use auto or fallback" -> "quad ... on this device":
// the option and the advice are CLI talk; the sheet's cell already names the configuration.
std::string short_reason(const std::string& reason) {
    size_t colon = reason.find(": ");
    std::string s = reason.rfind("--", 0) == 0 && colon != std::string::npos ? reason.substr(colon + 2) : reason;
    size_t advice = s.find("; use ");
    return advice == std::string::npos ? s : s.substr(0, advice);
}

RgbaImage comparison_sheet(const Context& ctx, const Options& o, const Scene& scene, const CompareResult& c,
                           const std::vector<RgbaImage>& shots) {
    SheetLayout layout = compare_sheet_layout(o.width, o.height, c.runs.size());
    const uint32_t white = pack_rgba(245, 245, 245), grey = pack_rgba(190, 190, 196), gold = pack_rgba(255, 208, 96);
    std::string device = ctx.info.name + " (" + (ctx.info.type == "cpu" ? std::string("CPU device, not a GPU") : ctx.info.type + " GPU") +
                         "), " + ctx.info.driver;
    std::string setup = "subgroup size " + std::to_string(ctx.subgroup.size) + "   " + std::to_string(o.width) + "x" +
                        std::to_string(o.height) + "   " + std::to_string(scene.triangle_count()) + " triangles   " +
                        std::to_string(o.lights) + " lights   median of " + std::to_string(o.frames - o.warmup) + " frames in " +
                        std::to_string(c.method.rounds()) + " rounds (" + std::to_string(o.warmup) + " warm-up), ms";
    std::string speedups = "speed-up, fallback / subgroup (word from the 95% interval):";
    for (const PassRatio& r : all_ratios(c))
        speedups += "   " + r.name + " " + format_ratio(r) + (r.ratio ? " " + std::string(verdict_name(r.verdict)) : "");
    std::vector<TextLine> header = {{"subgroup-demo --compare   " + device, white},
                                    {"measured in auto's plan here: " + base_plan_text(c.base), gold},
                                    {setup, grey}};
    // The speed-ups on (at most) three lines, then the probe.
    std::vector<std::string> wrapped = wrap_text(speedups, layout.width - 2 * layout.margin, layout.text_scale);
    for (size_t i = 0; i < 3; ++i) header.push_back({i < wrapped.size() ? wrapped[i] : "", gold});
    auto graphics = c.probe.ratio();
    header.push_back({graphics ? "probe: the same loop takes " + fixed(*graphics, *graphics < 10 ? 2 : 1) +
                                     "x as long in a fragment shader as in compute; see mip, indexed/meshlet, forward/visibility"
                               : stage_probe_summary(c.probe),
                      grey});

    std::vector<SheetCell> cells;
    // The difference panel: pairs of images that should be identical, amplified (black where they
    // are), then all-fallback against itself (the run-to-run noise floor).
    auto difference_cell = [&](const CompareDifference& d, const std::string& title, const std::string& what,
                               const std::string& differing_note) {
        SheetCell cell;
        if (!d.compared) {
            cell.lines = {{title, grey}, {"not compared:", grey}, {"a run was skipped", grey}};
        } else {
            cell.image = &d.amplified;
            cell.lines = {{title, white},
                          {what, grey},
                          {std::to_string(d.differing) + " pixels differ", d.differing ? gold : pack_rgba(120, 220, 120)},
                          {d.differing ? differing_note : "identical", grey}};
        }
        cells.push_back(std::move(cell));
    };
    for (const CompareDifference& d : c.differences) {
        double percent = d.amplified.width ? 100.0 * double(d.differing) / (double(d.amplified.width) * d.amplified.height) : 0.0;
        difference_cell(d, d.pair.subgroup_run.substr(0, d.pair.subgroup_run.rfind('-')) + " difference", "subgroup vs fallback",
                        "(" + fixed(percent, 3) + "% of the frame)");
    }
    difference_cell(c.run_to_run, "run to run", std::string(kRunToRunRun) + " twice", "noise floor of the pairs");
    for (size_t i = 0; i < c.runs.size(); ++i) {
        const CompareRun& r = c.runs[i];
        SheetCell cell;
        if (r.skipped) {
            cell.lines = {{r.config.name, grey}, {"skipped:", grey}};
            int text_w = layout.cell_width - layout.margin;
            for (const std::string& s : wrap_text(short_reason(r.skip_reason), text_w, layout.text_scale))
                if (cell.lines.size() < size_t(kCompareLabelLines)) cell.lines.push_back({s, grey});
        } else {
            cell.image = &shots[i];
            cell.lines = {{r.config.name, white}, {"frame " + pass_ms(r, Timer::frame) + " ms", gold}};
            // The pass timers two to a line, in frame order.
            std::string pair;
            for (const TimerInfo& t : kTimers) {
                if (t.timer == Timer::frame || t.timer == Timer::view) continue;
                std::string item = std::string(t.brief) + " " + pass_ms(r, t.timer);
                if (pair.empty()) {
                    pair = item;
                } else {
                    cell.lines.push_back({pair + "  " + item, grey});
                    pair.clear();
                }
            }
            if (!pair.empty()) cell.lines.push_back({pair, grey});
        }
        cells.push_back(std::move(cell));
    }
    RgbaImage sheet = compose_sheet(layout, header, cells);
    draw_chart(sheet, layout.band(), build_chart(c), layout.text_scale);
    return sheet;
}

}  // namespace

size_t difference_cells() { return difference_pairs().size() + 1; }

std::string interval_text(const PassRatio& r) { return format_interval(r); }

SheetLayout compare_sheet_layout(uint32_t frame_width, uint32_t frame_height, size_t configurations) {
    SheetLayout probe = make_sheet_layout(frame_width, frame_height, 1, kCompareHeaderLines, kCompareLabelLines);
    return make_sheet_layout(frame_width, frame_height, difference_cells() + configurations, kCompareHeaderLines,
                             kCompareLabelLines, chart_height(probe.text_scale));
}

PassRatio timer_ratio(const std::vector<CompareRun>& runs, std::string_view key, std::string_view name,
                      const std::string& fallback_run, const std::string& subgroup_run, Timer timer) {
    PassRatio r;
    r.key = key;
    r.name = name;
    r.fallback_run = fallback_run;
    r.subgroup_run = subgroup_run;
    r.measured_as = std::string(timer_info(timer).key) + " pass median in " + fallback_run + " over the same in " + subgroup_run;
    const CompareRun* fb = find_run(runs, fallback_run);
    const CompareRun* sg = find_run(runs, subgroup_run);
    r.reason = missing_timing(sg, subgroup_run, timer);
    if (r.reason.empty()) r.reason = missing_timing(fb, fallback_run, timer);
    if (r.reason.empty()) finish_ratio(r, {fb, timer}, {sg, timer});
    return r;
}

std::vector<PassRatio> all_ratios(const CompareResult& c) {
    std::vector<PassRatio> all(c.ratios.begin(), c.ratios.end());
    all.insert(all.end(), c.meshlet_ratios.begin(), c.meshlet_ratios.end());
    all.insert(all.end(), c.shading_ratios.begin(), c.shading_ratios.end());
    return all;
}

ShadingRatios compute_shading_ratios(const std::vector<CompareRun>& runs) {
    // The visibility side runs the derivatives auto runs on this device: quad swaps, or where the
    // device cannot (that row skipped) the analytic ones, so a device without compute quads still
    // gets a verdict on the path it would take.
    const CompareRun* quads = find_run(runs, "shading-visibility");
    std::string visibility = quads && quads->skipped ? "shading-visibility-fallback" : "shading-visibility";
    PassRatio shading = timer_ratio(runs, "shading", "forward/visibility", "shading-forward", visibility, Timer::frame);
    shading.measured_as = "frame median in shading-forward (fragment shading) over the same in " + visibility +
                          " (compute shading over quads)";
    shading.subgroup_side = "visibility";
    shading.fallback_side = "forward";
    shading.graphics_vs_compute = true;
    PassRatio derivatives = timer_ratio(runs, "derivatives", "derivatives", "shading-visibility-fallback", "shading-visibility",
                                        Timer::shade);
    derivatives.measured_as = "visibility shade pass median in shading-visibility-fallback (analytic derivatives) over the "
                              "same in shading-visibility (quad-swap derivatives)";
    derivatives.subgroup_side = "quad-swap";
    derivatives.fallback_side = "analytic";
    // The hardware side: raster-hardware, or where it was not rendered (the first run's quick
    // measurement) the visibility row, which plans the same frame without a verdict.
    std::string hardware = find_run(runs, "raster-hardware") ? "raster-hardware" : visibility;
    PassRatio raster = timer_ratio(runs, "raster", "hardware/compute", hardware, "raster-compute", Timer::frame);
    raster.measured_as = "frame median in " + hardware + " (the graphics pre-pass) over the same in raster-compute (the compute rasterizer)";
    raster.subgroup_side = "compute";
    raster.fallback_side = "hardware";
    raster.graphics_vs_compute = true;
    PassRatio raster_path = timer_ratio(runs, "raster_path", "raster-path", "raster-compute-fallback", "raster-compute", Timer::depth);
    raster_path.measured_as = "depth pass median in raster-compute-fallback over the same in raster-compute (subgroup path)";
    // The materials: the shading pass with nonuniformEXT indexing over the same with the waterfall,
    // which shading-visibility runs where compute has ballot (auto).
    PassRatio materials = timer_ratio(runs, "materials", "materials", "shading-visibility-materials-fallback", visibility,
                                      Timer::shade);
    materials.measured_as = "visibility shade pass median in shading-visibility-materials-fallback (nonuniformEXT) over "
                            "the same in " + visibility + " (the material waterfall)";
    materials.subgroup_side = "waterfall";
    materials.fallback_side = "nonuniform";
    // Without ballot in compute, auto's row indexed nonuniformEXT too: no pair to compare.
    if (const CompareRun* sg = find_run(runs, visibility); materials.measured && sg->plan.shading.materials != Variant::subgroup) {
        materials.ratio.reset();
        materials.ci95.reset();
        materials.measured = false;
        materials.reason = visibility + " ran no waterfall: " + sg->plan.shading.reason;
    }
    return {shading, derivatives, raster, raster_path, materials};
}

std::vector<CompareConfig> visibility_pass_rows() {
    std::vector<CompareConfig> rows;
    for (const CompareConfig& c : comparison_matrix())
        if (c.name == "shading-visibility") {
            for (Request r : {Request::fallback, Request::off}) {
                CompareConfig row = c;
                row.name = "shading-visibility-mip-" + std::string(request_name(r));
                row.requests[size_t(PassId::mip)] = r;
                rows.push_back(row);
            }
            CompareConfig ray = c;
            ray.name = "shading-visibility-ray-trace-fallback";
            ray.requests[size_t(PassId::ray_trace)] = Request::fallback;
            rows.push_back(ray);
        }
    return rows;
}

PassRatios compute_visibility_ratios(const std::vector<CompareRun>& runs, const std::string& ray_trace_fallback_run,
                                     const std::string& ray_trace_subgroup_run) {
    PassRatios r;
    r[size_t(PassId::mip)] = compute_visibility_mip_ratio(runs);
    PassRatio& ray = r[size_t(PassId::ray_trace)];
    ray = timer_ratio(runs, "ray_trace", "ray trace", ray_trace_fallback_run, ray_trace_subgroup_run, Timer::ray_trace);
    ray.measured_as = "under visibility: ray_trace pass median in " + ray_trace_fallback_run + " over the same in " +
                      ray_trace_subgroup_run;
    return r;
}

PassRatio compute_visibility_mip_ratio(const std::vector<CompareRun>& runs) {
    PassRatio r = hosted_ratio(runs, pass_info(PassId::mip), "shading-visibility-mip-fallback", "shading-visibility",
                               "shading-visibility-mip-off", Timer::shade);
    r.measured_as = "under visibility: mip pass median in shading-visibility-mip-fallback (compute downsample) over the "
                    "shade pass median in shading-visibility (the shading pass writes the quad mip) minus that in "
                    "shading-visibility-mip-off";
    return r;
}

std::array<PassRatio, 2> compute_meshlet_ratios(const std::vector<CompareRun>& runs) {
    PassRatio cull = timer_ratio(runs, "meshlet_cull", "meshlet cull", "meshlet-fallback", "meshlet-subgroup", Timer::depth);
    cull.measured_as = "depth pass median (where the task and mesh shaders cull) in meshlet-fallback over the same in "
                       "meshlet-subgroup";
    // The indexed frame plays the "fallback" side: the ratio is indexed over meshlet. It sets the
    // meshlet path's culling in task and mesh shaders against the compute cull.
    PassRatio geometry = timer_ratio(runs, "geometry", "indexed/meshlet", "cull-subgroup", "meshlet-subgroup", Timer::frame);
    geometry.measured_as = "frame median in cull-subgroup (indexed: compute cull + indirect draws) over the same in "
                           "meshlet-subgroup";
    geometry.subgroup_side = "meshlet";
    geometry.fallback_side = "indexed";
    geometry.graphics_vs_compute = true;
    return {cull, geometry};
}

PassRatios compute_ratios(const std::vector<CompareRun>& runs) {
    PassRatios ratios;
    for (const PassInfo& pass : kPasses) ratios[size_t(pass.id)] = ratio_of(runs, pass);
    ratios[kPassCount] = frame_ratio(runs);
    return ratios;
}

namespace {

// The options one configuration renders with: its own requests and screenshot, nothing else written.
Options run_options(const Options& options, const CompareRun& run, const std::string& screenshot) {
    Options o = options;
    o.plan = plan_request(run.config, comparison_base(options.plan));  // every row in auto's plan, with the same --lod
    o.test_extra_work = run.config.test_extra_work;
    o.screenshot = screenshot;
    o.mip_dump.clear();
    o.cull_dump.clear();
    o.ray_dump.clear();
    o.report.clear();
    return o;
}

// The contract's report of one configuration, with its own validation count, name and request.
void fill_report(const Context& ctx, const Scene& scene, const Options& o, const CompareMethod& method, CompareRun& run) {
    run.report = report_json(ctx, o, run.plan, scene, run.result);
    run.report["measurement"] = measurement_json(run.result, method);
    run.report["validation"]["messages"] = run.validation_messages;  // this configuration's, not the process's
    run.report["name"] = run.config.name;
    run.report["config"] = config_json(run.config);
}

// No folder: no screenshots.
std::string screenshot_path(const std::string& dir, const std::string& name) {
    if (dir.empty()) return "";
    return (std::filesystem::path(dir) / (name + ".png")).string();
}

// Everything a configuration does is charged to it: its seconds and its validation messages.
void charge(CompareRun& run, const std::function<void()>& work) {
    uint32_t messages_before = validation_message_count();
    auto start = std::chrono::steady_clock::now();
    work();
    run.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    run.validation_messages += validation_message_count() - messages_before;
}

}  // namespace

CompareMethod render_in_rounds(const Context& ctx, const Scene& scene, const Options& options, std::vector<CompareRun>& runs,
                               const std::function<void(const std::string&, bool)>& step, double budget_s,
                               const RoundsNeeded& needed, SharedRenderer* shared, bool images) {
    auto started = std::chrono::steady_clock::now();
    const uint32_t built_before = Renderer::built();
    const double building_before = Renderer::seconds_building();
    const PipelineCompiles compiles_before = pipeline_compiles();
    CompareMethod method;
    method.warmup_frames = options.warmup;
    method.round_frames = round_sizes(options.frames - options.warmup);
    method.cap_rounds = method.rounds();
    // Rounds end early only after kMinAdaptiveRounds (kMinBudgetRounds with a budget, the same):
    // every configuration renders the last frame of those (warm-up < --frames: at least one round).
    auto first_rounds = method.round_frames.begin() + std::min<size_t>(kMinAdaptiveRounds, method.rounds());
    method.image_frame = options.warmup + std::accumulate(method.round_frames.begin(), first_rounds, 0u) - 1;
    struct Active {
        CompareRun* run;
        std::unique_ptr<HeadlessRun> headless;
        bool running = true;  // adaptive rounds: false once no undecided ratio needs it
    };
    std::vector<Active> active;
    // Set-up in matrix order: renderer, instrumented frame, warm-up frames (untimed). The renderers
    // write nothing: the images are kept in memory (write_images), the bandwidth probe is not run.
    for (CompareRun& run : runs) {
        if (step) step(run.config.name, run.skipped);
        if (run.skipped) continue;
        Options o = run_options(options, run, "");
        o.bandwidth_probe = false;
        // The shared renderer where it makes the same one but for the plan, else one of its own.
        bool share = shared && shared->fits(scene, renderer_config(o, run.plan, {o.width, o.height}));
        Active& a = active.emplace_back(Active{&run, nullptr, true});
        charge(run, [&] {
            auto made = std::chrono::steady_clock::now();
            a.headless = share ? std::make_unique<HeadlessRun>(ctx, scene, o, run.plan, *shared)
                               : std::make_unique<HeadlessRun>(ctx, scene, o, run.plan);
            method.first_frames_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - made).count();
            if (images) a.headless->capture_at(method.image_frame);
            a.headless->render(options.warmup, 0);
        });
    }
    method.setup_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    method.build_seconds = Renderer::seconds_building() - building_before;
    method.first_frames_seconds -= method.build_seconds;
    method.compile_seconds = pipeline_compiles().seconds - compiles_before.seconds;
    method.pipelines_compiled = pipeline_compiles().count - compiles_before.count;
    // The rounds: round r starts at the r-th configuration, so none is always first or last.
    // The budget counts the rounds alone: the set-up above costs the same however many follow.
    const auto rounds_started = std::chrono::steady_clock::now();
    for (uint32_t r = 0; r < method.rounds(); ++r) {
        if (step) step("round " + std::to_string(r + 1) + "/" + std::to_string(method.rounds()), false);
        for (size_t k = 0; k < active.size(); ++k) {
            Active& a = active[(r + k) % active.size()];
            if (a.running) charge(*a.run, [&] { a.headless->render(method.round_frames[r], r); });
        }
        // Out of time: the rounds so far, at least kMinBudgetRounds (an interval needs several).
        double rounds_elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - rounds_started).count();
        if (budget_s > 0 && r + 1 >= kMinBudgetRounds && r + 1 < method.rounds() && rounds_elapsed > budget_s)
            method.round_frames.resize(r + 1);
        // Adaptive: the configurations no undecided ratio needs stop; with none left, the rounds end.
        if (needed && r + 1 >= kMinAdaptiveRounds && r + 1 < method.rounds()) {
            for (Active& a : active)
                if (a.running) a.run->result = a.headless->timings();
            std::vector<bool> keep = needed(runs);
            bool any = false;
            for (Active& a : active) {
                a.running = a.running && keep[size_t(a.run - runs.data())];
                any = any || a.running;
            }
            if (!any) method.round_frames.resize(r + 1);
        }
    }
    // Read back, one at a time, each renderer freed as soon as its timings are out (the shared
    // one where `shared` goes).
    for (Active& a : active) {
        charge(*a.run, [&] { a.run->result = a.headless->finish(); });
        a.headless.reset();
    }
    method.rounds_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - rounds_started).count();
    method.renderers = Renderer::built() - built_before;
    return method;
}

std::vector<bool> sides_of_undecided(const std::vector<CompareRun>& runs, const std::vector<PassRatio>& ratios, double noise_floor) {
    std::vector<bool> keep(runs.size(), false);
    auto mark = [&](const std::string& name) {
        for (size_t i = 0; i < runs.size(); ++i) keep[i] = keep[i] || runs[i].config.name == name;
    };
    for (const PassRatio& r : ratios) {
        if (!r.ratio || interval_decided(r.ci95, noise_floor)) continue;  // no ratio: more rounds give none
        mark(r.fallback_run), mark(r.subgroup_run);
        for (const PassInfo& pass : kPasses)  // a hosted cost is the host's time less its off row's
            if (r.key == pass.key && pass.host_timer && offers(pass, Request::off)) mark(std::string(pass.name) + "-off");
    }
    return keep;
}

std::vector<bool> rounds_needed(const std::vector<CompareRun>& runs, double noise_floor) {
    PassRatios passes = compute_ratios(runs);
    std::vector<PassRatio> ratios(passes.begin(), passes.end());
    for (const PassRatio& r : compute_meshlet_ratios(runs)) ratios.push_back(r);
    for (const PassRatio& r : compute_shading_ratios(runs)) ratios.push_back(r);
    return sides_of_undecided(runs, ratios, noise_floor);
}

void write_images(const Context& ctx, const Scene& scene, const Options& options, std::vector<CompareRun>& runs,
                  const std::string& dir, const CompareMethod& method) {
    std::vector<CompareRun*> shown;
    for (CompareRun& run : runs)
        if (!run.skipped) {
            if (run.result.image.empty()) throw std::runtime_error("no image of " + run.config.name + " was kept");
            run.result.screenshot = screenshot_path(dir, run.config.name);
            shown.push_back(&run);
        }
    // PNG encoding is most of the time at 4K (tens of milliseconds a frame is read back, a second
    // or more encoded): one thread per core, each taking the next image.
    std::atomic<size_t> next = 0;
    auto encode = [&] {
        for (size_t i = next++; i < shown.size(); i = next++)
            if (!shown[i]->result.screenshot.empty())
                write_png(shown[i]->result.screenshot, options.width, options.height, shown[i]->result.image);
    };
    std::vector<std::future<void>> threads;
    size_t count = std::min<size_t>(std::max(1u, std::thread::hardware_concurrency()), shown.size());
    for (size_t t = 0; t < count; ++t) threads.push_back(std::async(std::launch::async, encode));
    for (std::future<void>& t : threads) t.get();  // rethrows a write's failure
    for (CompareRun* run : shown) fill_report(ctx, scene, run_options(options, *run, run->result.screenshot), method, *run);
}

ComparisonPlans plan_comparison(const Context& ctx, const PlanRequest& request) {
    // Every row starts from auto's plan on this device.
    ComparisonPlans c;
    const PlanRequest base = comparison_base(request);
    try {
        c.base = make_plan(ctx.subgroup, ctx.features, base);
    } catch (const UnsupportedRequest& e) {
        throw UnsupportedRequest(std::string("--compare: ") + e.what());  // a typed path the device refuses: exit 2
    }
    for (const CompareConfig& config : comparison_matrix()) {
        CompareRun run;
        run.config = config;
        // Timings compare passes, so every configuration renders the plain shaded frame: a debug
        // view (the window may be showing one) would add its own pass and change the screenshots.
        try {
            run.plan = make_plan(ctx.subgroup, ctx.features, plan_request(config, base));
        } catch (const UnsupportedRequest& e) {
            run.skipped = true;
            run.skip_reason = e.what();
        }
        c.runs.push_back(std::move(run));
    }
    return c;
}

CompareResult run_comparison(const Context& ctx, const Scene& scene, const Options& options, const CompareProgressFn& progress) {
    namespace fs = std::filesystem;
    using clock = std::chrono::steady_clock;
    CompareResult c;
    c.dir = options.out_dir;
    std::error_code error;
    fs::create_directories(c.dir, error);
    if (!fs::is_directory(c.dir)) throw std::runtime_error("cannot create the --out folder " + c.dir);

    // Plans first (pure, no GPU): skipped configurations are known before the first frame, so the
    // estimate counts only what will really run.
    ComparisonPlans plans = plan_comparison(ctx, options.plan);
    c.base = std::move(plans.base);
    c.runs = std::move(plans.runs);
    size_t to_run = 0;
    for (const CompareRun& r : c.runs) to_run += !r.skipped;
    // The run-to-run noise floor renders all-fallback once more, alone, after the images.
    auto repeated = std::find_if(c.runs.begin(), c.runs.end(),
                                 [](const CompareRun& r) { return r.config.name == kRunToRunRun && !r.skipped; });
    const bool repeat = repeated != c.runs.end();

    // Progress in steps: each configuration's set-up, each round, the images, the probe, the
    // repeat. The estimate weighs each step by the frames it renders (the first set-up builds the
    // renderer every row shares: about ten frames; an image's encoding about two).
    std::vector<uint32_t> round_frames = round_sizes(options.frames - options.warmup);
    std::vector<double> weights;
    for (const CompareRun& r : c.runs) weights.push_back(r.skipped ? 0.0 : (weights.empty() ? 10.0 : 1.0) + options.warmup);
    for (uint32_t frames : round_frames) weights.push_back(double(frames) * double(to_run));
    weights.push_back(2.0 * double(to_run));  // the images
    weights.push_back(2.0);  // the probe
    if (repeat) weights.push_back(2.0 + options.frames);
    double total = 0, done = 0;
    for (double w : weights) total += w;
    auto start = clock::now();
    size_t index = 0;
    auto report_progress = [&](const std::string& name, bool skipped) {
        if (index > 0) done += weights[index - 1];
        ++index;
        if (!progress) return;
        CompareProgress p{index, weights.size(), name, skipped};
        p.elapsed_s = std::chrono::duration<double>(clock::now() - start).count();
        if (done > 0) p.eta_s = p.elapsed_s / done * (total - done);
        progress(p);
    };
    // Adaptive rounds: each configuration renders until every ratio it is a side of is decided,
    // at most the rounds of --frames. One renderer for every row, switched by plan: one set-up.
    {
        SharedRenderer shared;  // freed before the images, the probe and the repeat
        c.method = render_in_rounds(ctx, scene, options, c.runs, report_progress, 0,
                                    [](const std::vector<CompareRun>& runs) { return rounds_needed(runs); }, &shared, true);
    }
    auto since = [](clock::time_point t) { return std::chrono::duration<double>(clock::now() - t).count(); };
    c.seconds.setup = c.method.setup_seconds;
    c.seconds.rounds = since(start) - c.seconds.setup;
    report_progress(std::to_string(to_run) + " screenshots (frame " + std::to_string(c.method.image_frame) + ")", false);
    auto phase = clock::now();
    write_images(ctx, scene, options, c.runs, c.dir, c.method);
    c.seconds.images = since(phase);
    for (const CompareRun& run : c.runs) c.validation_messages += run.validation_messages;

    report_progress("graphics-to-compute probe", false);
    phase = clock::now();
    uint32_t probe_messages = validation_message_count();
    c.probe = measure_stage_throughput(ctx);
    c.validation_messages += validation_message_count() - probe_messages;
    c.seconds.probe = since(phase);

    CompareRun again;
    if (repeat) {
        again.config = repeated->config;
        again.plan = repeated->plan;
        report_progress(again.config.name + " (again, run to run)", false);
        // A renderer of its own, built with no other alive: the frame of the image, from the first.
        Options o = run_options(options, again, screenshot_path(c.dir, again.config.name + "-again"));
        o.frames = c.method.image_frame + 1;
        phase = clock::now();
        uint32_t messages_before = validation_message_count();
        again.result = run_headless(ctx, scene, o, again.plan, true);
        c.validation_messages += validation_message_count() - messages_before;
        c.seconds.repeat = since(phase);
    }

    c.ratios = compute_ratios(c.runs);
    c.meshlet_ratios = compute_meshlet_ratios(c.runs);
    c.shading_ratios = compute_shading_ratios(c.runs);
    // Thumbnails and differences from the images the files hold: opaque, as write_png stores them.
    std::vector<RgbaImage> shots(c.runs.size());
    for (size_t i = 0; i < c.runs.size(); ++i)
        if (!c.runs[i].skipped) {
            shots[i].width = options.width, shots[i].height = options.height;
            shots[i].rgba = std::move(c.runs[i].result.image);
            for (size_t a = 3; a < shots[i].rgba.size(); a += 4) shots[i].rgba[a] = 255;
        }
    auto shot = [&](const std::string& name) -> const RgbaImage* {
        for (size_t i = 0; i < c.runs.size(); ++i)
            if (c.runs[i].config.name == name && shots[i].width) return &shots[i];
        return nullptr;
    };
    for (const DifferencePair& pair : difference_pairs()) {
        CompareDifference d{pair};
        const RgbaImage *a = shot(pair.subgroup_run), *b = shot(pair.fallback_run);
        if (a && b) {
            ImageDifference diff = image_difference(*a, *b);
            d.compared = true;
            d.differing = diff.differing;
            d.amplified = std::move(diff.amplified);
        }
        c.differences.push_back(std::move(d));
    }
    c.run_to_run.pair = {kRunToRunRun, kRunToRunRun};
    if (repeat) {
        RgbaImage second = load_image(again.result.screenshot);
        if (second.width == 0) throw std::runtime_error("cannot read back the screenshot " + again.result.screenshot);
        ImageDifference diff = image_difference(second, *shot(kRunToRunRun));
        c.run_to_run.compared = true;
        c.run_to_run.differing = diff.differing;
        c.run_to_run.amplified = std::move(diff.amplified);
    }
    c.seconds.total = since(start);
    c.report = comparison_json(ctx, options, scene, c);
    c.report_json = (fs::path(c.dir) / "report.json").string();
    c.report_md = (fs::path(c.dir) / "report.md").string();
    c.sheet = (fs::path(c.dir) / "compare.png").string();
    c.chart = (fs::path(c.dir) / "chart.svg").string();
    write_text(c.report_json, c.report.dump(2) + "\n");
    write_text(c.report_md, markdown_report(ctx, options, scene, c));
    write_text(c.chart, chart_svg(build_chart(c),
                                  "subgroup-demo --compare: " + ctx.info.name + ", " + std::to_string(options.width) + "x" +
                                      std::to_string(options.height) + ", " + std::to_string(scene.triangle_count()) +
                                      " triangles, " + std::to_string(options.lights) + " lights"));

    RgbaImage sheet = comparison_sheet(ctx, options, scene, c, shots);
    write_png(c.sheet, sheet.width, sheet.height, sheet.rgba);
    return c;
}


CompareChart build_chart(const CompareResult& result) {
    CompareChart c;
    std::optional<double> graphics = result.probe.ratio();
    for (const PassRatio& r : all_ratios(result)) {
        ChartPair p;
        p.name = r.name;
        p.key = r.key;
        p.subgroup_side = r.subgroup_side;
        p.fallback_side = r.fallback_side;
        p.measured = r.measured;
        p.subgroup = {r.subgroup_ms, std::min(r.subgroup_min, r.subgroup_ms), std::max(r.subgroup_max, r.subgroup_ms)};
        p.fallback = {r.fallback_ms, std::min(r.fallback_min, r.fallback_ms), std::max(r.fallback_max, r.fallback_ms)};
        p.ratio = r.ratio;
        p.ci95 = r.ci95;
        p.verdict = r.verdict;
        if (r.graphics_vs_compute) p.graphics_to_compute = graphics;
        p.note = r.reason;
        c.pairs.push_back(p);
    }
    const PassRatio& frame = result.ratios[kPassCount];
    c.frame_ratio = frame.ratio;
    c.frame_verdict = frame.verdict;
    const std::vector<CompareRun>& runs = result.runs;
    const PassRatios& ratios = result.ratios;
    const char* names[2] = {"all-subgroup", "all-fallback"};
    for (int i = 0; i < 2; ++i) {
        ChartStack& st = c.stacks[i];
        st.run = names[i];
        auto run = std::find_if(runs.begin(), runs.end(), [&](const CompareRun& r) { return r.config.name == st.run; });
        if (run == runs.end() || run->skipped) continue;
        st.measured = true;
        st.frame_ms = run->result.timings[size_t(Timer::frame)].median;
        for (const TimerInfo& t : kTimers) {
            if (t.timer == Timer::frame || t.timer == Timer::view || !run->result.ran[size_t(t.timer)]) continue;
            ChartSegment seg{std::string(t.brief), size_t(t.timer), run->result.timings[size_t(t.timer)].median, 0, ""};
            // A pass whose subgroup path runs inside this timer's pass in this run: its measured share.
            for (const PassInfo& pass : kPasses)
                if (hosting_timer(pass, run->plan) == t.timer && has_own_timer(pass) && run->plan[pass.id].variant == Variant::subgroup &&
                    ratios[size_t(pass.id)].measured) {
                    seg.hosted_ms = std::max(0.0, ratios[size_t(pass.id)].subgroup_ms);
                    seg.hosted_label = std::string(pass.hosted_label);
                }
            st.segments.push_back(seg);
        }
    }
    return c;
}

std::vector<DifferencePair> difference_pairs() {
    std::vector<DifferencePair> pairs;
    for (const PassInfo& pass : kPasses)
        if (offers(pass, Request::subgroup) && offers(pass, Request::fallback))
            pairs.push_back({std::string(pass.name) + "-subgroup", std::string(pass.name) + "-fallback"});
    pairs.push_back({"shading-visibility", "shading-visibility-materials-fallback"});
    pairs.push_back({"all-subgroup", "all-fallback"});
    return pairs;
}

