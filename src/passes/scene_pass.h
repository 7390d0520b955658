// Depth pre-pass and forward shading: the two graphics passes over the (possibly culled) scene.
#pragma once

#include "passes/scene_bindings.h"
#include "render/frame.h"

// shading.glsl's ForwardPush flags, for forward and the visibility shading pass alike: 1 count the
// light loop's trips (the instrumented frame), 2 split tiles (tests only), 4 ray-traced shadows
// and reflections (the ray_trace pass ran this frame).
uint32_t shading_push_flags(const FrameContext& f);

struct ScenePass {
    Pipeline depth;
    // forward.frag by [quad mip][subgroup light loop]. QUAD_MIP also writes the half-resolution
    // mip (plan[PassId::mip] == forward, the shading-time quad mip); LIGHT_LOOP_SUBGROUP is the scalarized light loop
    // (plan[PassId::light_loop] == subgroup). Those are created where the real device can run them
    // (masks only change the plan).
    Pipeline forward[2][2];
    // --shading visibility's pre-pass on the indexed path: depth and the visibility image
    // (visibility.frag), where the device can run it (visibility_missing); with the alpha test where
    // the scene has masked materials. (The meshlet path's are MeshletPass's.)
    Pipeline visibility;
    // The same writing ids only, EQUAL over the final depth: record_ids.
    Pipeline visibility_merged;
    // Tests only (RendererConfig::test_forward_output): forward.frag.ids or .derivatives in forward's place.
    Pipeline forward_test;
    // EXPERIMENT ONLY (SGD_MIP_EXPERIMENT, scene_pass.cpp): fragment invocations of the forward pass.
    VkQueryPool statistics = VK_NULL_HANDLE;
    VkDevice device = VK_NULL_HANDLE;

    ScenePass() = default;
    ScenePass(const ScenePass&) = delete;
    ScenePass& operator=(const ScenePass&) = delete;
    ~ScenePass();

    // alpha_masked: the depth pre-pass tests alpha; test_output: tests only, see forward_test above.
    void create(const Context& ctx, bool alpha_masked, ForwardTestOutput test_output = ForwardTestOutput::colour);
    // late: occlusion phase 2's draw, the re-admitted only, on top of the pre-pass's depth.
    void record_depth(FrameContext& f, bool late = false);
    // --shading visibility after occlusion phase 2 (f.ids_after_late_draw): the visibility image
    // from the list forward draws, over the final depth; gated (ids_gated), only where phase 2
    // re-admitted something (a count from the GPU).
    void record_ids(FrameContext& f);
    void record_forward(FrameContext& f);
};

// Draws every draw of the scene from f.draw_indices / f.draw_indirect (multi-draw where the
// device has it). Shared by the scene passes and the debug views' own draws.
void draw_scene(FrameContext& f, const Pipeline& pipeline);
// The same with the caller's descriptors (scene_descriptors() plus the pipeline's own bindings);
// with `draw_count`, a draw count from the GPU (its first word: every draw, or 0 for none).
void draw_scene(FrameContext& f, const Pipeline& pipeline, Descriptors& descriptors, const Buffer* draw_count = nullptr);
// Whether the hardware pre-pass's ids after occlusion's merge are gated: phase 1 writes ids, and
// ScenePass::record_ids draws only in frames whose phase 2 re-admitted something (the indexed path,
// where the device has drawIndirectCount).
bool ids_gated(const FrameContext& f);

