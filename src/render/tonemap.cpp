#include "render/tonemap.h"

#include <algorithm>
#include <cmath>
#include <cstring>

float half_to_float(uint16_t h) {
    uint32_t sign = uint32_t(h >> 15) << 31, exponent = (h >> 10) & 0x1F, mantissa = h & 0x3FF;
    float magnitude;
    if (exponent == 0) magnitude = std::ldexp(float(mantissa), -24);
    else if (exponent == 31) magnitude = mantissa ? NAN : INFINITY;
    else magnitude = std::ldexp(float(mantissa | 0x400), int(exponent) - 25);
    uint32_t bits;
    memcpy(&bits, &magnitude, 4);
    bits |= sign;
    memcpy(&magnitude, &bits, 4);
    return magnitude;
}

std::vector<float> halves_to_floats(const std::vector<uint8_t>& bytes) {
    std::vector<float> out(bytes.size() / 2);
    for (size_t i = 0; i < out.size(); ++i) out[i] = half_to_float(uint16_t(bytes[2 * i] | bytes[2 * i + 1] << 8));
    return out;
}

namespace {

void pbr_neutral(float c[3]) {
    const float start_compression = 0.8f - 0.04f, desaturation = 0.15f;
    float x = std::min(c[0], std::min(c[1], c[2]));
    float offset = x < 0.08f ? x - 6.25f * x * x : 0.04f;
    for (int i = 0; i < 3; ++i) c[i] -= offset;
    float peak = std::max(c[0], std::max(c[1], c[2]));
    if (peak < start_compression) return;
    const float d = 1.0f - start_compression;
    float new_peak = 1.0f - d * d / (peak + d - start_compression);
    float g = 1.0f - 1.0f / (desaturation * (peak - new_peak) + 1.0f);
    for (int i = 0; i < 3; ++i) c[i] = c[i] * (new_peak / peak) * (1.0f - g) + new_peak * g;
}

float srgb_encode(float v) { return v < 0.0031308f ? v * 12.92f : 1.055f * std::pow(v, 1.0f / 2.4f) - 0.055f; }

}  // namespace

std::vector<uint8_t> tonemap_rgba8(const std::vector<float>& rgba, float exposure) {
    std::vector<uint8_t> out(rgba.size());
    for (size_t i = 0; i + 3 < rgba.size(); i += 4) {
        float c[3] = {rgba[i] * exposure, rgba[i + 1] * exposure, rgba[i + 2] * exposure};
        pbr_neutral(c);
        for (int k = 0; k < 3; ++k) out[i + k] = uint8_t(std::lround(std::clamp(srgb_encode(std::clamp(c[k], 0.0f, 1.0f)), 0.0f, 1.0f) * 255.0f));
        out[i + 3] = 255;
    }
    return out;
}
