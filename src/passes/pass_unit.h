// The interface the renderer drives every selectable pass through (src/passes/pass_table.h):
// created once from the table entry's `create`, resized with the frame, and recorded every frame
// at the entry's FramePoint. A unit reads its own variant from f.plan and records nothing for off.
#pragma once

#include "render/frame.h"

// What a pass reads to report on a frame, without the device (its table entry's report_counters and
// hud_line): the plan, the counters the frame wrote, those of the instrumented frame (atomics, loop
// trips), and whether its timer ran.
struct PassCounters {
    const Plan& plan;
    const GpuCounters& frame;
    const GpuCounters& instrumented;
    uint64_t triangles_in;  // of the scene
    uint32_t lights;
    bool ran;               // its own timer recorded time this frame
};

struct UnitSetup {
    const Context& ctx;
    const GpuScene& scene;
    VkExtent2D extent;
    uint32_t cull_group_size;  // --cull-group-size
    uint32_t lights;           // --lights (the ray tracer's light BLAS)
};

// The renderer asks every unit the same way, in table order, and names none of them:
//  - record(): its work at its FramePoint (nothing where its variant is off);
//  - provide(): what it tells forward shading through the frame's uniforms (the light lists'
//    capacity, 0 without lists);
//  - record_view(): the debug view that shows what it made (f.plan.view.mode), drawn over the
//    finished frame, or nothing. Its legend goes to f.overlay.
// What the report, the HUD and the start-up memory plan need of a pass is in its table entry
// (report_counters, hud_line, frame_allocations): they run without a device.
class PassUnit {
public:
    virtual ~PassUnit() = default;
    virtual void resize(const Context&, VkExtent2D) {}  // the device is idle
    virtual void record(FrameContext& f) = 0;
    virtual void provide(FrameUniforms&, const Plan&) const {}
    virtual void record_view(FrameContext&) {}
    // A subgroup debug view (f.plan.view, supported) in a stage that only this unit's work runs
    // (the ray tracer's six stages): draws it over the frame and returns true; false where the
    // unit has no such stage. `view_params`: the views' colours (DebugViewPass).
    virtual bool record_stage_view(FrameContext&, const Buffer& /*view_params*/) { return false; }
};

// Whether any plan of this run can pick the pass's subgroup path, so whether a unit builds its
// subgroup pipelines. Judged on the masked capabilities (masks are fixed for the run): with
// --mask-stages / --mask-ops the unit builds what a device lacking those would, no more.
inline bool subgroup_path_possible(const Context& ctx, PassId id) {
    return pass_missing(ctx.subgroup, ctx.features, id).empty();
}

template <typename Unit, typename... Args>
std::unique_ptr<PassUnit> make_unit(Args&&... args) {
    auto unit = std::make_unique<Unit>();
    unit->create(std::forward<Args>(args)...);
    return unit;
}
