#include "passes/meshlet_raster.h"

#include "passes/meshlet_pass.h"
#include "passes/occlusion_pass.h"  // occlusion_culls
#include "render/cull_reference.h"  // make_cull_params
#include "scene/lod.h"              // kLodMaxErrorPixels

#include <stdexcept>
#include <vector>

namespace {

// meshlet_raster_list.glsl's header: two dispatches, the chunk count, this phase's first chunk, the
// triangle tests' tolerances, the occlusion phase and whether the triangles are tested.
struct ListHeader {
    uint32_t dispatch_new[3];
    uint32_t chunk_count;
    uint32_t dispatch_all[3];
    uint32_t first_new;
    float snap_px, frustum_eps;
    uint32_t phase;
    uint32_t test_triangles;
};
static_assert(sizeof(ListHeader) == 48 && offsetof(ListHeader, dispatch_all) == kMeshletRasterAllChunks);


}  // namespace

VkDeviceSize meshlet_raster_list_bytes(const std::vector<TaskChunk>& task_chunks, const Meshlets& meshlets) {
    VkDeviceSize chunks = 0;
    for (const TaskChunk& c : task_chunks)
        for (uint32_t i = 0; i < c.count; ++i)
            chunks += (meshlets.meshlets[c.first_meshlet + i].triangle_count + kMeshletRasterChunkTriangles - 1) /
                      kMeshletRasterChunkTriangles;
    return sizeof(ListHeader) + 8 * std::max<VkDeviceSize>(1, chunks);
}

void MeshletRaster::create(const Context& ctx, const MeshletPass& meshlets, bool alpha_masked) {
    if (list.buffer) return;
    // As the task shader's: every variant from one SPIR-V (USE_SUBGROUP, CULL_OFF) where a plan of
    // this run can pick the subgroup culling (masks count), else the fallback twin.
    const bool cull_possible = pass_missing(ctx.subgroup, ctx.features, PassId::cull, Geometry::meshlet).empty();
    const char* cull_shader = cull_possible ? "meshlet_raster_cull.comp.switch" : "meshlet_raster_cull.comp.no_subgroup";
    if (cull_possible) cull[size_t(Variant::subgroup)] = create_compute_pipeline(ctx, {.shader = cull_shader, .use_subgroup = true});
    cull[size_t(Variant::fallback)] = create_compute_pipeline(ctx, {.shader = cull_shader});
    cull[size_t(Variant::off)] = create_compute_pipeline(ctx, {.shader = cull_shader, .specialization = {1}});  // CULL_OFF
    args = create_compute_pipeline(ctx, {.shader = "meshlet_raster_args.comp.main"});
    pipelines = create_raster_pipelines(ctx, true, alpha_masked);

    task_chunks = uint32_t(meshlets.task_chunks().size());
    const uint32_t* max_groups = ctx.properties.limits.maxComputeWorkGroupCount;
    grid.width = std::max(1u, std::min(task_chunks, max_groups[0]));
    grid.height = (task_chunks + grid.width - 1) / grid.width;
    if (grid.height > max_groups[1])
        throw UnsupportedRequest("--geometry meshlet --raster compute: the scene needs " + std::to_string(task_chunks) +
                                 " culling workgroups, more than the device dispatches; use a smaller --instances");
    list = create_buffer(ctx, meshlet_raster_list_bytes(meshlets.task_chunks(), meshlets.meshlets()),
                         VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                             VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                         MemoryKind::device_local, "meshlet raster chunks");
}

void MeshletRaster::record_header(FrameContext& f, bool late) const {
    if (late) {
        // The late phase appends: its first chunk is phase 1's count.
        VkBufferCopy count{offsetof(ListHeader, chunk_count), offsetof(ListHeader, first_new), 4};
        vkCmdCopyBuffer(f.cmd, list.buffer, list.buffer, 1, &count);
        const uint32_t phase = 2;
        vkCmdUpdateBuffer(f.cmd, list.buffer, offsetof(ListHeader, phase), 4, &phase);
        return;
    }
    CullParams params = make_cull_params(f.targets.extent.width, f.targets.extent.height, f.ctx.properties.limits.subPixelPrecisionBits);
    const bool test = f.plan[PassId::cull].variant != Variant::off;
    const uint32_t phase = occlusion_culls(f) && f.pyramid && !f.cull_frozen ? 1u : 0u;
    if (f.cull_frozen) {
        // The last list again, all of it: from its first chunk, nothing counted as re-admitted.
        const uint32_t from_first[1] = {0};
        vkCmdUpdateBuffer(f.cmd, list.buffer, offsetof(ListHeader, first_new), 4, from_first);
        vkCmdUpdateBuffer(f.cmd, list.buffer, offsetof(ListHeader, phase), 4, &phase);
        return;
    }
    ListHeader header{{0, 0, 1}, 0, {0, 0, 1}, 0, params.snap_px, params.frustum_eps, phase, test ? 1u : 0u};
    vkCmdUpdateBuffer(f.cmd, list.buffer, 0, sizeof(header), &header);
}

void MeshletRaster::record_cull(FrameContext& f, bool late, Descriptors& d) const {
    if (!f.cull_frozen) {
        Variant variant = f.plan[PassId::cull].variant;
        // The late phase tests with the plan's variant, or the fallback's (as the task shader's late draw).
        Variant v = variant == Variant::subgroup ? variant : late || variant == Variant::fallback ? Variant::fallback : Variant::off;
        const Pipeline& p = cull[size_t(v)];
        if (!p) throw std::runtime_error("meshlet: the subgroup variant was planned but the device cannot run it");
        // As the task shader: the meshlet path's visible list, masks and counters, the pyramid read;
        // the kept meshlets' chunks appended. The late phase over meshlet_late_list.comp's list
        // (Res::meshlet_lists), dispatched from its header.
        const VkPipelineStageFlags2 indirect = late ? VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT : VK_PIPELINE_STAGE_2_NONE;
        std::vector<Use> uses = {
            writes(Res::meshlet_chunks, kComputeStage, kStorageReadWrite),
            writes(Res::meshlet_lists, indirect | kComputeStage, (late ? VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT : 0) | kStorageReadWrite),
            writes(Res::counters, kComputeStage, kStorageReadWrite)};
        if (f.pyramid) uses.push_back(reads(Res::pyramid, kComputeStage, kStorageRead));
        f.graph().pass(f.cmd, uses);
        vkCmdBindPipeline(f.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p.handle());
        d.push(f.cmd, p);
        CullParams params = make_cull_params(f.targets.extent.width, f.targets.extent.height,
                                             f.ctx.properties.limits.subPixelPrecisionBits);
        const uint32_t phase = late ? 2u : occlusion_culls(f) && f.pyramid ? 1u : 0u;
        MeshletPush push{task_chunks, params.snap_px, params.frustum_eps, 0u, f.plan.lod ? kLodMaxErrorPixels : 0.0f, phase};
        push_constants(f.cmd, p, &push, sizeof(push));
        if (late)
            vkCmdDispatchIndirect(f.cmd, f.meshlets->late_list_buffer().buffer, 0);  // 32 late-list entries a workgroup
        else if (task_chunks)
            dispatch(f.ctx, f.cmd, grid.width, grid.height);  // a workgroup per task chunk
    }
    // This phase's chunks and the frame's as raster.comp's indirect dispatches (which it declares).
    f.graph().pass(f.cmd, {writes(Res::meshlet_chunks, kComputeStage, kStorageReadWrite)});
    vkCmdBindPipeline(f.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, args.handle());
    Descriptors().buffer(0, list).push(f.cmd, args);
    const uint32_t max_groups_x = f.ctx.properties.limits.maxComputeWorkGroupCount[0];
    push_constants(f.cmd, args, &max_groups_x, sizeof(max_groups_x));
    dispatch(f.ctx, f.cmd, 1, 1);
}
