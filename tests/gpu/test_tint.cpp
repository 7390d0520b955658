// The throwaway tint pass: subgroup and fallback against a CPU tint of the untinted frame.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "gpu/harness.h"

namespace {

Png render(const std::string& tint) {
    std::string dir = test_dir("tint-" + tint);
    DemoRun run = run_demo({"--headless", "--validate", "--size", "96x64", "--frames", "2", "--warmup", "1", "--lights",
                            "16", "--exposure", "off", "--tint", tint, "--screenshot", dir + "/f.png"});
    EXPECT_EQ(run.exit_code, 0) << run.output;
    return read_png(dir + "/f.png");
}

TEST(Tint, BothVariantsMatchTheCpuTintOfTheUntintedFrame) {
    REQUIRE_DRAWING();
    Png off = render("off");
    ASSERT_GT(off.width, 0);
    Png tinted[2] = {render("subgroup"), render("fallback")};
    for (const Png& t : tinted) {
        ASSERT_EQ(t.width, off.width);
        int worst = 0, changed = 0;
        for (int by = 0; by < off.height; by += 8)
            for (int bx = 0; bx < off.width; bx += 8) {
                double sum = 0;
                for (int y = by; y < std::min(by + 8, off.height); ++y)
                    for (int x = bx; x < std::min(bx + 8, off.width); ++x) {
                        const uint8_t* p = off.at(x, y);
                        sum += (0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2]) / 255.0;
                    }
                double darkness = 1.0 - sum / 64.0;
                const double warm[3] = {1.25, 1.0, 0.7};
                for (int y = by; y < std::min(by + 8, off.height); ++y)
                    for (int x = bx; x < std::min(bx + 8, off.width); ++x)
                        for (int c = 0; c < 3; ++c) {
                            double expected = std::clamp(off.at(x, y)[c] * (1.0 + (warm[c] - 1.0) * darkness), 0.0, 255.0);
                            worst = std::max(worst, int(std::lround(std::fabs(expected - t.at(x, y)[c]))));
                            changed += t.at(x, y)[c] != off.at(x, y)[c];
                        }
            }
        EXPECT_LE(worst, 1);
        EXPECT_GT(changed, 1000);  // the tint did something
    }
    EXPECT_EQ(tinted[0].rgba, tinted[1].rgba);  // integer sums: the same frame bit for bit
}

}  // namespace
