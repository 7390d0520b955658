// --shading visibility's compute shading pass (docs/visibility.md): shades the pixels whose
// triangles the depth pre-pass recorded in the visibility image (ScenePass::record_depth), one lane
// per pixel and four lanes per 2x2 quad, into forward's HDR target. Recorded by the renderer in
// forward's place; timed as Timer::shade. With --mip subgroup it also writes the quad mip.
#pragma once

#include "render/frame.h"

struct VisibilityPass {
    bool quads = false;  // compute can run the quad variants (visibility_derivatives_missing)
    // visibility_shade.comp by [geometry meshlet][quad-swap derivatives][subgroup light loop][writes
    // the quad mip]; the quad variants (derivatives or mip) only where the device can run them, the
    // light loop where compute has its operations; the meshlet path's (VISIBILITY_MESHLET: the
    // vertices fetched through the meshlet) where the device has mesh shaders.
    Pipeline shade[2][2][2][2];

    void create(const Context& ctx);
    void record(FrameContext& f);
    // With --mip subgroup the shading pass writes the quad mip where compute has quad operations;
    // otherwise the resolve pass's fragment shader does (Renderer::record).
    bool writes_mip(const Plan& plan) const;
};
