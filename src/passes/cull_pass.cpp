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

// Bindings of shaders/cull.comp: frame uniforms, draws, vertices, source indices, chunk table,
// look-back state, culled indices, indirect commands, the frame's counters, the depth pyramids.
const LayoutDesc kCullLayout = {{VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                 VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                 VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                 VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                 VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER},
                                VK_SHADER_STAGE_COMPUTE_BIT, 28};
const LayoutDesc kSelectLayout = {{VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                   VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER},
                                  VK_SHADER_STAGE_COMPUTE_BIT, 8};
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

constexpr uint32_t kIndirectStride = sizeof(VkDrawIndexedIndirectCommand);
// cull.comp's state word: bit 31 the parity of the dispatch that wrote it. Filled in once with
// parity 1, every word reads NOT READY to the first dispatch (parity 0).
constexpr uint32_t kLookbackStaleWord = 0x80000000u;

}  // namespace

std::vector<glm::uvec4> build_cull_chunks(const std::vector<GpuDraw>& draws, uint32_t group_size) {
    std::vector<glm::uvec4> chunks;
    for (uint32_t d = 0; d < draws.size(); ++d) {
        const uint32_t draw_first_chunk = uint32_t(chunks.size());
        for (uint32_t level = 0; level < std::max(1u, draws[d].lod_count); ++level) {
            uint32_t triangles = level == 0 ? draws[d].index_count / 3 : draws[d].lod_index_count[level] / 3;
            for (uint32_t first = 0; first < triangles; first += group_size)
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
    uint64_t chunks = 0;
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
        for (uint32_t level = 0; level < std::max(1u, d.lod_count); ++level) {
            uint32_t triangles = level == 0 ? d.index_count / 3 : d.lod_index_count[level] / 3;
            chunks += (triangles + group_size - 1) / group_size;
        }
    }
    // Per chunk (of every level): its table entry and its ticket (4 B, read and written); its state
    // word, written twice (the aggregate, then the inclusive prefix) and read by its successor's
    // look-back. The mesh data above is level 0's: with --lod auto the pass reads less (the chosen
    // level's). Chunks that a successor had to count itself (the look-back's fallback, rare) read
    // their triangles twice; that is not counted.
    uint64_t chunk_bytes_read = chunks * (sizeof(glm::uvec4) + 4 + 4);
    t.bytes_read += chunk_bytes_read;
    t.unique_bytes_read += chunk_bytes_read;
    t.bytes_written += chunks * (4 + 2 * 4);
    // Surviving indices, written once, in place.
    t.bytes_written += triangles_visible * 12;
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
    auto pipeline = [&](const char* shader) {
        return create_compute_pipeline(
            ctx, {.shader = shader, .layout = kCullLayout, .specialization = {group_size}, .forced_subgroup_size = true});
    };
    if (subgroup_path_possible(ctx, PassId::cull)) subgroup = pipeline("cull.comp.subgroup");
    fallback = pipeline("cull.comp.fallback");
    select = create_compute_pipeline(ctx, {.shader = "lod_select.comp.plain", .layout = kSelectLayout});

    std::vector<glm::uvec4> table = build_cull_chunks(scene.cpu_draws, group_size);
    chunk_count = uint32_t(table.size());
    chunks = create_buffer_with_data(ctx, table.data(), table.size() * sizeof(glm::uvec4),
                                     VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, "cull chunks");
    const uint32_t* max_groups = ctx.properties.limits.maxComputeWorkGroupCount;
    grid.width = std::max(1u, std::min(chunk_count, max_groups[0]));
    grid.height = (chunk_count + grid.width - 1) / grid.width;
    // The ticket counter runs up to 2 chunk_count (cull.comp).
    if (grid.height > max_groups[1] || chunk_count >= (1u << 31))
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
    indirect = create_buffer(ctx, VkDeviceSize(std::max(1u, draw_count)) * kIndirectStride,
                             VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                 VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                             MemoryKind::device_local, "culled indirect");
    level_indirect = create_buffer(ctx, VkDeviceSize(std::max(1u, draw_count)) * kIndirectStride,
                                   VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                       VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                   MemoryKind::device_local, "level indirect");
    // What binding 9 (the pyramids) holds where the frame has none: never read (no occlusion phase).
    no_pyramid = create_buffer(ctx, 16, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, MemoryKind::device_local, "no pyramid");
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

void CullPass::record(FrameContext& f) { record_phase(f, occlusion_culls(f.plan) && f.pyramid ? 1u : 0u); }

void CullPass::record_select(FrameContext& f) {
    VkCommandBuffer cmd = f.cmd;
    begin_label(f.ctx, cmd, "cull off: level of detail per draw");
    // Earlier frames' draws read the commands: wait for them before rewriting (write-after-read).
    memory_barrier(cmd, VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT, VK_ACCESS_2_NONE, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                   VK_ACCESS_2_NONE);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, select.pipeline);
    Descriptors d;
    d.buffer(0, f.uniforms, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER).buffer(1, f.scene.draws).buffer(2, level_indirect).buffer(3, f.counters);
    d.push(cmd, select);
    struct {
        uint32_t draw_count;
        float lod_max_error_px;
    } push{draw_count, f.plan.lod ? kLodMaxErrorPixels : 0.0f};
    vkCmdPushConstants(cmd, select.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(push), &push);
    vkCmdDispatch(cmd, (draw_count + kSelectGroupSize - 1) / kSelectGroupSize, 1, 1);
    // The scene passes read the commands; the per-level counters are read as the cull pass's are.
    memory_barrier(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                   VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT | VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT |
                       VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
                   VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_READ_BIT |
                       VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    end_label(f.ctx, cmd);
    f.draw_indices = &f.scene.indices;
    f.draw_indirect = &level_indirect;
}

void CullPass::record_phase(FrameContext& f, uint32_t occlusion_phase) {
    const Variant variant = f.plan[PassId::cull].variant;
    // With --geometry meshlet the cull variant is the task and mesh shaders' (MeshletPass).
    if (f.plan.geometry == Geometry::meshlet || draw_count == 0) return;
    if (variant == Variant::off) {
        if (occlusion_phase != 2) record_select(f);
        return;
    }
    if (chunk_count == 0) return;
    const bool use_subgroup = variant == Variant::subgroup;
    if (use_subgroup && !subgroup.pipeline)
        throw std::runtime_error("cull: the subgroup variant was planned but the device cannot run it");
    const Pipeline& pipeline = use_subgroup ? subgroup : fallback;
    VkCommandBuffer cmd = f.cmd;

    // Phase 2 is timed with its depth draw (Timer::late_depth, by the renderer).
    const bool timed = occlusion_phase != 2;
    begin_label(f.ctx, cmd, debug_label(PassId::cull, variant, occlusion_phase ? (occlusion_phase == 1 ? "occlusion phase 1" : "occlusion phase 2") : ""));
    if (timed) f.timer.begin(cmd, Timer::cull);

    // Earlier draws read the culled indices and the indirect commands: wait for them before
    // rewriting (write-after-read needs only the execution dependency). The look-back state and
    // the counters that the last dispatch wrote are made visible by the barrier at its end.
    memory_barrier(cmd, VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT | VK_PIPELINE_STAGE_2_INDEX_INPUT_BIT,
                   VK_ACCESS_2_NONE, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_NONE);

    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.pipeline);
    Descriptors d;
    d.buffer(0, f.uniforms, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER)
        .buffer(1, f.scene.draws)
        .buffer(2, f.scene.vertices)
        .buffer(3, f.scene.indices)
        .buffer(4, chunks)
        .buffer(5, lookback)
        .buffer(6, culled_indices)
        .buffer(7, indirect)
        .buffer(8, f.counters)
        .buffer(9, f.pyramid ? *f.pyramid : no_pyramid);
    d.push(cmd, pipeline);
    CullParams params = make_cull_params(f.targets.extent.width, f.targets.extent.height,
                                         f.ctx.properties.limits.subPixelPrecisionBits);
    CullPush push{chunk_count,     params.snap_px,       params.frustum_eps, f.plan.lod ? kLodMaxErrorPixels : 0.0f,
                  occlusion_phase, schedule.spin_limit, schedule.late_group};
    vkCmdPushConstants(cmd, pipeline.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(push), &push);
    vkCmdDispatch(cmd, grid.width, grid.height, 1);

    // The scene passes read the indirect commands and indices; the counters are read by later
    // compute passes and by the debug views' fragment shaders; the next cull dispatch reads and
    // writes the look-back state and the counters.
    memory_barrier(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                   VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT | VK_PIPELINE_STAGE_2_INDEX_INPUT_BIT |
                       VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
                   VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT | VK_ACCESS_2_INDEX_READ_BIT |
                       VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);

    if (timed) f.timer.end(cmd, Timer::cull);
    end_label(f.ctx, cmd);

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
    const uint64_t group_size = std::max(1u, q.cull_group_size), indirect = kIndirectStride;
    const uint64_t draws = q.scene.instances.size();
    uint64_t drawn_indices = 0, chunks = 0;
    for (const MeshInstance& instance : q.scene.instances) {
        const Mesh& mesh = q.scene.meshes[instance.mesh];
        drawn_indices += mesh.index_count;  // level 0, the largest
        chunks += (mesh.index_count / 3 + group_size - 1) / group_size;
        for (uint32_t level = 1; level < mesh.lod_count; ++level)
            chunks += (mesh.lods[level].index_count / 3 + group_size - 1) / group_size;
    }
    // The compacted index buffer holds every drawn triangle in the worst case.
    const uint64_t index_bytes = std::max<uint64_t>(1, drawn_indices) * sizeof(uint32_t);
    out.push_back({"culled indices", index_bytes, AllocationKind::storage_buffer, false});
    out.push_back({"culled indirect", std::max<uint64_t>(1, draws) * indirect, AllocationKind::storage_buffer, false});
    out.push_back({"level indirect", std::max<uint64_t>(1, draws) * indirect, AllocationKind::storage_buffer, false});
    out.push_back({"cull chunks", chunks * 16, AllocationKind::storage_buffer});
    out.push_back({"cull look-back state", (chunks + 1) * 4, AllocationKind::storage_buffer, false});
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
