// The resolve pass (docs/quad-mip.md): a full-screen fragment pass from forward's HDR frame to the
// 8-bit sRGB frame (exposure, PBR Neutral tonemap), which with --mip subgroup also writes the
// half-resolution HDR mip with quad swaps: every quad is four real pixels. The renderer's own pass
// (always runs); timed as Timer::resolve, so the mip's cost is resolve with it minus without.
#pragma once

#include "render/frame.h"

// record_compute() does the same in a compute dispatch (resolve.comp), for the path that shades in
// compute (docs/visibility.md): the same 8-bit frame, bit for bit, from the same HDR frame. It
// writes no mip: that path's shading pass does (VisibilityPass).
struct ResolvePass {
    Pipeline plain;    // resolve.frag.plain
    Pipeline mip;      // resolve.frag.mip, where the device can run the mip's subgroup path
    Pipeline compute;  // resolve.comp.plain

    void create(const Context& ctx);
    void record(FrameContext& f);
    void record_compute(FrameContext& f);
};
