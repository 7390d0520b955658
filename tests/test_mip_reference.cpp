// The CPU mip reference (render/mip_reference.h) that --mip-dump and the mip tests hold every GPU
// mip to: its rounding against known half-float values, that a single
// wrong bit in one texel is found where it is, and the byte comparison with the fallback's mip.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>

#include "render/mip_reference.h"

TEST(MipReference, RoundsToTheNearestHalfTiesToEven) {
    EXPECT_EQ(nearest_half(1.0f), 1.0f);
    EXPECT_EQ(nearest_half(1.0f + 1.0f / 2048.0f), 1.0f);                  // a tie between 1 and 1 + 2^-10: even
    EXPECT_EQ(nearest_half(1.0f + 3.0f / 2048.0f), 1.0f + 2.0f / 1024.0f);  // a tie: even is 1 + 2^-9
    EXPECT_EQ(nearest_half(142.3f), 142.25f);                               // steps of 1/8 in [128, 256)
    EXPECT_EQ(nearest_half(65504.0f), 65504.0f);                            // the largest half
    EXPECT_EQ(nearest_half(3.0f * std::ldexp(1.0f, -26)), std::ldexp(1.0f, -24));  // subnormal steps of 2^-24
    EXPECT_EQ(nearest_half(0.0f), 0.0f);
}

TEST(MipReference, FindsTheOneWrongTexelOfAnOddSizedFrame) {
    const uint32_t width = 7, height = 5;  // the mip is 3 x 2: the last column and row have no texel
    std::vector<float> frame(size_t(width) * height * 4);
    for (size_t i = 0; i < frame.size(); ++i) frame[i] = nearest_half(float(i % 97) * 0.37f + 0.01f);
    std::vector<float> mip(3 * 2 * 4);
    for (uint32_t y = 0; y < 2; ++y)
        for (uint32_t x = 0; x < 3; ++x)
            for (int c = 0; c < 4; ++c) mip[(y * 3 + x) * 4 + c] = box_filter_texel(frame, width, x, y, c);
    MipCheck ok = check_mip(frame, width, height, mip);
    EXPECT_EQ(ok.texels, 6u);
    EXPECT_EQ(ok.mismatched, 0u);

    // Texel (1, 1), channel 2: its value plus one unit in the last place.
    float& wrong = mip[(1 * 3 + 1) * 4 + 2];
    wrong = std::bit_cast<float>(std::bit_cast<uint32_t>(wrong) + 1u);
    MipCheck bad = check_mip(frame, width, height, mip);
    EXPECT_EQ(bad.mismatched, 1u);
    EXPECT_EQ(bad.first_x, 1u);
    EXPECT_EQ(bad.first_y, 1u);
}

TEST(MipReference, CountsTheTexelsInWhichTwoMipsDiffer) {
    std::vector<uint8_t> a(5 * 8), b(5 * 8);  // five RGBA16F texels
    for (size_t i = 0; i < a.size(); ++i) a[i] = b[i] = uint8_t(i * 7);
    EXPECT_EQ(differing_texels(a, b, 8), 0u);
    b[8 * 1 + 7] ^= 0x80;  // texel 1: the sign bit of its alpha
    b[8 * 4 + 0] ^= 0x01;  // texel 4: the lowest bit of its red
    b[8 * 4 + 3] ^= 0x01;  // the same texel again: still one texel
    EXPECT_EQ(differing_texels(a, b, 8), 2u);
    b.resize(6 * 8);
    EXPECT_EQ(differing_texels(a, b, 8), 6u);
}
