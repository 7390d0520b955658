#include "render/mip_reference.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

float nearest_half(float v) {
    if (v < 6.103515625e-05f) return std::nearbyint(v * 16777216.0f) / 16777216.0f;  // subnormal halves: steps of 2^-24
    int e;
    float m = std::frexp(v, &e);                               // v = m * 2^e, m in [0.5, 1)
    return std::ldexp(std::nearbyint(m * 2048.0f), e - 11);    // 11 significant bits, ties to even
}

float box_filter_texel(const std::vector<float>& frame, uint32_t width, uint32_t x, uint32_t y, int c) {
    auto at = [&](uint32_t px, uint32_t py) { return frame[(size_t(py) * width + px) * 4 + size_t(c)]; };
    volatile float top = at(2 * x, 2 * y) + at(2 * x + 1, 2 * y);  // volatile: this order, no contraction
    volatile float bottom = at(2 * x, 2 * y + 1) + at(2 * x + 1, 2 * y + 1);
    return nearest_half((top + bottom) * 0.25f);  // * 0.25 is exact
}

MipCheck check_mip(const std::vector<float>& frame, uint32_t width, uint32_t height, const std::vector<float>& mip) {
    MipCheck check;
    const uint32_t mip_width = width / 2, mip_height = height / 2;
    for (uint32_t y = 0; y < mip_height; ++y)
        for (uint32_t x = 0; x < mip_width; ++x) {
            ++check.texels;
            bool equal = true;
            for (int c = 0; c < 4; ++c)
                equal &= std::bit_cast<uint32_t>(mip[(size_t(y) * mip_width + x) * 4 + size_t(c)]) ==
                         std::bit_cast<uint32_t>(box_filter_texel(frame, width, x, y, c));
            if (!equal && check.mismatched++ == 0) check.first_x = x, check.first_y = y;
        }
    return check;
}

uint64_t differing_texels(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b, size_t texel_bytes) {
    if (a.size() != b.size()) return std::max(a.size(), b.size()) / texel_bytes;
    uint64_t differing = 0;
    for (size_t i = 0; i + texel_bytes <= a.size(); i += texel_bytes)
        differing += memcmp(a.data() + i, b.data() + i, texel_bytes) != 0;
    return differing;
}
