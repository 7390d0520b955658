// What the window's keys do to the plan, as plain data and pure functions (tested without a window).
#pragma once

#include <cstdint>
#include <string>

#include "plan/plan.h"

// The request after `r` in the cycle auto -> subgroup -> forward -> fallback -> off -> auto (forward: the
// mip's only); step -1 goes backwards.
Request next_request(Request r, int step);
ViewMode next_view_mode(ViewMode m, int step);  // shaded, lane-id, ..., lod, depth-pyramid, raster, materials, shaded
Stage next_stage(Stage s, int step);            // vertex, ..., compute, vertex

struct PlanChange {
    PlanRequest request;  // what is now asked for
    Plan plan;            // what it resolves to on this device
    std::string note;     // empty, or which request was skipped and why (shown on screen)
};

// Moves one pass's request by `step`, skipping requests the pass does not offer, and those this
// device cannot run (make_plan throws UnsupportedRequest for them) with a note; never fails,
// since `auto` always resolves.
PlanChange cycle_pass(const SubgroupCaps& caps, const DeviceFeatures& features, const PlanRequest& current, PassId pass,
                      int step);
// Debug views never skip: a stage without support shows "unsupported" on screen, as the design asks.
PlanChange cycle_view_mode(const SubgroupCaps& caps, const DeviceFeatures& features, const PlanRequest& current, int step);
PlanChange cycle_view_stage(const SubgroupCaps& caps, const DeviceFeatures& features, const PlanRequest& current,
                            int step);

// Toggles --geometry between indexed and meshlet (key M). Without mesh shaders the request stays
// indexed, with a note saying why.
PlanChange toggle_geometry(const SubgroupCaps& caps, const DeviceFeatures& features, const PlanRequest& current);
// I: --shading forward <> visibility (docs/visibility.md), from what the plan shades with now (auto
// included), on either geometry path. Where visibility cannot run (the indexed path without
// geometry shaders) the request stays, with a note saying why.
PlanChange toggle_shading(const SubgroupCaps& caps, const DeviceFeatures& features, const PlanRequest& current);
// X: --raster hardware <> compute, from what the plan rasterizes with now; where compute cannot run
// (forward shading typed, the meshlet path, a debug view, the device) it stays, with the reason.
PlanChange toggle_raster(const SubgroupCaps& caps, const DeviceFeatures& features, const PlanRequest& current);
// L: --lod auto <> off (docs/lod.md).
PlanChange toggle_lod(const SubgroupCaps& caps, const DeviceFeatures& features, const PlanRequest& current);
// P: the depth-pyramid view's level, by `step` around the pyramid's `levels` (docs/occlusion.md);
// from another view it first shows the depth-pyramid view at the level it had.
PlanChange step_pyramid_level(const SubgroupCaps& caps, const DeviceFeatures& features, const PlanRequest& current,
                              int step, uint32_t levels);

// The configuration in words for file names and logs, each pass by its table tag:
// "cull-subgroup_light-fallback_mip-subgroup_view-lane-id-fragment".
std::string plan_tag(const Plan& plan);
// What was asked for: "cull=auto mip=fallback view=lane-id stage=fragment".
std::string request_tag(const PlanRequest& request);
// "subgroup-demo_<plan_tag>_1280x720.png"
std::string screenshot_name(const Plan& plan, uint32_t width, uint32_t height);
