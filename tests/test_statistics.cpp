// The statistics of --compare's verdicts (src/run/statistics.h) on samples whose answers are
// known: medians, round sizes, the bootstrap interval's coverage and determinism, the words, and
// Criterion's outlier classes.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "run/statistics.h"

namespace {

// rounds[r] = {value(r)} repeated `frames` times.
RoundSamples rounds_of(std::vector<double> values, size_t frames = 1) {
    RoundSamples r;
    for (double v : values) r.push_back(std::vector<double>(frames, v));
    return r;
}

double mean_of_picks(const RoundSamples& rounds, std::span<const uint32_t> picks) {
    double sum = 0;
    for (uint32_t p : picks) sum += rounds[p][0];
    return sum / double(picks.size());
}

TEST(Statistics, MedianOfOddAndEvenCountsAndPooledPicks) {
    EXPECT_EQ(median_of({}), 0.0);
    EXPECT_EQ(median_of({3, 1, 2}), 2.0);
    EXPECT_EQ(median_of({4, 1, 3, 2}), 2.5);
    RoundSamples r = {{1, 2}, {10, 20}, {5}};
    std::vector<uint32_t> picks = all_rounds(3);
    EXPECT_EQ(picks, (std::vector<uint32_t>{0, 1, 2}));
    EXPECT_EQ(pooled_median(r, picks), 5.0);  // 1 2 5 10 20
    // A round drawn twice counts twice: 1 2 1 2 5 -> 2.
    std::vector<uint32_t> twice = {0, 0, 2};
    EXPECT_EQ(pooled_median(r, twice), 2.0);
}

TEST(Statistics, RoundsSplitTheMeasuredFramesEvenlyAndKeepTheirCount) {
    EXPECT_EQ(round_sizes(50), std::vector<uint32_t>(10, 5));
    EXPECT_EQ(round_sizes(2), (std::vector<uint32_t>{1, 1}));
    EXPECT_EQ(round_sizes(1), (std::vector<uint32_t>{1}));
    EXPECT_TRUE(round_sizes(0).empty());
    for (uint32_t n : {3u, 9u, 10u, 11u, 23u, 59u, 1000u}) {
        std::vector<uint32_t> s = round_sizes(n);
        EXPECT_EQ(std::accumulate(s.begin(), s.end(), 0u), n) << n;
        EXPECT_EQ(s.size(), std::min(n, kMaxRounds)) << n;
        EXPECT_LE(s.front() - s.back(), 1u) << n;
        EXPECT_TRUE(std::is_sorted(s.rbegin(), s.rend())) << n;
    }
}

TEST(Statistics, BootstrapOfTheMeanOfOneToTenCoversItWithTheNormalWidth) {
    RoundSamples r = rounds_of({1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
    auto ci = bootstrap_ci95(10, [&](std::span<const uint32_t> p) { return mean_of_picks(r, p); });
    ASSERT_TRUE(ci);
    // The bootstrap distribution of a mean of 10 draws from 1..10: mean 5.5, standard error
    // sqrt(8.25 / 10) = 0.908, so about 5.5 -+ 1.78 (the percentiles of a discrete distribution
    // land within a few tenths of that).
    EXPECT_LT(ci->lo, 5.5);
    EXPECT_GT(ci->hi, 5.5);
    EXPECT_NEAR(ci->lo, 5.5 - 1.96 * 0.908, 0.35);
    EXPECT_NEAR(ci->hi, 5.5 + 1.96 * 0.908, 0.35);
}

TEST(Statistics, BootstrapIsDeterministicForASeedAndNeedsTwoRounds) {
    // Irregular values, so that the means of different resamples rarely coincide.
    RoundSamples r = rounds_of({3.14159, 1.41421, 2.71828, 1.73205, 0.57721, 1.61803, 2.30259, 0.69315});
    auto statistic = [&](std::span<const uint32_t> p) { return mean_of_picks(r, p); };
    auto a = bootstrap_ci95(8, statistic), b = bootstrap_ci95(8, statistic);
    ASSERT_TRUE(a && b);
    EXPECT_EQ(a->lo, b->lo);
    EXPECT_EQ(a->hi, b->hi);
    // Another seed draws other resamples: the percentiles land on other means.
    auto c = bootstrap_ci95(8, statistic, kBootstrapResamples, kBootstrapSeed + 1);
    ASSERT_TRUE(c);
    EXPECT_TRUE(c->lo != a->lo || c->hi != a->hi);
    EXPECT_FALSE(bootstrap_ci95(1, statistic));
    EXPECT_FALSE(bootstrap_ci95(0, statistic));
}

TEST(Statistics, IdenticalSidesGiveARatioIntervalOfExactlyOneAndLevel) {
    RoundSamples a = {{1.0, 1.2}, {0.9, 1.4}, {1.1, 1.0}, {2.0, 1.3}};
    auto ci = bootstrap_ci95(4, [&](std::span<const uint32_t> p) { return pooled_median(a, p) / pooled_median(a, p); });
    ASSERT_TRUE(ci);
    EXPECT_EQ(ci->lo, 1.0);
    EXPECT_EQ(ci->hi, 1.0);
    EXPECT_EQ(verdict_of(ci), Verdict::level);
}

TEST(Statistics, ATwiceSlowerSideWithDriftSharedByRoundsIsSlowerWithItsRatioInside) {
    // Round r drifts by 10% per round; the subgroup side pays twice the fallback's time in every
    // round plus noise. Paired picks cancel the drift: the interval holds 0.5 and excludes 1.
    RoundSamples fallback, subgroup;
    for (int r = 0; r < 10; ++r) {
        double clock = 1.0 + 0.1 * r, noise = 0.02 * ((r * 7) % 5 - 2);
        fallback.push_back({clock, clock * 1.01});
        subgroup.push_back({2 * clock + noise, 2 * clock * 1.01 - noise});
    }
    auto ratio = [&](std::span<const uint32_t> p) { return pooled_median(fallback, p) / pooled_median(subgroup, p); };
    auto ci = bootstrap_ci95(10, ratio);
    ASSERT_TRUE(ci);
    double point = ratio(all_rounds(10));
    EXPECT_NEAR(point, 0.5, 0.01);
    EXPECT_LE(ci->lo, point);
    EXPECT_GE(ci->hi, point);
    EXPECT_LT(ci->hi, 0.55);
    EXPECT_GT(ci->lo, 0.45);
    EXPECT_EQ(verdict_of(ci), Verdict::slower);
}

TEST(Statistics, VerdictIsAWordOnlyWhenTheIntervalExcludesOne) {
    EXPECT_EQ(verdict_of(Interval{1.01, 1.2}), Verdict::faster);
    EXPECT_EQ(verdict_of(Interval{0.5, 0.99}), Verdict::slower);
    EXPECT_EQ(verdict_of(Interval{0.99, 1.01}), Verdict::level);
    EXPECT_EQ(verdict_of(Interval{1.0, 1.3}), Verdict::level);  // touches 1: not excluded
    EXPECT_EQ(verdict_of(Interval{2.0, INFINITY}), Verdict::faster);
    EXPECT_EQ(verdict_of(std::nullopt), Verdict::level);
    EXPECT_EQ(verdict_name(Verdict::faster), "faster");
    EXPECT_EQ(verdict_name(Verdict::slower), "slower");
    EXPECT_EQ(verdict_name(Verdict::level), "level");
}

// Adaptive rounds go on while an interval holds 1 and reaches past the noise floor.
TEST(Statistics, AnIntervalIsDecidedBeyondOneOrWithinTheNoiseFloor) {
    EXPECT_TRUE(interval_decided(Interval{1.01, 1.3}));    // faster
    EXPECT_TRUE(interval_decided(Interval{0.5, 0.99}));    // slower
    EXPECT_TRUE(interval_decided(Interval{0.985, 1.015}));  // level within 2%
    EXPECT_FALSE(interval_decided(Interval{0.97, 1.01}));   // holds 1, reaches past 0.98
    EXPECT_FALSE(interval_decided(Interval{0.99, 1.05}));
    EXPECT_FALSE(interval_decided(std::nullopt));           // no interval yet
    EXPECT_FALSE(interval_decided(Interval{0.999, 1.001}, 0.0)) << "a floor of 0: only beyond 1 decides";
    EXPECT_TRUE(interval_decided(Interval{0.95, 1.04}, 0.05));
}

TEST(Statistics, TukeyFencesCountMildAndSevereOutliersOnEachSide) {
    // 1..20: quartiles 5.75 and 15.25, IQR 9.5: mild fences -8.5 and 29.5, severe -22.75 and 43.75.
    std::vector<double> s;
    for (int i = 1; i <= 20; ++i) s.push_back(i);
    Outliers none = tukey_outliers(s);
    EXPECT_EQ(none.samples, 20u);
    EXPECT_EQ(none.total(), 0u);
    // With these four the quartiles are 4.75 and 16.25 (IQR 11.5): mild fences -12.5 and 33.5,
    // severe -29.75 and 50.75.
    s.insert(s.end(), {40, 100, -20, -50});  // high mild, high severe, low mild, low severe
    Outliers o = tukey_outliers(s);
    EXPECT_EQ(o.samples, 24u);
    EXPECT_EQ(o.high_mild, 1u);
    EXPECT_EQ(o.high_severe, 1u);
    EXPECT_EQ(o.low_mild, 1u);
    EXPECT_EQ(o.low_severe, 1u);
    EXPECT_EQ(tukey_outliers({1, 100, 1000}).total(), 0u) << "too few samples for quartiles";
}

}  // namespace
