#include "window/controls.h"

#include <algorithm>
#include <iterator>

namespace {

template <typename E>
E step_enum(E value, int step, uint32_t count) {
    int n = int(count);
    return E(((int(value) + step) % n + n) % n);
}

}  // namespace

// The cycle order: automatic, subgroup, forward (the mip's alone: other passes skip it), fallback, off.
Request next_request(Request r, int step) {
    constexpr Request kCycle[] = {Request::automatic, Request::subgroup, Request::forward, Request::fallback, Request::off};
    int n = int(std::size(kCycle)), at = 0;
    while (kCycle[at] != r) ++at;
    return kCycle[((at + step) % n + n) % n];
}
ViewMode next_view_mode(ViewMode m, int step) { return step_enum(m, step, uint32_t(ViewMode::count)); }
Stage next_stage(Stage s, int step) { return step_enum(s, step, uint32_t(Stage::count)); }

PlanChange cycle_pass(const SubgroupCaps& caps, const DeviceFeatures& features, const PlanRequest& current, PassId pass,
                      int step) {
    PlanChange change{current, {}, {}};
    Request& request = change.request[pass];
    // At most five tries: `auto` always resolves, so the loop ends within the cycle.
    for (int tries = 0; tries < 5; ++tries) {
        request = next_request(request, step);
        if (!offers(pass_info(pass), request)) continue;
        try {
            change.plan = make_plan(caps, features, change.request);
            return change;
        } catch (const UnsupportedRequest& e) {
            // "--mip subgroup: <why> on this device; use auto or fallback" -> "skipped mip subgroup: <why> on this device"
            std::string why = e.what();
            if (why.rfind("--", 0) == 0) why.erase(0, 2);
            size_t advice = why.find("; use ");
            if (advice != std::string::npos) why.erase(advice);
            if (change.note.empty()) change.note = "skipped " + why;  // the first variant skipped (mip: subgroup, then forward)
        }
    }
    change.plan = make_plan(caps, features, change.request);  // unreachable in practice; rethrows if it is
    return change;
}

PlanChange cycle_view_mode(const SubgroupCaps& caps, const DeviceFeatures& features, const PlanRequest& current, int step) {
    PlanChange change{current, {}, {}};
    change.request.view = next_view_mode(current.view, step);
    change.plan = make_plan(caps, features, change.request);
    return change;
}

PlanChange cycle_view_stage(const SubgroupCaps& caps, const DeviceFeatures& features, const PlanRequest& current,
                            int step) {
    PlanChange change{current, {}, {}};
    change.request.view_stage = next_stage(current.view_stage, step);
    change.plan = make_plan(caps, features, change.request);
    return change;
}

namespace {

// The plan of `wanted`, or, where this device cannot run it (make_plan throws UnsupportedRequest),
// `current`'s, with a note saying what was skipped and why.
PlanChange plan_or_keep(const SubgroupCaps& caps, const DeviceFeatures& features, const PlanRequest& current,
                        const PlanRequest& wanted) {
    try {
        return {wanted, make_plan(caps, features, wanted), {}};
    } catch (const UnsupportedRequest& e) {
        std::string why = e.what();  // "--geometry meshlet: device lacks ...; use --geometry indexed"
        if (why.rfind("--", 0) == 0) why.erase(0, 2);
        if (size_t advice = why.find("; use "); advice != std::string::npos) why.erase(advice);
        return {current, make_plan(caps, features, current), "skipped " + why};
    }
}

}  // namespace

PlanChange toggle_geometry(const SubgroupCaps& caps, const DeviceFeatures& features, const PlanRequest& current) {
    PlanRequest wanted = current;
    wanted.geometry = current.geometry == Geometry::meshlet ? Geometry::indexed : Geometry::meshlet;
    return plan_or_keep(caps, features, current, wanted);
}

PlanChange toggle_shading(const SubgroupCaps& caps, const DeviceFeatures& features, const PlanRequest& current) {
    Shading now = make_plan(caps, features, current).shading.shading;
    PlanRequest wanted = current;
    wanted.shading = now == Shading::visibility ? Shading::forward : Shading::visibility;
    return plan_or_keep(caps, features, current, wanted);
}

PlanChange toggle_raster(const SubgroupCaps& caps, const DeviceFeatures& features, const PlanRequest& current) {
    Raster now = make_plan(caps, features, current).raster.raster;
    PlanRequest wanted = current;
    wanted.raster = now == Raster::compute ? Raster::hardware : Raster::compute;
    return plan_or_keep(caps, features, current, wanted);
}

PlanChange step_pyramid_level(const SubgroupCaps& caps, const DeviceFeatures& features, const PlanRequest& current,
                              int step, uint32_t levels) {
    PlanChange change{current, {}, {}};
    if (current.view == ViewMode::depth_pyramid)
        change.request.view_level = step_enum(std::min(current.view_level, levels - 1), step, std::max(levels, 1u));
    change.request.view = ViewMode::depth_pyramid;
    change.plan = make_plan(caps, features, change.request);
    return change;
}

PlanChange toggle_lod(const SubgroupCaps& caps, const DeviceFeatures& features, const PlanRequest& current) {
    PlanChange change{current, {}, {}};
    change.request.lod = !current.lod;
    change.plan = make_plan(caps, features, change.request);
    return change;
}

std::string plan_tag(const Plan& plan) {
    std::string view = "view-" + std::string(view_mode_name(plan.view.mode));
    if (is_subgroup_view(plan.view.mode)) {
        view += "-" + std::string(stage_name(plan.view.stage));
        if (plan.view.variant == Variant::unsupported) view += "-unsupported";
    }
    if (plan.view.mode == ViewMode::depth_pyramid) view += "-level-" + std::to_string(plan.view.level);
    std::string tag;
    for (const PassInfo& pass : kPasses)
        tag += std::string(pass.tag) + "-" + std::string(variant_name(plan[pass.id].variant)) + "_";
    // The plan-level choices, where they are not the defaults (so the default names stay as they were).
    if (plan.geometry == Geometry::meshlet) tag += "geometry-meshlet_";
    if (plan.shading.shading == Shading::visibility) tag += "shading-visibility_";
    return tag + view;
}

std::string request_tag(const PlanRequest& r) {
    std::string tag;
    for (const PassInfo& pass : kPasses) tag += std::string(pass.name) + "=" + std::string(request_name(r[pass.id])) + " ";
    tag += "shading=" + std::string(r.shading ? shading_name(*r.shading) : "auto") + " ";
    return tag + "view=" + std::string(view_mode_name(r.view)) + " stage=" + std::string(stage_name(r.view_stage));
}

std::string screenshot_name(const Plan& plan, uint32_t width, uint32_t height) {
    return "subgroup-demo_" + plan_tag(plan) + "_" + std::to_string(width) + "x" + std::to_string(height) + ".png";
}
