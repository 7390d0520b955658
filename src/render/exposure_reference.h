// The CPU oracle of auto-exposure (shaders/exposure.glsl, exposure_reduce.comp, exposure_adapt.comp;
// docs/exposure.md): the fixed-point log2 luminance of a texel, the integer sum over a mip, and the
// adaptation step. No Vulkan.
#pragma once

#include <cstdint>
#include <vector>

namespace exposure {

constexpr float kLogMin = -16.0f, kLogMax = 16.0f, kFixedScale = 256.0f;
constexpr float kKeyLog2 = -5.0f;  // exposure_adapt.comp's key, 2^-5
constexpr float kLog2Min = -6.0f, kLog2Max = 6.0f;
// The exposure the resolve pass applies without a measurement (--exposure off, --mip off, and the
// frame before the first adaptation).
constexpr float kFixed = 1.0f;

// 0..8192: round((clamp(log2(luminance), -16, 16) + 16) * 256), luminance Rec. 709.
uint32_t fixed_log_luminance(float r, float g, float b);
// The sum of fixed_log_luminance over rgba (4 floats per texel).
uint64_t sum(const std::vector<float>& rgba);

struct Adapted {
    float log2_average, target_log2, exposure_log2, exposure;
};
// One step of exposure_adapt.comp: from this frame's sum over `texels` texels and the previous
// exposure (log2).
Adapted adapt(uint64_t sum, uint32_t texels, uint32_t frame_index, float previous_log2);

}  // namespace exposure
