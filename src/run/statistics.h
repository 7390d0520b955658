// The statistics behind `--compare`'s verdicts (docs/benchmarks.md, "Verdicts from the noise"):
// a percentile bootstrap over rounds for a ratio's 95% confidence interval, the word it earns, and
// Tukey-fence outlier counts as Criterion reports them. Pure functions of the samples, no Vulkan,
// unit-tested (tests/test_statistics.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

// One quantity (a timer in one configuration) grouped by the round it was measured in:
// rounds[r] holds that round's frames. Every configuration of a comparison has the same rounds.
using RoundSamples = std::vector<std::vector<double>>;

double median_of(std::vector<double> values);  // 0 for none
// The median of the frames of the rounds in `picks`; a round picked twice counts twice.
double pooled_median(const RoundSamples& rounds, std::span<const uint32_t> picks);
// Every round once, in order: the picks that give the statistic of the data as measured.
std::vector<uint32_t> all_rounds(uint32_t rounds);

struct Interval {
    double lo = 0, hi = 0;  // hi may be +infinity (a resample in which the subgroup cost vanished)
};

constexpr uint32_t kBootstrapResamples = 2000;
constexpr uint64_t kBootstrapSeed = 0x5eed'0f'5b'9e0cULL;  // fixed: the same timings give the same interval

// The 95% percentile bootstrap over rounds: `resamples` times, draw `rounds` round indices with
// replacement, evaluate `statistic` on them; the 2.5th and 97.5th percentiles of the results.
// Rounds, not frames, are the unit: frames of one round share its clock and thermal state, and a
// paired statistic (both sides of a ratio from the same picks) lets the drift of a round cancel.
// Empty with fewer than two rounds (nothing to resample). Deterministic for a seed on every
// platform (its own generator, not <random>'s implementation-defined distributions).
using RoundStatistic = std::function<double(std::span<const uint32_t> picks)>;
std::optional<Interval> bootstrap_ci95(uint32_t rounds, const RoundStatistic& statistic,
                                       uint32_t resamples = kBootstrapResamples, uint64_t seed = kBootstrapSeed);

// A speed-up's word (fallback / subgroup): faster only when the whole interval is above 1, slower
// only when it is below, else level. No interval (one round) is level: the noise is unknown.
enum class Verdict { faster, slower, level };
Verdict verdict_of(const std::optional<Interval>& ci95);
// Whether more rounds could change what an interval says (adaptive rounds, docs/comparison.md):
// decided where it excludes 1 (faster or slower) or lies within the noise floor around 1 (level
// within it: [1 - floor, 1 + floor]); undecided where it holds 1 and reaches past the floor, or
// where there is none yet.
constexpr double kNoiseFloor = 0.02;
bool interval_decided(const std::optional<Interval>& ci95, double noise_floor = kNoiseFloor);
std::string_view verdict_name(Verdict v);

// Criterion's classification of samples by Tukey's fences: mild beyond 1.5 interquartile ranges
// from the quartiles, severe beyond 3.
struct Outliers {
    uint32_t samples = 0;
    uint32_t low_severe = 0, low_mild = 0, high_mild = 0, high_severe = 0;
    uint32_t total() const { return low_severe + low_mild + high_mild + high_severe; }
};
Outliers tukey_outliers(std::vector<double> samples);

// The measured frames split into rounds: min(frames, kMaxRounds) rounds whose sizes differ by at
// most one (the larger first), so the comparison renders as many frames as a plain run.
constexpr uint32_t kMaxRounds = 10;
std::vector<uint32_t> round_sizes(uint32_t measured_frames);
