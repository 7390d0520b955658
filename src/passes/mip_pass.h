// The half-resolution mip's compute passes: the fallback 2x2 downsample of the finished frame
// (plan[PassId::mip] == fallback; the subgroup path writes the mip in the forward shader, see ScenePass)
// and the `mip` debug view that shows it next to the frame. docs/quad-mip.md.
#pragma once

#include "passes/pass_unit.h"
#include "render/overlay.h"

struct MipPass : PassUnit {
    Pipeline downsample;  // mip_downsample.comp
    Pipeline view;        // mip_view.comp

    void create(const Context& ctx);
    // After forward, with the fallback planned: the downsample. (The subgroup path is the
    // forward shader's; see passes/scene_pass.cpp.)
    void record(FrameContext& f) override {
        if (f.plan[PassId::mip].variant == Variant::fallback) record_downsample(f);
    }
    // After forward: f.targets.mip = box filter of f.targets.color. Timed as Timer::mip.
    void record_downsample(FrameContext& f);
    // The `mip` view, once the mip exists: the right half of the colour target shows the mip
    // upscaled 2x (nearest), the left half stays the frame; labels name the halves (drawn by the
    // overlay at the end of the frame, in the top label_rows() rows). Timed as Timer::view.
    void record_view(FrameContext& f, Overlay& overlay);
    static uint32_t label_rows(VkExtent2D extent);
};
