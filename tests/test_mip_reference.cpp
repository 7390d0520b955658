// The CPU mip reference (render/mip_reference.h) that --mip-dump and the mip tests hold every GPU
// mip to: its rounding against known half-float values, and that a single
// wrong bit in one texel is found where it is.
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
