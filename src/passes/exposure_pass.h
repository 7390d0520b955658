// Auto-exposure (docs/exposure.md): the average log2 luminance of the half-resolution HDR mip,
// reduced to one integer sum (subgroup: two levels of subgroupAdd + one atomic per workgroup; fallback: a
// shared-memory tree + one atomic per workgroup), then one invocation adapts the exposure, which
// the resolve pass applies in the next frame.
#pragma once

#include "passes/pass_unit.h"

// shaders/exposure.glsl's EXPOSURE_STATE_BLOCK.
struct ExposureState {
    uint32_t sum_lo, sum_hi;   // this frame's sum of fixed-point log2 luminance
    uint32_t texels;           // texels summed
    uint32_t adapted_frames;   // frames that adapted the exposure
    float exposure;            // what the resolve pass multiplies the HDR frame by
    float exposure_log2;
    float log2_average;        // the last measured average log2 luminance of the mip
    float target_log2;         // the exposure (log2) that average asks for
    float applied;             // the exposure the last measured frame was resolved with
    uint32_t reserved[3];
    uint64_t sum() const { return uint64_t(sum_hi) << 32 | sum_lo; }
};
static_assert(sizeof(ExposureState) == 48);
// Before the first measurement: the resolve pass applies the fixed exposure.
ExposureState initial_exposure_state();

struct ExposurePass : PassUnit {
    Pipeline reduce[2];  // exposure_reduce.comp: [0] the subgroup path (where possible), [1] the fallback
    Pipeline adapt;      // exposure_adapt.comp.main
    Buffer state;        // ExposureState, device-local, created holding the fixed exposure

    void create(const Context& ctx);
    // After the mip: sum the mip (f.targets.mip, RGBA16F) and adapt. Records nothing for off.
    void record(FrameContext& f) override;
    // The state after the last recorded frame (the device must be idle).
    ExposureState read_state(const Context& ctx) const;
};
