// --geometry meshlet --raster compute (docs/raster.md, "The meshlet path"): the meshlet path's
// pre-pass in compute, in Nanite's shape. meshlet_raster_cull.comp runs the task shader's meshlet
// culling (the same GLSL, meshlet_chunk_cull.glsl: the same meshlets kept, the same counters and
// visible-list masks) and lists each kept meshlet's chunks of 64 triangles; raster.comp's MESHLET
// variants rasterize them, a workgroup per chunk and a lane per triangle, with its per-lane, split
// and tile-bin paths, and raster_hw.vert's the triangles it leaves to the hardware. The ids are
// the ones the meshlet path's hardware pre-pass writes (visible-list entry, triangle in the
// meshlet), so the shading pass reads them as before. RasterPass records it (its words, lists,
// hardware draw and split are the indexed path's).
#pragma once

#include "passes/raster_pipelines.h"
#include "render/frame.h"

class MeshletPass;

// In the list (meshlet_raster_list.glsl): this phase's chunks' VkDispatchIndirectCommand at 0, the
// frame's (which the classifying passes and --view raster rasterize again) at this offset.
constexpr VkDeviceSize kMeshletRasterAllChunks = 16;

struct Meshlets;
struct TaskChunk;

// raster.comp's workgroup: a lane per triangle of a chunk (RasterPass's kRasterChunkTriangles).
constexpr uint32_t kMeshletRasterChunkTriangles = 64;

// The list's bytes for the meshlet path's task chunks (build_task_chunks): its header, then a uvec2
// for each chunk of 64 triangles the culling can list in a frame (the memory plan counts it:
// run/limits.cpp). A draw keeps each meshlet of its levels at most once a frame (phase 1, or
// re-admitted by the late phase), so every task chunk's meshlets' chunks bound the list; a mesh
// drawn by several instances has its meshlets listed once per instance.
VkDeviceSize meshlet_raster_list_bytes(const std::vector<TaskChunk>& task_chunks, const Meshlets& meshlets);

struct MeshletRaster {
    Pipeline cull[3];   // meshlet_raster_cull.comp by Variant: subgroup (where the device can), fallback, off (one SPIR-V, or its twin)
    Pipeline args;      // meshlet_raster_args.comp
    RasterPipelines pipelines;  // raster.comp's meshlet variants, raster_hw.vert.meshlet with RasterPass's fragment shaders
    Buffer list;  // meshlet_raster_list.glsl: the header, then the chunks (meshlet_raster_list_bytes)
    uint32_t task_chunks = 0;
    VkExtent2D grid{};  // the task chunks' workgroups folded within maxComputeWorkGroupCount

    // The pipelines, each in the layout its shaders declare (the meshlet path's bindings from 16),
    // and the list. `alpha_masked`: the hardware pipelines' fragment shader tests alpha. Once: does
    // nothing where made.
    void create(const Context& ctx, const MeshletPass& meshlets, bool alpha_masked);
    // Outside any rendering, with the transfers before the rasterizer's dispatches (RasterPass::record):
    // the list's header, from empty (the first phase), or from phase 1's chunks on (the late phase).
    void record_header(FrameContext& f, bool late) const;
    // The culling and the list's dispatches, with raster.comp's bindings `d`: the first phase over
    // the task chunks (occlusion phase 1 where the plan culls by occlusion), the late phase over the
    // late list (meshlet_late_list.comp's, dispatched from its header). With culling frozen, the last
    // list again, untested. Each declares its uses to the frame graph (with RasterPass::graph's
    // names bound: Res::meshlet_chunks is the list).
    void record_cull(FrameContext& f, bool late, Descriptors& d) const;
};
