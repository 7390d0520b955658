// Verdicts from the measured noise, on the Vulkan device (docs/benchmarks.md): configurations
// rendered in rounds (render_in_rounds, as --compare does). Two identical configurations come out
// level; one slowed on purpose by a known amount of extra GPU work (RendererConfig::
// test_extra_work, tests only) comes out slower, with an interval that excludes 1. And the stage
// probe: the same loop in a fragment pass and a compute dispatch gives the same texels and a
// positive, finite ratio.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <thread>

#include "compare/compare.h"
#include "gpu/harness.h"
#include "gpu/light_frame.h"

namespace {

CompareRun configuration(const Context& ctx, const std::string& name, uint32_t extra_work = 0) {
    CompareRun run;
    run.config.name = name;
    run.config.test_extra_work = extra_work;
    run.plan = make_plan(ctx.subgroup, ctx.features, PlanRequest{});
    return run;
}

// Every configuration at auto; "slowed" adds the probe loop 2048 times over a 256x256 dispatch to
// each of its frames: on lavapipe about 0.5 G fma, tens of milliseconds, many times the frame of
// a 64x36 knot (on a GPU a fraction of a millisecond, still several times that small frame).
std::vector<CompareRun> render_twins_and_slowed(const Context& ctx, const Scene& scene, CompareMethod& method) {
    std::vector<CompareRun> runs = {configuration(ctx, "twin-a"), configuration(ctx, "twin-b"),
                                    configuration(ctx, "slowed", 2048)};
    Options o;
    o.width = 64, o.height = 36;
    o.lights = 16;
    o.warmup = 2;
    o.frames = 2 + 30;  // 10 rounds of 3 frames
    method = render_in_rounds(ctx, scene, o, runs);
    return runs;
}

TEST(Verdicts, IdenticalConfigurationsAreLevelAndASlowedOneIsSlower) {
    REQUIRE_DRAWING();
    const Context& ctx = test_context();
    Scene scene = load_scene(SGD_TEST_SCENES "/knot.gltf");
    uint32_t messages = validation_message_count();
    // A 95% interval of two identical configurations misses 1 in about one comparison in twenty
    // by chance alone, so a second, independent attempt is allowed; what fails twice is an order
    // or drift effect the rounds did not cancel (or an interval that is too narrow).
    int attempts = 0;
    PassRatio twins, slowed;
    for (; attempts < 2; ++attempts) {
        CompareMethod method;
        std::vector<CompareRun> runs = render_twins_and_slowed(ctx, scene, method);
        ASSERT_EQ(method.rounds(), 10u);
        EXPECT_EQ(method.round_frames, std::vector<uint32_t>(10, 3));
        for (const CompareRun& r : runs) {
            ASSERT_EQ(r.result.rounds[size_t(Timer::frame)].size(), 10u) << r.config.name;
            for (const std::vector<double>& round : r.result.rounds[size_t(Timer::frame)]) EXPECT_EQ(round.size(), 3u);
        }
        twins = timer_ratio(runs, "twins", "twins", "twin-b", "twin-a", Timer::frame);
        // The slowed configuration plays the subgroup side: a ratio below 1.
        slowed = timer_ratio(runs, "slowed", "slowed", "twin-a", "slowed", Timer::frame);
        ASSERT_TRUE(twins.ratio && twins.ci95) << twins.reason;
        ASSERT_TRUE(slowed.ratio && slowed.ci95) << slowed.reason;
        // The extra work draws nothing: the frames are the same.
        EXPECT_EQ(read_png(runs[0].result.screenshot).rgba, read_png(runs[2].result.screenshot).rgba);
        EXPECT_EQ(read_png(runs[0].result.screenshot).rgba, read_png(runs[1].result.screenshot).rgba);
        if (twins.verdict == Verdict::level) break;
    }
    EXPECT_EQ(twins.verdict, Verdict::level) << "twins: " << *twins.ratio << " in [" << twins.ci95->lo << ", " << twins.ci95->hi
                                             << "] twice";
    EXPECT_LE(twins.ci95->lo, 1.0);
    EXPECT_GE(twins.ci95->hi, 1.0);
    EXPECT_LE(twins.ci95->lo, *twins.ratio);
    EXPECT_GE(twins.ci95->hi, *twins.ratio);

    EXPECT_EQ(slowed.verdict, Verdict::slower) << *slowed.ratio << " in [" << slowed.ci95->lo << ", " << slowed.ci95->hi << "]";
    EXPECT_LT(slowed.ci95->hi, 1.0);
    EXPECT_LT(*slowed.ratio, 0.5) << "the extra work was meant to at least double the frame";
    EXPECT_LE(slowed.ci95->lo, *slowed.ratio);
    EXPECT_GE(slowed.ci95->hi, *slowed.ratio);
    EXPECT_EQ(validation_message_count(), messages);
}

// Adaptive rounds (render_in_rounds with a rule, as --compare runs them): the slowed pair is
// decided after the first rounds, so the slowed configuration stops there; the twins' pair, with a
// noise floor of 0, is decided only by an interval that excludes 1, so both twins run to the cap of
// 10 rounds. The interval is checked after every round, so identical twins look decided more often
// than 1 in 20 (more so on a loaded machine, where the load drifts between them): an attempt whose
// twins were decided by chance is repeated, up to kTwinAttempts.
constexpr int kTwinAttempts = 5;

// Small frames, 2 warm-up frames, then at most 10 rounds of 1 frame.
Options rounds_options() {
    Options o;
    o.width = 64, o.height = 36;
    o.lights = 16;
    o.warmup = 2;
    o.frames = 2 + 10;
    return o;
}

// The frames each run rendered, in order.
std::vector<size_t> frame_rounds(const std::vector<CompareRun>& runs) {
    std::vector<size_t> rounds;
    for (const CompareRun& r : runs) rounds.push_back(r.result.rounds[size_t(Timer::frame)].size());
    return rounds;
}

// The slowed pair (twin-a against slowed) is decided slower; true where the twins' pair came out
// undecided, as it should, and so ran to the cap; false where chance decided it (try again).
bool twins_came_out_undecided(const std::vector<CompareRun>& runs, const CompareMethod& method) {
    PassRatio slowed = timer_ratio(runs, "slowed", "slowed", "twin-a", "slowed", Timer::frame);
    EXPECT_TRUE(slowed.ratio && slowed.ci95) << slowed.reason;
    EXPECT_EQ(slowed.verdict, Verdict::slower);
    PassRatio twins = timer_ratio(runs, "twins", "twins", "twin-b", "twin-a", Timer::frame);
    if (!twins.ci95 || interval_decided(twins.ci95, 0.0)) return false;
    EXPECT_EQ(method.rounds(), 10u);
    return true;
}

// After the last attempt: the twins' undecided pair ran to the cap.
void expect_twins_ran_to_the_cap(const std::vector<size_t>& rounds) {
    EXPECT_EQ(rounds[0], 10u) << "twin-a: the undecided pair runs to the cap";
    EXPECT_EQ(rounds[1], 10u) << "twin-b";
}

TEST(Verdicts, AdaptiveRoundsStopADecidedPairAndRunAnUndecidedOneToTheCap) {
    REQUIRE_DRAWING();
    const Context& ctx = test_context();
    Scene scene = load_scene(SGD_TEST_SCENES "/knot.gltf");
    RoundsNeeded rule = [](const std::vector<CompareRun>& runs) {
        std::vector<bool> keep(runs.size(), false);
        for (auto [fallback, subgroup] : {std::pair{"twin-b", "twin-a"}, std::pair{"twin-a", "slowed"}}) {
            PassRatio r = timer_ratio(runs, "pair", "pair", fallback, subgroup, Timer::frame);
            if (r.ratio && interval_decided(r.ci95, 0.0)) continue;
            for (size_t i = 0; i < runs.size(); ++i)
                keep[i] = keep[i] || runs[i].config.name == fallback || runs[i].config.name == subgroup;
        }
        return keep;
    };
    std::vector<size_t> rounds;
    for (int attempt = 0; attempt < kTwinAttempts; ++attempt) {
        std::vector<CompareRun> runs = {configuration(ctx, "twin-a"), configuration(ctx, "twin-b"),
                                        configuration(ctx, "slowed", 2048)};
        CompareMethod method = render_in_rounds(ctx, scene, rounds_options(), runs, {}, 0, rule);
        rounds = frame_rounds(runs);
        EXPECT_EQ(method.cap_rounds, 10u);
        EXPECT_EQ(rounds[2], size_t(kMinAdaptiveRounds)) << "the slowed pair was decided after the first rounds";
        if (twins_came_out_undecided(runs, method)) break;
    }
    expect_twins_ran_to_the_cap(rounds);
}

// The budget (the first run's kQuickRoundsSeconds) counts the rounds, not the set-up before them:
// a set-up slower than the whole budget (the step callback sleeps past it at each configuration's
// set-up, as the H100's pipeline compiles took 3.5-5.6 s) still leaves the rounds their budget, so
// one configuration without a rule runs to the cap of 10; a budget the rounds themselves spend stops
// them after kMinBudgetRounds.
TEST(Verdicts, TheRoundsBudgetDoesNotCountTheSetUp) {
    REQUIRE_DRAWING();
    const Context& ctx = test_context();
    Scene scene = load_scene(SGD_TEST_SCENES "/knot.gltf");
    constexpr double kBudget = 1.0;  // 10 rounds of one 64x36 frame take about 0.1 s on lavapipe
    auto slow_set_up = [&](const std::string& name, bool) {
        if (name.rfind("round", 0) != 0) std::this_thread::sleep_for(std::chrono::duration<double>(kBudget + 0.1));
    };
    SharedRenderer shared;  // one renderer for both calls
    std::vector<CompareRun> runs = {configuration(ctx, "one")};
    CompareMethod method = render_in_rounds(ctx, scene, rounds_options(), runs, slow_set_up, kBudget, {}, &shared);
    EXPECT_GT(method.setup_seconds, kBudget);
    EXPECT_LT(method.rounds_seconds, kBudget) << "frames far slower than expected: the budget stopped the rounds";
    EXPECT_EQ(method.rounds(), 10u) << "the set-up spent the rounds' budget";
    EXPECT_EQ(frame_rounds(runs)[0], 10u);
    runs = {configuration(ctx, "one")};
    method = render_in_rounds(ctx, scene, rounds_options(), runs, {}, 1e-6, {}, &shared);
    EXPECT_EQ(method.rounds(), size_t(kMinBudgetRounds)) << "a spent budget stops the rounds after the first ones";
    EXPECT_EQ(frame_rounds(runs)[0], size_t(kMinBudgetRounds));
}

// The same with one renderer (render_in_rounds' shared renderer, as the first run's quick measurement
// renders): the twins and a row that shades with visibility share one renderer, switched to each
// one's plan before its frames (each row's timers are its own plan's: forward's or the shading
// pass's), while the slowed configuration, whose renderer carries the extra work, gets its own; the
// rule is the one the quick measurement uses (sides_of_undecided). The slowed pair stops after
// kMinAdaptiveRounds, as does the visibility row (a side of no pair), the twins' undecided pair
// runs to the cap.
TEST(Verdicts, OneRendererForSeveralRowsStillStopsADecidedPairEarly) {
    REQUIRE_DRAWING();
    const Context& ctx = test_context();
    Scene scene = load_scene(SGD_TEST_SCENES "/knot.gltf");
    RoundsNeeded rule = [](const std::vector<CompareRun>& runs) {
        std::vector<PassRatio> pairs = {timer_ratio(runs, "twins", "twins", "twin-b", "twin-a", Timer::frame),
                                        timer_ratio(runs, "slowed", "slowed", "twin-a", "slowed", Timer::frame)};
        return sides_of_undecided(runs, pairs, 0.0);
    };
    std::vector<size_t> rounds;
    std::vector<uint32_t> renderers_before;  // renderers alive as each configuration is set up
    for (int attempt = 0; attempt < kTwinAttempts; ++attempt) {
        CompareRun visibility = configuration(ctx, "visibility");
        visibility.config.shading = Shading::visibility;
        PlanRequest request;
        request.shading = Shading::visibility;
        visibility.plan = make_plan(ctx.subgroup, ctx.features, request);
        std::vector<CompareRun> runs = {configuration(ctx, "twin-a"), configuration(ctx, "twin-b"), configuration(ctx, "slowed", 2048),
                                        visibility};
        renderers_before.clear();
        uint32_t messages = validation_message_count();
        SharedRenderer shared;
        CompareMethod method = render_in_rounds(
            ctx, scene, rounds_options(), runs,
            [&](const std::string& name, bool) {
                if (name.rfind("round", 0) != 0) renderers_before.push_back(Renderer::alive());
            },
            0, rule, &shared);
        EXPECT_EQ(method.renderers, 2u) << "the shared one and the slowed row's";
        shared.renderer.reset();
        EXPECT_EQ(validation_message_count(), messages);
        EXPECT_EQ(renderers_before, (std::vector<uint32_t>{0, 1, 1, 2})) << "twin-b and visibility share twin-a's renderer, slowed has its own";
        for (size_t i : {0, 1, 3}) {
            bool visibility_row = i == 3;
            EXPECT_EQ(runs[i].result.ran[size_t(Timer::shade)], visibility_row) << runs[i].config.name;
            EXPECT_EQ(runs[i].result.ran[size_t(Timer::forward)], !visibility_row) << runs[i].config.name;
        }
        EXPECT_EQ(runs[3].result.rounds[size_t(Timer::frame)].size(), size_t(kMinAdaptiveRounds));
        EXPECT_EQ(Renderer::alive(), 0u);
        rounds = frame_rounds(runs);
        EXPECT_GE(rounds[2], size_t(kMinAdaptiveRounds));
        EXPECT_LT(rounds[2], 10u) << "the slowed pair was decided before the cap";
        if (twins_came_out_undecided(runs, method)) break;
    }
    expect_twins_ran_to_the_cap(rounds);
}

TEST(StageProbe, TheSameLoopInBothStagesGivesTheSameTexelsAndAPositiveRatio) {
    REQUIRE_DRAWING();
    const Context& ctx = test_context();
    uint32_t messages = validation_message_count();
    StageProbe p = measure_stage_throughput(ctx, 2);
    ASSERT_TRUE(p.ran);
    EXPECT_EQ(p.invocations(), uint64_t(kStageProbeSize) * kStageProbeSize);
    EXPECT_GE(p.iterations, 16u);
    EXPECT_EQ(p.repeats, 2u);
    // Both stages ran the loop the same number of times on the same pixel coordinates: the same
    // floats, texel for texel (an unrun stage, or a loop cut short, leaves other values).
    EXPECT_EQ(p.differing_texels, 0u);
    // And the loop ran as written: the last texel recomputed on the CPU, step for step
    // (probe_loop.glsl). GLSL's fma() under `precise` promises the same rounding every time, not a
    // single rounding: a driver may round the product first (lavapipe does), so either chain is
    // the loop run `iterations` times; anything else is a different loop or count.
    auto last_texel = [&](bool fused) {
        float x = float(kStageProbeSize - 1), y = x;
        volatile float products[4] = {x * 1.0e-3f, y * 1.3e-3f, x * 0.7e-3f, y * 0.9e-3f};  // precise: no contraction
        float a[4] = {products[0] + 0.1f, products[1] + 0.2f, products[2] + 0.3f, products[3] + 0.4f};
        const float m[4] = {0.9999f, 0.9998f, 0.9997f, 0.9996f}, d[4] = {1.0e-4f, 2.0e-4f, 3.0e-4f, 4.0e-4f};
        for (uint32_t i = 0; i < p.iterations; ++i)
            for (int c = 0; c < 4; ++c) {
                volatile float product = a[c] * m[c];
                a[c] = fused ? std::fma(a[c], m[c], d[c]) : product + d[c];
            }
        return a[0] + a[1] + a[2] + a[3];
    };
    float fused = last_texel(true), rounded = last_texel(false);
    EXPECT_TRUE(p.last_texel == fused || p.last_texel == rounded)
        << p.last_texel << " after " << p.iterations << " iterations; the CPU gives " << fused << " fused, " << rounded
        << " with the product rounded";
    ASSERT_TRUE(p.ratio());
    EXPECT_TRUE(std::isfinite(*p.ratio()));
    EXPECT_GT(*p.ratio(), 0.0);
    EXPECT_GT(p.fragment_ms, 0.0);
    EXPECT_GT(p.compute_ms, 0.0);
    EXPECT_EQ(validation_message_count(), messages);
}

// `--info --probe` from the command line, validated: the figure printed and under the report's
// `probe`, positive and finite, both stages' texels equal. Without --probe, --info runs no probe.
TEST(StageProbe, InfoProbePrintsAndReportsTheFigure) {
    REQUIRE_DRAWING();
    std::string dir = test_dir("info-probe");
    DemoRun run = run_demo({"--info", "--probe", "--validate", "--report", dir + "/info.json"});
    ASSERT_EQ(run.exit_code, 0) << run.output;
    EXPECT_EQ(validation_lines(run.output), 0) << run.output;
    EXPECT_NE(run.output.find("graphics-to-compute probe: fragment "), std::string::npos) << run.output;
    EXPECT_NE(run.output.find("2 graphics-capable TPCs"), std::string::npos) << run.output;
    nlohmann::json r = read_json(dir + "/info.json");
    ASSERT_TRUE(r["probe"].is_object()) << r.dump();
    double ratio = r["probe"]["fragment_over_compute"].get<double>();
    EXPECT_TRUE(std::isfinite(ratio) && ratio > 0) << ratio;
    EXPECT_NEAR(ratio, r["probe"]["fragment_ms"].get<double>() / r["probe"]["compute_ms"].get<double>(), 1e-9 * ratio);
    EXPECT_EQ(r["probe"]["differing_texels"], 0);
    EXPECT_EQ(r["probe"]["invocations"], uint64_t(kStageProbeSize) * kStageProbeSize);
    EXPECT_TRUE(r["plan"].contains("cull"));

    DemoRun plain = run_demo({"--info", "--report", dir + "/plain.json"});
    ASSERT_EQ(plain.exit_code, 0) << plain.output;
    EXPECT_EQ(plain.output.find("graphics-to-compute probe"), std::string::npos);
    EXPECT_FALSE(read_json(dir + "/plain.json").contains("probe"));
}

}  // namespace
