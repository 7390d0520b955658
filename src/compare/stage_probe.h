// The device's graphics-to-compute throughput: the same arithmetic loop (shaders/probe_loop.glsl)
// run by a full-screen fragment pass and by a compute dispatch over the same number of invocations,
// each timed with GPU timestamps. `--compare` runs it and shows its ratio beside every speed-up
// that sets a graphics-stage path against a compute one; `--info --probe` prints it.
//
// Why: on data-center Hopper (H100) the graphics stages run on two graphics-capable TPCs while
// compute uses all 132 SMs, so a fragment-shader path starts far behind a compute one whatever its
// subgroup operations do. The probe measures that handicap on the device at hand.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "vk/context.h"

struct StageProbe {
    bool ran = false;
    uint32_t width = 0, height = 0;  // each stage runs width * height invocations of the loop
    uint32_t iterations = 0;         // loop trips per invocation (scaled so the compute side is ~1 ms)
    uint32_t repeats = 0;            // timed repetitions of each stage (after one untimed)
    double fragment_ms = 0, compute_ms = 0;  // medians
    // Texels whose result differs between the stages: the same loop on the same inputs gives 0.
    uint64_t differing_texels = 0;
    float last_texel = 0;  // the compute side's result at (width - 1, height - 1), for a CPU check
    uint64_t invocations() const { return uint64_t(width) * height; }
    std::optional<double> ratio() const;  // fragment ms / compute ms: above 1, fragment is slower
};

constexpr uint32_t kStageProbeSize = 1024;  // width and height, a multiple of the compute side's 8x8
StageProbe measure_stage_throughput(const Context& ctx, uint32_t repeats = 5);

nlohmann::json stage_probe_json(const StageProbe& p);
// "fragment 31.2x the compute time of the same loop (1048576 invocations x 2048 iterations)".
std::string stage_probe_summary(const StageProbe& p);
// What the figure means, in one sentence (the report and the sheet).
extern const char* const kStageProbeMeaning;
