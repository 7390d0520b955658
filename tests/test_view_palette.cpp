// The debug views' colour encoding (src/passes/debug_view_pass.h), checked without a GPU: the
// GPU tests decode lanes from exact pixel values, so every colour must be unambiguous.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "passes/debug_view_pass.h"

namespace {

double distance(uint32_t a, uint32_t b) {
    double sum = 0;
    for (int shift = 0; shift < 24; shift += 8) {
        double d = double((a >> shift) & 0xff) - double((b >> shift) & 0xff);
        sum += d * d;
    }
    return std::sqrt(sum);
}

TEST(ViewPalette, EveryLaneHasItsOwnOpaqueColour) {
    std::set<uint32_t> seen;
    for (uint32_t lane = 0; lane < kLanePaletteSize; ++lane) {
        uint32_t c = lane_colour(lane);
        EXPECT_EQ(c >> 24, 0xffu) << "lane " << lane;
        EXPECT_TRUE(seen.insert(c).second) << "lane " << lane << " repeats a colour";
    }
}

TEST(ViewPalette, NeighbouringLanesAreFarApart) {
    for (uint32_t lane = 0; lane + 1 < kLanePaletteSize; ++lane)
        EXPECT_GT(distance(lane_colour(lane), lane_colour(lane + 1)), 100.0) << "lanes " << lane << ", " << lane + 1;
    // Any 8 lanes in a row (a quad pair, a row of a compute tile) stay distinguishable by eye.
    for (uint32_t first = 0; first + 8 <= kLanePaletteSize; ++first)
        for (uint32_t a = first; a < first + 8; ++a)
            for (uint32_t b = a + 1; b < first + 8; ++b)
                EXPECT_GT(distance(lane_colour(a), lane_colour(b)), 30.0) << "lanes " << a << ", " << b;
}

TEST(ViewPalette, MarksAndHatchAreNotLaneColours) {
    for (uint32_t mark : {kFirstLaneColour, kLastLaneColour, kOnlyLaneColour, kHatchColour}) {
        for (uint32_t lane = 0; lane < kLanePaletteSize; ++lane) EXPECT_NE(mark, lane_colour(lane));
        for (uint32_t other : {kFirstLaneColour, kLastLaneColour, kOnlyLaneColour, kHatchColour})
            if (other != mark) EXPECT_GT(distance(mark, other), 100.0);
    }
}

TEST(ViewPalette, ActiveRampHitsItsStopsAndRisesMonotonicallyInGreen) {
    EXPECT_EQ(active_ramp_colour(0.0f), kActiveRamp[0]);
    EXPECT_EQ(active_ramp_colour(0.5f), kActiveRamp[1]);
    EXPECT_EQ(active_ramp_colour(1.0f), kActiveRamp[2]);
    EXPECT_EQ(active_ramp_colour(2.0f), kActiveRamp[2]);  // clamped
    // Red falls over the upper half: fractions 1/2 .. 1 stay apart.
    for (int k = 16; k < 32; ++k) {
        uint32_t lo = active_ramp_colour(float(k) / 32.0f), hi = active_ramp_colour(float(k + 1) / 32.0f);
        EXPECT_GT(lo & 0xff, hi & 0xff) << k;
    }
}

TEST(ViewPalette, HatchIsDiagonalStripesOfEqualWidth) {
    int on = 0;
    for (int y = 0; y < 120; ++y)
        for (int x = 0; x < 120; ++x) {
            on += hatch_stripe(x, y);
            if (x > 0) EXPECT_EQ(hatch_stripe(x, y), hatch_stripe(x - 1, y + 1));  // constant along x + y
        }
    EXPECT_EQ(on, 120 * 120 / 2);
}

}  // namespace
