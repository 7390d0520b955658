#include "app/compare.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "app/chart.h"
#include "app/image_io.h"
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
    for (Request r : {Request::subgroup, Request::fallback}) {
        CompareConfig c{"all-" + std::string(request_name(r)), {}};
        for (const PassInfo& pass : kPasses) c.requests[size_t(pass.id)] = pass.in_all_rows ? r : Request::automatic;
        m.push_back(c);
    }
    return m;
}

namespace {

const CompareRun* find_run(const std::vector<CompareRun>& runs, const std::string& name) {
    for (const CompareRun& r : runs)
        if (r.config.name == name) return &r;
    return nullptr;
}

// Why `run` cannot provide `pass`'s median, or empty if it can.
std::string missing_timing(const CompareRun* run, const std::string& name, Timer timer) {
    if (!run) return name + " is not in this comparison";
    if (run->skipped) return name + " was skipped: " + run->skip_reason;
    if (!run->result.ran[size_t(timer)])
        return "the " + std::string(timer_info(timer).key) + " pass recorded no GPU time in " + name +
               " (it did not run in that configuration)";
    return "";
}

double median(const CompareRun* run, Timer timer) { return run->result.timings[size_t(timer)].median; }

std::string format_ratio(const PassRatio& r) { return r.ratio ? fixed(*r.ratio, 2) + "x" : "n/a"; }

void finish_ratio(PassRatio& r) {
    r.measured = true;
    if (r.subgroup_ms <= 0) {
        r.reason = "the subgroup path's cost measured " + format_ms(r.subgroup_ms) + " ms (" + r.measured_as +
                   "): not above the run-to-run noise, so no ratio";
        return;
    }
    r.ratio = r.fallback_ms / r.subgroup_ms;
}

PassRatio pass_ratio(const std::vector<CompareRun>& runs, std::string_view key, std::string_view name,
                     const std::string& prefix, Timer timer) {
    PassRatio r;
    r.key = key;
    r.name = name;
    r.fallback_run = prefix + "-fallback";
    r.subgroup_run = prefix + "-subgroup";
    r.measured_as = std::string(timer_info(timer).key) + " pass median in " + r.fallback_run + " over the same in " + r.subgroup_run;
    const CompareRun* fb = find_run(runs, r.fallback_run);
    const CompareRun* sg = find_run(runs, r.subgroup_run);
    r.reason = missing_timing(sg, r.subgroup_run, timer);
    if (r.reason.empty()) r.reason = missing_timing(fb, r.fallback_run, timer);
    if (!r.reason.empty()) return r;
    r.fallback_ms = median(fb, timer);
    r.subgroup_ms = median(sg, timer);
    const TimingStats &f = fb->result.timings[size_t(timer)], &g = sg->result.timings[size_t(timer)];
    r.fallback_min = f.min, r.fallback_max = f.max, r.subgroup_min = g.min, r.subgroup_max = g.max;
    finish_ratio(r);
    return r;
}

// A pass whose subgroup path runs inside another pass (the quad mip, stored by the resolve pass's
// fragment shader) has no time of its own there: its cost is what it adds to the host pass over
// the same frame with the pass off, from the same run.
PassRatio hosted_ratio(const std::vector<CompareRun>& runs, const PassInfo& pass) {
    std::string name(pass.name), own(timer_info(pass.timer).key), host(timer_info(*pass.host_timer).key);
    PassRatio r;
    r.key = pass.key;
    r.name = pass.name;
    r.fallback_run = name + "-fallback";
    r.subgroup_run = name + "-subgroup";
    std::string off_run = name + "-off";
    r.measured_as = own + " pass median in " + r.fallback_run + " over the " + host + " pass median in " + r.subgroup_run +
                    " minus that in " + off_run;
    const CompareRun* sg = find_run(runs, r.subgroup_run);
    const CompareRun* fb = find_run(runs, r.fallback_run);
    const CompareRun* off = find_run(runs, off_run);
    r.reason = missing_timing(sg, r.subgroup_run, *pass.host_timer);
    if (r.reason.empty()) r.reason = missing_timing(off, off_run, *pass.host_timer);
    if (r.reason.empty()) r.reason = missing_timing(fb, r.fallback_run, pass.timer);
    if (!r.reason.empty()) return r;
    r.fallback_ms = median(fb, pass.timer);
    r.subgroup_ms = median(sg, *pass.host_timer) - median(off, *pass.host_timer);
    const TimingStats &f = fb->result.timings[size_t(pass.timer)], &in_host = sg->result.timings[size_t(*pass.host_timer)];
    r.fallback_min = f.min, r.fallback_max = f.max;
    r.subgroup_min = r.subgroup_ms - (in_host.median - in_host.min);
    r.subgroup_max = r.subgroup_ms + (in_host.max - in_host.median);
    finish_ratio(r);
    return r;
}

PassRatio ratio_of(const std::vector<CompareRun>& runs, const PassInfo& pass) {
    const CompareRun* sg = find_run(runs, std::string(pass.name) + "-subgroup");
    bool own_time = has_own_timer(pass) && sg && !sg->skipped && sg->result.ran[size_t(pass.timer)];
    if (!pass.host_timer || own_time) return pass_ratio(runs, pass.key, pass.name, std::string(pass.name), pass.timer);
    // Hosted, with an off variant (the quad mip): its subgroup cost is what it adds to the host.
    if (offers(pass, Request::off)) return hosted_ratio(runs, pass);
    // Hosted without one (the light loop: forward always runs some loop): both variants are the
    // host's work, so the ratio is the host's time in the fallback run over that in the subgroup run.
    PassRatio r = pass_ratio(runs, pass.key, pass.name, std::string(pass.name), *pass.host_timer);
    r.measured_as = std::string(timer_info(*pass.host_timer).key) + " pass median (it runs the " + std::string(pass.name) +
                    ") in " + r.fallback_run + " over the same in " + r.subgroup_run;
    return r;
}

PassRatio frame_ratio(const std::vector<CompareRun>& runs) {
    PassRatio r = pass_ratio(runs, "frame", "frame", "all", Timer::frame);
    r.measured_as = "frame median in all-fallback over the same in all-subgroup";
    return r;
}

nlohmann::json config_json(const CompareConfig& c) {
    nlohmann::json j = nlohmann::json::object();
    for (const PassInfo& pass : kPasses) j[std::string(pass.key)] = request_name(c[pass.id]);
    j["geometry"] = geometry_name(c.geometry);
    return j;
}

void write_text(const std::string& path, const std::string& text) {
    std::ofstream file(path);
    if (!file || !(file << text)) throw std::runtime_error("cannot write " + path + " (is the folder writable?)");
}

std::vector<PassRatio> all_ratios(const CompareResult& c) {
    std::vector<PassRatio> all(c.ratios.begin(), c.ratios.end());
    all.insert(all.end(), c.meshlet_ratios.begin(), c.meshlet_ratios.end());
    return all;
}

nlohmann::json ratio_detail_json(const PassRatio& r) {
    nlohmann::json j = {{"fallback_run", r.fallback_run}, {"subgroup_run", r.subgroup_run}, {"measured_as", r.measured_as}};
    if (r.measured) {
        j["fallback_ms"] = r.fallback_ms;
        j["subgroup_ms"] = r.subgroup_ms;
    }
    if (!r.reason.empty()) j["reason"] = r.reason;
    return j;
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
        details[r.key] = ratio_detail_json(r);
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
            {"validation", {{"enabled", o.validate}, {"messages", c.validation_messages}}},
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
// mip, inside resolve), or null.
const PassInfo* hosted_elsewhere(const CompareRun& r, Timer t) {
    for (const PassInfo& pass : kPasses)
        if (pass.timer == t && pass.host_timer && !r.result.ran[size_t(t)] && r.plan[pass.id].variant == Variant::subgroup)
            return &pass;
    return nullptr;
}

std::string pass_ms(const CompareRun& r, Timer t) {
    if (r.result.ran[size_t(t)]) return format_ms(r.result.timings[size_t(t)].median);
    const PassInfo* hosted = hosted_elsewhere(r, t);
    return hosted ? "in " + std::string(timer_info(*hosted->host_timer).brief) : "-";
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
    line("| pass | fallback ms | subgroup ms | speed-up | measured as |");
    line("| --- | ---: | ---: | ---: | --- |");
    for (const PassRatio& r : all_ratios(c)) {
        if (r.ratio)
            line("| " + r.key + " | " + format_ms(r.fallback_ms) + " | " + format_ms(r.subgroup_ms) + " | " + format_ratio(r) +
                 " | " + r.measured_as + " |");
        else if (r.measured)
            line("| " + r.key + " | " + format_ms(r.fallback_ms) + " | " + format_ms(r.subgroup_ms) + " | n/a | " + r.reason + " |");
        else
            line("| " + r.key + " | | | n/a | " + r.reason + " |");
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
                        std::to_string(o.lights) + " lights   median of " + std::to_string(o.frames - o.warmup) + " frames, ms";
    std::string speedups = "speed-up, fallback / subgroup:";
    for (const PassRatio& r : all_ratios(c)) speedups += "   " + r.name + " " + format_ratio(r);
    std::vector<TextLine> header = {{"subgroup-demo --compare   " + device, white}, {setup, grey}, {speedups, gold}};

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
    draw_chart(sheet, layout.band(), build_chart(c.runs, c.ratios), layout.text_scale);
    return sheet;
}

}  // namespace

size_t difference_cells() { return difference_pairs().size() + 1; }

SheetLayout compare_sheet_layout(uint32_t frame_width, uint32_t frame_height, size_t configurations) {
    SheetLayout probe = make_sheet_layout(frame_width, frame_height, 1, kCompareHeaderLines, kCompareLabelLines);
    return make_sheet_layout(frame_width, frame_height, difference_cells() + configurations, kCompareHeaderLines,
                             kCompareLabelLines, chart_height(probe.text_scale));
}

std::array<PassRatio, 2> compute_meshlet_ratios(const std::vector<CompareRun>& runs) {
    PassRatio cull = pass_ratio(runs, "meshlet_cull", "meshlet cull", "meshlet", Timer::depth);
    cull.measured_as = "depth pass median (where the task and mesh shaders cull) in meshlet-fallback over the same in "
                       "meshlet-subgroup";
    // The indexed frame plays the "fallback" side: the ratio is indexed over meshlet.
    PassRatio geometry;
    geometry.key = "geometry";
    geometry.name = "indexed/meshlet";
    geometry.fallback_run = "cull-subgroup";
    geometry.subgroup_run = "meshlet-subgroup";
    geometry.measured_as = "frame median in cull-subgroup (indexed: compute cull + indirect draws) over the same in "
                           "meshlet-subgroup";
    const CompareRun* indexed = find_run(runs, geometry.fallback_run);
    const CompareRun* meshlet = find_run(runs, geometry.subgroup_run);
    geometry.reason = missing_timing(meshlet, geometry.subgroup_run, Timer::frame);
    if (geometry.reason.empty()) geometry.reason = missing_timing(indexed, geometry.fallback_run, Timer::frame);
    if (geometry.reason.empty()) {
        geometry.fallback_ms = median(indexed, Timer::frame);
        geometry.subgroup_ms = median(meshlet, Timer::frame);
        const TimingStats &f = indexed->result.timings[size_t(Timer::frame)], &g = meshlet->result.timings[size_t(Timer::frame)];
        geometry.fallback_min = f.min, geometry.fallback_max = f.max, geometry.subgroup_min = g.min, geometry.subgroup_max = g.max;
        finish_ratio(geometry);
    }
    return {cull, geometry};
}

PassRatios compute_ratios(const std::vector<CompareRun>& runs) {
    PassRatios ratios;
    for (const PassInfo& pass : kPasses) ratios[size_t(pass.id)] = ratio_of(runs, pass);
    ratios[kPassCount] = frame_ratio(runs);
    return ratios;
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
    for (const CompareConfig& config : comparison_matrix()) {
        CompareRun run;
        run.config = config;
        // Timings compare passes, so every configuration renders the plain shaded frame: a debug
        // view (the window may be showing one) would add its own pass and change the screenshots.
        PlanRequest request;
        request.passes = config.requests;
        request.geometry = config.geometry;
        try {
            run.plan = make_plan(ctx.subgroup, ctx.features, request);
        } catch (const UnsupportedRequest& e) {
            run.skipped = true;
            run.skip_reason = e.what();
        }
        c.runs.push_back(std::move(run));
    }
    size_t to_run = 0;
    for (const CompareRun& r : c.runs) to_run += !r.skipped;
    // The run-to-run noise floor renders all-fallback once more, after the matrix.
    auto repeated = std::find_if(c.runs.begin(), c.runs.end(),
                                 [](const CompareRun& r) { return r.config.name == kRunToRunRun && !r.skipped; });
    const bool repeat = repeated != c.runs.end();
    const size_t steps = c.runs.size() + repeat;
    to_run += repeat;

    auto start = clock::now();
    double run_seconds = 0;
    size_t done = 0;
    auto report_progress = [&](size_t index, const std::string& name, bool skipped) {
        if (!progress) return;
        CompareProgress p{index, steps, name, skipped};
        p.elapsed_s = std::chrono::duration<double>(clock::now() - start).count();
        if (done > 0) p.eta_s = run_seconds / double(done) * double(to_run - done);
        progress(p);
    };
    auto render = [&](CompareRun& run, const std::string& screenshot) {
        Options o = options;
        o.plan = PlanRequest{};
        o.plan.passes = run.config.requests;
        o.plan.geometry = run.config.geometry;
        o.screenshot = screenshot;
        o.mip_dump.clear();
        o.report.clear();

        uint32_t messages_before = validation_message_count();
        auto run_start = clock::now();
        run.result = run_headless(ctx, scene, o, run.plan, true);
        run.seconds = std::chrono::duration<double>(clock::now() - run_start).count();
        run.validation_messages = validation_message_count() - messages_before;
        run_seconds += run.seconds;
        ++done;

        run.report = report_json(ctx, o, run.plan, scene, run.result);
        run.report["validation"]["messages"] = run.validation_messages;  // this configuration's, not the process's
        run.report["name"] = run.config.name;
        run.report["config"] = config_json(run.config);
        c.validation_messages += run.validation_messages;
    };
    for (size_t i = 0; i < c.runs.size(); ++i) {
        CompareRun& run = c.runs[i];
        report_progress(i + 1, run.config.name, run.skipped);
        if (!run.skipped) render(run, (fs::path(c.dir) / (run.config.name + ".png")).string());
    }
    CompareRun again;
    if (repeat) {
        again.config = repeated->config;
        again.plan = repeated->plan;
        report_progress(steps, again.config.name + " (again, run to run)", false);
        render(again, (fs::path(c.dir) / (again.config.name + "-again.png")).string());
    }

    c.ratios = compute_ratios(c.runs);
    c.meshlet_ratios = compute_meshlet_ratios(c.runs);
    // Thumbnails and differences from the screenshots as written, so the sheet shows exactly what
    // the files hold.
    std::vector<RgbaImage> shots(c.runs.size());
    for (size_t i = 0; i < c.runs.size(); ++i)
        if (!c.runs[i].skipped) {
            shots[i] = load_image(c.runs[i].result.screenshot);
            if (shots[i].width == 0) throw std::runtime_error("cannot read back the screenshot " + c.runs[i].result.screenshot);
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
    c.report = comparison_json(ctx, options, scene, c);
    c.report_json = (fs::path(c.dir) / "report.json").string();
    c.report_md = (fs::path(c.dir) / "report.md").string();
    c.sheet = (fs::path(c.dir) / "compare.png").string();
    c.chart = (fs::path(c.dir) / "chart.svg").string();
    write_text(c.report_json, c.report.dump(2) + "\n");
    write_text(c.report_md, markdown_report(ctx, options, scene, c));
    write_text(c.chart, chart_svg(build_chart(c.runs, c.ratios),
                                  "subgroup-demo --compare: " + ctx.info.name + ", " + std::to_string(options.width) + "x" +
                                      std::to_string(options.height) + ", " + std::to_string(scene.triangle_count()) +
                                      " triangles, " + std::to_string(options.lights) + " lights"));

    RgbaImage sheet = comparison_sheet(ctx, options, scene, c, shots);
    write_png(c.sheet, sheet.width, sheet.height, sheet.rgba);
    return c;
}

int run_compare(const Options& options) {
    Context ctx;
    create_context(ctx, context_options(options));
    Scene scene = load_requested_scene(options);
    check_device_limits(ctx, options, scene);

    fprintf(stderr, "compare: %s, subgroup size %u, %ux%u, %llu triangles, %u lights, %u frames (%u warm-up)\n",
            ctx.info.name.c_str(), ctx.subgroup.size, options.width, options.height,
            (unsigned long long)scene.triangle_count(), options.lights, options.frames, options.warmup);
    CompareResult c = run_comparison(ctx, scene, options, [](const CompareProgress& p) {
        std::string eta = p.eta_s < 0 ? std::string("estimating") : "about " + std::to_string(int(std::ceil(p.eta_s))) + " s left";
        fprintf(stderr, "[%zu/%zu] %-20s %s  (%.0f s elapsed, %s)\n", p.index, p.count, p.name.c_str(),
                p.skipped ? "skipped" : "running", p.elapsed_s, eta.c_str());
    });
    for (const CompareRun& r : c.runs)
        if (r.skipped) fprintf(stderr, "skipped %s: %s\n", r.config.name.c_str(), r.skip_reason.c_str());
    for (const PassRatio& r : all_ratios(c)) {
        if (r.ratio)
            printf("%-10s speed-up %.2fx (fallback %s ms / subgroup %s ms)\n", r.key.c_str(), *r.ratio,
                   format_ms(r.fallback_ms).c_str(), format_ms(r.subgroup_ms).c_str());
        else
            printf("%-10s no ratio: %s\n", r.key.c_str(), r.reason.c_str());
    }
    printf("wrote the sheet %s, the chart %s, %s, %s and %zu screenshots\n", c.sheet.c_str(), c.chart.c_str(),
           c.report_md.c_str(), c.report_json.c_str(),
           c.runs.size() - std::count_if(c.runs.begin(), c.runs.end(), [](const CompareRun& r) { return r.skipped; }));
    return 0;
}
