// Occlusion (docs/occlusion.md): the depth pyramid of the depth pre-pass, every level of the
// reversed-Z depth buffer down to 1x1, each texel the farthest depth under it. --occlusion
// subgroup builds it in one dispatch with quad operations (shaders/pyramid.comp, after FidelityFX
// SPD), fallback one dispatch per level; both give the same bits.
#pragma once

#include <vector>

#include "passes/allocation.h"
#include "passes/pass_unit.h"

// A pyramid level: its size and where it starts in the pyramid buffer (in texels). The CPU's copy
// of shaders/pyramid.glsl: level 0 is half the depth buffer rounded up, each level half the one
// below rounded up, the last one 1x1.
struct PyramidLevel {
    uint32_t width, height, offset;
};
std::vector<PyramidLevel> pyramid_levels(VkExtent2D depth);
uint32_t pyramid_texels(VkExtent2D depth);  // all levels

void occlusion_frame_allocations(const AllocationQuery& q, std::vector<PlannedAllocation>& out);

struct OcclusionPass : PassUnit {
    Pipeline subgroup;  // pyramid.comp.subgroup, where a plan can pick it
    Pipeline fallback;  // pyramid.comp.fallback
    Buffer pyramid;     // float per texel, every level (pyramid_levels)
    Buffer finished;    // the single-pass build's count of finished workgroups (0 between frames)
    VkExtent2D depth_extent{};

    void create(const Context& ctx, VkExtent2D extent);
    void resize(const Context& ctx, VkExtent2D extent) override;
    // After the depth pre-pass: the pyramid of f.targets.depth. Nothing for off. Timed as Timer::pyramid.
    void record(FrameContext& f) override;
    // The pyramid of `depth` (DEPTH_READ_ONLY_OPTIMAL from now on) with `variant`, into `pyramid`:
    // the frame's, and tests' of an uploaded depth image.
    void build(VkCommandBuffer cmd, Image& depth, Variant variant);
    // After the device is idle: every level, as pyramid_levels() lays them out.
    std::vector<float> read(const Context& ctx) const;
};
