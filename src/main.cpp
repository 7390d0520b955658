// subgroup-demo entry point: parses the command line, picks the mode, and maps every failure
// to the contract's exit code with one line on stderr.
#include <cstdio>
#include <fstream>

#include "app/run.h"
#include "window/window.h"
#include "app/atlas.h"
#include "compare/compare.h"
#include "compare/tuning.h"

namespace {

enum Exit { kOk = 0, kRuntime = 1, kUsage = 2, kBadScene = 3, kNoDevice = 4, kValidation = 5 };

void write_json(const std::string& path, const nlohmann::json& json) {
    std::ofstream file(path);
    if (!file) throw std::runtime_error("cannot write report " + path);
    file << json.dump(2) << "\n";
}

int run(const Options& options) {
    switch (options.mode) {
        case Mode::help: printf("%s", usage_text().c_str()); return kOk;
        case Mode::version: printf("subgroup-demo %s\n", SGD_VERSION); return kOk;
        case Mode::list_devices:
            for (const std::string& line : list_devices()) printf("%s\n", line.c_str());
            return kOk;
        case Mode::window: return run_window(options);
        default: break;
    }

    // Every mode's start-up (app/run.h): the limits of each plan it will build are checked here.
    Context ctx;
    StartUp start = start_up(ctx, context_options(options), options);
    if (options.mode == Mode::compare) return run_compare(ctx, *start.scene, start.tuned);
    if (options.mode == Mode::tune) return run_tune(ctx, *start.scene, options);
    if (options.mode == Mode::atlas) return run_atlas(ctx, *start.scene, options);
    const Plan& plan = start.plan;
    if (plan.view.variant == Variant::unsupported && is_subgroup_view(plan.view.mode))  // (--view raster: a run refuses it, the window labels it)
        fprintf(stderr, "note: --view %s in the %s stage is unsupported here (%s); the scene is drawn hatched instead\n",
                std::string(view_mode_name(plan.view.mode)).c_str(), std::string(stage_name(plan.view.stage)).c_str(),
                plan.view.reason.c_str());
    if (options.mode == Mode::info) {
        print_info(ctx, plan);
        printf("\ntuning      %s\n", tuning_summary(start.tuning, options.no_tuning).c_str());
        nlohmann::json report = {{"schema", 1}, {"device", device_json(ctx)}, {"subgroup", subgroup_json(ctx)},
                                 {"plan", plan_json(plan)}, {"views", views_json(ctx)},
                                 {"tuning", tuning_report_json(start.tuning, options.no_tuning)}};
        if (options.probe) {
            StageProbe probe = measure_stage_throughput(ctx);
            printf("\n%s\n", stage_probe_summary(probe).c_str());
            if (auto ratio = probe.ratio()) printf("  fragment %.1fx compute: %s\n", *ratio, kStageProbeMeaning);
            report["probe"] = stage_probe_json(probe);
        }
        if (!options.report.empty()) write_json(options.report, report);
        return kOk;
    }
    const Scene& scene = *start.scene;
    RunResult result = run_headless(ctx, scene, options, plan);
    if (!options.report.empty()) {
        nlohmann::json report = report_json(ctx, options, plan, scene, result);
        report["tuning"] = tuning_report_json(start.tuning, options.no_tuning);
        write_json(options.report, report);
    }
    printf("%s: %llu of %llu triangles visible, frame %.3f ms (median of %u)\n", ctx.info.name.c_str(),
           (unsigned long long)(plan[PassId::cull].variant == Variant::off ? result.triangles_in : result.counters.triangles_visible),
           (unsigned long long)result.triangles_in, result.timings[size_t(Timer::frame)].median,
           options.frames - options.warmup);
    if (!result.mip.empty()) {
        printf("mip: %llu of %llu texels differ from the CPU box filter of the same frame",
               (unsigned long long)result.mip_check.mismatched, (unsigned long long)result.mip_check.texels);
        if (result.mip_check.fallback_mismatched)
            printf(", %llu from the compute fallback's mip of it", (unsigned long long)*result.mip_check.fallback_mismatched);
        printf("\n");
    }
    return kOk;
}

// The contract's exit code for an error that ended the run.
int exit_code_of(const std::exception& e) {
    if (dynamic_cast<const UsageError*>(&e) || dynamic_cast<const UnsupportedRequest*>(&e)) return kUsage;
    if (dynamic_cast<const SceneError*>(&e)) return kBadScene;
    if (dynamic_cast<const NoDeviceError*>(&e)) return kNoDevice;
    return kRuntime;
}

}  // namespace

int main(int argc, char** argv) {
    Options options;
    int code = kOk;
    try {
        options = parse_options(std::vector<std::string>(argv + 1, argv + argc));
        code = run(options);
    } catch (const std::exception& e) {
        int exit = exit_code_of(e);
        fprintf(stderr, "error: %s%s\n", exit == kBadScene ? "bad scene: " : "", e.what());
        return exit;
    }
    if (code == kOk && options.validate && validation_message_count() > 0) {
        fprintf(stderr, "error: the validation layer reported %u message(s) (printed above)\n", validation_message_count());
        return kValidation;
    }
    return code;
}
