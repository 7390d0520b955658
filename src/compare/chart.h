// The comparison's chart: what a reader of compare.png should see in five seconds. For every ratio
// of report.json its two sides as horizontal bars (median, with min-max whiskers over the measured
// frames) on that pair's own millisecond scale, so a 0.02 ms pass reads as well as a 4 ms one; then
// the speed-up on the pair's own log scale with its 95% interval against a line at 1x, and its word;
// then the whole frame of all-subgroup against all-fallback, stacked by pass. Drawn into the sheet (draw_chart) and
// written as DIR/chart.svg (chart_svg) by the same layout code, so the two always agree.
//
// SVG is written by hand: Debian has no C++ plotting library that fits a CMake build without
// pulling in a GUI toolkit (matplotlib or gnuplot would need a second language at run time), and
// the chart is a few dozen rectangles and labels.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "compare/sheet.h"
#include "run/statistics.h"
#include "passes/pass_table.h"

struct ChartBar {
    double median = 0, min = 0, max = 0;  // ms
};

// One ratio: its subgroup path against its fallback (PassRatio), as measured for the ratio.
struct ChartPair {
    std::string name;  // the ratio's name: "cull", "light-loop", "frame", "indexed/meshlet", "forward/visibility"
    std::string key;   // its report.json key
    std::string subgroup_side = "subgroup", fallback_side = "fallback";
    bool measured = false;
    ChartBar subgroup, fallback;
    std::optional<double> ratio;  // fallback / subgroup
    std::optional<Interval> ci95;
    Verdict verdict = Verdict::level;
    std::optional<double> graphics_to_compute;  // the stage probe's figure, beside graphics-vs-compute ratios
    std::string note;             // why there are no bars or no ratio
};

// One segment of a stacked frame bar: a timer's median in that run.
struct ChartSegment {
    std::string label;  // the timer's brief name ("fwd")
    size_t timer = 0;   // index into kTimers (colour)
    double ms = 0;
    // Work of another pass inside this one (the quad mip in resolve), drawn hatched: its ms and label.
    double hosted_ms = 0;
    std::string hosted_label;
};

struct ChartStack {
    std::string run;  // "all-subgroup"
    bool measured = false;
    double frame_ms = 0;
    std::vector<ChartSegment> segments;
};

struct CompareChart {
    std::vector<ChartPair> pairs;  // one per ratio, in report.json's order (all_ratios)
    ChartStack stacks[2];          // all-subgroup, all-fallback
    std::optional<double> frame_ratio;
    Verdict frame_verdict = Verdict::level;
};

// The pairs' count: the pass table's ratios, frame, meshlet_cull, geometry, shading and derivatives.
constexpr size_t kChartPairs = kPassCount + 5;

// The speed-up with the word its interval earns: "1.16x faster", "0.02x, 57x slower", "1.01x level".
std::string speedup_text(double ratio, Verdict verdict);

// The chart's height in the sheet at a width (independent of the numbers: the layout of
// compare.png follows from the table and the frame size alone).
int chart_height(int text_scale);
void draw_chart(RgbaImage& image, PixelRect area, const CompareChart& chart, int text_scale);
std::string chart_svg(const CompareChart& chart, const std::string& title);

// Pixels that differ (any channel), and the difference amplified (black where identical).
struct ImageDifference {
    size_t differing = 0;
    RgbaImage amplified;
};
ImageDifference image_difference(const RgbaImage& a, const RgbaImage& b);
