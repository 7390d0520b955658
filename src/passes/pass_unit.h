// The interface the renderer drives every selectable pass through (src/passes/pass_table.h):
// created once from the table entry's `create`, resized with the frame, and recorded every frame
// at the entry's FramePoint. A unit reads its own variant from f.plan and records nothing for off.
#pragma once

#include "render/frame.h"

struct UnitSetup {
    const Context& ctx;
    const GpuScene& scene;
    VkExtent2D extent;
    uint32_t cull_group_size;  // --cull-group-size
};

class PassUnit {
public:
    virtual ~PassUnit() = default;
    virtual void resize(const Context&, VkExtent2D) {}  // the device is idle
    virtual void record(FrameContext& f) = 0;
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
