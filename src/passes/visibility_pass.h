// --shading visibility's compute shading pass (docs/visibility.md): shades the pixels whose
// triangles the depth pre-pass recorded in the visibility image (ScenePass::record_depth), one lane
// per pixel and four lanes per 2x2 quad, into forward's HDR target. Recorded by the renderer in
// forward's place; timed as Timer::shade. With --mip subgroup it also writes the quad mip.
#pragma once

#include "render/frame.h"

struct VisibilityPass {
    // visibility_shade.comp by [geometry meshlet][quad-swap derivatives][subgroup light loop][writes
    // the quad mip]; the quad variants (derivatives or mip) only where the device can run them, the
    // light loop where compute has its operations; the meshlet path's (VISIBILITY_MESHLET: the
    // vertices fetched through the meshlet) where the device has mesh shaders.
    Pipeline shade[2][2][2][2][2];  // [meshlet][quad derivatives][light loop][mip][material waterfall]
    // Its debug views by [geometry meshlet][quad-swap derivatives][lane-id, first-last-lane, active-lanes].
    Pipeline views[2][2][3];

    void create(const Context& ctx);
    // Writes the quad mip too where the plan says so (ShadingPlan::quad_mip).
    void record(FrameContext& f);
    // The compute stage's lane views under --shading visibility are this pass's own: it runs again
    // after the frame (the same shading, the same HDR values) and paints each pixel's lane record
    // over the 8-bit frame. record_view() draws it (false: not this plan's view); `params` holds the
    // views' colours (DebugViewPass). The triangles it reads must still be the pre-pass's: the
    // renderer defers occlusion's merge until after it.
    bool draws_view(const Plan& plan) const;
    bool record_view(FrameContext& f, const Buffer& params);

private:
    // Declares the frame's uses to the graph (and `more`), binds the pipeline, and returns the frame's bindings.
    Descriptors bind_frame(FrameContext& f, const Pipeline& pipeline, std::initializer_list<Use> more = {});
    void dispatch(FrameContext& f, const Pipeline& pipeline, Descriptors& d);
};
