#include "run/statistics.h"

#include <algorithm>
#include <cmath>

double median_of(std::vector<double> v) {
    if (v.empty()) return 0;
    size_t n = v.size();
    std::nth_element(v.begin(), v.begin() + n / 2, v.end());
    double upper = v[n / 2];
    if (n % 2) return upper;
    return 0.5 * (*std::max_element(v.begin(), v.begin() + n / 2) + upper);
}

double pooled_median(const RoundSamples& rounds, std::span<const uint32_t> picks) {
    std::vector<double> pooled;
    for (uint32_t r : picks)
        if (r < rounds.size()) pooled.insert(pooled.end(), rounds[r].begin(), rounds[r].end());
    return median_of(std::move(pooled));
}

std::vector<uint32_t> all_rounds(uint32_t rounds) {
    std::vector<uint32_t> picks(rounds);
    for (uint32_t r = 0; r < rounds; ++r) picks[r] = r;
    return picks;
}

namespace {

// SplitMix64 (Steele, Lea, Flood 2014): a fixed sequence for a seed on every compiler.
struct SplitMix64 {
    uint64_t state;
    uint64_t next() {
        uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    // In [0, n): the modulo's bias is below n / 2^64, far under anything a percentile can show.
    uint32_t below(uint32_t n) { return uint32_t(next() % n); }
};

}  // namespace

std::optional<Interval> bootstrap_ci95(uint32_t rounds, const RoundStatistic& statistic, uint32_t resamples, uint64_t seed) {
    if (rounds < 2 || resamples == 0) return std::nullopt;
    SplitMix64 rng{seed};
    std::vector<uint32_t> picks(rounds);
    std::vector<double> values(resamples);
    for (double& v : values) {
        for (uint32_t& p : picks) p = rng.below(rounds);
        v = statistic(picks);
    }
    std::sort(values.begin(), values.end());
    // Nearest rank: the smallest value with at least 2.5% (97.5%) of the resamples at or below it.
    auto rank = [&](double q) { return values[std::max<size_t>(1, size_t(std::ceil(q * resamples))) - 1]; };
    return Interval{rank(0.025), rank(0.975)};
}

Verdict verdict_of(const std::optional<Interval>& ci) {
    if (!ci) return Verdict::level;
    if (ci->lo > 1.0) return Verdict::faster;
    if (ci->hi < 1.0) return Verdict::slower;
    return Verdict::level;
}

bool interval_decided(const std::optional<Interval>& ci, double noise_floor) {
    if (!ci) return false;
    return ci->lo > 1.0 || ci->hi < 1.0 || (ci->lo >= 1.0 - noise_floor && ci->hi <= 1.0 + noise_floor);
}

std::string_view verdict_name(Verdict v) {
    switch (v) {
        case Verdict::faster: return "faster";
        case Verdict::slower: return "slower";
        case Verdict::level: return "level";
    }
    return "level";
}

Outliers tukey_outliers(std::vector<double> s) {
    Outliers o;
    o.samples = uint32_t(s.size());
    if (s.size() < 4) return o;  // no quartiles to speak of
    std::sort(s.begin(), s.end());
    // Quartiles by linear interpolation between closest ranks (Criterion's, and numpy's default).
    auto quantile = [&](double q) {
        double at = q * double(s.size() - 1);
        size_t i = size_t(at);
        double frac = at - double(i);
        return i + 1 < s.size() ? s[i] + frac * (s[i + 1] - s[i]) : s[i];
    };
    double q1 = quantile(0.25), q3 = quantile(0.75), iqr = q3 - q1;
    for (double x : s) {
        if (x < q1 - 3 * iqr) ++o.low_severe;
        else if (x < q1 - 1.5 * iqr) ++o.low_mild;
        else if (x > q3 + 3 * iqr) ++o.high_severe;
        else if (x > q3 + 1.5 * iqr) ++o.high_mild;
    }
    return o;
}

std::vector<uint32_t> round_sizes(uint32_t measured) {
    uint32_t rounds = std::min(measured, kMaxRounds);
    std::vector<uint32_t> sizes(rounds, rounds ? measured / rounds : 0);
    for (uint32_t r = 0; r < (rounds ? measured % rounds : 0); ++r) ++sizes[r];
    return sizes;
}
