// --shading visibility's compute shading pass (docs/visibility.md): shades the pixels whose
// triangles the depth pre-pass recorded in the visibility image (ScenePass::record_depth), one lane
// per pixel and four lanes per 2x2 quad, into forward's HDR target. Recorded by the renderer in
// forward's place; timed as Timer::shade.
#pragma once

#include "render/frame.h"

struct VisibilityPass {
    // visibility_shade.comp by [geometry meshlet][quad-swap derivatives][subgroup light loop]; the
    // quad variants only where the device can run them (visibility_derivatives_missing), the light
    // loop where compute has its operations. The indexed path's are made by create(), the meshlet
    // path's (VISIBILITY_MESHLET: the vertices fetched through the meshlet) on their first use.
    Pipeline shade[2][2][2];

    void create(const Context& ctx);
    void record(FrameContext& f);

private:
    void create_variants(const Context& ctx, bool meshlet);
};
