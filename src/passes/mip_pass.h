// The half-resolution HDR mip's compute passes: the fallback 2x2 downsample of the HDR frame
// (plan[PassId::mip] == fallback), the shading-time quad mip's edge list and its fix-up (plan ==
// forward: the forward shader writes the mip, see ScenePass, and appends the texels it cannot
// finish), and the `mip` debug view that shows it next to the frame. With plan == subgroup the
// resolve pass writes the mip (ResolvePass) and nothing here runs. docs/quad-mip.md.
#pragma once

#include "passes/allocation.h"
#include "passes/pass_unit.h"
#include "render/overlay.h"

struct MipPass : PassUnit {
    Pipeline downsample;   // mip_downsample.comp
    Pipeline fixup_args;   // mip_fixup_args.comp
    Pipeline fixup;        // mip_fixup.comp
    Pipeline view;         // mip_view.comp

    // The quad mip's edge list: {count, capacity, 2 reserved, texels[capacity]} (quad_mip.glsl).
    // Capacity: one entry per mip texel (a texel split between k triangles takes k entries; past
    // the capacity the fix-up redoes the whole mip). SGD_MIP_EDGE_CAPACITY overrides it (tests).
    Buffer edges;
    uint32_t edge_capacity = 0;
    Buffer fixup_dispatch;  // VkDispatchIndirectCommand, written by mip_fixup_args.comp
    Buffer stamps;          // one uint per mip texel: the frame that last fixed it (mip_fixup.comp)
    bool stamps_cleared = false;
    uint32_t stamp = 0;     // this frame's, never 0
    VkExtent2D mip_extent{};

    void create(const Context& ctx, VkExtent2D extent);
    void resize(const Context& ctx, VkExtent2D extent) override;
    // After forward: the fallback's downsample, or the shading-time quad mip's edge fix-up.
    void record(FrameContext& f) override {
        if (f.plan[PassId::mip].variant == Variant::fallback) record_downsample(f);
        if (f.plan[PassId::mip].variant == Variant::forward) record_fixup(f);
    }
    // After forward: f.targets.mip = box filter of f.targets.hdr. Timed as Timer::mip.
    void record_downsample(FrameContext& f);
    // The downsample itself, into any RGBA16F image of the mip's extent: the frame's fallback, and
    // Renderer::read_fallback_mip, which holds another writer's mip to it on the same frame. The
    // caller has hdr readable and mip writable in GENERAL in the compute stage.
    void dispatch_downsample(VkCommandBuffer cmd, const Image& hdr, const Image& mip) const;
    // After forward with the quad mip: the texels on the edge list (or, if it overflowed, all of
    // them) = box filter of f.targets.hdr, dispatched indirectly from the list's count. Timed as
    // Timer::mip_fixup.
    void record_fixup(FrameContext& f);
    // The `mip` view, once the mip exists: the right half of the colour target shows the mip
    // upscaled 2x (nearest) and tonemapped with the frame's exposure, the left half stays the frame; labels name the halves (drawn by the
    // overlay at the end of the frame, in the top label_rows() rows). Timed as Timer::view.
    // Nothing with --mip off (there is no mip), or for another view.
    void record_view(FrameContext& f) override;
    static uint32_t label_rows(VkExtent2D extent);
};
