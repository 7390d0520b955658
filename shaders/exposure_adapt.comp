#version 460
// Auto-exposure, step 2 (docs/exposure.md): one invocation turns the frame's integer sum into the
// average log2 luminance and moves the exposure towards the one that average asks for, at a rate
// that depends only on the frame index (no clock: headless runs stay deterministic). The resolve
// pass of the next frame applies it.
#include "exposure.glsl"

layout(local_size_x = 1) in;

layout(set = 0, binding = 0, std430) buffer State { EXPOSURE_STATE_BLOCK } state;

layout(push_constant) uniform Push {
    uint texels;       // mip texels summed
    uint frame_index;  // this frame's
};

// Mirrored by exposure_adapt() in src/render/exposure_reference.cpp.
// The key: the log-average luminance the exposure maps to. 2^-5, not photography's 0.18: the
// log average counts the dark background, which covers a third of the bundled scene's frame.
const float kKeyLog2 = -5.0;
const float kExposureLog2Min = -6.0;
const float kExposureLog2Max = 6.0;

void main() {
    // Exact integer inputs; the rest is the same float arithmetic whichever variant summed them.
    float sum = float(state.sum_hi) * 4294967296.0 + float(state.sum_lo);
    float log2_average = sum / (float(max(texels, 1u)) * kExposureFixedScale) + kExposureLogMin;
    float target = clamp(kKeyLog2 - log2_average, kExposureLog2Min, kExposureLog2Max);
    // Frame 0 jumps to its target; then a running mean of the targets (rate 1/(n+1)) that settles
    // into an exponential one at 1/16 per frame.
    float rate = max(1.0 / 16.0, 1.0 / float(frame_index + 1u));
    float exposure_log2 = frame_index == 0u ? target : mix(state.exposure_log2, target, rate);
    state.applied = state.exposure;  // what this frame's resolve pass used (--mip-dump, the report)
    state.texels = texels;
    state.adapted_frames += 1u;
    state.log2_average = log2_average;
    state.target_log2 = target;
    state.exposure_log2 = exposure_log2;
    state.exposure = exp2(exposure_log2);
}
