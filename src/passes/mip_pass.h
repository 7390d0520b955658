// The half-resolution mip's compute passes: the fallback 2x2 downsample of the finished frame
// (plan.mip == fallback; the subgroup path writes the mip in the forward shader, see ScenePass)
// and the `mip` debug view that shows it next to the frame. docs/quad-mip.md.
#pragma once

#include "render/frame.h"
#include "render/overlay.h"

struct MipPass {
    Pipeline downsample;  // mip_downsample.comp
    Pipeline view;        // mip_view.comp

    void create(const Context& ctx);
    // After forward: f.targets.mip = box filter of f.targets.color. Timed as Pass::mip.
    void record_downsample(FrameContext& f);
    // The `mip` view, once the mip exists: the right half of the colour target shows the mip
    // upscaled 2x (nearest), the left half stays the frame; labels name the halves (drawn by the
    // overlay at the end of the frame, in the top label_rows() rows). Timed as Pass::view.
    void record_view(FrameContext& f, Overlay& overlay);
    static uint32_t label_rows(VkExtent2D extent);
};
