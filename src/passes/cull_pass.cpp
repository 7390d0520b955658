#include "passes/cull_pass.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "render/text_format.h"

namespace {

// Bindings of shaders/cull.comp and shaders/cull_count.comp.
const LayoutDesc kCullLayout = {{VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                 VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                 VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                 VK_DESCRIPTOR_TYPE_STORAGE_BUFFER},
                                VK_SHADER_STAGE_COMPUTE_BIT, 12};
const LayoutDesc kCountLayout = {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER},
                                 VK_SHADER_STAGE_COMPUTE_BIT, 4};
constexpr uint32_t kCountGroupSize = 64;  // local_size_x of cull_count.comp

struct CullPush {
    uint32_t chunk_count;
    float snap_px;
    float frustum_eps;
};
static_assert(sizeof(CullPush) == 12);

constexpr uint32_t kIndirectStride = sizeof(VkDrawIndexedIndirectCommand);

}  // namespace

std::vector<glm::uvec2> build_cull_chunks(const std::vector<GpuDraw>& draws, uint32_t group_size) {
    std::vector<glm::uvec2> chunks;
    for (uint32_t d = 0; d < draws.size(); ++d)
        for (uint32_t first = 0; first < draws[d].index_count / 3; first += group_size) chunks.push_back({d, first});
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
        uint64_t draw_bytes = 64 + 12                       // model matrix, first_index, index_count, out_first
                              + kIndirectStride + 4;        // template copy, and the count step's indexCount
        t.bytes_read += mesh_bytes + draw_bytes;
        t.unique_bytes_read += (first_use ? mesh_bytes : 0) + draw_bytes;
        t.bytes_written += kIndirectStride;                 // template copy
        chunks += (d.index_count / 3 + group_size - 1) / group_size;
    }
    t.bytes_read += chunks * sizeof(glm::uvec2);
    t.unique_bytes_read += chunks * sizeof(glm::uvec2);
    t.bytes_written += triangles_visible * 12;  // surviving indices
    return t;
}

void CullPass::create(const Context& ctx, const GpuScene& scene, uint32_t size) {
    group_size = size;
    draw_count = scene.draw_count;

    // Neither variant relies on full subgroups or on a particular subgroup size, so the pipelines
    // ask for neither (no REQUIRE_FULL_SUBGROUPS, no required size): the subgroup scan works over
    // whatever invocations are active (partial subgroups included), and the fallback uses no
    // subgroup operations at all. Requiring full subgroups would only forbid workgroup sizes
    // that are not a multiple of the subgroup size, which are legal and tested.
    ComputeDesc desc;
    desc.layout = kCullLayout;
    desc.specialization = {group_size};  // local_size_x_id = 0
    desc.forced_subgroup_size = true;    // --subgroup-size
    if (subgroup_path_possible(ctx, PassId::cull)) {
        desc.shader = "cull.comp.subgroup";
        subgroup = create_compute_pipeline(ctx, desc);
    }
    desc.shader = "cull.comp.fallback";
    fallback = create_compute_pipeline(ctx, desc);
    ComputeDesc count_desc;
    count_desc.shader = "cull_count.comp.plain";
    count_desc.layout = kCountLayout;
    count = create_compute_pipeline(ctx, count_desc);

    std::vector<glm::uvec2> table = build_cull_chunks(scene.cpu_draws, group_size);
    chunk_count = uint32_t(table.size());
    chunks = create_buffer_with_data(ctx, table.data(), table.size() * sizeof(glm::uvec2),
                                     VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, "cull chunks");
    const uint32_t* max_groups = ctx.properties.limits.maxComputeWorkGroupCount;
    grid.width = std::max(1u, std::min(chunk_count, max_groups[0]));
    grid.height = (chunk_count + grid.width - 1) / grid.width;
    if (grid.height > max_groups[1])
        throw std::runtime_error("the scene needs " + std::to_string(chunk_count) +
                                 " cull workgroups, more than the device can dispatch; use a smaller --instances");

    culled_indices = create_buffer(ctx, std::max<VkDeviceSize>(1, scene.culled_index_capacity) * sizeof(uint32_t),
                                   VK_BUFFER_USAGE_INDEX_BUFFER_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                       VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                   MemoryKind::device_local, "culled indices");
    indirect = create_buffer(ctx, VkDeviceSize(std::max(1u, draw_count)) * kIndirectStride,
                             VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                 VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                             MemoryKind::device_local, "culled indirect");
}

void CullPass::record(FrameContext& f) {
    const Variant variant = f.plan[PassId::cull].variant;
    // With --geometry meshlet the cull variant is the task and mesh shaders' (MeshletPass).
    if (variant == Variant::off || chunk_count == 0 || f.plan.geometry == Geometry::meshlet) return;
    const bool use_subgroup = variant == Variant::subgroup;
    if (use_subgroup && !subgroup.pipeline)
        throw std::runtime_error("cull: the subgroup variant was planned but the device cannot run it");
    const Pipeline& pipeline = use_subgroup ? subgroup : fallback;
    VkCommandBuffer cmd = f.cmd;

    begin_label(f.ctx, cmd, debug_label(PassId::cull, variant));
    f.timer.begin(cmd, Timer::cull);

    // Earlier frames' draws and count step read these buffers; wait for them before rewriting
    // (write-after-read needs only the execution dependency).
    memory_barrier(cmd,
                   VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT | VK_PIPELINE_STAGE_2_INDEX_INPUT_BIT |
                       VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                   VK_ACCESS_2_NONE, VK_PIPELINE_STAGE_2_COPY_BIT | VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                   VK_ACCESS_2_NONE);
    // Every command starts from indexCount 0, firstIndex = out_first, firstInstance = draw.
    VkBufferCopy region{0, 0, VkDeviceSize(draw_count) * kIndirectStride};
    vkCmdCopyBuffer(cmd, f.scene.indirect_template.buffer, indirect.buffer, 1, &region);
    memory_barrier(cmd, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                   VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);

    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.pipeline);
    Descriptors d;
    d.buffer(0, f.uniforms, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER)
        .buffer(1, f.scene.draws)
        .buffer(2, f.scene.vertices)
        .buffer(3, f.scene.indices)
        .buffer(4, chunks)
        .buffer(5, culled_indices)
        .buffer(6, indirect);
    d.push(cmd, pipeline);
    CullParams params = make_cull_params(f.targets.extent.width, f.targets.extent.height,
                                         f.ctx.properties.limits.subPixelPrecisionBits);
    CullPush push{chunk_count, params.snap_px, params.frustum_eps};
    vkCmdPushConstants(cmd, pipeline.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(push), &push);
    vkCmdDispatch(cmd, grid.width, grid.height, 1);

    // The count step reads the indirect commands as storage; the scene passes read both
    // buffers as indirect commands and indices.
    memory_barrier(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                   VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT |
                       VK_PIPELINE_STAGE_2_INDEX_INPUT_BIT,
                   VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT |
                       VK_ACCESS_2_INDEX_READ_BIT);

    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, count.pipeline);
    Descriptors c;
    c.buffer(0, indirect).buffer(1, f.counters);
    c.push(cmd, count);
    uint32_t draws = draw_count;
    vkCmdPushConstants(cmd, count.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(draws), &draws);
    uint32_t count_groups = std::min((draw_count + kCountGroupSize - 1) / kCountGroupSize,
                                     f.ctx.properties.limits.maxComputeWorkGroupCount[0]);
    vkCmdDispatch(cmd, std::max(1u, count_groups), 1, 1);

    f.timer.end(cmd, Timer::cull);
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
    counters["meshlets_in"] = meshlet ? nlohmann::json(c.frame.meshlets_in) : nlohmann::json(nullptr);
    counters["meshlets_visible"] = meshlet ? nlohmann::json(c.frame.meshlets_visible) : nlohmann::json(nullptr);
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
    return line;
}

void cull_frame_allocations(const AllocationQuery& q, std::vector<PlannedAllocation>& out) {
    const uint64_t group_size = std::max(1u, q.cull_group_size), indirect = kIndirectStride;
    const uint64_t draws = q.scene.instances.size();
    uint64_t drawn_indices = 0, chunks = 0;
    for (const MeshInstance& instance : q.scene.instances) {
        uint64_t indices = q.scene.meshes[instance.mesh].index_count;
        drawn_indices += indices;
        chunks += (indices / 3 + group_size - 1) / group_size;
    }
    // The compacted index buffer holds every drawn triangle in the worst case.
    out.push_back({"culled indices", std::max<uint64_t>(1, drawn_indices) * sizeof(uint32_t), AllocationKind::storage_buffer, false});
    out.push_back({"culled indirect", std::max<uint64_t>(1, draws) * indirect, AllocationKind::storage_buffer, false});
    out.push_back({"cull chunks", chunks * 8, AllocationKind::storage_buffer});
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
