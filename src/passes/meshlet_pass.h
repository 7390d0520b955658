// The meshlet geometry path (--geometry meshlet, docs/meshlets.md): meshlets built at load
// (scene/meshlets.h), task + mesh pipelines that draw the depth pre-pass while culling meshlets
// (task shader) and triangles (mesh shader) with the plan's cull variant, and record what survived
// in a visible list (a fixed stretch per task chunk, so its order is the input's), which forward
// draws with one task workgroup per chunk without testing again. The renderer's depth and forward passes call it when the plan's geometry is meshlet; the
// compute cull pass then records nothing.
#pragma once

#include <vector>

#include "render/frame.h"
#include "passes/allocation.h"
#include "passes/scene_bindings.h"  // ForwardTestOutput
#include "scene/meshlets.h"

// The first of the meshlet shaders' bindings (meshlet.glsl's MESHLET_BINDING), after the graphics
// pipelines' own (up to 15).
constexpr uint32_t kMeshletFirstBinding = 16;
// The frame's counters among the meshlet bindings (push_bindings: first + 6), and in the task and
// mesh views' pipelines also at 5 (after the scene's 0..3 and ViewParams, view_common.glsl).
constexpr uint32_t kMeshletCountersOffset = 6;
constexpr uint32_t kMeshletViewCountersBinding = 5;

// The task workgroups: one per 32 meshlets of one level of detail of one draw (every level of
// every draw has its chunks; the task shader keeps nothing in the levels not chosen, docs/lod.md).
struct TaskChunk {
    uint32_t draw;
    uint32_t first_meshlet;
    uint32_t count;
    // Bit 0 (kTaskChunkCone): the draw's model is a similarity, the normal-cone test applies.
    // Bit 1 (kTaskChunkFirstOfLevel): the first chunk of its level of the draw (the one that counts
    // the draw in the per-level counters). Bits 8 and up: the level the chunk's meshlets belong to.
    uint32_t flags;
};
constexpr uint32_t kTaskChunkCone = 1, kTaskChunkFirstOfLevel = 2, kTaskChunkLevelShift = 8;

// The push constants of the meshlet culling (shaders/meshlet_push.glsl): the task and mesh shaders'
// and, under --raster compute, meshlet_raster_cull.comp's (passes/meshlet_raster.h).
struct MeshletPush {
    uint32_t chunk_count;
    float snap_px;
    float frustum_eps;
    uint32_t flags;
    float lod_max_error_px;  // 0: --lod off
    uint32_t occlusion_phase;  // 0 none, 1, 2
};
std::vector<TaskChunk> build_task_chunks(const Scene& scene, const Meshlets& meshlets);

// What the meshlet path allocates for `scene` (MeshletPass::create: the meshlets, their vertices
// and triangles, the task chunks, the visible and late lists), from its meshlets (scene_meshlets,
// built here if not yet): the start-up memory plan's share (run/limits.cpp, which adds
// MeshletRaster's chunk list under --raster compute). `capture`: --cull-dump's capture of the mesh
// shaders' outputs.
void meshlet_frame_allocations(const Scene& scene, bool capture, std::vector<PlannedAllocation>& out);

class MeshletPass {
public:
    // Throws UnsupportedRequest where the device's mesh-shader limits are below what the shaders
    // declare. `capture`: the pre-pass also writes the order of its primitive outputs, for
    // read_drawn_indices() (tests, --cull-dump). `test_output`: tests only, what forward writes
    // instead of its colour (ScenePass's ForwardTestOutput), as on the indexed path.
    void create(const Context& ctx, const Scene& scene, const GpuScene& gpu, bool capture,
                ForwardTestOutput test_output = ForwardTestOutput::colour);

    // Outside any rendering, before the depth pass: orders the rewrite of the visible list after
    // the previous frame's reads, and empties the capture.
    void record_reset(FrameContext& f);
    // Inside the depth pass's rendering: task + mesh shaders with the plan's cull variant, and
    // occlusion phase 1 where the plan culls by occlusion (occlusion_culls) and f.pyramid is set.
    // record false: depth only (a debug view's redraw), no list, no counters, no capture, no occlusion.
    // `ids` (here and in the late and frozen draws): --shading visibility, inside a rendering that
    // also has the visibility image: every primitive writes its triangle's name there
    // (its visibility id, render/visibility_id.h, through visibility.frag.meshlet).
    void record_depth(FrameContext& f, bool record = true, bool ids = false);
    // Occlusion phase 2 (docs/occlusion.md), after the pyramid: outside rendering, the list of
    // phase 1's rejected meshlets (meshlet_late_list.comp); then inside the late depth pass, the
    // task shaders over that list, which draw and record the re-admitted.
    void record_late_list(FrameContext& f);
    void record_late_depth(FrameContext& f, bool ids = false);
    // Culling frozen (f.cull_frozen), inside the depth pass: the last list into depth, no tests.
    void record_frozen_depth(FrameContext& f, bool ids = false);
    // The visible list, occlusion phase 2's list and the capture: what the frame graph names
    // Res::meshlet_lists.
    const Buffer& lists() const { return visible_; }
    // Inside forward's rendering, with forward's descriptors (bindings up to 15): draws the list
    // (with the tests' forward.frag.meshlet_ids or .derivatives where create() was given one).
    void record_forward(FrameContext& f, Descriptors& descriptors, uint32_t push_flags, bool quad_mip, bool light_loop);
    // The debug views in the task or mesh stage (kind: plain / lane_id / first_last / active),
    // inside a rendering over the colour with depth EQUAL.
    void record_view(FrameContext& f, Stage stage, const std::string& kind, const Buffer& view_params);

    // Per draw, the scene vertex indices of the triangles the last frame drew, in the order of
    // the mesh outputs (needs capture). Waits for the device.
    std::vector<std::vector<uint32_t>> read_drawn_indices(const Context& ctx, uint32_t draw_count) const;
    // Per draw, the meshlets (indices into meshlets().meshlets) the last frame's task shaders kept,
    // in list order. Tests; waits for the device.
    std::vector<std::vector<uint32_t>> read_kept_meshlets(const Context& ctx, uint32_t draw_count) const;

    const Meshlets& meshlets() const { return meshlets_; }
    // The task chunks, in the table's order: visible-list entry e is meshlet e % 32 of chunk e / 32
    // (what the meshlet path's visibility id names, render/visibility_id.h).
    const std::vector<TaskChunk>& task_chunks() const { return chunks_cpu_; }
    uint32_t meshlet_instances() const { return instances_; }
    // Occlusion phase 2's list, its header a VkDispatchIndirectCommand too (--raster compute's culling).
    const Buffer& late_list_buffer() const { return late_list_; }

    // Bindings first..first + 9 (shaders/meshlet.glsl's MESHLET_BINDING): the meshlet data, the list, the counters,
    // the capture, the pyramid and the late list. Also the visibility shading pass's (first 17),
    // which fetches vertices here.
    void push_bindings(const FrameContext& f, Descriptors& d, uint32_t first = kMeshletFirstBinding) const;

private:
    // The depth pre-pass's pipeline `p` bound with the scene's bindings and a depth draw's push
    // constants (MeshletPush: flags, occlusion phase 0, 1 or 2), shared by both phases' draws.
    void bind_depth(FrameContext& f, const Pipeline& p, uint32_t flags, uint32_t occlusion_phase);
    // The pre-pass's pipelines: depth only, or (ids) also the visibility image.
    GraphicsDesc depth_desc(bool ids) const;

    const Context* ctx_ = nullptr;
    Meshlets meshlets_;
    std::vector<TaskChunk> chunks_cpu_;
    Buffer meshlet_buffer_, positions_, attributes_, triangles_, chunks_, visible_, capture_;
    Buffer late_list_;   // occlusion phase 2's list: the indirect command, its count, then entries
    Buffer no_pyramid_;  // bound in place of the pyramids where the frame has none
    uint32_t instances_ = 0;  // meshlets over all draws at full detail (level 0)
    uint32_t chunk_count_ = 0;
    VkExtent2D grid_{};
    bool capture_enabled_ = false;
    Pipeline depth_[3];        // by Variant: subgroup (where the device can), fallback, off
    Pipeline depth_frozen_;    // forward's task and mesh shaders into depth only (culling frozen)
    Pipeline ids_[3], ids_frozen_;  // the same two with the visibility image (--shading visibility)
    bool alpha_masked_ = false;
    Pipeline late_list_pipelines_[2];  // meshlet_late_list.comp: subgroup (where the device can), fallback
    Pipeline forward_[2][2];   // forward.frag's [quad mip][light loop] variants, as ScenePass::forward
    Pipeline forward_test_;    // tests only: forward.frag.meshlet_ids (with meshlet_forward.mesh.ids) or .derivatives
    std::vector<std::pair<std::string, Pipeline>> views_;  // created on first use
};

