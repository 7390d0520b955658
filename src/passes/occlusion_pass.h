// Occlusion (docs/occlusion.md): the depth pyramid of the depth pre-pass, every level of the
// reversed-Z depth buffer down to 1x1, each texel the farthest depth under it. --occlusion
// subgroup builds it in one dispatch with quad operations (shaders/pyramid.comp, after FidelityFX
// SPD), fallback one dispatch per level; both give the same bits.
//
// Two-phase occlusion culling (both geometry paths, with a cull variant other than off): phase 1
// (the compute cull, or the task shaders of the meshlet pre-pass) also rejects what the previous
// frame's pyramid hides (seen with the previous view-projection) and lists it; the pre-pass draws
// the rest; this unit builds the pyramid of that depth; phase 2 (the renderer: CullPass::record_late
// or MeshletPass::record_late_list, then a depth draw that keeps the pre-pass's depth) re-tests only
// that list against the new pyramid and draws the re-admitted; forward draws both, in input order.
// Two pyramids alternate, so that this frame's phase 1 reads the one the last frame built while
// this frame builds the other.
#pragma once

#include <optional>
#include <vector>

#include <glm/glm.hpp>
#include <nlohmann/json_fwd.hpp>

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
// The depth-pyramid view's label: "pyramid level 2 of 9, 40x23".
std::string pyramid_view_label(VkExtent2D depth, uint32_t level);

// The HUD's cull line ends with this (one line less than a line of its own): ", occluded A / B" or "".
std::string occlusion_hud_text(const PassCounters& c);

// Whether the plan culls by occlusion: a pyramid is built, the geometry is indexed and culled.
bool occlusion_culls(const Plan& plan);
// Whether this frame culls by occlusion: the plan does, and `auto` is not resting.
bool occlusion_culls(const FrameContext& f);

// Occlusion `auto` rests where it removes little: kOcclusionRestBelow, kOcclusionRestFrames (plan/plan.h).
bool occlusion_removes_little(const GpuCounters& c, Geometry geometry);

struct OcclusionPass : PassUnit {
    Pipeline subgroup;  // pyramid.comp's subgroup path, where a plan can pick it
    Pipeline fallback;  // its fallback
    Buffer pyramid;     // two pyramids of pyramid_texels() floats each, every level (pyramid_levels)
    Buffer finished;    // the single-pass build's count of finished workgroups (0 between frames)
    VkExtent2D depth_extent{};
    uint32_t current = 0;           // the pyramid this frame builds (0 or 1)
    bool previous_valid = false;    // the other one holds the last frame's (same size, occlusion on)
    glm::mat4 previous_view_proj{1.0f};

    void create(const Context& ctx, VkExtent2D extent);
    void resize(const Context& ctx, VkExtent2D extent) override;
    // After the depth pre-pass: the pyramid of f.targets.depth. Nothing for off. Timed as Timer::pyramid.
    void record(FrameContext& f) override;
    // FrameUniforms::previous_view_proj and occlusion (0 where the plan has no pyramid).
    void provide(FrameUniforms& u, const Plan& plan) const override;
    // --view depth-pyramid: one level of the last pyramid built, over the frame (pyramid_view.comp);
    // --view depth: the depth the passes read (Res::depth), on the same scale, with or without occlusion.
    void record_view(FrameContext& f) override;
    Pipeline view;  // pyramid_view.comp.main
    // The pyramid of the image bound as Res::depth in `graph` (DEPTH_READ_ONLY_OPTIMAL from now on)
    // with `variant`, into pyramid `which` of the buffer bound as Res::pyramid (this pass's
    // `pyramid`): the frame's, and tests' of an uploaded depth image.
    void build(VkCommandBuffer cmd, FrameGraph& graph, Variant variant, uint32_t which = 0);
    // After the device is idle: pyramid `which`, every level, as pyramid_levels() lays them out.
    std::vector<float> read(const Context& ctx, uint32_t which = 0) const;
};
