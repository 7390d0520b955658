// A measured speed-up of the comparison and --tune: one subgroup path against its fallback, as the
// comparison (compare.h), its chart and the tuning file (tuning.h) hold it.
#pragma once

#include <array>
#include <optional>
#include <string>

#include "run/statistics.h"
#include "passes/pass_table.h"

// The speed-up of one pass's subgroup path over its fallback, fallback ms / subgroup ms, from the
// runs of this comparison. `ratio` is empty when it cannot be measured; `reason` says why.
struct PassRatio {
    std::string key;   // "cull", "mip", "light_loop" (report keys); "frame" for all-fallback vs all-subgroup
    std::string name;  // "cull", "mip", "light-loop", "frame": the sheet's words
    std::optional<double> ratio;
    bool measured = false;  // both costs were taken (the ratio may still be empty: subgroup cost <= 0)
    double fallback_ms = 0, subgroup_ms = 0;
    // The spread over the measured frames of each side, on the same basis as the medians (for a
    // hosted pass: its host's min and max minus the off run's median), for the chart's whiskers.
    double fallback_min = 0, fallback_max = 0, subgroup_min = 0, subgroup_max = 0;
    // The ratio's 95% interval, a bootstrap over the comparison's rounds (run/statistics.h); empty
    // without a ratio or with fewer than two rounds. The word follows from it alone.
    std::optional<Interval> ci95;
    Verdict verdict = Verdict::level;
    // The two sides in the chart's words: "subgroup" and "fallback", or for `geometry` "meshlet"
    // and "indexed".
    std::string subgroup_side = "subgroup", fallback_side = "fallback";
    // One side runs in a graphics stage and the other in compute (the quad mip in the resolve
    // pass's fragment shader against the compute downsample; the task/mesh culling of the meshlet
    // path against the compute cull): the stage probe's figure belongs beside it.
    bool graphics_vs_compute = false;
    std::string fallback_run, subgroup_run;
    std::string measured_as;  // how the two costs were taken
    std::string reason;       // why there is no ratio
};

// One per pass of the table, then frame (compute_ratios, compare.h).
using PassRatios = std::array<PassRatio, kPassCount + 1>;
// shading and derivatives (compute_shading_ratios, compare.h).
// ... then raster (hardware / compute frame) and raster_path (the compute rasterizer's fallback /
// subgroup depth pass), docs/raster.md; then materials (the shading pass with nonuniformEXT
// materials over the same with the waterfall, docs/materials.md).
using ShadingRatios = std::array<PassRatio, 5>;
