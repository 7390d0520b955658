#include "render/exposure_reference.h"

#include <algorithm>
#include <cmath>

namespace exposure {

uint32_t fixed_log_luminance(float r, float g, float b) {
    float luminance = r * 0.2126f + g * 0.7152f + b * 0.0722f;
    float l = std::clamp(std::log2(std::max(luminance, std::exp2(kLogMin))), kLogMin, kLogMax);
    return uint32_t(std::nearbyint((l - kLogMin) * kFixedScale));  // round half to even, as roundEven
}

uint64_t sum(const std::vector<float>& rgba) {
    uint64_t total = 0;
    for (size_t i = 0; i + 3 < rgba.size(); i += 4) total += fixed_log_luminance(rgba[i], rgba[i + 1], rgba[i + 2]);
    return total;
}

Adapted adapt(uint64_t sum, uint32_t texels, uint32_t frame_index, float previous_log2) {
    Adapted a{};
    a.log2_average = float(double(sum) / (double(std::max(texels, 1u)) * kFixedScale)) + kLogMin;
    a.target_log2 = std::clamp(kKeyLog2 - a.log2_average, kLog2Min, kLog2Max);
    float rate = std::max(1.0f / 16.0f, 1.0f / float(frame_index + 1));
    a.exposure_log2 = frame_index == 0 ? a.target_log2 : previous_log2 + (a.target_log2 - previous_log2) * rate;
    a.exposure = std::exp2(a.exposure_log2);
    return a;
}

}  // namespace exposure
