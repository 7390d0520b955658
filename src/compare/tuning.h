// Tuned auto: the verdicts of `--compare` and `--tune`, kept per device and driver in the user's
// cache folder, read back as the planner's measured preferences (plan/plan.h, MeasuredPreference).
// A file that does not fit this device, driver or format is ignored with one line, never an error.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "app/options.h"
#include "compare/ratio.h"
#include "plan/plan.h"
#include "vk/context.h"

constexpr int kTuningFormat = 1;  // raise when the file's meaning changes: older files are then ignored

// $XDG_CACHE_HOME/subgroup-demo, else $HOME/.cache/subgroup-demo; empty when neither is set.
std::string tuning_folder();
// The folder's file for this device and driver: "tuning-10de-2330-<driver>.json".
std::string tuning_path(const DeviceInfo& device);

// The file's contents: format, device, date, and per pass of the comparison its ratio, interval
// and verdict (null where there was none); under "visibility" the same for `shading` (forward over
// visibility) and `derivatives` (analytic over quad swaps).
nlohmann::json tuning_json(const DeviceInfo& device, const std::string& made_by, const std::string& date, uint32_t width,
                           uint32_t height, const PassRatios& ratios, const ShadingRatios& shading);

struct LoadedTuning {
    std::string path;
    MeasuredPreferences measured{};  // a winner only where the verdict was faster or slower
    // The same for --shading (winner subgroup: visibility) and visibility's derivatives.
    std::optional<MeasuredPreference> shading, derivatives;
    std::string made_by, date;
    std::string ignored;  // why the file was not used (empty: used, or there was none)
    bool found = false;   // a file was there (used or ignored)
    size_t count() const;  // passes, shading and derivatives with a measured winner
};

// Puts the tuning's winners into a request, where auto consults them; null clears them (untuned).
void set_measured(PlanRequest& request, const LoadedTuning* tuning);
// Whether a request carries any measured winner (the window's T key: tuned auto on).
bool has_measured(const PlanRequest& request);

// Reads a file's text for this device: a corrupt file, another device's or driver's, or another
// format's, comes back with `ignored` saying why and no preferences. Pure: unit-tested.
LoadedTuning parse_tuning(const std::string& text, const DeviceInfo& device);
// tuning_path(device) read and parsed; not found: found false, nothing ignored.
LoadedTuning load_tuning(const DeviceInfo& device);
// Loads the tuning unless --no-tuning, prints the one line of an ignored file on stderr, and puts
// the preferences into options.plan (what auto consults). Returns what it read.
LoadedTuning apply_tuning(const Context& ctx, Options& options);
// Writes the tuning file of a comparison or a tune into tuning_folder() (created if missing) and
// returns its path; throws std::runtime_error when it cannot.
std::string save_tuning(const DeviceInfo& device, const std::string& made_by, uint32_t width, uint32_t height,
                        const PassRatios& ratios, const ShadingRatios& shading);
std::string today_utc();
// For --info and the HUD: "off (--no-tuning)", "none (no file PATH)", "PATH: 2 significant verdict(s)
// (tune of DATE)", or "PATH ignored: WHY".
std::string tuning_summary(const LoadedTuning& t, bool disabled);  // "2026-11-25"
