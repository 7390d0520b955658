// Auto-exposure's shared definitions (docs/exposure.md): the fixed-point log-luminance of one mip
// texel, and the state buffer the exposure pass writes and the resolve pass reads. Mirrored on the
// CPU by src/render/exposure_reference.{h,cpp} (the tests' oracle).
#ifndef EXPOSURE_GLSL
#define EXPOSURE_GLSL

// log2 luminance is clamped to [-16, 16] and stored in 1/256 steps: 0..8192 per texel. The sums
// are integers, so they do not depend on the order of the additions: the subgroup reduction and
// the shared-memory tree give the same sum bit for bit, whatever the subgroup size, the number of
// subgroups or the order their atomics land in.
const float kExposureLogMin = -16.0;
const float kExposureLogMax = 16.0;
const float kExposureFixedScale = 256.0;

uint fixed_log_luminance(vec3 hdr) {
    // precise: no fused multiply-add, so every shader that includes this (the two reduction
    // variants are separate SPIR-V modules) rounds the same products the same way.
    precise float luminance = hdr.r * 0.2126 + hdr.g * 0.7152 + hdr.b * 0.0722;
    float l = clamp(log2(max(luminance, exp2(kExposureLogMin))), kExposureLogMin, kExposureLogMax);
    return uint(roundEven((l - kExposureLogMin) * kExposureFixedScale));
}

// The exposure state (ExposureState in src/passes/exposure_pass.h). sum_lo/sum_hi: this frame's
// 64-bit sum of fixed_log_luminance over the mip, cleared before the reduction; the rest is
// written by exposure_adapt.comp and read by the resolve pass of the next frame.
#define EXPOSURE_STATE_BLOCK \
    uint sum_lo;             \
    uint sum_hi;             \
    uint texels;             \
    uint adapted_frames;     \
    float exposure;          \
    float exposure_log2;     \
    float log2_average;      \
    float target_log2;       \
    float applied;           \
    uint reserved[3];

#endif
