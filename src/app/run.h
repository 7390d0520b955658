// The headless run: render --frames frames offscreen, time them, read results back.
#pragma once

#include <array>
#include <string>

#include <nlohmann/json.hpp>

#include "app/bandwidth_probe.h"
#include "app/options.h"
#include "render/mip_reference.h"
#include "render/renderer.h"

struct RunResult {
    std::array<TimingStats, kTimerCount> timings{};
    std::array<bool, kTimerCount> ran{};
    GpuCounters counters{};
    GpuCounters instrumented{};
    uint64_t meshlets = 0;          // --geometry meshlet: meshlets built (unique meshes)
    double meshlet_build_ms = 0.0;  // and the host time it took  // the instrumented frame's counters: light_atomics, the light loop's trips
    uint64_t triangles_in = 0;
    ExposureState exposure{};  // after the last frame (exposure_pass.h)
    std::string screenshot;  // path written, or empty
    std::string mip;
    MipCheck mip_check;  // --mip-dump: the mip against the CPU box filter of the same frame
    std::string ray;  // --ray-dump
    CopyBandwidth copy;  // --bandwidth-probe, else zero
};

std::string default_scene_path();

// The one place options become a device request and a renderer configuration: the headless run,
// the window and the comparison all build theirs here, so an option cannot reach one and not the
// others. The window adds its surface's instance extensions and the swapchain to the former.
ContextOptions context_options(const Options& options);
RendererConfig renderer_config(const Options& options, const Plan& plan, VkExtent2D extent);
// What the renderer was configured with, as the report's "renderer" and the window's first log line.
nlohmann::json renderer_json(const RendererConfig& config);

// Loads the scene named by the options (or the bundled one) and applies --instances.
Scene load_requested_scene(const Options& options);

// Checks --size and the scene's buffer sizes against the device before anything is allocated.
void check_device_limits(const Context& ctx, const Options& options, const Scene& scene);

RunResult run_headless(const Context& ctx, const Scene& scene, const Options& options, const Plan& plan,
                       bool quiet = false);

nlohmann::json device_json(const Context& ctx);
nlohmann::json subgroup_json(const Context& ctx);
nlohmann::json plan_json(const Plan& plan);
// --info's "views": for every stage and subgroup view mode, the variant it would run and why.
nlohmann::json views_json(const Context& ctx);
nlohmann::json report_json(const Context& ctx, const Options& options, const Plan& plan, const Scene& scene,
                           const RunResult& result);

// `--info`: the device, its subgroup capabilities per stage and per operation, and the plan.
void print_info(const Context& ctx, const Plan& plan);
