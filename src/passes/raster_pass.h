// --raster compute (docs/raster.md): the visibility pre-pass rasterized in compute. Each pixel's
// 64-bit word (depth high, visibility id + 1 low, shaders/raster.glsl) is written with atomicMax by
// the compute rasterizer (raster.comp) and, for the triangles it is not built for, by the hardware
// rasterizer's fragment shader (raster_hw.frag); a split pass then writes the visibility id image
// the shading pass reads and the depth the later passes read (depth_to_read in render/frame.h).
#pragma once

#include "render/frame.h"
#include "render/overlay.h"

#include <vector>

struct Scene;

// The largest bounding-box side, in pixels, that the compute rasterizer draws (docs/raster.md,
// "The threshold"); larger triangles go to the hardware rasterizer. At most 64 (raster.comp's
// 32-bit edge functions).
constexpr uint32_t kRasterMaxExtent = 32;
// Triangles a workgroup of raster.comp rasterizes, one a lane (its local_size_x).
constexpr uint32_t kRasterChunkTriangles = 64;

// The chunk table: (draw, first triangle) for every kRasterChunkTriangles triangles of each draw at
// level 0 (the most a draw lists), in draw order. Its length is raster_chunk_count.
std::vector<glm::uvec2> build_raster_chunks(const Scene& scene);
uint64_t raster_chunk_count(const Scene& scene);

// --view raster: who wrote each pixel's final word. RGBA8 as 0xAABBGGRR, exactly what the view
// writes (tests decode images with these); pixels no triangle covers keep 30% of the shaded frame.
constexpr uint32_t kRasterPerLaneColour = rgba8(60, 110, 250);       // compute, the fallback: a lane walks its triangle
constexpr uint32_t kRasterSubgroupSplitColour = rgba8(40, 200, 90);  // compute, the subgroup path: lanes split the box
constexpr uint32_t kRasterHardwareColour = rgba8(240, 60, 40);       // the hardware rasterizer's fragments

// Which draw of the frame: the pre-pass (occlusion phase 1, or the only one), or occlusion phase
// 2's late draw, which adds to phase 1's words and hardware list: the ids name source triangles
// (raster.comp's source_id), so the two phases' words are the frame's (docs/raster.md, "Ties").
enum class RasterPhase { first, late };

struct RasterPass {
    Pipeline raster[2];  // raster.comp by [subgroup path]
    Pipeline hardware;   // raster_hw.vert + .frag (alpha where the scene has masked materials)
    Pipeline split;
    Pipeline view, hardware_view;  // --view raster: raster_view.comp, then the classifying draw in colour
    Buffer hardware_list;  // VkDrawIndirectCommand, then the listed triangles' ids
    Buffer late_command;   // the late draw's VkDrawIndirectCommand: the list from phase 1's count on
    uint32_t capacity = 0;
    Buffer chunks;  // build_raster_chunks: a workgroup each
    uint32_t chunk_count = 0;
    VkExtent2D grid{};  // the chunks' workgroups folded within maxComputeWorkGroupCount
    // Tests only: 0 drops the fill rule's top-left condition (a pixel centre on any edge is
    // outside), to show a test fails without it.
    uint32_t top_left = 1;

    // Nothing where the device lacks 64-bit atomics (the pipelines compile on first use).
    void create(const Context& ctx, bool alpha_masked);
    // The hardware list and the chunk table, once a plan rasterizes in compute. The list holds the
    // most the draws list at once, the scene's triangles (level 0 of every draw). Throws where the
    // chunks need more workgroups than the device can dispatch.
    void make_list(const Context& ctx, const Scene& scene);
    // Tests only: a list of `list_capacity` triangles followed by room for more, every slot holding
    // `guard_id` until written, so that a draw reading past the capacity shows in the words.
    void make_guarded_list(const Context& ctx, uint32_t list_capacity, uint32_t guard_id);
    // In place of ScenePass::record_depth (first: timed as Timer::depth; late) under --raster
    // compute. first clears the words and the list; both end with the split.
    void record(FrameContext& f, RasterPhase phase);
    // --view raster over the resolved frame, from the frame's final words and hardware list; where
    // the plan has no words, the plan's reason as a label.
    void record_view(FrameContext& f);
    // named: the hardware draws' (5, 6: the list the ids name, render/frame.h's named_indices).
    Descriptors bindings(const FrameContext& f, bool named) const;
};

// The raster view's legend: its title and a swatch for the compute path that ran and the hardware.
void add_raster_legend(Overlay& overlay, VkExtent2D extent, Variant compute_path);

// The frame-size targets: the words (8 bytes a pixel) and the depth taken from them.
void create_raster_targets(const Context& ctx, FrameTargets& targets);
