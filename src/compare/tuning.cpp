#include "compare/tuning.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <utility>

#include "render/text_format.h"
#include "run/progress.h"

namespace fs = std::filesystem;

namespace {

nlohmann::json bound(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

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
// Its rounds of one frame a row: at most this many, fewer where every decision is decided or the
// rounds have taken kQuickRoundsSeconds, never fewer than kMinBudgetRounds.
constexpr uint32_t kQuickMaxRounds = 10;

std::string renderers_text(uint32_t renderers) {
    return renderers == 1 ? "one renderer for every row" : std::to_string(renderers) + " renderers";
}

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
    fprintf(stderr, "auto: no verdict stored for this device, driver and build: measuring this device (%s, then rounds of "
                    "one frame a row, %u to %u, none started after %.0f s once %u are done; --tune measures every pass, "
                    "--no-tuning skips this)\n", names.c_str(), kMinBudgetRounds, kQuickMaxRounds, kQuickRoundsSeconds, kMinBudgetRounds);
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
    // stops once every decision it is a side of is decided, after kMinAdaptiveRounds), at most kQuickMaxRounds,
    // and none started once the rounds have taken kQuickRoundsSeconds and kMinBudgetRounds are done.
    Options o = options;
    o.warmup = 2;
    o.frames = o.warmup + kQuickMaxRounds;
    o.screenshot.clear(), o.mip_dump.clear(), o.report.clear(), o.cull_dump.clear(), o.ray_dump.clear();
    o.bandwidth_probe = false;
    CompareMethod method;
    // Progress, a step per row set up and per round: a GPU measures in two or three seconds, a CPU
    // device (lavapipe) takes a minute and more at 1280x720 (docs/comparison.md, "The first run").
    ProgressLine line;
    auto step = [&](const std::string& name, bool skipped) {
        double s = std::chrono::duration<double>(clock::now() - started).count();
        line.update("  measuring " + name + (skipped ? " (skipped)" : "") + " after " + fixed(s, 1) + " s");
    };
    {
        SharedRenderer shared;  // freed here: the run's own renderer comes after
        method = render_in_rounds(
            ctx, scene, o, runs, step, kQuickRoundsSeconds,
            [&](const std::vector<CompareRun>& rows) { return sides_of_undecided(rows, ratios_of(rows)); }, &shared);
    }
    line.finish();
    ratios_of(runs);
    double seconds = std::chrono::duration<double>(clock::now() - started).count();
    nlohmann::json rows = nlohmann::json::array(), row_rounds = nlohmann::json::object();
    for (const CompareRun& r : runs) {
        rows.push_back(r.config.name);
        if (!r.skipped) row_rounds[r.config.name] = r.result.rounds[size_t(Timer::frame)].size();
    }
    nlohmann::json quick = {{"seconds", seconds},         {"setup_seconds", method.setup_seconds},
                            {"build_seconds", method.build_seconds}, {"first_frames_seconds", method.first_frames_seconds},
                            {"compile_seconds", method.compile_seconds}, {"pipelines_compiled", method.pipelines_compiled},
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
        fprintf(stderr, "auto: measured this device in %.2f s (%s; set-up and warm-up %.2f s: building %.2f s, the rows' first "
                "frames %.2f s, of which compiling %u pipelines %.2f s; measuring %.2f s in %u rounds): %s; stored as a quick "
                "verdict in %s\n", seconds, renderers_text(method.renderers).c_str(), method.setup_seconds, method.build_seconds,
                method.first_frames_seconds, method.pipelines_compiled, method.compile_seconds, method.rounds_seconds, method.rounds(), result.c_str(), path.c_str());
    } catch (const std::exception& e) {
        // Not stored: the verdicts still serve this run, read back from the file's text.
        t = parse_tuning(tuning_json(ctx.info, "quick", today_utc(), key, PassRatios{}, shading, under_visibility,
                                     current_build_id(), quick).dump(), ctx.info, key);
        fprintf(stderr, "warning: auto measured this device in %.2f s (%s) but cannot store it (%s): the next run measures again\n",
                seconds, result.c_str(), e.what());
    }
    t.measured_now = true;
    t.measure_seconds = seconds;
    t.measure_setup_seconds = method.setup_seconds;
    t.measure_rounds_seconds = method.rounds_seconds;
    t.measure_renderers = method.renderers;
    return t;
}

int run_tune(const Context& ctx, const Scene& scene, const Options& options) {
    fprintf(stderr, "tune: %s, %ux%u, %llu triangles, %u lights, %u frames (%u warm-up) per configuration\n",
            ctx.info.name.c_str(), options.width, options.height, (unsigned long long)scene.triangle_count(), options.lights,
            options.frames, options.warmup);
    if (!options.out_dir.empty()) fs::create_directories(options.out_dir);

    // The file this tune replaces: a quick one's choice is set against the tuned one's in the check.
    const TuningKey key = tuning_key(options, scene.triangle_count());
    LoadedTuning before = options.no_tuning ? LoadedTuning{} : load_tuning(ctx.info, key);
    bool replaces_quick = before.usable() && before.made_by == "quick";

    // 1. The pass rows, planned by capabilities alone (like --compare's), in rounds, all on one
    // renderer switched by plan, which the check below takes on as well: one set-up for the tune.
    auto started = std::chrono::steady_clock::now();
    SharedRenderer shared;
    std::vector<CompareRun> runs;
    for (const CompareConfig& c : tune_rows()) runs.push_back(planned(ctx, c, options.plan.lod));
    CompareMethod rows_method = render_in_rounds(ctx, scene, options, runs, progress_line, 0, {}, &shared);
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
    CompareMethod check_method = render_in_rounds(ctx, scene, options, check, progress_line, 0, {}, &shared);
    shared.renderer.reset();  // freed before the tables and files
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    const uint32_t renderers = rows_method.renderers + check_method.renderers;
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

    printf("time: %.1f s (%s; the pass rows' set-up and warm-up %.1f s, their %u rounds %.1f s; the check's set-up and warm-up "
           "%.1f s, its %u rounds %.1f s)\n", seconds, renderers_text(renderers).c_str(), rows_method.setup_seconds, rows_method.rounds(),
           rows_method.rounds_seconds, check_method.setup_seconds, check_method.rounds(), check_method.rounds_seconds);

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
            {"plan", plan_json(tuned)},
            {"renderers", renderers},
            {"seconds", {{"rows_setup", rows_method.setup_seconds}, {"rows_rounds", rows_method.rounds_seconds},
                         {"check_setup", check_method.setup_seconds}, {"check_rounds", check_method.rounds_seconds},
                         {"total", seconds}}}};
        std::string file = (fs::path(options.out_dir) / "tune.json").string();
        std::ofstream(file) << out.dump(2) << "\n";
        printf("wrote %s\n", file.c_str());
    }
    return 0;
}

int run_compare(const Context& ctx, const Scene& scene, const Options& options) {

    fprintf(stderr, "compare: %s, subgroup size %u, %ux%u, %llu triangles, %u lights, %u frames (%u warm-up)\n",
            ctx.info.name.c_str(), ctx.subgroup.size, options.width, options.height,
            (unsigned long long)scene.triangle_count(), options.lights, options.frames, options.warmup);
    // The rows run in auto's plan on this device: a typed --shading / --raster, else the stored
    // verdicts of this size class (none: the capabilities'; --no-tuning: the capabilities'), which
    // the start-up put in options.plan.
    CompareResult c = run_comparison(ctx, scene, options, [](const CompareProgress& p) {
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
    printf("time: %.1f s (the renderer's set-up and warm-up %.1f s, %u rounds %.1f s, the images %.1f s, the probe %.1f s, "
           "the repeat %.1f s)\n", c.seconds.total, c.seconds.setup, c.method.rounds(), c.seconds.rounds, c.seconds.images,
           c.seconds.probe, c.seconds.repeat);
    // The verdicts are what tuned auto reads (compare/tuning.h): kept for this device, driver and
    // size class. The pass rows ran in the base plan's shading: under visibility the mip's and the
    // ray tracer's verdicts are visibility's own, and the light loop's (the shading pass's) is not stored.
    PassRatios passes = c.ratios, under_visibility;
    if (c.base.shading.shading == Shading::visibility) {
        for (PassId id : {PassId::mip, PassId::ray_trace}) under_visibility[size_t(id)] = std::exchange(passes[size_t(id)], PassRatio{});
        passes[size_t(PassId::light_loop)] = PassRatio{};
    }
    if (options.no_tuning)  // auto ignores the verdicts and nothing is stored: the cache stays as it was
        printf("tuning: not written (--no-tuning)\n");
    else
        printf("tuning: wrote %s (auto takes the faster path where a verdict is faster or slower)\n",
               save_tuning(ctx.info, "compare", tuning_key(options, scene.triangle_count()), passes, c.shading_ratios,
                           under_visibility).c_str());
    printf("wrote the sheet %s, the chart %s, %s, %s and %zu screenshots\n", c.sheet.c_str(), c.chart.c_str(),
           c.report_md.c_str(), c.report_json.c_str(),
           c.runs.size() - std::count_if(c.runs.begin(), c.runs.end(), [](const CompareRun& r) { return r.skipped; }));
    return 0;
}
