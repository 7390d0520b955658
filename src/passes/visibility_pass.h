// --shading visibility's compute shading pass (docs/visibility.md): shades the pixels whose
// triangles the depth pre-pass recorded in the visibility image (ScenePass::record_depth), one lane
// per pixel and four lanes per 2x2 quad, into forward's HDR target. Recorded by the renderer in
// forward's place; timed as Timer::shade. With --mip subgroup it also writes the quad mip.
#pragma once

#include <array>

#include "render/frame.h"
#include "render/overlay.h"  // rgba8

// --view materials (docs/materials.md): each covered pixel in the colour of the number of materials
// its subgroup walked in the waterfall, 1 to 7, and 8 or more; the shader (visibility_shade.comp
// VIEW_MATERIALS) holds the same sRGB bytes.
constexpr std::array<uint32_t, 8> kMaterialWalkColours = {rgba8(40, 110, 60),  rgba8(150, 200, 60),  rgba8(245, 215, 50),
                                                          rgba8(245, 140, 30), rgba8(220, 50, 40),   rgba8(200, 40, 150),
                                                          rgba8(130, 60, 220), rgba8(255, 255, 255)};

struct VisibilityPass {
    // visibility_shade.comp by [geometry meshlet][quad-swap derivatives][subgroup light loop][writes
    // the quad mip]; the quad variants (derivatives or mip) only where the device can run them, the
    // light loop where compute has its operations; the meshlet path's (VISIBILITY_MESHLET: the
    // vertices fetched through the meshlet) where the device has mesh shaders.
    Pipeline shade[2][2][2][2][2];  // [meshlet][quad derivatives][light loop][mip][material waterfall]
    // Its debug views by [geometry meshlet][quad-swap derivatives][lane-id, first-last-lane, active-lanes].
    Pipeline views[2][2][3];
    // --view materials by [geometry meshlet][quad-swap derivatives]: the waterfall variant again,
    // painting each pixel by its subgroup's trips (where the waterfall can run).
    Pipeline material_views[2][2];

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
    // --view materials: the pass runs again after the frame with the waterfall (the same HDR
    // values, its trips not counted again) and paints every covered pixel of the 8-bit frame in
    // kMaterialWalkColours[its subgroup's trips - 1]; where the plan cannot show it, a label why.
    void record_material_view(FrameContext& f);

private:
    Descriptors bind_frame(FrameContext& f, const Pipeline& pipeline);
    void dispatch(FrameContext& f, const Pipeline& pipeline, Descriptors& d, bool counted = true);
};
