// The start-up that the headless run, --info and the window share, and --info's tables. The
// headless run (context, scene, limits, frames) is run/headless.h and its report run/report.h,
// which the window, the comparison and the atlas use too.
#pragma once

#include <array>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "run/options.h"
#include "tuning/cache.h"
#include "run/headless.h"
#include "run/report.h"

// What a run starts from, made in this order: the context, the tuning file (tuned auto), the plan
// auto resolves with it, the scene, and the limits check of every plan the run will build.
struct StartUp {
    Options tuned;         // the options with the file's verdicts in tuned.plan: what auto consults
    LoadedTuning tuning;   // the file read, or the first run's measurement (none for --tune, --atlas)
    Plan plan;             // the resolved plan of a run of one plan (headless, --info, the window)
    std::optional<Scene> scene;  // none for --info
    bool measure_later = false;  // the window measures this device after its first frame (quick_tune)
};

// The start-up of every mode that renders: creates the context from `device` (the window adds its
// surface's extensions and the swapchain), reads the tuning file, resolves the plan, loads the
// scene and checks the device's limits for every plan the mode builds, before anything is
// allocated: a headless run's plan and the window's first (its keys: checked when pressed, window.cpp);
// every --compare row's, together (they share a renderer); each --atlas cell's; for --tune the
// widest plan. A request the plan refuses fails before the scene is loaded. With no usable
// tuning file (needs_quick_tune) the limits of a headless run or the window also cover every path
// the first run's quick measurement renders and auto may take after it; a headless run then
// measures here, the window after its first frame (measure_later). --info measures nothing; it
// loads the scene (nothing on the GPU) only where tuning is on, for the scene class that chooses
// the tuning file.
StartUp start_up(Context& ctx, const ContextOptions& device, const Options& options);

// `--info`: the device, its subgroup capabilities per stage and per operation, and the plan.
void print_info(const Context& ctx, const Plan& plan);
