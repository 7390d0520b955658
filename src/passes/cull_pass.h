// Triangle culling on the GPU (shaders/cull*.comp, docs/culling.md): every triangle of every
// draw is tested each frame, survivors are compacted, in input order, into a culled index buffer
// and the indirect commands' indexCount is written on the GPU. The depth and forward passes then draw
// from them; the CPU never reads a count back in the frame loop.
#pragma once

#include <vector>

#include <glm/glm.hpp>

#include "render/cull_reference.h"
#include "passes/allocation.h"
#include "passes/pass_unit.h"
#include "vk/fault_injection.h"

constexpr uint32_t kDefaultCullGroupSize = 64;  // --cull-group-size: invocations per workgroup
// Triangles each invocation of the cull pass tests, consecutive ones (shaders/cull.comp's
// kTrianglesPerInvocation): a chunk, one workgroup's partition of the look-back, is
// group size x this many triangles. Each partition pays a fixed chain of dependent steps (its
// ticket, its look-back, two publishes) whatever its size, and a device runs only so many
// invocations at once, so one triangle per invocation made the pass a long sequence of waves
// each waiting on that chain (docs/culling.md). A divisor of 32: an invocation's survivor bits
// never straddle two words of the chunk's mask.
constexpr uint32_t kCullTrianglesPerInvocation = 8;
constexpr uint32_t cull_chunk_triangles(uint32_t group_size) { return group_size * kCullTrianglesPerInvocation; }

// One entry per workgroup: (draw, level, first triangle of the level, the draw's first chunk), for
// chunks of `chunk_triangles` triangles (cull_chunk_triangles()). A chunk never spans two draws or
// two levels, so every workgroup's survivors go to one draw's range; each level of each draw gets
// its own chunks, consecutive and in triangle order, so the level's first chunk is
// `chunk - first triangle / chunk_triangles` (the chunks of a level are one segment of the
// look-back, shaders/cull.comp; the chunks of the levels not chosen this frame keep nothing,
// docs/lod.md); empty levels get no chunk.
std::vector<glm::uvec4> build_cull_chunks(const std::vector<GpuDraw>& draws, uint32_t chunk_triangles);

// Bytes the cull pass must move in one frame (computed on the host from the counts): what it
// reads (source indices, the positions of each draw's distinct vertices, draw records, chunk
// table, indirect template) and writes (surviving indices, indirect commands).
// bytes_read counts each draw's mesh data, as if every instance had its own copy of its mesh
// (what a scene of distinct meshes moves); unique_bytes_read counts each mesh's data once,
// the least that must come from memory when instances share meshes (--instances does).
struct CullTraffic {
    uint64_t bytes_read = 0;
    uint64_t unique_bytes_read = 0;
    uint64_t bytes_written = 0;
    uint64_t total() const { return bytes_read + bytes_written; }
    uint64_t unique_total() const { return unique_bytes_read + bytes_written; }
};
CullTraffic cull_traffic(const Scene& scene, const std::vector<GpuDraw>& draws, uint64_t triangles_visible,
                         uint32_t group_size);

struct CullPass : PassUnit {
    // The variant's own steps: cull.comp (one dispatch: test, count, look back, write) and
    // cull_scan.comp (the scans of occlusion's per-chunk counts).
    struct Steps {
        Pipeline test;
        Pipeline scan;
    };
    Steps subgroup;         // left empty where the device lacks what it needs
    Steps fallback;
    Buffer chunks;          // uvec4 per workgroup, from build_cull_chunks()
    Buffer draw_chunk_ends; // per draw, one past its last chunk (cull_merge.comp)
    Buffer lookback;        // the look-back's ticket counter, then one state word per chunk (cull.comp)
    Buffer culled_indices;  // each draw's survivors, in input order, at [out_first, out_first + indexCount)
    // Beside each triangle of culled_indices (a word per 3 indices): its index in its draw's chosen
    // level, the name the compute rasterizer's visibility ids give it (raster.comp).
    Buffer source_ranks;
    Buffer indirect;        // VkDrawIndexedIndirectCommand per draw; indexCount written each frame
    // Variant off: no test, but each draw's level of detail (shaders/lod_select.comp writes each
    // draw's command, the whole chosen level of the source indices, into level_indirect). The
    // test writes the same commands (cull.comp), so that level_indirect always holds the levels
    // drawn: the list whose places source_ranks gives.
    Pipeline select;
    Buffer level_indirect;
    uint32_t group_size = kDefaultCullGroupSize;  // chunks of cull_chunk_triangles(group_size) triangles
    uint32_t chunk_count = 0;
    uint32_t draw_count = 0;
    VkExtent2D grid{};      // workgroups: chunk_count spread over x (capped at the device limit) and y
    uint32_t late_groups = 1;  // cull_late.comp's workgroups (a fixed grid that strides over its list)
    LookbackSchedule schedule;  // the look-back's spin (and the test knob SGD_CULL_LOOKBACK), read at create()

    // Occlusion culling (docs/occlusion.md). Phase 1 (cull.comp with occlusion_phase 1) also
    // keeps, per chunk, the ranks of the triangles only the pyramid rejected (a list in input
    // order once their counts are scanned), its survivors' count and rank mask, and zeroes the
    // late draw's counts. Phase 2 (record_late: cull_late.comp) re-tests that list alone and appends
    // the re-admitted to the late lists (after each draw's survivors in its range); the merge
    // (record_merge: cull_merge.comp) rewrites the ranges of the draws with additions as their
    // survivors and additions in input order, with their indexCount: forward's list.
    Pipeline late;                 // cull_late.comp.plain
    Pipeline merge;                // cull_merge.comp.plain
    Buffer rejected_ranks;         // one word per triangle of each draw's range (out_first / 3 on)
    Buffer rejected_starts;        // per chunk (and one more): rejected by occlusion, then scanned
    Buffer rejected_block_starts;
    Buffer drawn_starts;           // per chunk (and one more): survivors plus additions, then scanned
    Buffer drawn_block_starts;
    Buffer drawn_masks;            // per chunk, a bit per rank (32 ranks a word): survivors and additions
    Buffer scan_totals;            // the second-level scans' grand totals (the counts are read from the scans)
    Buffer merge_dispatches;       // the merge's 3 indirect dispatches: nothing unless phase 2 re-admits
    Buffer ids_draw_count;         // the hardware ids pass's draw count: 0 unless phase 2 re-admits
    Buffer late_indirect;          // per draw: the late depth draw (the late list, after the draw's survivors)
    bool culled = false;           // the lists hold a frame's culling: a frozen frame draws them again
    Buffer no_pyramid;  // bound in place of the pyramids where the frame has none

    void create(const Context& ctx, const GpuScene& scene, uint32_t group_size);
    // Variant off: only the level choice; the scene passes draw every triangle of each draw's level.
    // Before depth: phase 1 where the plan culls by occlusion (occlusion_culls), else no occlusion.
    // With culling frozen (f.cull_frozen): nothing, and the frame draws the last frame's lists.
    void record(FrameContext& f) override;
    // occlusion_phase 0: none; 1: also against the previous frame's pyramid (f.pyramid set).
    void record_phase(FrameContext& f, uint32_t occlusion_phase);
    // After the pyramid: occlusion phase 2, then f.draw_* is the late depth draw's list.
    void record_late(FrameContext& f);
    // After the late depth draw: f.draw_* is forward's list (culled_indices and indirect, merged).
    void record_merge(FrameContext& f);
    // Variant off: each draw's command is its chosen level, whole (lod_select.comp).
    void record_select(FrameContext& f);
    // The frame graph with Res::draw_lists and Res::cull_state bound to this pass's buffers.
    FrameGraph& graph(FrameContext& f) const;
};

// The per-level counters (GpuCounters::lod_*, docs/lod.md): whether this frame counted them (a pass
// chose the levels: every frame that drew, on either path and with any --cull), and the text of them:
// ": draws 40 12, tris 5,120 300 per level", levels 0 up to the coarsest drawn; "" if not counted.
bool lod_counted(const PassCounters& c);
std::string lod_levels_text(const PassCounters& c);
// The HUD's line of them ("LOD  draws 40 12, tris ..."), under the triangles line; none where not counted.
std::optional<HudLine> lod_hud_line(const PassCounters& c);

// What the last frame drew through `indices` and `indirect` (one command per draw): per draw,
// its index list (3 per triangle). For tests and --cull-dump; waits for the device.
std::vector<std::vector<uint32_t>> read_drawn_indices(const Context& ctx, const Buffer& indices, const Buffer& indirect,
                                                      uint32_t draw_count);
