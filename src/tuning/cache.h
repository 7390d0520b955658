// The tuning cache (docs/architecture.md, "Tuned auto"): the verdicts of `--compare`, `--tune` and
// the first run's quick measurement, kept per device, driver, build, size class and scene class in
// the user's cache folder, read back as the planner's measured preferences (plan/plan.h,
// MeasuredPreference). A file that does not fit is ignored with one line, never an error; where no
// file fits, the first run measures (compare/tuning.h, quick_tune) and stores one. Every start-up
// reads it; it measures nothing.
#pragma once

#include <array>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "plan/plan.h"
#include "run/options.h"
#include "tuning/ratio.h"
#include "vk/context.h"

constexpr int kTuningFormat = 3;  // raise when the file's meaning changes: older files are then ignored

// What the verdicts were measured with, besides the device and driver: a hash of the executable and
// its shaders (shaders/*.spv beside it). Another build may time other code: its file is re-measured.
std::string build_id(const std::string& executable);
std::string current_build_id();  // this process's, computed once

// The size classes a verdict applies to (docs/comparison.md, "Which verdict applies"): what is
// faster moves with the pixel count (the compute rasterizer's and the visibility path's costs grow
// with pixels, the per-draw costs do not), so a verdict holds only at sizes of the class it was
// measured at: up to 640x360 (small windows, thumbnails, the tests), up to 1920x1080, and above.
struct SizeClass {
    const char* name;  // "up to 1920x1080"
    const char* tag;   // the file name's part: "to1920x1080"
    uint64_t max_pixels;
};
const SizeClass& size_class(uint32_t width, uint32_t height);

// The scene classes a verdict applies to (docs/comparison.md, "Which verdict applies"): the
// compute rasterizer's cost follows the triangles, forward's against visibility's the lights, so a
// verdict holds only for scenes within the same bands of both: triangles up to 1M, 16M, 256M, ...
// and lights up to 256, 4K, 64K, ... (each band past the first a factor of 16).
struct SceneClass {
    uint64_t max_triangles = 0;
    uint64_t max_lights = 0;
    std::string name() const;  // "up to 1M triangles and 256 lights"
    std::string tag() const;   // the file name's part: "to1Mtri-to256lights"
    bool operator==(const SceneClass&) const = default;
};
SceneClass scene_class(uint64_t triangles, uint32_t lights);

// What a verdict was measured for, besides the device, driver and build: the size of the frame and
// the scene drawn (its triangles after --instances, and --lights). Its classes choose the file.
struct TuningKey {
    uint32_t width = 0, height = 0;
    uint64_t triangles = 0;
    uint32_t lights = 0;
};
std::string key_text(const TuningKey& key);  // "320x180, 1,024 triangles, 16 lights"

// $XDG_CACHE_HOME/subgroup-demo, else $HOME/.cache/subgroup-demo; empty when neither is set.
std::string tuning_folder();
// The folder's file for this device, driver and the classes of the key:
// "tuning-10de-2330-<driver>-to1920x1080-to16Mtri-to4Klights.json".
std::string tuning_path(const DeviceInfo& device, const TuningKey& key);

// The choices between whole paths that auto takes from a verdict, besides each pass's variant: the
// file's key under "visibility", the ratio's index in ShadingRatios (compute_shading_ratios), where
// auto reads it, and the shading its rows run. The quick measurement renders the comparison's rows
// that set --shading, so a decision measured there (the rasterizer's, once it lands) joins with one
// entry here and its ratio in compute_shading_ratios.
struct LoadedTuning;
struct PathDecision {
    const char* key;
    size_t ratio;
    std::optional<MeasuredPreference> LoadedTuning::*loaded;
    std::optional<MeasuredPreference> PlanRequest::*request;
    Shading measured_under;
};
extern const std::array<PathDecision, 4> kPathDecisions;

// The file's contents: format, device, build, who measured and when, and per pass of the comparison
// its ratio, interval, verdict (null where there was none) and the configuration it was measured
// in (`measured_in`: geometry, shading); under "visibility" the same for the path decisions
// (kPathDecisions) and the passes measured there (`under_visibility`: `mip`, the compute downsample
// over the shading pass's quad mip, and `ray_trace`, the ray tracer's fallback over its subgroup path). `quick`: the first run's measurement (seconds, rounds, rows), else null.
nlohmann::json tuning_json(const DeviceInfo& device, const std::string& made_by, const std::string& date, const TuningKey& key,
                           const PassRatios& ratios, const ShadingRatios& shading,
                           const PassRatios& under_visibility = {}, const std::string& build = current_build_id(),
                           const nlohmann::json& quick = nullptr);

struct LoadedTuning {
    std::string path;
    MeasuredPreferences measured{};  // a winner only where the verdict was faster or slower
    MeasuredPreferences measured_visibility{};  // measured under visibility: the mip's and the ray tracer's
    // The same for --shading (winner subgroup: visibility) and visibility's derivatives.
    std::optional<MeasuredPreference> shading, derivatives;
    std::optional<MeasuredPreference> raster;  // winner subgroup: the compute rasterizer
    std::optional<MeasuredPreference> raster_path;  // winner fallback: the compute rasterizer's per-lane path
    std::string made_by, date;
    TuningKey measured_for;  // the size and scene it was measured for (the file's `size` and `scene`)
    TuningKey run;           // those of the run that reads it: their classes chose the file
    std::string ignored;  // why the file was not used (empty: used, or there was none)
    bool found = false;   // a file was there (used or ignored)
    bool measured_now = false;   // this process measured it (the quick measurement)
    double measure_seconds = 0;  // and how long that took
    double measure_setup_seconds = 0, measure_rounds_seconds = 0;  // of it: the renderer's set-up and warm-up, the rounds
    uint32_t measure_renderers = 0;  // the renderers it built (one, shared by its rows)
    size_t count() const;  // passes, shading and derivatives with a measured winner
    bool usable() const { return found && ignored.empty(); }
};

// Puts the tuning's winners into a request, where auto consults them; null clears them (untuned).
void set_measured(PlanRequest& request, const LoadedTuning* tuning);
// Whether a request carries any measured winner (the window's T key: tuned auto on).
bool has_measured(const PlanRequest& request);

// Reads a file's text for this device and a run of this key: a corrupt file, another device's or
// driver's, another format's, or one measured in another size or scene class comes back with
// `ignored` saying why and no preferences. Pure: unit-tested.
LoadedTuning parse_tuning(const std::string& text, const DeviceInfo& device, const TuningKey& key,
                          const std::string& build = current_build_id());
// tuning_path(device, key) read and parsed; not found: found false, nothing ignored.
LoadedTuning load_tuning(const DeviceInfo& device, const TuningKey& key);
// The key of a run of these options on a scene of this many triangles (Scene::triangle_count).
TuningKey tuning_key(const Options& options, uint64_t triangles);
// Loads the tuning of a run of these options on a scene of `triangles` unless --no-tuning, prints
// the one line of an ignored file on stderr, and puts the preferences into options.plan (what auto
// consults). Returns what it read.
LoadedTuning apply_tuning(const Context& ctx, Options& options, uint64_t triangles);
// Writes the tuning file of a comparison, a tune or a quick measurement into tuning_folder()
// (created if missing) and returns its path; throws std::runtime_error when it cannot. Written to a
// temporary file of this process and renamed over the old one: two processes writing at once
// leave one of their files whole, never a mix.
std::string save_tuning(const DeviceInfo& device, const std::string& made_by, const TuningKey& key,
                        const PassRatios& ratios, const ShadingRatios& shading, const PassRatios& under_visibility = {},
                        const nlohmann::json& quick = nullptr);

// Whether this run takes the quick measurement: no usable file for this device, driver and build,
// tuning not turned off, and --shading left to auto (the decision it measures).
bool needs_quick_tune(const LoadedTuning& t, const Options& options);
std::string today_utc();
// For --info and the HUD: "off (--no-tuning)", "none for WxH, N triangles, L lights (size class ...,
// scene class ...: no file PATH)", "PATH: 2 significant verdict(s) (tune of DATE at KEY); applies to
// KEY: the same size class, ..., and scene class, ...", or "PATH ignored: WHY". `--info` measures
// nothing: it says the next run will.
std::string tuning_summary(const LoadedTuning& t, bool disabled);
// The report's "tuning": file, used, made_by, date, build, ignored, size_class, measured_size,
// scene_class, measured_scene, measured_now, measure_seconds, measure_setup_seconds, measure_rounds_seconds, measure_renderers.
nlohmann::json tuning_report_json(const LoadedTuning& t, bool disabled);  // "2026-11-25"
