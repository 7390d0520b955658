#include "passes/cull_pass.h"
#include "passes/occlusion_pass.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "render/text_format.h"
#include "scene/lod.h"

namespace {

// The pipelines' layouts are their shaders' (shader_layout). shaders/cull.comp's bindings: the
// frame; draws, vertices, source indices, chunk table, look-back state, culled indices, indirect
// commands, the frame's counters, the depth pyramids; 5 for occlusion phase 1; the source ranks and
// the level commands. Then cull_scan.comp's (occlusion's scans), and occlusion phase 2's:
// cull_late.comp's and cull_merge.comp's (the source ranks last).
constexpr uint32_t kCullScanBlock = 256;  // local_size_x of cull_scan.comp
constexpr uint32_t kLateGroupSize = 256;  // local_size_x of cull_late.comp: one rejected triangle per invocation
// cull_late.comp's grid walks its list in strides: 1024 workgroups of 256 fill a large GPU (an
// H100 holds 132 x 2048 invocations) without launching a workgroup per possible entry.
constexpr uint32_t kLateMaxGroups = 1024;
constexpr uint32_t kSelectGroupSize = 64;  // local_size_x of lod_select.comp: one draw per invocation

struct CullPush {
    uint32_t chunk_count;
    float snap_px;
    float frustum_eps;
    float lod_max_error_px;    // 0: --lod off
    uint32_t occlusion_phase;  // 0 none, 1, 2
    uint32_t spin_limit;       // LookbackSchedule
    uint32_t late_group;
};
static_assert(sizeof(CullPush) == 28);

struct ScanPush {
    uint32_t count;
    uint32_t tiles_per_group;
};

struct LatePush {  // cull_late.comp
    uint32_t chunk_count;
    uint32_t scan_block;
    float snap_px;
    float frustum_eps;
    uint32_t chunk_triangles;
    uint32_t scan_groups;
    uint32_t merge_groups;
};

struct MergePush {  // cull_merge.comp
    uint32_t chunk_count;
    uint32_t scan_block;
};

uint32_t scan_blocks(uint32_t chunk_count) { return chunk_count / kCullScanBlock + 1; }  // chunk_count + 1 elements

// Bindings 0-4 of cull.comp and cull_late.comp: the frame's uniforms, the scene's draws, vertices
// and indices, and the chunk table.
Descriptors scene_and_chunks(const FrameContext& f, const Buffer& chunks) {
    Descriptors d;
    d.buffer(0, f.uniforms, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER)
        .buffer(1, f.scene.draws)
        .buffer(2, f.scene.vertices)
        .buffer(3, f.scene.indices)
        .buffer(4, chunks);
    return d;
}

// The bound scan step (cull_scan.comp) over `values`, writing each block's sum to `sums`: its
// descriptors and push constants, for the caller's dispatch.
void push_scan(VkCommandBuffer cmd, const Pipeline& scan, const Buffer& values, const Buffer& sums, ScanPush push) {
    Descriptors s;
    s.buffer(0, values).buffer(1, sums);
    s.push(cmd, scan);
    push_constants(cmd, scan, &push, sizeof(push));
}

CullParams frame_cull_params(const FrameContext& f) {
    return make_cull_params(f.targets.extent.width, f.targets.extent.height, f.ctx.properties.limits.subPixelPrecisionBits);
}

constexpr uint32_t kIndirectStride = sizeof(VkDrawIndexedIndirectCommand);
// cull.comp's state word: bit 31 the parity of the dispatch that wrote it. Filled in once with
// parity 1, every word reads NOT READY to the first dispatch (parity 0).
constexpr uint32_t kLookbackStaleWord = 0x80000000u;

}  // namespace

std::vector<glm::uvec4> build_cull_chunks(const std::vector<GpuDraw>& draws, uint32_t chunk_triangles) {
    std::vector<glm::uvec4> chunks;
    for (uint32_t d = 0; d < draws.size(); ++d) {
        const uint32_t draw_first_chunk = uint32_t(chunks.size());
        for (uint32_t level = 0; level < std::max(1u, draws[d].lod_count); ++level) {
            uint32_t triangles = level == 0 ? draws[d].index_count / 3 : draws[d].lod_index_count[level] / 3;
            for (uint32_t first = 0; first < triangles; first += chunk_triangles)
                chunks.push_back({d, level, first, draw_first_chunk});
        }
    }
    return chunks;
}

CullTraffic cull_traffic(const Scene& scene, const std::vector<GpuDraw>& draws, uint64_t triangles_visible,
                         uint32_t group_size) {
    // Distinct vertices per index range, computed once per mesh (instances share ranges).
    std::map<std::pair<uint32_t, uint32_t>, uint64_t> distinct;
    CullTraffic t;
    for (const GpuDraw& d : draws) {
        auto key = std::make_pair(d.first_index, d.index_count);
        auto it = distinct.find(key);
        bool first_use = it == distinct.end();
        if (first_use) {
            std::vector<uint32_t> used(scene.indices.begin() + d.first_index,
                                       scene.indices.begin() + d.first_index + d.index_count);
            std::sort(used.begin(), used.end());
            it = distinct.emplace(key, uint64_t(std::unique(used.begin(), used.end()) - used.begin())).first;
        }
        uint64_t mesh_bytes = uint64_t(d.index_count) * 4   // source indices
                              + it->second * 12;            // vec3 positions of its distinct vertices
        uint64_t draw_bytes = 64 + 12;                      // model matrix, first_index, index_count, out_first
        t.bytes_read += mesh_bytes + draw_bytes;
        t.unique_bytes_read += (first_use ? mesh_bytes : 0) + draw_bytes;
        t.bytes_written += 4;                               // indexCount
    }
    const uint64_t chunks = build_cull_chunks(draws, cull_chunk_triangles(group_size)).size();
    // Per chunk (of every level): its table entry and its ticket (4 B, read and written); its state
    // word, written twice (the aggregate, then the inclusive prefix) and read by its successor's
    // look-back. The mesh data above is level 0's: with --lod auto the pass reads less (the chosen
    // level's). Chunks that a successor had to count itself (the look-back's fallback, rare) read
    // their triangles twice; that is not counted.
    uint64_t chunk_bytes_read = chunks * (sizeof(glm::uvec4) + 4 + 4);
    t.bytes_read += chunk_bytes_read;
    t.unique_bytes_read += chunk_bytes_read;
    t.bytes_written += chunks * (4 + 2 * 4);
    // Surviving indices, written once, in place, each triangle's source rank beside them.
    t.bytes_written += triangles_visible * 16;
    return t;
}

void CullPass::create(const Context& ctx, const GpuScene& scene, uint32_t size) {
    group_size = size;
    draw_count = scene.draw_count;
    schedule = lookback_schedule();

    // Neither variant relies on full subgroups or on a particular subgroup size, so the pipelines
    // ask for neither (no REQUIRE_FULL_SUBGROUPS, no required size): the subgroup scan ranks the
    // invocations that are really there (shaders/workgroup_scan.glsl), the look-back's window is
    // the active lanes of subgroup 0, and the fallback uses no subgroup operations at all.
    // Requiring full subgroups would only forbid workgroup sizes that are not a multiple of the
    // subgroup size, which are legal and tested. The subgroup variant runs at --subgroup-size
    // where one was given.
    // Both paths from one SPIR-V each (USE_SUBGROUP, shaders/subgroup_switch.glsl) where a plan can
    // pick the subgroup one; elsewhere the fallback twins, which declare no subgroup operation.
    const bool possible = subgroup_path_possible(ctx, PassId::cull);
    const char* test = possible ? "cull.comp.switch" : "cull.comp.no_subgroup";
    const char* scan = possible ? "cull_scan.comp.switch" : "cull_scan.comp.no_subgroup";
    auto steps = [&](bool use_subgroup) {
        Steps s;
        s.test = create_compute_pipeline(ctx, {.shader = test, .specialization = {group_size},
                                               .forced_subgroup_size = true, .use_subgroup = use_subgroup});
        s.scan = create_compute_pipeline(ctx, {.shader = scan, .forced_subgroup_size = true, .use_subgroup = use_subgroup});
        return s;
    };
    if (possible) subgroup = steps(true);
    fallback = steps(false);
    late = create_compute_pipeline(ctx, {.shader = "cull_late.comp.plain"});
    merge = create_compute_pipeline(ctx, {.shader = "cull_merge.comp.plain", .specialization = {group_size}});
    select = create_compute_pipeline(ctx, {.shader = "lod_select.comp.plain"});

    const uint32_t chunk_triangles = cull_chunk_triangles(group_size);
    std::vector<glm::uvec4> table = build_cull_chunks(scene.cpu_draws, chunk_triangles);
    chunk_count = uint32_t(table.size());
    chunks = create_buffer_with_data(ctx, table.data(), table.size() * sizeof(glm::uvec4),
                                     VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, "cull chunks");
    std::vector<uint32_t> chunk_ends(std::max(1u, draw_count), 0);
    for (const glm::uvec4& chunk : table) chunk_ends[chunk.x] = uint32_t(&chunk - table.data()) + 1;
    draw_chunk_ends = create_buffer_with_data(ctx, chunk_ends.data(), chunk_ends.size() * sizeof(uint32_t),
                                              VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, "cull draw chunk ends");
    const uint32_t* max_groups = ctx.properties.limits.maxComputeWorkGroupCount;
    grid.width = std::max(1u, std::min(chunk_count, max_groups[0]));
    grid.height = (chunk_count + grid.width - 1) / grid.width;
    const uint64_t max_listed = scene.culled_index_capacity / 3;
    late_groups = uint32_t(std::clamp<uint64_t>((max_listed + kLateGroupSize - 1) / kLateGroupSize, 1,
                                                std::min(kLateMaxGroups, max_groups[0])));
    // The ticket counter runs up to 2 chunk_count (cull.comp).
    if (grid.height > max_groups[1] || scan_blocks(chunk_count) > max_groups[0] || chunk_count >= (1u << 31))
        throw std::runtime_error("the scene needs " + std::to_string(chunk_count) +
                                 " cull workgroups, more than the device can dispatch; use a smaller --instances");

    VkDeviceSize index_bytes = std::max<VkDeviceSize>(1, scene.culled_index_capacity) * sizeof(uint32_t);
    const VkDeviceSize lookback_bytes = VkDeviceSize(chunk_count + 1) * sizeof(uint32_t);
    lookback = create_buffer(ctx, lookback_bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                             MemoryKind::device_local, "cull look-back state");
    culled_indices = create_buffer(ctx, index_bytes,
                                   VK_BUFFER_USAGE_INDEX_BUFFER_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                       VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                   MemoryKind::device_local, "culled indices");
    const VkDeviceSize indirect_bytes = VkDeviceSize(std::max(1u, draw_count)) * kIndirectStride;
    const VkBufferUsageFlags indirect_usage = VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                              VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
    indirect = create_buffer(ctx, indirect_bytes, indirect_usage, MemoryKind::device_local, "culled indirect");
    level_indirect = create_buffer(ctx, indirect_bytes,
                                   VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                       VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                   MemoryKind::device_local, "level indirect");
    // What binding 9 (the pyramids) holds where the frame has none: never read (no occlusion phase).
    no_pyramid = create_buffer(ctx, 16, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, MemoryKind::device_local, "no pyramid");
    // Occlusion's lists and their scans (written by the GPU only).
    auto gpu_buffer = [&](VkDeviceSize bytes, const char* name) {
        return create_buffer(ctx, std::max<VkDeviceSize>(bytes, 4), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                             MemoryKind::device_local, name);
    };
    rejected_ranks = gpu_buffer(index_bytes / 3, "occlusion rejected ranks");
    source_ranks = gpu_buffer(index_bytes / 3, "culled source ranks");
    rejected_starts = gpu_buffer(VkDeviceSize(chunk_count + 1) * 4, "occlusion rejected starts");
    rejected_block_starts = gpu_buffer(VkDeviceSize(scan_blocks(chunk_count) + 1) * 4, "occlusion rejected block starts");
    drawn_starts = gpu_buffer(VkDeviceSize(chunk_count + 1) * 4, "occlusion drawn starts");
    drawn_block_starts = gpu_buffer(VkDeviceSize(scan_blocks(chunk_count) + 1) * 4, "occlusion drawn block starts");
    drawn_masks = gpu_buffer(VkDeviceSize(chunk_count) * ((chunk_triangles + 31) / 32) * 4, "occlusion drawn masks");
    scan_totals = gpu_buffer(4, "occlusion scan totals");
    merge_dispatches = create_buffer(ctx, 9 * sizeof(uint32_t),
                                     VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT |
                                         VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                     MemoryKind::device_local, "occlusion merge dispatches");
    const uint32_t no_draws = 0;
    ids_draw_count = create_buffer_with_data(ctx, &no_draws, sizeof(no_draws),
                                             VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT |
                                                 VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                             "occlusion ids draw count");
    // The late draw's commands, once: indexCount 0 (cull.comp zeroes it each frame, cull_late.comp
    // counts into it and writes firstIndex), firstInstance = draw.
    std::vector<VkDrawIndexedIndirectCommand> late_commands;
    for (uint32_t d = 0; d < draw_count; ++d) late_commands.push_back({0, 1, scene.cpu_draws[d].out_first, 0, d});
    late_commands.resize(std::max(1u, draw_count));
    late_indirect = create_buffer_with_data(ctx, late_commands.data(), indirect_bytes, indirect_usage, "late indirect");

    // Once: indexCount 0, firstIndex = out_first, firstInstance = draw. From then on each dispatch
    // writes the indexCount of every draw that has a triangle (the chosen level's last chunk).
    // The look-back state: ticket 0, every chunk's word left from a dispatch of parity 1.
    VkCommandBuffer cmd = begin_one_shot(ctx);
    VkBufferCopy region{0, 0, VkDeviceSize(draw_count) * kIndirectStride};
    if (draw_count) vkCmdCopyBuffer(cmd, scene.indirect_template.buffer, indirect.buffer, 1, &region);
    vkCmdFillBuffer(cmd, lookback.buffer, 0, sizeof(uint32_t), 0);
    vkCmdFillBuffer(cmd, lookback.buffer, sizeof(uint32_t), lookback_bytes - sizeof(uint32_t), kLookbackStaleWord);
    end_one_shot(ctx, cmd);
}

FrameGraph& CullPass::graph(FrameContext& f) const {
    FrameGraph& g = f.graph();
    g.bind(Res::draw_lists, indirect);
    g.bind(Res::cull_state, lookback);
    return g;
}

void CullPass::record(FrameContext& f) {
    if (f.cull_frozen) {
        // Culling frozen (the window's F): the depth and forward passes draw what forward drew last
        // (with --cull off, the levels last chosen).
        if (culled && f.plan.geometry == Geometry::indexed) {
            bool off = f.plan[PassId::cull].variant == Variant::off;
            f.draw_indices = off ? &f.scene.indices : &culled_indices;
            f.draw_indirect = off ? &level_indirect : &indirect;
            f.source_ranks = off ? nullptr : &source_ranks;
            f.level_commands = &level_indirect;
        }
        return;
    }
    record_phase(f, occlusion_culls(f) && f.pyramid ? 1u : 0u);
}

void CullPass::record_select(FrameContext& f) {
    VkCommandBuffer cmd = f.cmd;
    begin_label(f.ctx, cmd, "cull off: level of detail per draw");
    // Each draw's command (the frame graph waits for the last frame's draws that read them).
    graph(f).pass(cmd, {writes(Res::draw_lists, kComputeStage, kStorageWrite), writes(Res::counters, kComputeStage, kStorageReadWrite)});
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, select.handle());
    Descriptors d;
    d.buffer(0, f.uniforms, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER).buffer(1, f.scene.draws).buffer(2, level_indirect).buffer(3, f.counters);
    d.push(cmd, select);
    struct {
        uint32_t draw_count;
        float lod_max_error_px;
    } push{draw_count, f.plan.lod ? kLodMaxErrorPixels : 0.0f};
    push_constants(cmd, select, &push, sizeof(push));
    vkCmdDispatch(cmd, ceil_div(draw_count, kSelectGroupSize), 1, 1);
    end_label(f.ctx, cmd);
    f.draw_indices = &f.scene.indices;
    f.draw_indirect = &level_indirect;
    f.level_commands = &level_indirect;
    culled = true;
}

void CullPass::record_phase(FrameContext& f, uint32_t occlusion_phase) {
    const Variant variant = f.plan[PassId::cull].variant;
    // With --geometry meshlet the cull variant is the task and mesh shaders' (MeshletPass).
    if (f.plan.geometry == Geometry::meshlet || draw_count == 0) return;
    if (variant == Variant::off) {
        record_select(f);
        return;
    }
    if (chunk_count == 0) return;
    const bool use_subgroup = variant == Variant::subgroup;
    if (use_subgroup && !subgroup.test)
        throw std::runtime_error("cull: the subgroup variant was planned but the device cannot run it");
    const Steps& own = use_subgroup ? subgroup : fallback;
    VkCommandBuffer cmd = f.cmd;

    begin_label(f.ctx, cmd, debug_label(PassId::cull, variant, occlusion_phase ? "occlusion phase 1" : ""));
    f.timer.begin(cmd, Timer::cull);

    // The lists, their commands and the cull's own state rewritten (the frame graph waits for the
    // last frame's draws and merge), the counters counted into; phase 1 reads the previous pyramid.
    FrameGraph& g = graph(f);
    std::vector<Use> uses = {writes(Res::draw_lists, kComputeStage, kStorageReadWrite),
                             writes(Res::cull_state, kComputeStage, kStorageReadWrite),
                             writes(Res::counters, kComputeStage, kStorageReadWrite)};
    if (f.pyramid && occlusion_phase) uses.push_back(reads(Res::pyramid, kComputeStage, kStorageRead));
    g.pass(cmd, uses);

    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, own.test.handle());
    Descriptors d = scene_and_chunks(f, chunks);
    d.storage_buffers(5, {lookback, culled_indices, indirect, f.counters, f.pyramid ? *f.pyramid : no_pyramid,
                          rejected_ranks, rejected_starts, drawn_starts, drawn_masks, late_indirect, source_ranks,
                          level_indirect});  // 5-16
    d.push(cmd, own.test);
    CullParams params = frame_cull_params(f);
    CullPush push{chunk_count,     params.snap_px,       params.frustum_eps, f.plan.lod ? kLodMaxErrorPixels : 0.0f,
                  occlusion_phase, schedule.spin_limit, schedule.late_group};
    push_constants(cmd, own.test, &push, sizeof(push));
    vkCmdDispatch(cmd, grid.width, grid.height, 1);

    if (occlusion_phase == 1) {
        // Phase 2's list: the scan of the chunks' rejected counts, in blocks of 256, then the
        // blocks' totals (cull_late.comp finds each entry's chunk in it).
        const uint32_t blocks = scan_blocks(chunk_count);
        const Use scan = writes(Res::cull_state, kComputeStage, kStorageReadWrite);
        g.pass(cmd, {scan});
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, own.scan.handle());
        push_scan(cmd, own.scan, rejected_starts, rejected_block_starts, {chunk_count, 1});
        vkCmdDispatch(cmd, blocks, 1, 1);
        g.pass(cmd, {scan});
        push_scan(cmd, own.scan, rejected_block_starts, scan_totals, {blocks, (blocks + kCullScanBlock) / kCullScanBlock});
        vkCmdDispatch(cmd, 1, 1, 1);
    }

    f.timer.end(cmd, Timer::cull);
    end_label(f.ctx, cmd);

    f.draw_indices = &culled_indices;
    f.draw_indirect = &indirect;
    f.source_ranks = &source_ranks;
    f.level_commands = &level_indirect;
    culled = true;
}

void CullPass::record_late(FrameContext& f) {
    if (chunk_count == 0) return;
    VkCommandBuffer cmd = f.cmd;
    // The merge's dispatches launch nothing unless this step re-admits something (the previous
    // frame's merge read them).
    const uint32_t blocks = scan_blocks(chunk_count);
    const uint32_t none[9] = {0, 1, 1, 0, 1, 1, 0, grid.height, 1};
    FrameGraph& g = graph(f);
    g.pass(cmd, {writes(Res::cull_state, kTransferStage, VK_ACCESS_2_TRANSFER_WRITE_BIT),
                 writes(Res::draw_lists, kTransferStage, VK_ACCESS_2_TRANSFER_WRITE_BIT)});
    vkCmdUpdateBuffer(cmd, merge_dispatches.buffer, 0, sizeof(none), none);
    vkCmdFillBuffer(cmd, ids_draw_count.buffer, 0, 4, 0);
    // Phase 1's list, its scan, the masks and counts (cull.comp zeroed the late counts), against this
    // frame's pyramid; the re-admitted go after each draw's survivors, which the pre-pass just read.
    g.pass(cmd, {reads(Res::pyramid, kComputeStage, kStorageRead), writes(Res::cull_state, kComputeStage, kStorageReadWrite),
                 writes(Res::draw_lists, kComputeStage, kStorageReadWrite), writes(Res::counters, kComputeStage, kStorageReadWrite)});
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, late.handle());
    Descriptors d = scene_and_chunks(f, chunks);
    d.storage_buffers(5, {rejected_ranks, rejected_starts, rejected_block_starts, *f.pyramid, f.counters, culled_indices,
                          late_indirect, drawn_starts, drawn_masks, indirect, merge_dispatches, source_ranks,
                          ids_draw_count});  // 5-17
    d.push(cmd, late);
    CullParams params = frame_cull_params(f);
    LatePush push{chunk_count, kCullScanBlock, params.snap_px, params.frustum_eps, cull_chunk_triangles(group_size), blocks,
                  grid.width};
    push_constants(cmd, late, &push, sizeof(push));
    vkCmdDispatch(cmd, late_groups, 1, 1);  // a grid that strides over the list, cull_late.comp's stride
    f.draw_indices = &culled_indices;
    f.draw_indirect = &late_indirect;
    f.ids_draw_count = &ids_draw_count;
}

void CullPass::record_merge(FrameContext& f) {
    if (chunk_count == 0) return;
    const Steps& own = f.plan[PassId::cull].variant == Variant::subgroup ? subgroup : fallback;
    VkCommandBuffer cmd = f.cmd;
    // Every dispatch here is indirect: cull_late.comp made them launch only where it re-admitted
    // something (their commands are the cull state's, read in the indirect stage).
    FrameGraph& g = graph(f);
    const Use scan = writes(Res::cull_state, VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT | kComputeStage,
                            VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT | kStorageReadWrite);
    // 1. Scan phase 1's counts plus the additions (cull_late.comp wrote them).
    const uint32_t blocks = scan_blocks(chunk_count);
    g.pass(cmd, {scan});
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, own.scan.handle());
    push_scan(cmd, own.scan, drawn_starts, drawn_block_starts, {chunk_count, 1});
    vkCmdDispatchIndirect(cmd, merge_dispatches.buffer, 0);
    g.pass(cmd, {scan});
    push_scan(cmd, own.scan, drawn_block_starts, scan_totals, {blocks, (blocks + kCullScanBlock) / kCullScanBlock});
    vkCmdDispatchIndirect(cmd, merge_dispatches.buffer, sizeof(VkDispatchIndirectCommand));
    // 2. The merged lists of the draws with additions, over their ranges, which the depth passes
    // have read (phase 1's list and the late list), and their indexCount.
    g.pass(cmd, {scan, writes(Res::draw_lists, kComputeStage, kStorageReadWrite)});
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, merge.handle());
    Descriptors m;
    m.storage_buffers(0, {f.scene.draws, f.scene.indices, chunks, draw_chunk_ends, drawn_starts, drawn_block_starts,
                          drawn_masks, late_indirect, culled_indices, indirect, source_ranks});  // 0-10
    m.push(cmd, merge);
    MergePush push{chunk_count, kCullScanBlock};
    push_constants(cmd, merge, &push, sizeof(push));
    vkCmdDispatchIndirect(cmd, merge_dispatches.buffer, 2 * sizeof(VkDispatchIndirectCommand));
    f.draw_indices = &culled_indices;
    f.draw_indirect = &indirect;
}

void cull_report_counters(nlohmann::json& counters, const PassCounters& c) {
    // With --cull off nothing is culled (and the counter is not written): every triangle is drawn.
    counters["triangles_visible"] =
        c.plan[PassId::cull].variant == Variant::off ? c.triangles_in : uint64_t(c.frame.triangles_visible);
    // The meshlet path's (docs/meshlets.md; null on the indexed path): meshlets the task shaders
    // tested and kept. triangles_visible is then the mesh shaders' count.
    bool meshlet = c.plan.geometry == Geometry::meshlet;
    // How often the compute cull's look-back counted a predecessor itself (docs/culling.md); null
    // where no compute cull ran.
    bool compute_cull = c.plan[PassId::cull].variant != Variant::off && c.ran && !meshlet;
    counters["cull_lookback_fallbacks"] = compute_cull ? nlohmann::json(c.frame.cull_lookback_fallbacks) : nlohmann::json(nullptr);
    counters["meshlets_in"] = meshlet ? nlohmann::json(c.frame.meshlets_in) : nlohmann::json(nullptr);
    counters["meshlets_visible"] = meshlet ? nlohmann::json(c.frame.meshlets_visible) : nlohmann::json(nullptr);
    // Per level of detail (docs/lod.md), as the GPU counted them where it chose the levels; null
    // where nothing chose one (a frame of the indexed path without a draw).
    counters["lod"] = nullptr;
    if (!lod_counted(c)) return;
    auto per_level = [](const uint32_t (&words)[kMaxLodLevels]) { return std::vector<uint32_t>(words, words + kMaxLodLevels); };
    counters["lod"] = {{"draws_per_level", per_level(c.frame.lod_draws)},
                       {"triangles_per_level", per_level(c.frame.lod_triangles)},
                       {"meshlets_per_level", meshlet ? nlohmann::json(per_level(c.frame.lod_meshlets)) : nlohmann::json(nullptr)}};
}

bool lod_counted(const PassCounters& c) {
    // The meshlet path's task shaders choose the level in every variant, --cull off included; the
    // indexed path's cull pass where it ran, and its level choice alone with --cull off.
    return c.plan.geometry == Geometry::meshlet || c.plan[PassId::cull].variant == Variant::off || c.ran;
}

std::string lod_levels_text(const PassCounters& c) {
    if (!lod_counted(c)) return "";
    uint32_t levels = 0;  // up to the coarsest level any draw chose
    for (uint32_t l = 0; l < kMaxLodLevels; ++l)
        if (c.frame.lod_draws[l]) levels = l + 1;
    auto numbers = [&](const uint32_t (&words)[kMaxLodLevels]) {
        std::string text;
        for (uint32_t l = 0; l < levels; ++l) text += " " + thousands(words[l]);
        return text;
    };
    std::string text = ": draws" + numbers(c.frame.lod_draws) + ", tris" + numbers(c.frame.lod_triangles);
    if (c.plan.geometry == Geometry::meshlet) text += ", meshlets" + numbers(c.frame.lod_meshlets);
    return text + " per level";
}

std::optional<HudLine> lod_hud_line(const PassCounters& c) {
    std::string levels = lod_levels_text(c);
    if (levels.empty()) return std::nullopt;
    // As far as the panel is wide (the lines above set it): the list never widens the HUD.
    return HudLine{"LOD", {{levels.substr(2), HudTone::normal, true}}};
}

std::optional<HudLine> cull_hud_line(const PassCounters& c) {
    // Without a cull pass in the frame everything is drawn (and the counter is not written). On the
    // meshlet path the task and mesh shaders cull inside the depth pass, and the line adds the
    // meshlets they kept.
    bool meshlet = c.plan.geometry == Geometry::meshlet;
    bool culled = c.plan[PassId::cull].variant != Variant::off && (c.ran || meshlet);
    uint64_t visible = culled ? c.frame.triangles_visible : c.triangles_in;
    double percent = c.triangles_in ? 100.0 * double(visible) / double(c.triangles_in) : 0.0;
    HudLine line{"triangles", {{thousands(visible) + " of " + thousands(c.triangles_in) +
                                (culled ? " visible (" : " drawn (") + fixed(percent, 1) + "%)"}}};
    if (meshlet)
        line.spans.push_back({", meshlets " + thousands(c.frame.meshlets_visible) + " of " + thousands(c.frame.meshlets_in),
                              HudTone::dim});
    // Levels of detail (docs/lod.md; L toggles): with auto, far draws keep fewer triangles.
    if (std::string occluded = occlusion_hud_text(c); !occluded.empty()) line.spans.push_back({occluded});
    line.spans.push_back({c.plan.lod ? ", LOD auto" : ", LOD off", HudTone::dim});
    return line;
}

void cull_frame_allocations(const AllocationQuery& q, std::vector<PlannedAllocation>& out) {
    const uint64_t chunk_triangles = cull_chunk_triangles(std::max(1u, q.cull_group_size)), indirect = kIndirectStride;
    const uint64_t draws = q.scene.instances.size();
    uint64_t drawn_indices = 0, chunks = 0;
    for (const MeshInstance& instance : q.scene.instances) {
        const Mesh& mesh = q.scene.meshes[instance.mesh];
        drawn_indices += mesh.index_count;  // level 0, the largest
        chunks += (mesh.index_count / 3 + chunk_triangles - 1) / chunk_triangles;
        for (uint32_t level = 1; level < mesh.lod_count; ++level)
            chunks += (mesh.lods[level].index_count / 3 + chunk_triangles - 1) / chunk_triangles;
    }
    // The compacted index buffer holds every drawn triangle in the worst case.
    const uint64_t index_bytes = std::max<uint64_t>(1, drawn_indices) * sizeof(uint32_t);
    out.push_back({"culled indices", index_bytes, AllocationKind::storage_buffer, false});
    out.push_back({"culled indirect", std::max<uint64_t>(1, draws) * indirect, AllocationKind::storage_buffer, false});
    out.push_back({"late indirect", std::max<uint64_t>(1, draws) * indirect, AllocationKind::storage_buffer});
    // Occlusion phase 1's rejected list (a word per triangle), its chunks' counts and the merge's.
    out.push_back({"occlusion rejected ranks", std::max<uint64_t>(4, index_bytes / 3), AllocationKind::storage_buffer, false});
    // Each listed triangle's index in its draw's level (the compute rasterizer's source ids).
    out.push_back({"culled source ranks", std::max<uint64_t>(4, index_bytes / 3), AllocationKind::storage_buffer, false});
    for (const char* name : {"occlusion rejected starts", "occlusion drawn starts"})
        out.push_back({name, (chunks + 1) * 4, AllocationKind::storage_buffer, false});
    for (const char* name : {"occlusion rejected block starts", "occlusion drawn block starts"})
        out.push_back({name, (chunks / kCullScanBlock + 2) * 4, AllocationKind::storage_buffer, false});
    out.push_back({"occlusion drawn masks", std::max<uint64_t>(4, chunks * ((chunk_triangles + 31) / 32) * 4),
                   AllocationKind::storage_buffer, false});
    out.push_back({"occlusion scan totals", 4, AllocationKind::storage_buffer, false});
    out.push_back({"occlusion ids draw count", 4, AllocationKind::storage_buffer, false});  // the gated ids pass's count
    out.push_back({"occlusion merge dispatches", 36, AllocationKind::storage_buffer, false});
    out.push_back({"level indirect", std::max<uint64_t>(1, draws) * indirect, AllocationKind::storage_buffer, false});
    out.push_back({"cull chunks", chunks * 16, AllocationKind::storage_buffer});
    out.push_back({"cull look-back state", (chunks + 1) * 4, AllocationKind::storage_buffer, false});
    out.push_back({"cull draw chunk ends", std::max<uint64_t>(1, draws) * 4, AllocationKind::storage_buffer});
    out.push_back({"no pyramid", 16, AllocationKind::storage_buffer, false});  // bound where no pyramid is built
}

std::vector<std::vector<uint32_t>> read_drawn_indices(const Context& ctx, const Buffer& indices, const Buffer& indirect,
                                                      uint32_t draw_count) {
    VkDeviceSize indirect_bytes = VkDeviceSize(draw_count) * kIndirectStride;
    Buffer commands = create_buffer(ctx, std::max<VkDeviceSize>(4, indirect_bytes), VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                    MemoryKind::host_readback, "drawn indirect readback");
    Buffer index_copy = create_buffer(ctx, indices.size, VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryKind::host_readback,
                                      "drawn indices readback");
    VkCommandBuffer cmd = begin_one_shot(ctx);
    // Everything before it, to the copies.
    // Hand-written: a one-shot readback after the frames (tests, --cull-dump) that waits for everything, as read_buffer.
    memory_barrier(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_MEMORY_WRITE_BIT, VK_PIPELINE_STAGE_2_COPY_BIT,
                   VK_ACCESS_2_TRANSFER_READ_BIT);
    VkBufferCopy command_region{0, 0, indirect_bytes};
    if (indirect_bytes) vkCmdCopyBuffer(cmd, indirect.buffer, commands.buffer, 1, &command_region);
    VkBufferCopy index_region{0, 0, indices.size};
    vkCmdCopyBuffer(cmd, indices.buffer, index_copy.buffer, 1, &index_region);
    end_one_shot(ctx, cmd);

    std::vector<VkDrawIndexedIndirectCommand> cmds(draw_count);
    if (indirect_bytes) memcpy(cmds.data(), commands.mapped, indirect_bytes);
    const auto* all = static_cast<const uint32_t*>(index_copy.mapped);
    const uint64_t capacity = indices.size / sizeof(uint32_t);
    std::vector<std::vector<uint32_t>> drawn(draw_count);
    for (uint32_t d = 0; d < draw_count; ++d) {
        uint64_t first = cmds[d].firstIndex, count = cmds[d].indexCount;
        if (first + count > capacity)
            throw std::runtime_error("draw " + std::to_string(d) + " reads indices past the end of its index buffer");
        drawn[d].assign(all + first, all + first + count);
    }
    return drawn;
}

std::unique_ptr<PassUnit> create_cull_unit(const UnitSetup& s) { return make_unit<CullPass>(s.ctx, s.scene, s.cull_group_size); }
