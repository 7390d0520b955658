// The measurements that write the tuning cache (tuning/cache.h): the first run's quick
// measurement, `--tune` and `--compare`.
#pragma once

#include "compare/compare.h"
#include "tuning/cache.h"

// The first run's measurement (docs/architecture.md, "Tuned auto"): the rows of the path decisions
// (docs/comparison.md, "The first run") planned by capabilities, in one renderer, a few frames each
// in adaptive rounds, at most kQuickRoundsSeconds of them after the set-up; stored marked "quick" and read back. Prints
// a progress line and the result on stderr (the window shows "measuring this device" in its HUD
// first). A failure to store is a warning: the verdict still serves this run.
// The rounds' budget, counted from the first round: the set-up before them (the renderer, the
// pipelines' compiles, 3.5-5.6 s on the H100) is the same however many rounds follow, and counted
// with it the budget was spent before the first round, so every first run stopped at
// kMinBudgetRounds single frames, where one slow frame leaves a decision undecided (the hardware
// rasterizer kept at 1280x720 and 1920x1080 on the H100, 1.4x slower than compute).
constexpr double kQuickRoundsSeconds = 1.0;
LoadedTuning quick_tune(const Context& ctx, const Scene& scene, const Options& options);

// `--tune`: only the pass rows of the comparison (each pass's subgroup and fallback, and off where
// the subgroup path is timed inside another pass) and its three shading rows, at --size, then the
// tuning file; then a check:
// all-subgroup, all-fallback and the tuned auto frame rendered in rounds, with the interval of the
// faster of the first two over tuned auto; where the file it replaces was a quick one, also the
// quick choice's frame over tuned auto's. With --out DIR, DIR/tune.json holds both. `ctx` and
// `scene` come from the start-up (app/run.h), which checked the widest plan's limits.
int run_tune(const Context& ctx, const Scene& scene, const Options& options);

// `--compare`, the CLI mode: runs the comparison (compare.h) with progress on stderr, writes its
// files and the verdicts into the tuning file. `ctx`, `scene` and `options` (with the stored
// verdicts: StartUp::tuned) come from the start-up (app/run.h), which checked every row's plan.
// Returns the exit code.
int run_compare(const Context& ctx, const Scene& scene, const Options& options);
