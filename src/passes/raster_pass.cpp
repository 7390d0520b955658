#include "passes/raster_pass.h"

#include "passes/meshlet_pass.h"  // MeshletPass::push_bindings
#include "scene/scene.h"
#include "passes/debug_view_pass.h"  // add_swatch_legend

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

struct RasterPush {
    uint32_t ranked;  // raster.comp: the list is a culled one, named through its source ranks
    uint32_t max_extent, capacity, top_left, chunks;
    uint32_t count;     // the instrumented frame's phase 1 and late draw: count the triangles by rasterizer
    uint32_t classify;  // the hardware draw counts the pixels it won instead of writing
    uint32_t view_colour;  // raster_hw.frag.view: the hardware's colour in --view raster
    uint32_t tiny_pixels, bin_capacity;
    uint32_t guard_band;  // pixels past the frame's edge the compute rasterizer takes
    uint32_t path_colours[3];  // raster.comp's VIEW: per lane, split, tile bin
};

std::optional<uint32_t> raster_guard_band(const char* value) {
    if (!value || !*value) return kRasterDefaultGuardBand;
    uint32_t pixels = 0;
    const char* end = value + strlen(value);
    auto [at, error] = std::from_chars(value, end, pixels);
    if (error != std::errc() || at != end || pixels > kRasterMaxGuardBand) return std::nullopt;
    return pixels;
}

constexpr VkDeviceSize kBinsHeader = 32;  // VkDispatchIndirectCommand, the entries appended, the first to rasterize, 3 unused
constexpr VkDeviceSize kLateSplitDispatch = 16;  // the split's VkDispatchIndirectCommand in late_dispatches

namespace {

constexpr VkDeviceSize kListHeader = 16;  // VkDrawIndirectCommand
constexpr VkBufferUsageFlags kListUsage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT |
                                         VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT;

}  // namespace

void create_raster_targets(const Context& ctx, FrameTargets& t) {
    VkDeviceSize pixels = VkDeviceSize(t.extent.width) * t.extent.height;
    t.raster_words = create_buffer(ctx, pixels * 8,
                                   VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                   MemoryKind::device_local, "raster words");
    t.raster_depth = create_image(ctx, t.extent, kRasterDepthFormat,
                                  VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                                  "raster depth");
}

RasterPipelines create_raster_pipelines(const Context& ctx, bool meshlet, bool alpha_masked) {
    const std::string path = meshlet ? "meshlet_" : "";
    auto compute = [&](const std::string& variant, bool use_subgroup = false) {
        return create_compute_pipeline(ctx, {.shader = "raster.comp." + path + variant, .use_subgroup = use_subgroup});
    };
    RasterPipelines p;
    const bool possible = raster_subgroup_missing(ctx.subgroup).empty();
    if (possible) p.raster[1] = compute("switch", true);
    p.raster[0] = compute(possible ? "switch" : "no_subgroup");
    p.bin = compute("bin");
    p.raster_view = compute("view_no_subgroup");
    p.bin_view = compute("bin_view");
    GraphicsDesc hw;
    hw.shaders = {{VK_SHADER_STAGE_VERTEX_BIT, meshlet ? "raster_hw.vert.meshlet" : "raster_hw.vert.main"},
                  {VK_SHADER_STAGE_FRAGMENT_BIT, alpha_masked ? "raster_hw.frag.alpha" : "raster_hw.frag.plain"}};
    hw.vertex_attributes = 0;  // the vertex shader pulls its vertices
    p.hardware = create_graphics_pipeline(ctx, hw);  // no attachments: the fragment shader writes the words
    hw.shaders.back().second = "raster_hw.frag.view";
    hw.color_formats = {kColorFormat};
    p.hardware_view = create_graphics_pipeline(ctx, hw);
    return p;
}

void RasterPass::create(const Context& ctx, bool alpha_masked) {
    guard_band = raster_guard_band(getenv("SGD_RASTER_GUARD_BAND")).value_or(kRasterDefaultGuardBand);  // (the options checked it)
    if (!ctx.features.int64_atomics) return;
    indexed = create_raster_pipelines(ctx, false, alpha_masked);
    bin_args = create_compute_pipeline(ctx, {.shader = "raster_bin_args.comp.main"});
    late_args = create_compute_pipeline(ctx, {.shader = "raster_late_args.comp.main"});
    split = create_compute_pipeline(ctx, {.shader = "raster_split.comp.main"});
    view = create_compute_pipeline(ctx, {.shader = "raster_view.comp.main"});
    const VkDrawIndirectCommand none{0, 1, 0, 0};
    late_command = create_buffer_with_data(ctx, &none, sizeof(none), kListUsage, "raster late command");
    const uint32_t no_groups[8] = {0, 0, 1, 0, 0, 0, 1, 0};
    late_dispatches = create_buffer_with_data(ctx, no_groups, sizeof(no_groups), kListUsage, "raster late dispatches");
}

void RasterPass::make_meshlet(const Context& ctx, const MeshletPass& meshlets, bool alpha_masked) {
    meshlet.create(ctx, meshlets, alpha_masked);
}

const RasterPipelines& RasterPass::pipelines(const FrameContext& f) const {
    if (f.plan.geometry != Geometry::meshlet) return indexed;
    if (!meshlet.pipelines.raster[0]) throw std::logic_error("the meshlet path's compute rasterizer was not made (RasterPass::make_meshlet)");
    return meshlet.pipelines;
}

std::vector<glm::uvec2> build_raster_chunks(const Scene& scene) {
    std::vector<glm::uvec2> table;
    table.reserve(raster_chunk_count(scene));
    for (uint32_t draw = 0; draw < scene.instances.size(); ++draw)
        for (uint32_t first = 0; first < scene.meshes[scene.instances[draw].mesh].index_count / 3; first += kRasterChunkTriangles)
            table.push_back({draw, first});
    return table;
}

uint64_t raster_chunk_count(const Scene& scene) {
    uint64_t count = 0;
    for (const MeshInstance& instance : scene.instances)
        count += (scene.meshes[instance.mesh].index_count / 3 + kRasterChunkTriangles - 1) / kRasterChunkTriangles;
    return count;
}

void RasterPass::make_list(const Context& ctx, const Scene& scene) {
    if (hardware_list.buffer) return;
    capacity = uint32_t(std::min<uint64_t>(std::max<uint64_t>(scene.triangle_count(), 1), (uint64_t(1) << 30)));
    hardware_list = create_buffer(ctx, kListHeader + VkDeviceSize(capacity) * 4, kListUsage, MemoryKind::device_local,
                                  "raster hardware list");
    // Folded as the cull pass folds its grid: rows of at most maxComputeWorkGroupCount[0].
    std::vector<glm::uvec2> table = build_raster_chunks(scene);
    const uint32_t* max_groups = ctx.properties.limits.maxComputeWorkGroupCount;
    if (table.size() >= (uint64_t(1) << 32) || (table.size() + max_groups[0] - 1) / max_groups[0] > max_groups[1])
        throw std::runtime_error("the scene needs " + std::to_string(table.size()) +
                                 " compute-raster workgroups, more than the device can dispatch; use --raster hardware or a smaller --instances");
    chunk_count = uint32_t(table.size());
    grid.width = std::max(1u, std::min(chunk_count, max_groups[0]));
    grid.height = std::max(1u, (chunk_count + grid.width - 1) / grid.width);
    if (table.empty()) table.push_back({0, 0});  // (a buffer is never empty; push.chunks says 0)
    chunks = create_buffer_with_data(ctx, table.data(), table.size() * sizeof(glm::uvec2), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                     "raster chunks");
    // The bins' dispatch (a workgroup per entry) folds into rows of max_groups[0]: never more rows
    // than the device dispatches.
    bin_capacity = uint32_t(std::min<uint64_t>(kRasterBinCapacity, uint64_t(max_groups[0]) * max_groups[1]));
    tile_bins = create_buffer(ctx, kBinsHeader + VkDeviceSize(kRasterBinCapacity) * 16, kListUsage | VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                              MemoryKind::device_local, "raster tile bins");  // (tests read its header back)
}

void RasterPass::make_guarded_list(const Context& ctx, uint32_t list_capacity, uint32_t guard_id) {
    constexpr uint32_t kGuard = 256;
    std::vector<uint32_t> data(kListHeader / 4 + list_capacity + kGuard, guard_id);
    hardware_list = create_buffer_with_data(ctx, data.data(), data.size() * 4, kListUsage, "raster hardware list (guarded)");
    capacity = list_capacity;
}

// The bindings raster.comp, raster_hw.vert/.frag and the view's draw share (set 0). 5 and 6: the
// list raster.comp rasterizes (what the cull listed for this draw); for the hardware draws
// (`named`), the list the ids name, from which raster_hw.vert pulls a listed triangle's vertices.
Descriptors RasterPass::bindings(const FrameContext& f, bool named) const {
    const Buffer& indices = named ? named_indices(f) : f.draw_indices ? *f.draw_indices : f.scene.indices;
    const Buffer& indirect = named ? named_indirect(f) : f.draw_indirect ? *f.draw_indirect : f.scene.indirect_all;
    Descriptors d;
    d.buffer(0, f.uniforms, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER)
        .buffer(1, f.scene.draws)
        .buffer(2, f.lights)
        .buffer(4, f.scene.vertices)
        .buffer(5, indices)
        .buffer(6, indirect)
        .buffer(7, f.targets.raster_words)
        .buffer(8, hardware_list)
        .buffer(9, chunks)
        .buffer(10, f.counters)
        .buffer(11, tile_bins)
        .buffer(12, f.source_ranks ? *f.source_ranks : hardware_list);  // (unread without ranks: push.ranked 0)
    if (f.plan.geometry == Geometry::meshlet && f.meshlets) {
        // The meshlet path: 9 the kept meshlets' chunks in place of the chunk table, 16.. its data.
        d.buffer(9, meshlet.list);
        f.meshlets->push_bindings(f, d);
    }
    return d;
}

RasterPush RasterPass::make_push(const FrameContext& f, uint32_t count, uint32_t classify) const {
    return {f.source_ranks ? 1u : 0u, kRasterMaxExtent, capacity,     top_left, chunk_count, count, classify, kRasterHardwareColour,
            kRasterTinyPixels, bin_capacity, guard_band, {kRasterPerLaneColour, kRasterSplitColour, kRasterTileBinColour}};
}

namespace {

constexpr VkPipelineStageFlags2 kRasterIndirectStage = VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT;  // dispatches and draws alike
constexpr VkPipelineStageFlags2 kRasterVertexStage = VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT;
constexpr VkAccessFlags2 kRasterIndirectRead = VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT;
constexpr VkAccessFlags2 kRasterTransferReadWrite = VK_ACCESS_2_TRANSFER_READ_BIT | VK_ACCESS_2_TRANSFER_WRITE_BIT;

}  // namespace

FrameGraph& RasterPass::graph(FrameContext& f) const {
    FrameGraph& g = f.graph();
    g.bind(Res::raster_words, f.targets.raster_words);
    g.bind(Res::raster_list, hardware_list);
    g.bind(Res::tile_bins, tile_bins);
    g.bind(Res::raster_dispatches, late_dispatches);
    if (meshlet.list.buffer) g.bind(Res::meshlet_chunks, meshlet.list);
    return g;
}

// Every raster.comp dispatch (the chunks', the tile bins', the classifying and the view's passes)
// as its bindings are declared: it reads the cull's lists and adds to the words, the hardware list,
// the tile bins and the counters. On the meshlet path it reads the kept meshlets' chunks (its
// dispatch among them) and binds the meshlet path's buffers, the visible list writable.
std::vector<Use> RasterPass::compute_uses(const FrameContext& f) const {
    std::vector<Use> uses = {reads(Res::draw_lists, kComputeStage, kStorageRead),
                             writes(Res::raster_words, kComputeStage, kStorageReadWrite),
                             writes(Res::raster_list, kComputeStage, kStorageReadWrite),
                             writes(Res::tile_bins, kComputeStage, kStorageReadWrite),
                             writes(Res::counters, kComputeStage, kStorageReadWrite)};
    if (f.plan.geometry == Geometry::meshlet) {
        uses.push_back(writes(Res::meshlet_chunks, kRasterIndirectStage | kComputeStage, kRasterIndirectRead | kStorageReadWrite));
        uses.push_back(writes(Res::meshlet_lists, kComputeStage, kStorageReadWrite));
    }
    return uses;
}

// Every hardware draw (the phase's, the classifying one, the view's): its command and ids from the
// list and the list the ids name in the vertex shader (on the meshlet path the meshlet path's
// buffers), the words and the counters in the fragment shader.
std::vector<Use> RasterPass::hardware_uses(const FrameContext& f) const {
    std::vector<Use> uses = {reads(Res::raster_list, kRasterIndirectStage | kRasterVertexStage, kRasterIndirectRead | kStorageRead),
                             reads(Res::draw_lists, kRasterVertexStage, kStorageRead),
                             writes(Res::raster_words, kFragmentStage, kStorageReadWrite),
                             writes(Res::counters, kRasterVertexStage | kFragmentStage, kStorageReadWrite)};
    if (f.plan.geometry == Geometry::meshlet) uses.push_back(writes(Res::meshlet_lists, kRasterVertexStage, kStorageReadWrite));
    return uses;
}

// raster.comp over the chunks (on the meshlet path the kept meshlets' chunks, indirect), then the
// tile bins: their dispatch's size from the entries appended (from the first this rasterization
// appended, or with `all_entries` every one), and a workgroup per entry. `also`: what the pipelines
// use beside their bindings' (the view's colour).
void RasterPass::record_compute(FrameContext& f, const Pipeline& chunked, const Pipeline& binned, Descriptors& d,
                                const RasterPush& push, bool all_entries, const Buffer* chunk_dispatch, std::span<const Use> also,
                                std::optional<Timer> pieces) const {
    FrameGraph& g = graph(f);
    std::vector<Use> uses = compute_uses(f);
    uses.insert(uses.end(), also.begin(), also.end());
    if (chunk_dispatch) uses.push_back(reads(Res::raster_dispatches, kRasterIndirectStage, kRasterIndirectRead));  // (late_dispatches)
    g.pass(f.cmd, uses);
    vkCmdBindPipeline(f.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, chunked.handle());
    d.push(f.cmd, chunked);
    push_constants(f.cmd, chunked, &push, sizeof(push));
    if (f.plan.geometry == Geometry::meshlet)  // this phase's kept meshlets' chunks, or classifying the frame's
        vkCmdDispatchIndirect(f.cmd, meshlet.list.buffer, push.classify != 0u ? kMeshletRasterAllChunks : 0);
    else if (chunk_dispatch)
        vkCmdDispatchIndirect(f.cmd, chunk_dispatch->buffer, 0);  // the grid below, or nothing
    else
        dispatch(f.ctx, f.cmd, grid.width, grid.height);  // a workgroup per chunk
    if (pieces) f.timer.end_piece(f.cmd, *pieces, RasterPiece::chunks);

    g.pass(f.cmd, {writes(Res::tile_bins, kComputeStage, kStorageReadWrite)});
    vkCmdBindPipeline(f.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, bin_args.handle());
    Descriptors().buffer(0, tile_bins).push(f.cmd, bin_args);
    const uint32_t args[3] = {bin_capacity, f.ctx.properties.limits.maxComputeWorkGroupCount[0], all_entries ? 1u : 0u};
    push_constants(f.cmd, bin_args, args, sizeof(args));
    dispatch(f.ctx, f.cmd, 1, 1);

    uses = compute_uses(f);
    uses.insert(uses.end(), also.begin(), also.end());
    uses.push_back(reads(Res::tile_bins, kRasterIndirectStage, kRasterIndirectRead));
    g.pass(f.cmd, uses);
    vkCmdBindPipeline(f.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, binned.handle());
    d.push(f.cmd, binned);
    push_constants(f.cmd, binned, &push, sizeof(push));
    vkCmdDispatchIndirect(f.cmd, tile_bins.buffer, 0);
    if (pieces) f.timer.end_piece(f.cmd, *pieces, RasterPiece::tile_bins);
}

// The hardware rasterizer over the list from `command` (its VkDrawIndirectCommand): no attachment
// but, for the view, the frame's colour; the same words.
void RasterPass::record_hardware(FrameContext& f, const Pipeline& hw, const RasterPush& push, const Buffer& command,
                                 bool colour) const {
    std::vector<Use> uses = hardware_uses(f);
    if (colour)
        uses.push_back(writes(Res::color, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                              VK_ACCESS_2_COLOR_ATTACHMENT_READ_BIT | VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT,
                              VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL));
    graph(f).pass(f.cmd, uses);
    Descriptors named = bindings(f, true);
    named.textures(f.scene.texture_set);  // the alpha test (set 1)
    VkRenderingAttachmentInfo attachment = color_attachment(f.targets.color, VK_ATTACHMENT_LOAD_OP_LOAD);
    begin_rendering(f.cmd, f.targets.extent, colour ? &attachment : nullptr, nullptr);
    vkCmdBindPipeline(f.cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, hw.handle());
    named.push(f.cmd, hw);
    push_constants(f.cmd, hw, &push, sizeof(push));
    vkCmdDrawIndirect(f.cmd, command.buffer, 0, 1, sizeof(VkDrawIndirectCommand));
    vkCmdEndRendering(f.cmd);
}

// Phase 1 and the late phase are the same passes, declared the same way: the transfers that start
// the phase, (late, gated) the late dispatches, (meshlet path) the culling, raster.comp's chunks
// and tile bins, (late) the late draw's count, the hardware draw; then (phase 1) the split. The
// graph orders each after what the last frame, or phase 1, did to the same buffers.
void RasterPass::record(FrameContext& f, RasterPhase phase) {
    const bool timed = phase == RasterPhase::first, late = phase == RasterPhase::late;
    if (timed) begin_label(f.ctx, f.cmd, debug_label(Timer::depth, f.plan.raster.variant == Variant::subgroup ? "compute raster, subgroup"
                                                                                                              : "compute raster, fallback"));
    if (timed) f.timer.begin(f.cmd, Timer::depth);
    // The pieces of depth, or of late_depth (whose first piece, the late cull, the renderer records).
    const Timer pieces = late ? Timer::late_depth : Timer::depth;
    if (timed) f.timer.start_pieces(f.cmd, pieces);
    FrameTargets& t = f.targets;
    FrameGraph& g = graph(f);
    const bool meshlets = f.plan.geometry == Geometry::meshlet;
    // The transfers that start the phase: phase 1 clears the words, the list and the bins; the late
    // phase copies phase 1's counts (the list's, the bins', the meshlet chunks').
    std::vector<Use> starts = {writes(Res::raster_list, kTransferStage, kRasterTransferReadWrite),
                               writes(Res::tile_bins, kTransferStage, kRasterTransferReadWrite)};
    if (!late) starts.push_back(writes(Res::raster_words, kTransferStage, VK_ACCESS_2_TRANSFER_WRITE_BIT));
    if (meshlets) starts.push_back(writes(Res::meshlet_chunks, kTransferStage, kRasterTransferReadWrite));
    g.pass(f.cmd, starts);
    if (late) {
        // The late draw adds to phase 1's words and appends to its hardware list, so that after it
        // the words and the list are the frame's. Its own hardware draw starts at phase 1's count.
        VkBufferCopy first_vertex{0, offsetof(VkDrawIndirectCommand, firstVertex), 4};
        vkCmdCopyBuffer(f.cmd, hardware_list.buffer, late_command.buffer, 1, &first_vertex);
    } else {
        // From "nothing, at the far plane" (0) and an empty list.
        vkCmdFillBuffer(f.cmd, t.raster_words.buffer, 0, VK_WHOLE_SIZE, 0);
        const uint32_t header[4] = {0, 1, 0, 0};  // vertexCount, instanceCount, firstVertex, firstInstance
        vkCmdUpdateBuffer(f.cmd, hardware_list.buffer, 0, sizeof(header), header);
    }
    if (late) {
        // The late draw appends to phase 1's entries and rasterizes its own: from phase 1's count on.
        VkBufferCopy first_entry{12, 16, 4};
        vkCmdCopyBuffer(f.cmd, tile_bins.buffer, tile_bins.buffer, 1, &first_entry);
    } else {
        const uint32_t no_entries[8] = {};  // (the dispatch, written by raster_bin_args.comp), no entry, from 0
        vkCmdUpdateBuffer(f.cmd, tile_bins.buffer, 0, sizeof(no_entries), no_entries);
    }
    if (meshlets) meshlet.record_header(f, late);

    // The late draw launches its chunks (and its split) only where the late cull re-admitted
    // something: raster_late_args.comp sizes them from the cull's word, no read-back.
    const bool gated = late && f.ids_draw_count;
    if (gated) {
        g.pass(f.cmd, {reads(Res::draw_lists, kComputeStage, kStorageRead), writes(Res::raster_dispatches, kComputeStage, kStorageWrite)});
        vkCmdBindPipeline(f.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, late_args.handle());
        Descriptors().buffer(0, *f.ids_draw_count).buffer(1, late_dispatches).push(f.cmd, late_args);
        const uint32_t sizes[4] = {grid.width, grid.height, ceil_div(t.extent.width, 8u), ceil_div(t.extent.height, 8u)};
        push_constants(f.cmd, late_args, sizes, sizeof(sizes));
        dispatch(f.ctx, f.cmd, 1, 1);
    }
    late_split_gated = gated;
    f.timer.end_piece(f.cmd, pieces, RasterPiece::setup);

    Descriptors d = bindings(f, false);
    // The meshlet path: its meshlets culled, the kept ones' chunks listed for the rasterizer.
    if (meshlets) {
        meshlet.record_cull(f, late, d);
        f.timer.end_piece(f.cmd, pieces, RasterPiece::meshlet_cull);
    }
    const RasterPipelines& p = pipelines(f);
    // The instrumented frame counts the triangles of phase 1 and the late draw, each once.
    RasterPush push = make_push(f, f.instrument ? 1u : 0u, 0u);
    record_compute(f, p.raster[f.plan.raster.variant == Variant::subgroup ? 1 : 0], p.bin, d, push, false,
                   gated ? &late_dispatches : nullptr, {}, pieces);
    if (late) {
        // The late draw's vertexCount: the whole list's, from phase 1's count on (raster_hw.vert
        // draws nothing past the list's count).
        g.pass(f.cmd, {writes(Res::raster_list, kTransferStage, kRasterTransferReadWrite)});
        VkBufferCopy vertex_count{0, 0, 4};
        vkCmdCopyBuffer(f.cmd, hardware_list.buffer, late_command.buffer, 1, &vertex_count);
    }
    // The hardware rasterizer: the listed triangles, the same words. (What comes next and rewrites
    // the lists this read, occlusion's merge, waits for it: both declare the cull's lists.)
    record_hardware(f, p.hardware, push, late ? late_command : hardware_list, false);
    f.timer.end_piece(f.cmd, pieces, RasterPiece::hardware);
    // Phase 1's split: the depth the pyramid between the phases reads, or, without a late draw, the
    // frame's. After the late draw, the renderer calls record_final_split once the merge wrote the
    // frame's list (the classifying passes rasterize it again).
    if (!late) {
        record_split(f, !f.ids_after_late_draw);
        f.timer.end_piece(f.cmd, pieces, RasterPiece::split);
    }
    if (timed) f.timer.end(f.cmd, Timer::depth);
    if (timed) end_label(f.ctx, f.cmd);
}

void RasterPass::record_final_split(FrameContext& f) {
    // (The classifying passes read the lists, and their source ranks, that the merge rewrote: they
    // declare the cull's lists.)
    record_split(f, true, late_split_gated);
    f.timer.end_piece(f.cmd, Timer::late_depth, RasterPiece::split);
}

void RasterPass::record_split(FrameContext& f, bool final_words, bool gated) {
    FrameTargets& t = f.targets;
    // (A gated split may write nothing: phase 1's split then wrote what stays.)
    const uint32_t count_pixels = f.instrument && final_words ? 1u : 0u;
    gated = gated && !count_pixels;
    // The split: from the words, the id image the shading pass reads and the depth the later passes
    // read (Res::depth: under --raster compute the split's).
    std::vector<Use> uses = {reads(Res::raster_words, kComputeStage, kStorageRead),
                             writes(Res::visibility, kComputeStage, kStorageWrite, VK_IMAGE_LAYOUT_GENERAL, !gated),
                             writes(Res::depth, kComputeStage, kStorageWrite, VK_IMAGE_LAYOUT_GENERAL, !gated),
                             writes(Res::counters, kComputeStage, kStorageReadWrite)};
    if (gated) uses.push_back(reads(Res::raster_dispatches, kRasterIndirectStage, kRasterIndirectRead));
    graph(f).pass(f.cmd, uses);
    vkCmdBindPipeline(f.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, split.handle());
    Descriptors s;
    s.buffer(0, f.uniforms, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER)
        .buffer(1, t.raster_words)
        .storage_image(2, t.visibility.view)
        .storage_image(3, t.raster_depth.view)
        .buffer(4, f.counters);
    s.push(f.cmd, split);
    push_constants(f.cmd, split, &count_pixels, sizeof(count_pixels));
    if (gated)
        vkCmdDispatchIndirect(f.cmd, late_dispatches.buffer, kLateSplitDispatch);  // the grid below, or nothing
    else
        dispatch(f.ctx, f.cmd, ceil_div(t.extent.width, 8u), ceil_div(t.extent.height, 8u));
    if (count_pixels) {
        // The compute rasterizer again over the frame's list, classifying: of the final words,
        // those each path wrote (the tile bins as binned; no list is written). Then the hardware
        // list again (phase 1's and the late draw's): of the final words, those its fragments wrote.
        const RasterPipelines& p = pipelines(f);
        Descriptors classified = bindings(f, false);
        record_compute(f, p.raster[f.plan.raster.variant == Variant::subgroup ? 1 : 0], p.bin, classified, make_push(f, 0u, 1u), true);
        record_hardware(f, p.hardware, make_push(f, 0u, 1u), hardware_list, false);
    }
}

void RasterPass::record_view(FrameContext& f) {
    if (f.plan.view.mode != ViewMode::raster) return;
    FrameTargets& t = f.targets;
    if (f.plan.view.variant == Variant::unsupported || !t.raster_words.buffer) {
        if (f.overlay) f.overlay->label(8, 8, "raster view: " + f.plan.view.reason);
        return;
    }
    begin_label(f.ctx, f.cmd, debug_label(f.plan.view));
    f.timer.begin(f.cmd, Timer::view);
    // From the frame's last rasterization's words and list: the frame dimmed; then each compute
    // path's colour where the final word is one of its triangles' (raster.comp's VIEW variants, as
    // the counters classify: the tile bins as binned); then the hardware list again, as the
    // counting draw classifies: its colour where the word is its fragment's.
    const Use colour = writes(Res::color, kComputeStage, kStorageReadWrite, VK_IMAGE_LAYOUT_GENERAL);
    graph(f).pass(f.cmd, {colour});
    vkCmdBindPipeline(f.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, view.handle());
    Descriptors()
        .buffer(0, f.uniforms, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER)
        .storage_image(1, t.color.view)
        .push(f.cmd, view);
    dispatch(f.ctx, f.cmd, ceil_div(t.extent.width, 8u), ceil_div(t.extent.height, 8u));
    Descriptors painted = bindings(f, false);
    painted.storage_image(13, t.color.view);
    const RasterPipelines& p = pipelines(f);
    record_compute(f, p.raster_view, p.bin_view, painted, make_push(f, 0u, 1u), true, nullptr, {&colour, 1});
    record_hardware(f, p.hardware_view, make_push(f, 0u, 0u), hardware_list, true);
    f.timer.end(f.cmd, Timer::view);
    end_label(f.ctx, f.cmd);
    if (f.overlay && f.view_legend) add_raster_legend(*f.overlay, t.extent, f.plan.raster.variant);
}

void add_raster_legend(Overlay& o, VkExtent2D extent, Variant compute_path) {
    const bool subgroup = compute_path == Variant::subgroup;
    add_swatch_legend(o, extent, std::string("raster | who wrote each pixel | compute/") + std::string(variant_name(compute_path)),
                      {{kRasterPerLaneColour, "per lane"},
                       {kRasterSplitColour, subgroup ? "subgroup split" : "workgroup split"},
                       {kRasterTileBinColour, "tile bin"},
                       {kRasterHardwareColour, "hardware"}});
}
