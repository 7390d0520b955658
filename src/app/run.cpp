#include "app/run.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "app/atlas.h"  // atlas_plans
#include "compare/tuning.h"  // quick_tune, plan_comparison
#include "run/cull_dump.h"
#include "run/image_io.h"
#include "run/limits.h"
#include "passes/cull_pass.h"
#include "passes/debug_view_pass.h"
#include "passes/exposure_pass.h"
#include "passes/pass_unit.h"
#include "passes/ray_trace_pass.h"
#include "render/exposure_reference.h"
#include "render/mip_reference.h"
#include "render/tonemap.h"
#include "scene/lod.h"

namespace {

// The renderers a run of these options builds, each with the plans it takes in turn, so that every
// buffer of each is checked before the first is made: the one plan of a headless run or the
// window's start (its keys are checked when pressed); --compare's rows, which share one renderer;
// each --atlas cell's own; and for --tune the widest plan, whose buffers hold those of its rows
// and of the check whose plan its measurement chooses.
std::vector<std::vector<Plan>> renderers_built(const Context& ctx, const StartUp& s) {
    switch (s.tuned.mode) {
        case Mode::compare: {
            std::vector<Plan> rows;
            for (const CompareRun& run : plan_comparison(ctx, s.tuned.plan).runs)
                if (!run.skipped) rows.push_back(run.plan);
            return {rows};
        }
        case Mode::atlas: {
            std::vector<std::vector<Plan>> cells;
            for (const Plan& plan : atlas_plans(ctx, s.tuned)) cells.push_back({plan});
            return cells;
        }
        case Mode::tune: return {{widest_plan(ctx, s.tuned)}};
        default: return {{s.plan}};
    }
}

}  // namespace

StartUp start_up(Context& ctx, const ContextOptions& device, const Options& options) {
    create_context(ctx, device);
    StartUp s{options};
    // A run of one plan (headless, --info, the window) resolves the typed request, and a refused
    // one fails before the scene loads; the modes of many plans make their own from it.
    const bool one_plan = options.mode != Mode::compare && options.mode != Mode::tune && options.mode != Mode::atlas;
    if (one_plan) s.plan = make_plan(ctx.subgroup, ctx.features, s.tuned.plan);
    if (options.mode == Mode::info) {
        // Which verdict applies depends on the scene's class: --info loads it for its triangles
        // (nothing reaches the GPU), and only where tuning is on.
        uint64_t triangles = options.no_tuning ? 0 : load_requested_scene(options).triangle_count();
        s.tuning = apply_tuning(ctx, s.tuned, triangles);
        s.plan = make_plan(ctx.subgroup, ctx.features, s.tuned.plan);
        return s;
    }
    s.scene = load_requested_scene(options);
    // --tune measures afresh and --atlas shows the capabilities' plans: neither follows a verdict.
    if (options.mode != Mode::tune && options.mode != Mode::atlas) s.tuning = apply_tuning(ctx, s.tuned, s.scene->triangle_count());
    if (one_plan) s.plan = make_plan(ctx.subgroup, ctx.features, s.tuned.plan);
    const bool measure = one_plan && needs_quick_tune(s.tuning, options);
    if (measure) check_device_limits(ctx, options, widest_plan(ctx, options), *s.scene);  // what the measurement may choose
    for (const std::vector<Plan>& plans : renderers_built(ctx, s)) check_device_limits(ctx, options, plans, *s.scene);
    if (!measure) return s;
    if (options.mode == Mode::window) {
        s.measure_later = true;
        return s;
    }
    s.tuning = quick_tune(ctx, *s.scene, options);
    set_measured(s.tuned.plan, s.tuning.usable() ? &s.tuning : nullptr);
    s.plan = make_plan(ctx.subgroup, ctx.features, s.tuned.plan);
    check_device_limits(ctx, options, s.plan, *s.scene);
    return s;
}

void print_info(const Context& ctx, const Plan& plan) {
    const SubgroupCaps& s = ctx.subgroup;
    const SubgroupCaps& raw = ctx.subgroup_unmasked;
    printf("Device      %s (%s)\n", ctx.info.name.c_str(), ctx.info.type.c_str());
    printf("Driver      %s, Vulkan %s\n", ctx.info.driver.c_str(), ctx.info.api_version.c_str());
    printf("Subgroup    size %u (min %u, max %u), size control %s, full subgroups %s\n", s.size, s.min_size,
           s.max_size, s.size_control ? "yes" : "no", s.full_subgroups ? "yes" : "no");
    std::string required;  // the stages a pipeline may require a size of (--subgroup-size)
    for (const StageInfo& st : kStages)
        if (raw.required_size_stages & bit(st.stage)) required += (required.empty() ? "" : ", ") + std::string(stage_name(st.stage));
    printf("            sizes required in %s", required.empty() ? "no stage" : required.c_str());
    if (ctx.subgroup_size) printf("; --subgroup-size %u", ctx.subgroup_size);
    printf("\n\n");

    auto mark = [](bool device, bool masked) { return !device ? "no" : masked ? "masked" : "yes"; };
    printf("%-14s %s\n", "stage", "subgroups");
    for (const StageInfo& st : kStages)
        printf("%-14s %s\n", std::string(stage_name(st.stage)).c_str(), mark(raw.has(st.stage), s.masked_stages & bit(st.stage)));
    printf("\n%-17s %s\n", "operation", "supported");
    for (uint32_t i = 0; i < uint32_t(Op::count); ++i) {
        Op op = Op(i);
        printf("%-17s %s\n", std::string(op_name(op)).c_str(), mark(raw.has(op), s.masked_ops & bit(op)));
    }
    printf("%-17s %s\n", "quad (all stages)", s.quad_in_all_stages ? "yes" : "no");
    printf("\nfeatures: tessellation %s, geometry %s, fragment stores %s, multi-draw indirect %s, quad control %s, "
           "maximal reconvergence %s, mesh shaders %s, ray-tracing pipelines %s\n",
           ctx.features.tessellation ? "yes" : "no", ctx.features.geometry ? "yes" : "no",
           ctx.features.fragment_stores ? "yes" : "no", ctx.features.multi_draw_indirect ? "yes" : "no",
           ctx.features.quad_control ? "yes" : "no", ctx.features.maximal_reconvergence ? "yes" : "no",
           ctx.features.mesh_shader ? "yes" : "no", ctx.features.ray_tracing ? "yes" : "no");

    // The source column: requested, capabilities, or the verdict's maker and date (quick, tune, compare).
    printf("\n%-12s %-10s %-12s %-18s %s\n", "pass", "requested", "variant", "source", "reason");
    auto row = [](const char* name, const PassPlan& p) {
        printf("%-12s %-10s %-12s %-18s %s\n", name, std::string(request_name(p.requested)).c_str(),
               std::string(variant_name(p.variant)).c_str(), source_text(p.source, p.measured_by, p.measured_on).c_str(),
               p.reason.c_str());
    };
    for (const PassInfo& pass : kPasses) row(std::string(pass.key).c_str(), plan[pass.id]);
    // --shading: forward or visibility; visibility's variant is its derivatives' (docs/visibility.md).
    const ShadingPlan& shading = plan.shading;
    printf("%-12s %-10s %-12s %-18s %s\n", "shading", std::string(shading_request_name(shading)).c_str(),
           std::string(shading_variant_name(shading)).c_str(),
           source_text(shading.source, shading.measured_by, shading.measured_on).c_str(), shading.reason.c_str());
    // Visibility's per-pixel materials (docs/materials.md): the waterfall or nonuniformEXT indexing.
    if (shading.shading == Shading::visibility)
        printf("%-12s %-10s %-12s %-18s %s\n", "materials", std::string(request_name(shading.materials_requested)).c_str(),
               std::string(variant_name(shading.materials)).c_str(),
               shading.materials_requested == Request::automatic ? "capabilities" : "requested", shading.materials_reason.c_str());
    // How the shaders reach the scene's textures: descriptor indexing, or the array texture without it.
    printf("%-12s %-10s %-12s %-18s %s\n", "textures", "-", std::string(texture_mode_name(plan.textures)).c_str(),
           "capabilities", plan.textures.reason.c_str());
    // The ray tracer's launch (docs/ray-tracing.md, "Dense rays"): dense lists, or per pixel.
    if (plan[PassId::ray_trace].variant != Variant::off && plan[PassId::ray_trace].variant != Variant::unsupported)
        printf("%-12s %-10s %-12s %-18s %s\n", "ray lists", std::string(request_name(plan.ray_lists_requested)).c_str(),
               std::string(variant_name(plan.ray_lists)).c_str(), "capabilities", plan.ray_lists_reason.c_str());
    // --raster: hardware, or the compute rasterizer's path (docs/raster.md).
    const RasterPlan& raster = plan.raster;
    printf("%-12s %-10s %-16s %-13s %s\n", "raster", raster.requested ? std::string(raster_name(*raster.requested)).c_str() : "auto",
           raster_variant_name(raster).c_str(), std::string(plan_source_name(raster.source)).c_str(), raster.reason.c_str());

    printf("\n%-16s %-13s %s\n", "debug view", "stage", "variant / reason");
    for (ViewMode mode : {ViewMode::lane_id, ViewMode::first_last_lane, ViewMode::active_lanes})
        for (const StageInfo& st : kStages) {
            ViewPlan v = plan_view(s, ctx.features, mode, st.stage);
            bool chosen = mode == plan.view.mode && st.stage == plan.view.stage;
            printf("%-16s %-13s %s: %s%s\n", std::string(view_mode_name(mode)).c_str(), std::string(stage_name(st.stage)).c_str(),
                   std::string(variant_name(v.variant)).c_str(), v.reason.c_str(), chosen ? "   <- selected" : "");
        }
}
