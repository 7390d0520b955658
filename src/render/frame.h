// What one frame's passes share: targets, per-frame buffers, the plan, and the draw source.
// Passes read and write only through this; the renderer decides the order.
#pragma once

#include <cstddef>

#include "plan/plan.h"
#include "render/frame_graph.h"
#include "render/gpu_scene.h"
#include "vk/timer.h"

constexpr VkFormat kColorFormat = VK_FORMAT_R8G8B8A8_UNORM;  // holds sRGB-encoded values (shaders encode)
// Forward shades into a linear HDR target; the resolve pass tonemaps it into the 8-bit frame. The
// mip is half-resolution HDR too (docs/quad-mip.md).
constexpr VkFormat kHdrFormat = VK_FORMAT_R16G16B16A16_SFLOAT;
constexpr VkFormat kDepthFormat = VK_FORMAT_D32_SFLOAT;
constexpr uint32_t kTileSize = 16;  // light-list tiles, pixels
// --shading visibility (docs/visibility.md): per pixel the 32-bit visibility id of the triangle that
// covers it (render/visibility_id.h), written by the pre-pass, or with occlusion's two phases by
// ScenePass::record_ids from the merged list.
constexpr VkFormat kVisibilityFormat = VK_FORMAT_R32_UINT;
// The pixels a workgroup of the quad compute passes covers (shaders/quad_tile.glsl: 128 lanes,
// 8x4 quads): the visibility shading pass and the compute resolve.
constexpr uint32_t kQuadTileWidth = 16, kQuadTileHeight = 8;
// Renderer::read_visibility's (draw, primitive) pairs: both words where no triangle covers the pixel.
constexpr uint32_t kNoTriangle = 0xffffffffu;

// Render targets at the frame's size; recreated on resize.
struct FrameTargets {
    VkExtent2D extent{};
    Image hdr;    // forward's linear HDR frame (kHdrFormat)
    Image color;  // final frame: the resolve pass's tonemapped hdr, then debug views drawn over it
    Image depth;  // reversed Z, from the pre-pass
    Image mip;    // (W/2) x (H/2) half-resolution mip of hdr (kHdrFormat)
    Image ray_traced;  // R32UI: the ray_trace pass's shadow and reflection per pixel (shaders/raytrace.glsl)
    Image visibility;  // kVisibilityFormat; made only while the plan shades with --shading visibility
    // --raster compute (docs/raster.md), made only while the plan rasterizes in compute: the 64-bit
    // visibility words (8 bytes a pixel, raster.glsl) and the depth the split takes from them
    // (kRasterDepthFormat), which the passes after the pre-pass read instead of `depth`.
    Buffer raster_words;
    Image raster_depth;
    // Names these and the frame's shared buffers for the passes that declare their reads and
    // writes (render/frame_graph.h); its states carry over from frame to frame.
    FrameGraph graph;
};
constexpr VkFormat kRasterDepthFormat = VK_FORMAT_R32_SFLOAT;

void create_frame_targets(const Context& ctx, VkExtent2D extent, FrameTargets& targets);

// Every pipeline stage that may read or write a frame's GpuCounters on this device: the clear and
// the readback copy (transfer), compute passes, the views' pre-rasterization stages, forward's
// counts, the meshlet path's task and mesh shaders, the ray tracer.
VkPipelineStageFlags2 counter_stages(const DeviceFeatures& features);

// See passes/ray_trace_pass.h.
struct RayStats {
    uint32_t rays[3];          // primary, shadow, reflection rays traced
    uint32_t invocations[6];   // raygen, any-hit, closest-hit, miss, intersection, callable
    uint32_t subgroups[6];     // subgroup variant: one atomic per subgroup and stage; 0 in the fallback
    uint32_t any_hit_rejections;  // alpha below the cutoff: the hit ignored
    uint32_t sphere_hits;         // intersection invocations that reported a light's sphere
    uint32_t shadow_skips;        // subgroup variant: subgroups whose pixels all faced away from the sun
};
static_assert(sizeof(RayStats) == 18 * 4);

// Occlusion culling's counts (docs/occlusion.md), of what passed every other test: rejected by
// the previous frame's pyramid (phase 1), re-tested by phase 2 (phase 1's rejections, counted
// again by phase 2), rejected by this frame's (phase 2: not drawn at all), and re-admitted (phase
// 1's rejections drawn after all).
struct OcclusionCounts {
    uint32_t rejected_phase1;
    uint32_t rejected_phase2;
    uint32_t readmitted_phase2;
    uint32_t tested_phase2;
};

// Counters written by passes on the GPU, read back after the timed frames.
struct GpuCounters {
    uint32_t triangles_visible;
    uint32_t light_list_entries;
    uint32_t light_list_overflow;
    uint32_t light_atomics;
    // The quad mip's edge list (shaders/mip_counters.glsl): texels appended by the forward pass
    // (repeats included), appends past its capacity, and repeats the fix-up skipped.
    uint32_t mip_edge_appends;
    uint32_t mip_edge_overflow;
    uint32_t mip_edge_duplicates;
    // The forward pass's light loop, counted in the instrumented frame (LoopCounters in
    // shaders/shading.glsl; report counter light_loop_iterations, docs/light-lists.md).
    uint32_t loop_lanes;            // shaded lanes (helper lanes excluded)
    uint32_t loop_lane_trips;       // sum over lanes of their own list length: the per-lane loop's trips
    uint32_t loop_subgroups;        // subgroup loop only: subgroups that ran it
    uint32_t loop_subgroup_trips;   // subgroup loop only: its trips, once per subgroup
    uint32_t loop_max_lane_trips;   // subgroup loop only: sum over subgroups of their longest lane's trips
    uint32_t loop_tiles_spanned[4]; // subgroup loop only: subgroups whose lanes lie in 1, 2, 3, 4+ tiles
    // The ray_trace pass's statistics, every frame it runs (shaders/raytrace_stats.glsl).
    RayStats rays;
    // --geometry meshlet (shaders/meshlet.glsl, words 34 and 35): meshlets the task shaders tested
    // and kept. (triangles_visible above is then the mesh shaders' count.)
    uint32_t meshlets_in;
    uint32_t meshlets_visible;
    // The ray_trace pass's subgroup variant, by stage as RayStats::invocations: each subgroup's
    // gl_SubgroupSize summed, and OR-ed (raytrace_stats.glsl; SubgroupTally, passes/subgroup_tally.h).
    uint32_t ray_lane_slots[6];
    uint32_t ray_sizes[6];
    // The debug view's stage (shaders/view_common.glsl): each subgroup's gl_SubgroupSize OR-ed, the
    // sizes its legend names.
    uint32_t view_sizes;
    // The active-lanes view (view_common.glsl, words 49 and 50): subgroups of the stage under view
    // and their active lanes; view_lanes / view_subgroups is its mean occupancy.
    uint32_t view_subgroups;
    uint32_t view_lanes;
    // Levels of detail (docs/lod.md; shaders/lod.glsl, words 51, 59 and 67), counted where the
    // level is chosen, one atomic per workgroup or subgroup: per level, the draws that chose it (all
    // of them, culled or not), the triangles kept of it (they add up to triangles_visible) and, on
    // the meshlet path, the meshlets the task shaders kept of it.
    uint32_t lod_draws[kMaxLodLevels];
    uint32_t lod_triangles[kMaxLodLevels];
    uint32_t lod_meshlets[kMaxLodLevels];
    // Occlusion culling (shaders/occlusion.glsl, words 75-82), of triangles (indexed path: the
    // compute cull) and of meshlets (meshlet path: the task shaders).
    OcclusionCounts occlusion_triangles;
    OcclusionCounts occlusion_meshlets;
    // The cull pass's look-back (shaders/cull.comp, word 83): predecessors a workgroup counted
    // itself because they were not ready within the spin (the decoupled fallback).
    uint32_t cull_lookback_fallbacks;
    // 1 where occlusion `auto` rested this frame (no pyramid, no phase 1 or 2: the last frames it
    // measured removed too little to pay, Renderer::record); written by the host's fill, word 84.
    uint32_t occlusion_resting;
    // --raster compute (docs/raster.md), counted in the instrumented frame: the triangles of phase 1
    // and the late draw that each rasterizer took (raster.comp, words 85 and 86: compute,
    // hardware), and the covered pixels (raster_split.comp, word 87) and of them those whose
    // triangle the hardware drew (raster_hw.frag's classifying draw, word 88).
    uint32_t raster_triangles[2];
    uint32_t raster_pixels_covered;
    uint32_t raster_pixels_hardware;
    // The visibility shading pass's material waterfall (visibility_shade.comp, MATERIAL_WATERFALL;
    // shading.glsl's LoopCounters, words 89 and 90), in the instrumented frame: subgroups that
    // shaded a covered pixel, and the waterfall's trips summed over them (one per distinct material).
    uint32_t material_subgroups;
    uint32_t material_trips;
    // --raster compute's paths (raster.comp, words 91-93 and 94-96): the triangles of phase 1 and the
    // late draw it sorted to each (per lane, split, tile bin; they add up to raster_triangles[0]),
    // and the pixels whose final word each path wrote (raster.comp's classifying dispatches after
    // the last rasterization; with raster_pixels_hardware they add up to raster_pixels_covered).
    uint32_t raster_path_triangles[3];
    uint32_t raster_path_pixels[3];
};
static_assert(sizeof(GpuCounters) == 97 * 4);
static_assert(offsetof(GpuCounters, raster_path_triangles) == 91 * 4);  // raster.glsl's kRasterPathTrianglesWord
static_assert(offsetof(GpuCounters, raster_path_pixels) == 94 * 4);     // raster.glsl's kRasterPathPixelsWord
static_assert(offsetof(GpuCounters, raster_triangles) == 85 * 4);  // raster.glsl's kRasterTrianglesWord
static_assert(offsetof(GpuCounters, material_subgroups) == 89 * 4);  // shading.glsl's LoopCounters
static_assert(offsetof(GpuCounters, occlusion_triangles) == 75 * 4);  // occlusion.glsl's kOcclusionTrianglesWord
static_assert(offsetof(GpuCounters, occlusion_meshlets) == 79 * 4);   // occlusion.glsl's kOcclusionMeshletsWord
static_assert(offsetof(GpuCounters, cull_lookback_fallbacks) == 83 * 4);  // cull.comp's kLookbackFallbacksWord
static_assert(offsetof(GpuCounters, lod_draws) == 51 * 4);  // lod.glsl's kLodDrawsWord
static_assert(offsetof(GpuCounters, view_subgroups) == 49 * 4);  // view_common.glsl's kViewSubgroupsWord
static_assert(offsetof(GpuCounters, view_sizes) == 48 * 4);  // view_common.glsl's kViewSizesWord
static_assert(offsetof(GpuCounters, ray_lane_slots) == 36 * 4);  // raytrace_stats.glsl's lane_slots
static_assert(offsetof(GpuCounters, meshlets_in) == 34 * 4);
static_assert(offsetof(GpuCounters, rays) == 16 * 4);  // raytrace_stats.glsl skips 16 words
// shading.glsl's LoopCounters skips the seven words before loop_lanes.
static_assert(offsetof(GpuCounters, loop_lanes) == 7 * 4);

class Overlay;
class MeshletPass;


struct FrameContext {
    const Context& ctx;
    VkCommandBuffer cmd;
    GpuTimer& timer;
    const GpuScene& scene;
    FrameTargets& targets;
    const Plan& plan;
    const Buffer& uniforms;   // FrameUniforms, this frame's copy
    const Buffer& lights;     // GpuLight[], this frame's copy
    const Buffer& counters;   // GpuCounters, device-local, zeroed at frame start
    uint32_t frame_index;
    uint32_t light_count;
    bool instrument = false;  // count atomics and light-loop trips this frame (one frame outside the timed ones)
    Overlay* overlay = nullptr;  // text and rectangles drawn over the final frame
    bool view_legend = true;     // debug views draw their legends and labels (--no-legend: off)
    // Tests only: forward shading gives odd pixel columns the next tile's list, so quads span two
    // tiles and the subgroup light loop's union walk runs on any rasterizer (shading.glsl).
    bool light_loop_split_tiles = false;
    // Tests only: the visibility shading pass writes the uv derivatives it took instead of a colour.
    bool test_derivatives = false;
    // Tests only: the ray tracer's primary rays on the visibility path too (RendererConfig).
    bool test_camera_rays = false;

    // The meshlet path's resources (render with plan.geometry == meshlet); null where not created.
    MeshletPass* meshlets = nullptr;
    // Set by the cull pass (else the whole scene): what depth and forward draw.
    const Buffer* draw_indices = nullptr;
    const Buffer* draw_indirect = nullptr;
    // Set by the cull pass: beside each triangle of its culled lists, the triangle's index in its
    // draw's chosen level (CullPass::source_ranks; null where the list is the source's levels
    // themselves, --cull off); and those levels as one command per draw over the source indices
    // (CullPass::level_indirect; null where no pass chose levels: level 0, scene.indirect_all).
    const Buffer* source_ranks = nullptr;
    const Buffer* level_commands = nullptr;
    // --raster compute: the visibility ids name the source triangle (draw, index in the draw's
    // chosen level), not a place in a culled list (named_indices below; docs/raster.md).
    bool ids_name_source = false;
    // --shading visibility with occlusion phase 2: the depth passes draw depth only, and
    // ScenePass::record_ids writes the visibility image from the merged list once the depth is final.
    bool ids_after_late_draw = false;
    // Set by the cull's phase 2 (CullPass::ids_draw_count): the draw count of that ids pass, which
    // is 0 in frames whose phase 2 re-admitted nothing (the GPU's count, no read-back). Null where
    // phase 2 did not run.
    const Buffer* ids_draw_count = nullptr;
    // Set once the frame drew with a count from the GPU (the gated ids pass): every later indexed
    // indirect draw of the command buffer passes a count too (draw_scene: scene.all_draws_count).
    // lavapipe (Mesa 25.0.7) keeps a vkCmdDrawIndexedIndirectCount's count buffer for the command
    // buffer's later vkCmdDrawIndexedIndirect calls, which then draw at most that many: after a gated
    // ids pass that drew nothing (phase 2 re-admitted nothing: count 0) the debug views drew nothing.
    bool drew_with_count = false;
    // The depth pyramids (OcclusionPass::pyramid), which the cull's occlusion phases read; set by
    // the renderer. Null where there is no occlusion unit (tests).
    const Buffer* pyramid = nullptr;
    // Set by the pass that builds the tile light lists, when it runs; forward shades all lights otherwise.
    const Buffer* light_lists = nullptr;
    // The quad mip's edge list (MipPass::edges), which the forward shader appends to (--mip forward).
    const Buffer* mip_edges = nullptr;
    uint32_t mip_edge_capacity = 0;
    // The exposure pass's ExposureState: the resolve pass and the mip view apply its exposure when
    // the plan measures one (plan[PassId::exposure] not off), else the fixed exposure.
    const Buffer* exposure_state = nullptr;
    // Set by the ray_trace pass when it wrote targets.ray_traced this frame; forward reads it then.
    bool ray_traced = false;
    // Culling frozen (the window's F key, Renderer::set_cull_frozen): no pass tests anything, the
    // depth and forward passes draw the lists of the last frame that culled.
    bool cull_frozen = false;
    // Occlusion `auto` rests this frame (docs/occlusion.md, "What auto chooses"): no pyramid, and
    // the culls run without occlusion phases, as with --occlusion off.
    bool occlusion_resting = false;
    // The subgroup sizes the debug view's stage ran at in the last completed frame that drew this
    // view (a mask of GpuCounters::view_sizes); 0 before one has. The legend names them.
    uint32_t view_sizes = 0;

    // The frame graph with this frame's resources bound to their names: the targets (Res::depth is
    // depth_to_read()), the counters, and where set the exposure state and the quad mip's edge list.
    FrameGraph& graph();
};

// The depth the passes after the pre-pass read (light cull, depth pyramid, ray tracer): the
// pre-pass's depth image, or under --raster compute the depth the split took from the visibility
// words. Both are read with texelFetch(...).r, in depth_read_layout().
inline Image& depth_to_read(FrameContext& f) {
    return f.plan.raster.raster == Raster::compute && f.targets.raster_depth.image ? f.targets.raster_depth : f.targets.depth;
}
inline VkImageLayout depth_read_layout(const Image& depth) {
    return depth.format == kDepthFormat ? VK_IMAGE_LAYOUT_DEPTH_READ_ONLY_OPTIMAL : VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
}

inline FrameGraph& FrameContext::graph() {
    FrameGraph& g = targets.graph;
    g.bind(Res::depth, depth_to_read(*this));
    g.bind(Res::prepass_depth, targets.depth);
    g.bind(Res::hdr, targets.hdr);
    g.bind(Res::color, targets.color);
    g.bind(Res::mip, targets.mip);
    g.bind(Res::ray_traced, targets.ray_traced);
    if (targets.visibility.image) g.bind(Res::visibility, targets.visibility);
    g.bind(Res::counters, counters);
    if (exposure_state) g.bind(Res::exposure, *exposure_state);
    if (mip_edges) g.bind(Res::mip_edges, *mip_edges);
    if (light_lists) g.bind(Res::light_lists, *light_lists);
    if (pyramid) g.bind(Res::pyramid, *pyramid);
    return g;
}

// Stages and accesses the passes declare often.
constexpr VkPipelineStageFlags2 kComputeStage = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
constexpr VkPipelineStageFlags2 kFragmentStage = VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT;
constexpr VkPipelineStageFlags2 kTransferStage = VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT;  // fills: copy to the layer, clear to the spec
constexpr VkPipelineStageFlags2 kDepthTestStages =
    VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT;
constexpr VkAccessFlags2 kStorageRead = VK_ACCESS_2_SHADER_STORAGE_READ_BIT;
constexpr VkAccessFlags2 kStorageWrite = VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT;
constexpr VkAccessFlags2 kStorageReadWrite = kStorageRead | kStorageWrite;
// The cull's lists as a draw reads them: indirect commands (and a draw count) and indices.
constexpr VkPipelineStageFlags2 kDrawListStages = VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT | VK_PIPELINE_STAGE_2_INDEX_INPUT_BIT;
constexpr VkAccessFlags2 kDrawListReads = VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT | VK_ACCESS_2_INDEX_READ_BIT;
constexpr VkPipelineStageFlags2 kMeshletStages = VK_PIPELINE_STAGE_2_TASK_SHADER_BIT_EXT | VK_PIPELINE_STAGE_2_MESH_SHADER_BIT_EXT;

// The list the visibility ids name (docs/visibility.md, "The visibility id"): its indices and one
// command per draw, the id's primitive the triangle at firstIndex + 3 primitive. Under --raster
// compute the source indices of each draw's chosen level, whatever list phase 1 or the late draw
// rasterized; else the list the pre-pass drew (with occlusion, the merged list).
inline const Buffer& named_indices(const FrameContext& f) {
    return f.ids_name_source || !f.draw_indices ? f.scene.indices : *f.draw_indices;
}
inline const Buffer& named_indirect(const FrameContext& f) {
    if (f.ids_name_source) return f.level_commands ? *f.level_commands : f.scene.indirect_all;
    return f.draw_indirect ? *f.draw_indirect : f.scene.indirect_all;
}
