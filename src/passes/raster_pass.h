// --raster compute (docs/raster.md): the visibility pre-pass rasterized in compute. Each pixel's
// 64-bit word (depth high, visibility id + 1 low, shaders/raster.glsl) is written with atomicMax by
// the compute rasterizer (raster.comp) and, for the triangles it is not built for, by the hardware
// rasterizer's fragment shader (raster_hw.frag); a split pass then writes the visibility id image
// the shading pass reads and the depth the later passes read (depth_to_read in render/frame.h).
#pragma once

#include "passes/meshlet_raster.h"
#include "render/frame.h"
#include "render/overlay.h"

#include <optional>
#include <span>
#include <vector>

struct Scene;

// How raster.comp sorts a triangle by its box (docs/raster.md, "Which rasterizer draws a
// triangle"): a box of at most kRasterTinyPixels pixel centres a lane walks alone (per lane); one
// no wider or taller than kRasterMaxExtent pixels the lanes of a subgroup or workgroup split
// (split; at most 64: the 32-bit edge functions); larger ones go to the tile bins, an entry per
// kRasterTile x kRasterTile pixels of their box, a workgroup each (raster.comp's RASTER_BIN).
constexpr uint32_t kRasterTinyPixels = 16;
constexpr uint32_t kRasterMaxExtent = 32;
constexpr uint32_t kRasterTile = 32;  // raster.comp's kTile
// The tile bins' entries (16 bytes each): about 8 times the tiles of a 4K frame. A large triangle
// whose tiles no longer fit goes to the hardware rasterizer instead.
constexpr uint32_t kRasterBinCapacity = 1u << 18;
// The guard band (docs/raster.md, "The frame's edge"): triangles reaching past the frame's edge by at
// most this many pixels go to the compute rasterizer (their box clamped to the frame), farther ones
// to the hardware. kRasterMaxGuardBand keeps the fixed-point coordinates below 2^23 (exact in the
// depth plane's floats) for frames up to 16,384 pixels. SGD_RASTER_GUARD_BAND=PIXELS sets another
// (0: every frame-crossing triangle to the hardware); raster_guard_band: nullopt where it is not a
// number of 0 to kRasterMaxGuardBand, the default where unset or empty.
constexpr uint32_t kRasterMaxGuardBand = 16384;
constexpr uint32_t kRasterDefaultGuardBand = kRasterMaxGuardBand;
std::optional<uint32_t> raster_guard_band(const char* value);
// Triangles a workgroup of raster.comp rasterizes, one a lane (its local_size_x).
constexpr uint32_t kRasterChunkTriangles = 64;
static_assert(kRasterChunkTriangles == kMeshletRasterChunkTriangles, "one raster.comp workgroup for both geometry paths");

// The chunk table: (draw, first triangle) for every kRasterChunkTriangles triangles of each draw at
// level 0 (the most a draw lists), in draw order. Its length is raster_chunk_count.
std::vector<glm::uvec2> build_raster_chunks(const Scene& scene);
uint64_t raster_chunk_count(const Scene& scene);

// --view raster: who wrote each pixel's final word. RGBA8 as 0xAABBGGRR, exactly what the view
// writes (tests decode images with these); pixels no triangle covers keep 30% of the shaded frame.
constexpr uint32_t kRasterPerLaneColour = rgba8(60, 110, 250);  // compute, tiny triangles: a lane walks its own
constexpr uint32_t kRasterSplitColour = rgba8(40, 200, 90);     // compute, medium: a subgroup's (workgroup's) lanes split the box
constexpr uint32_t kRasterTileBinColour = rgba8(250, 200, 40);  // compute, large: the tile bins' workgroups
constexpr uint32_t kRasterHardwareColour = rgba8(240, 60, 40);       // the hardware rasterizer's fragments

// Which draw of the frame: the pre-pass (occlusion phase 1, or the only one), or occlusion phase
// 2's late draw, which adds to phase 1's words and hardware list: the ids name source triangles
// (raster.comp's source_id), so the two phases' words are the frame's (docs/raster.md, "Ties").
enum class RasterPhase { first, late };

struct RasterPush;  // raster.comp's push constant

struct RasterPass {
    RasterPipelines indexed;  // raster.comp's and raster_hw's (the meshlet path's: meshlet.pipelines)
    Pipeline bin_args;   // the tile bins' indirect dispatch (raster_bin_args.comp)
    Pipeline late_args;  // raster_late_args.comp: the late draw's dispatches, empty where phase 2 re-admitted nothing
    Pipeline split;
    Pipeline view;  // --view raster: raster_view.comp dims the frame first
    Buffer hardware_list;  // VkDrawIndirectCommand, then the listed triangles' ids
    Buffer late_command;   // the late draw's VkDrawIndirectCommand: the list from phase 1's count on
    // The late draw's VkDispatchIndirectCommands (raster_late_args.comp): its chunks' at byte 0,
    // its split's at byte 16; both (0, 0, 1) in a frame whose phase 2 re-admitted nothing.
    Buffer late_dispatches;
    bool late_split_gated = false;  // this frame's late draw sized its split (record_final_split)
    uint32_t capacity = 0;
    Buffer tile_bins;  // VkDispatchIndirectCommand, the entries appended, then the entries
    uint32_t bin_capacity = kRasterBinCapacity;
    uint32_t guard_band = kRasterDefaultGuardBand;  // SGD_RASTER_GUARD_BAND
    Buffer chunks;  // build_raster_chunks: a workgroup each
    MeshletRaster meshlet;  // --geometry meshlet: the kept meshlets' chunks in place of the chunk table
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
    // Once a plan rasterizes the meshlet path in compute: its pipelines and list (MeshletRaster).
    void make_meshlet(const Context& ctx, const MeshletPass& meshlets, bool alpha_masked);
    // Tests only: tile bins of `entries` entries, so that large triangles overflow to the hardware.
    void set_bin_capacity(uint32_t entries) { bin_capacity = entries; }
    // In place of ScenePass::record_depth (first: timed as Timer::depth; late) under --raster
    // compute. first clears the words and the list and ends with the split; late adds to them, and
    // record_final_split follows once the cull's merge has written the frame's list. Each ends its
    // pieces of depth or late_depth (RasterPiece: counters.raster.dispatch_ms); the renderer
    // starts late_depth's and ends its late_cull and merge.
    void record(FrameContext& f, RasterPhase phase);
    // --view raster over the resolved frame, from the frame's final words and hardware list; where
    // the plan has no words, the plan's reason as a label.
    void record_view(FrameContext& f);
    // After the late draw and the merge: the split of the frame's words, and in the instrumented
    // frame the classifying passes over the merged list (timed with late_depth).
    void record_final_split(FrameContext& f);
    // named: the hardware draws' (5, 6: the list the ids name, render/frame.h's named_indices).
    Descriptors bindings(const FrameContext& f, bool named) const;
    // The frame graph with the rasterizer's buffers bound to their names (render/frame_graph.h):
    // the words, the hardware list, the tile bins, the late dispatches and, on the meshlet path, the
    // kept meshlets' chunks. Each step below declares what it uses and the graph records the barriers.
    FrameGraph& graph(FrameContext& f) const;

private:
    // The plan's geometry path's raster.comp and raster_hw pipelines.
    const RasterPipelines& pipelines(const FrameContext& f) const;
    RasterPush make_push(const FrameContext& f, uint32_t count, uint32_t classify) const;
    // What every raster.comp dispatch uses, and every hardware draw (Res names).
    std::vector<Use> compute_uses(const FrameContext& f) const;
    std::vector<Use> hardware_uses(const FrameContext& f) const;
    // `all_entries`: the tile bins' every entry (the classifying passes), else those this rasterization
    // appended. `chunk_dispatch`: the chunks' dispatch from that buffer (late_dispatches, the late
    // draw's) instead of the whole grid. `also`: uses beside raster.comp's bindings (the view's colour).
    // `pieces`: the timer whose pieces (RasterPiece) the chunks and the tile bins end.
    void record_compute(FrameContext& f, const Pipeline& chunked, const Pipeline& binned, Descriptors& d, const RasterPush& push,
                        bool all_entries, const Buffer* chunk_dispatch = nullptr, std::span<const Use> also = {},
                        std::optional<Timer> pieces = std::nullopt) const;
    // The hardware draw `hw` (the plan's geometry path's) over the list from `command`; `colour`:
    // with the frame's colour attached (the view).
    void record_hardware(FrameContext& f, const Pipeline& hw, const RasterPush& push, const Buffer& command, bool colour) const;
    // The split (the id image, the depth) and, with `final_words` in the instrumented frame, the
    // classifying passes. `gated`: the split's size from late_dispatches (the late draw's).
    void record_split(FrameContext& f, bool final_words, bool gated = false);
};

// The raster view's legend: its title (with the compute path that ran) and a swatch per path.
void add_raster_legend(Overlay& overlay, VkExtent2D extent, Variant compute_path);

// The frame-size targets: the words (8 bytes a pixel) and the depth taken from them.
void create_raster_targets(const Context& ctx, FrameTargets& targets);
