// `--compare --out DIR`: the contract's comparison matrix rendered headless in one process (one
// Vulkan context, the scene loaded once), then DIR/report.json, DIR/report.md, DIR/compare.png
// and one screenshot per configuration (DIR/<name>.png).
#pragma once

#include <array>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "run/options.h"
#include "run/headless.h"
#include "run/report.h"
#include "compare/chart.h"
#include "tuning/ratio.h"
#include "compare/sheet.h"
#include "run/statistics.h"
#include "compare/stage_probe.h"

// The image pairs that the comparison expects to be identical, subgroup against fallback: each pass
// that offers both, then all-subgroup against all-fallback. Their difference panel opens the grid.
struct DifferencePair {
    std::string subgroup_run, fallback_run;
};
std::vector<DifferencePair> difference_pairs();

// One cell of the matrix: what is requested of each pass (the view comes from the options).
struct CompareConfig {
    std::string name;  // "cull-subgroup", "mip-off", "all-fallback", ...: also the screenshot's file name
    std::array<Request, kPassCount> requests{};  // by PassId; value-initialised to auto
    Geometry geometry = Geometry::indexed;        // the meshlet-* rows: --geometry meshlet, with --cull as requested
    std::optional<Shading> shading;               // the shading-* rows: --shading; nullopt: auto
    Request derivatives = Request::automatic;     // visibility's derivatives (PlanRequest::derivatives)
    Request materials = Request::automatic;       // visibility's per-pixel materials (--materials)
    std::optional<Raster> raster;                 // the raster-* rows: --raster; nullopt: auto
    Request raster_variant = Request::automatic;  // the compute rasterizer's path (PlanRequest::raster_variant)
    uint32_t test_extra_work = 0;                 // tests only: RendererConfig::test_extra_work

    Request operator[](PassId id) const { return requests[size_t(id)]; }
};

// The request every row starts from: auto's plan on this device as `plan` holds it (a typed
// --shading and --raster, the stored verdicts of this size class that run_compare put there, --lod),
// with every pass at auto, the shaded view and the indexed geometry, so that each row switches only
// its own pass (or path) within the plan auto takes (docs/comparison.md, "The plan the rows run in").
PlanRequest comparison_base(const PlanRequest& plan);
// What the configuration asks of the planner: the base with the configuration's own requests on top.
PlanRequest plan_request(const CompareConfig& config, const PlanRequest& base);
// The same from the capabilities alone (no typed paths, no verdicts), every row with this --lod.
PlanRequest plan_request(const CompareConfig& config, bool lod);
// auto's plan the rows are measured in, in words for the sheet's headline: "visibility/subgroup
// shading, hardware rasterizer, indexed geometry (measured: tune of 2026-12-01)".
std::string base_plan_text(const Plan& plan);

// In this order: each pass of the table in each variant it offers (subgroup, forward: the mip's
// alone, fallback, off) with the others at auto; the meshlet geometry path with its culling in each
// variant (meshlet-subgroup, -fallback, -off; skipped with the reason where the device has no mesh
// shaders); shading-forward, shading-visibility (quad-swap derivatives; skipped where compute has
// no quad operations) and shading-visibility-fallback (analytic derivatives), the others at auto
// (skipped where the device cannot run visibility); all-subgroup and all-fallback, which set every pass whose entry has `in_all_rows` (the
// ray tracer stays at auto in both). A configuration the device cannot run is skipped (CompareRun).
std::vector<CompareConfig> comparison_matrix();

struct CompareRun {
    CompareConfig config;
    bool skipped = false;     // the device (after masking) cannot run a request (make_plan refused it)
    std::string skip_reason;  // make_plan's message
    Plan plan;
    RunResult result;
    nlohmann::json report;    // the contract's report plus "name" and "config"; null when skipped
    uint32_t validation_messages = 0;  // reported while this configuration ran
    double seconds = 0;       // wall time spent on it: set-up, warm-up, its share of the rounds, read-back
};


// One per pass of the table, then frame. Pure: tested on synthetic runs.
//  - a pass: its timer's median in <pass>-fallback over the same in <pass>-subgroup.
//  - a pass whose subgroup path runs inside another pass (the quad mip, in the resolve pass): where
//    <pass>-subgroup has no time of its own, its cost is host(<pass>-subgroup) - host(<pass>-off);
//    the fallback's cost is its own timer in <pass>-fallback.
//  - a pass that is only a way of doing its host's work (the light loop, in forward): the host's
//    median in <pass>-fallback over the same in <pass>-subgroup.
//  - frame: frame median of all-fallback over all-subgroup.
PassRatios compute_ratios(const std::vector<CompareRun>& runs);
// The meshlet path's two ratios: "meshlet_cull", its culling's fallback over subgroup (the depth
// pass's medians in meshlet-fallback and meshlet-subgroup: the task and mesh shaders cull there);
// and "geometry", the indexed frame over the meshlet frame (frame medians in cull-subgroup and
// meshlet-subgroup: above 1 the meshlet path is faster).
std::array<PassRatio, 2> compute_meshlet_ratios(const std::vector<CompareRun>& runs);
// The visibility path's two ratios: "shading", the forward frame over the visibility frame (frame
// medians in shading-forward and shading-visibility, or shading-visibility-fallback where the
// quad-swap row was skipped: the derivatives auto runs there; above 1 visibility is faster); and
// "derivatives", the shading pass's median in shading-visibility-fallback over the same in
// shading-visibility (above 1 the quad swaps are faster).
ShadingRatios compute_shading_ratios(const std::vector<CompareRun>& runs);

// Under visibility the mip's pair is the shading pass's quad mip against the compute downsample:
// shading-visibility (the mip at auto: the quad mip where compute has quads) with two more rows,
// shading-visibility-mip-fallback and -mip-off, which only --tune renders. The ratio ("mip") is the
// mip pass's median in the fallback row over what the quad mip adds to the shade pass (its median in
// shading-visibility minus that in the off row).
// The ray tracer under visibility is other work than under forward (ray generation takes each
// pixel's surface from the visibility image and traces no primary ray): its pair there is
// shading-visibility against shading-visibility-ray-trace-fallback, which only --tune renders; the
// ratio ("ray_trace") is the ray_trace pass's median in the fallback row over the same in
// shading-visibility. visibility_pass_rows() holds the mip's two rows, then this one.
std::vector<CompareConfig> visibility_pass_rows();
PassRatio compute_visibility_mip_ratio(const std::vector<CompareRun>& runs);
// Both verdicts measured under visibility, by PassId: mip and ray_trace (the others unmeasured).
// The ray tracer's fallback side is `ray_trace_fallback_run`, its subgroup side `ray_trace_subgroup_run`.
PassRatios compute_visibility_ratios(const std::vector<CompareRun>& runs,
                                     const std::string& ray_trace_fallback_run = "shading-visibility-ray-trace-fallback",
                                     const std::string& ray_trace_subgroup_run = "shading-visibility");

struct CompareProgress {
    size_t index = 0, count = 0;  // index is 1-based
    std::string name;
    bool skipped = false;
    double elapsed_s = 0;
    double eta_s = -1;  // negative until one configuration has run
};
using CompareProgressFn = std::function<void(const CompareProgress&)>;

// Two images the comparison expects to be identical (subgroup against fallback), compared on the CPU.
struct CompareDifference {
    DifferencePair pair = {};
    bool compared = false;     // both runs ran
    size_t differing = 0;      // pixels with any channel different
    RgbaImage amplified = {};  // the difference, black where identical
};

// The run-to-run noise floor: all-fallback rendered a second time, alone (a renderer of its own,
// none other alive), after the matrix and the probe, against its first screenshot. Where a device's frames are not the same from run to run (equal-depth fragments
// inside a draw, whose order the culling's compaction does not keep: docs/culling.md), the pairs of
// the difference panel differ by about as much, whatever the paths; where they are, this is 0.
constexpr const char* kRunToRunRun = "all-fallback";

// How the timed frames were taken: per configuration, `warmup_frames` untimed frames first (after
// one instrumented frame), then `round_frames.size()` rounds in each of which every configuration
// renders round_frames[r] frames, round r starting at the r-th configuration that runs (mod their
// count) so that drift falls on every configuration alike.
struct CompareMethod {
    uint32_t warmup_frames = 0;
    std::vector<uint32_t> round_frames;  // round_sizes(frames - warmup), or the rounds rendered where they ended early
    uint32_t cap_rounds = 0;             // round_sizes(frames - warmup).size(): the most any configuration renders
    double setup_seconds = 0;            // the renderers' set-up, instrumented and warm-up frames (render_in_rounds)
    double build_seconds = 0;            // of it: building the renderers (Renderer::seconds_building)
    double first_frames_seconds = 0;     // of it: each row's first, instrumented frame (the pipelines compile there)
    double compile_seconds = 0;          // of the set-up: in vkCreate*Pipelines (pipeline_compiles)
    uint32_t pipelines_compiled = 0;     // the pipelines those seconds compiled
    double rounds_seconds = 0;           // the rounds and the read-backs after them
    uint32_t renderers = 0;              // the renderers render_in_rounds built (none where it took a shared one made before)
    uint32_t image_frame = 0;            // the frame index of each configuration's image (render_in_rounds' images)
    uint32_t rounds() const { return uint32_t(round_frames.size()); }
};

struct CompareResult {
    CompareMethod method;
    Plan base;  // auto's plan on this device (comparison_base): every row's plan but for its own switch
    std::vector<CompareRun> runs;  // every configuration of the matrix, skipped ones included
    std::vector<CompareDifference> differences;  // one per difference_pairs(), in that order
    CompareDifference run_to_run;  // pair {kRunToRunRun, kRunToRunRun}; not compared when it was skipped
    PassRatios ratios;
    std::array<PassRatio, 2> meshlet_ratios;
    ShadingRatios shading_ratios;
    StageProbe probe;              // the device's graphics-to-compute throughput (compare/stage_probe.h)
    // Where the wall time went (report.json's method.seconds): the renderer's set-up with every
    // row's instrumented and warm-up frames, the rounds with the read-backs, writing the images,
    // the probe, the run-to-run repeat, and all of it.
    struct Seconds {
        double setup = 0, rounds = 0, images = 0, probe = 0, repeat = 0, total = 0;
    } seconds;
    nlohmann::json report;         // what DIR/report.json holds
    std::string dir, report_json, report_md, sheet, chart;  // chart: DIR/chart.svg
    uint32_t validation_messages = 0;
};

// Every ratio: the pass table's, frame, meshlet_cull and geometry, then shading and derivatives
// (report.json's order).
std::vector<PassRatio> all_ratios(const CompareResult& c);

// The timed frames: renders every run that is not skipped in rounds (CompareMethod), all renderers
// alive at once: builds each one's renderer and renders its instrumented and warm-up frames in
// matrix order, then the rounds, then reads each one's timings back into run.result and frees it.
// Nothing is written. `step` is called before each configuration's set-up (skipped ones too) and
// each round with what is about to happen.
// With a budget (seconds, from the call), no round starts once it is spent and kMinBudgetRounds are
// done (the first run's quick measurement); method.round_frames then holds the rounds rendered.
// Adaptive rounds (`needed`): after each round from kMinAdaptiveRounds on, each running
// configuration's timings so far go into its run.result and `needed` says, per entry of `runs`,
// which must go on (a ratio it is a side of is still undecided); the others render no more rounds,
// and where none must, the rounds end (method.round_frames then holds the rounds rendered). The
// cap is the rounds of --frames.
// One renderer (`shared`: --compare, --tune and the first run's quick measurement): the
// configurations whose renderer would be the same but for the plan (SharedRenderer::fits) share
// `shared`'s, made by the first of them unless an earlier call made it, switched to each one's plan
// before its frames (each run keeping its own exposure and occlusion history), so its scene upload
// and pipelines are made once; the others get one each. Without it, one renderer per run.
// Images (`images`, --compare): each run keeps frame method.image_frame, the last frame of the
// first kMinAdaptiveRounds rounds (every run renders it; it does not depend on when adaptive
// rounds end), with its counters and exposure, in run.result (RunResult::image): the frame a
// --headless run of that configuration renders with --frames image_frame + 1.
constexpr uint32_t kMinBudgetRounds = 4;
constexpr uint32_t kMinAdaptiveRounds = 4;
static_assert(kMinBudgetRounds == kMinAdaptiveRounds, "the image frame is the last of the rounds every run renders");
using RoundsNeeded = std::function<std::vector<bool>(const std::vector<CompareRun>&)>;
CompareMethod render_in_rounds(const Context& ctx, const Scene& scene, const Options& options, std::vector<CompareRun>& runs,
                               const std::function<void(const std::string&, bool skipped)>& step = {}, double budget_s = 0,  // of the rounds, set-up not counted
                               const RoundsNeeded& needed = {}, SharedRenderer* shared = nullptr, bool images = false);
// Per run: whether it is a side of one of `ratios` that has a ratio whose interval is not yet
// decided (interval_decided within noise_floor): the runs adaptive rounds go on with.
std::vector<bool> sides_of_undecided(const std::vector<CompareRun>& runs, const std::vector<PassRatio>& ratios,
                                     double noise_floor = kNoiseFloor);
// The comparison's rule: a configuration goes on while a ratio it is a side of (or, for a hosted
// pass, its off row) has an interval that is not decided (interval_decided, within noise_floor).
std::vector<bool> rounds_needed(const std::vector<CompareRun>& runs, double noise_floor = kNoiseFloor);

// The images render_in_rounds kept: each run that is not skipped gets dir/<name>.png (none without
// a dir), written on several threads; then run.report. The images stay in run.result.image.
void write_images(const Context& ctx, const Scene& scene, const Options& options, std::vector<CompareRun>& runs,
                  const std::string& dir, const CompareMethod& method);

// A ratio of one timer's median in two runs, fallback_run over subgroup_run, with its interval.
PassRatio timer_ratio(const std::vector<CompareRun>& runs, std::string_view key, std::string_view name,
                      const std::string& fallback_run, const std::string& subgroup_run, Timer timer);

// The matrix planned on this device from `request` (the options' plan, tuned): auto's plan, which
// every row starts from, and each row's plan, a row the device cannot run skipped with its reason.
// A typed path the device refuses for the base throws UnsupportedRequest naming --compare.
struct ComparisonPlans {
    Plan base;
    std::vector<CompareRun> runs;
};
ComparisonPlans plan_comparison(const Context& ctx, const PlanRequest& request);

// Runs the matrix at options.width x options.height with options.frames/warmup/lights, writing
// everything into options.out_dir (created if missing). Pass requests, --geometry and the debug view
// in the options are ignored: each configuration sets its own, and all render the shaded frame. The scene must be the one the options
// name (already replicated by --instances). Call with the device idle (the window: after
// vkDeviceWaitIdle, at its own size); blocks until done. Runtime failures throw like run_headless.
CompareResult run_comparison(const Context& ctx, const Scene& scene, const Options& options,
                             const CompareProgressFn& progress = {});

// The layout of compare.png for a comparison of `configurations` at frame_width x frame_height: the
// header, the chart (compare/chart.h) in the band below it, then the grid: first one cell per
// difference pair (difference_pairs(): the amplified difference of two images that should be
// identical, with the count of differing pixels) and the run-to-run cell, then one per
// configuration, in matrix order (the first at grid index difference_cells()).
size_t difference_cells();
constexpr int kCompareHeaderLines = 7;  // device, auto's plan, set-up, three lines of speed-ups, the probe
// Name, frame time, then the pass timers two to a line (every timer but frame and view).
constexpr int kCompareLabelLines = 2 + int(kTimerCount - 2 + 1) / 2;
SheetLayout compare_sheet_layout(uint32_t frame_width, uint32_t frame_height, size_t configurations);

// A ratio's 95% interval as report.md writes it: "[0.981, 1.012]", or "none".
std::string interval_text(const PassRatio& r);

// The chart of a comparison (compare/chart.h): its ratios' bars and the all-* frames stacked by pass.
CompareChart build_chart(const CompareResult& c);

