// The headless run, shared by every way of running the renderer: the device request, the scene,
// the limits check, and the frames rendered offscreen, timed and read back. The command line's
// headless mode (app/run.h), the window (context and scene), the comparison and the atlas all
// build on it; it includes nothing of theirs.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "run/options.h"
#include "run/bandwidth_probe.h"
#include "run/statistics.h"
#include "render/mip_reference.h"
#include "render/renderer.h"

struct RunResult {
    std::array<TimingStats, kTimerCount> timings{};  // over every measured frame
    std::array<bool, kTimerCount> ran{};
    // Each timer's measured frames by round (--compare renders in rounds; a plain run is one round).
    std::array<RoundSamples, kTimerCount> rounds{};
    // The compute rasterizer's pieces of depth and late_depth (PieceTimes' order), each over the
    // measured frames it was recorded in, every round's.
    std::array<std::array<std::vector<double>, kRasterPieceCount>, kPiecedTimers.size()> raster_pieces{};
    GpuCounters counters{};
    GpuCounters instrumented{};
    uint64_t meshlets = 0;          // --geometry meshlet: meshlets built (unique meshes)
    uint64_t base_meshlet_bytes = 0, lod_meshlet_bytes = 0;  // their GPU bytes: level 0, the coarser levels
    double meshlet_build_ms = 0.0;  // and the host time it took  // the instrumented frame's counters: light_atomics, the light loop's trips
    uint64_t triangles_in = 0;
    uint64_t texture_bytes = 0;  // every texture's mip chain on the GPU (render/gpu_scene.h)
    double texture_ms = 0.0;     // host time of building the chains and uploading them
    ExposureState exposure{};  // after the last frame (exposure_pass.h)
    std::string screenshot;  // path written, or empty
    // HeadlessRun::capture_at's frame, kept in memory (RGBA8, tightly packed; --compare writes
    // its screenshots from it), and that frame's index; empty where none was captured.
    std::vector<uint8_t> image;
    uint32_t image_frame = 0;
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

// Loads the scene named by the options (or the bundled one), builds its levels of detail
// (scene/lod.h) and applies --instances.
Scene load_requested_scene(const Options& options);
// Bytes of the coarser levels' indices (levels 1 and up), and of the base meshes (level 0's
// indices and the vertices): docs/lod.md's memory bound.
uint64_t lod_index_bytes(const Scene& scene);
uint64_t base_mesh_bytes(const Scene& scene);

// Checks --size and the scene's buffer sizes against the device before anything is allocated,
// for `plan`: the plan that will run, as auto resolved it (app/run.h, start_up).
void check_device_limits(const Context& ctx, const Options& options, const Plan& plan, const Scene& scene);
// The same for one renderer that takes each of `plans` in turn (--compare's rows on their shared
// renderer, the plans the window's keys switched to): their buffers together.
void check_device_limits(const Context& ctx, const Options& options, const std::vector<Plan>& plans, const Scene& scene);
// The plan whose buffers hold those of every path a run of these options may render besides its
// own plan: --tune's rows and its check, the first run's quick measurement and the plan auto
// takes after it. The typed geometry and shading, with the compute rasterizer wherever this device
// has one.
Plan widest_plan(const Context& ctx, const Options& options);

RunResult run_headless(const Context& ctx, const Scene& scene, const Options& options, const Plan& plan,
                       bool quiet = false);

class HeadlessRun;

// One renderer that several runs take turns on (--compare's rows, --tune's rows and its check, the
// first run's measurement): made by the first run that asks for it and kept while this lives, so
// runs made later (another render_in_rounds) share it too. Each run switches it to its own plan
// before its frames (HeadlessRun). Its memory is what its runs' plans need together: a plan's
// targets (the visibility image, the compute rasterizer's words and lists, the meshlet path) are
// made the first time a run needs them and kept; every pass's pipelines are made with it.
struct SharedRenderer {
    std::shared_ptr<Renderer> renderer;
    const Scene* scene = nullptr;
    RendererConfig config;  // what it was made with (the plan: its first run's)
    std::shared_ptr<HeadlessRun*> last_user = std::make_shared<HeadlessRun*>(nullptr);  // whose frame it drew last
    // Whether a run of this scene and renderer configuration can take it: nothing made yet, or made
    // the same but for the plan (size, lights, camera, cull group size, test options).
    bool fits(const Scene& scene, const RendererConfig& config) const;
};

// run_headless in pieces, for --compare's rounds: the renderer of one plan, whose frames are
// rendered in bursts between other configurations' before its results are read back. Frame
// indices continue from burst to burst, so the frames (and the last one, the screenshot) are those
// of one uninterrupted run.
class HeadlessRun {
public:
    // Builds the renderer and renders the instrumented frame (outside the timed ones).
    HeadlessRun(const Context& ctx, const Scene& scene, const Options& options, const Plan& plan);
    // Renders `plan` with `shared`'s renderer (building it where none is made yet), switched to
    // this plan before each of its frames (Renderer::set_plan: every pass's pipelines are made with
    // the renderer, so a switch makes none), then the instrumented frame. Each run keeps its own
    // Renderer::History (the exposure's adaptation, occlusion's rest) across the others' frames, and
    // where this plan culls by occlusion but another run's last frame built no depth pyramid, one
    // untimed frame of this plan comes first: a run's frames are those of a renderer of its own.
    // Only the plan may differ from the renderer's (shared.fits).
    HeadlessRun(const Context& ctx, const Scene& scene, const Options& options, const Plan& plan, SharedRenderer& shared);
    ~HeadlessRun();
    HeadlessRun(const HeadlessRun&) = delete;
    HeadlessRun& operator=(const HeadlessRun&) = delete;

    // The next `count` frames; those past --warmup are timed into round `round`.
    void render(uint32_t count, uint32_t round);
    // Right after frame `frame` (counted as frames_rendered), reads back its colour, counters and
    // exposure: finish() returns them (RunResult::image) instead of those after the last frame.
    void capture_at(uint32_t frame) { capture_frame_ = frame; }
    uint32_t frames_rendered() const { return frame_; }
    // After the last frame: the timings, counters and readbacks (screenshot, dumps) of run_headless.
    RunResult finish();
    // The timings of the frames so far (rounds, ran, timings), nothing read back: adaptive rounds
    // look at them between rounds.
    RunResult timings() const;

private:
    void submit_frame(uint32_t frame_index, bool instrument);
    void start();  // the counts of the scene on the GPU and the instrumented frame
    // A shared renderer whose last frame was another run's: that run's history kept, this plan
    // set. Returns whether it switched.
    bool take_renderer();
    // Takes the renderer; where this plan needs it (a depth pyramid the last frame did not leave),
    // or `always` after another run's frame, one untimed frame of this plan, this run's history back.
    void settle(bool always);
    void capture();


    const Context& ctx_;
    const Scene& scene_;
    Options options_;
    Plan plan_;
    std::shared_ptr<Renderer> renderer_;
    // Set where the renderer serves several runs: which of them rendered its last frame (each run
    // sets its plan before its frames).
    std::shared_ptr<HeadlessRun*> last_user_;  // null where it was freed
    Renderer::History history_;  // this run's, while another run renders (a new renderer's at first)
    std::optional<uint32_t> capture_frame_;
    bool captured_ = false;
    VkCommandBuffer cmd_ = VK_NULL_HANDLE;
    VkFence fence_ = VK_NULL_HANDLE;
    uint32_t frame_ = 0;
    RunResult result_;
};
