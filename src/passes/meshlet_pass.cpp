#include "passes/meshlet_pass.h"

#include "scene/lod.h"

#include <cstring>
#include <stdexcept>

#include "passes/occlusion_pass.h"
#include "vk/fault_injection.h"
#include "passes/scene_bindings.h"
#include "render/cull_reference.h"

namespace {

constexpr uint32_t kCaptureStride = 128;  // capture words per visible entry (>= kMeshletMaxTriangles)
constexpr VkDeviceSize kListEntry = 32;   // VisibleMeshlet
constexpr uint32_t kMeshletsPerTask = 32; // meshlets per task chunk, visible-list entries per chunk

// The depth pre-pass's task and mesh shaders by cull variant: meshlet_cull.task's and .mesh's
// switches (USE_SUBGROUP, which the subgroup pipeline sets; CULL_OFF, which the `off` pipeline
// sets) where a plan of this run can pick the subgroup culling (`possible`: masks count), else
// their fallback twins. The mesh shader's `alpha` also feeds depth_alpha.frag (scenes with
// alphaMode MASK materials), its `ids` visibility.frag.meshlet (--shading visibility).
// `fallback_stage` (diagnosis only, meshlet_fallback_stage()): the subgroup pipeline's stage that
// takes its twin.
std::pair<std::string, std::string> depth_shaders(Variant v, bool possible, bool alpha, bool ids, const std::string& fallback_stage) {
    const std::string mesh_variant = std::string(alpha ? "alpha_" : "") + (ids ? "ids_" : "");
    auto module = [&](const std::string& stage) {
        return !possible || (v == Variant::subgroup && fallback_stage == stage) ? "no_subgroup" : "switch";
    };
    return {"meshlet_cull.task." + std::string(module("task")), "meshlet_cull.mesh." + mesh_variant + module("mesh")};
}

}  // namespace

std::vector<TaskChunk> build_task_chunks(const Scene& scene, const Meshlets& meshlets) {
    std::vector<TaskChunk> chunks;
    for (uint32_t d = 0; d < scene.instances.size(); ++d) {
        const MeshInstance& instance = scene.instances[d];
        uint32_t cone = is_similarity(instance.transform) ? kTaskChunkCone : 0u;
        uint32_t level_count = std::max(1u, scene.meshes[instance.mesh].lod_count);
        for (uint32_t level = 0; level < level_count; ++level) {
            const MeshletRange& range = meshlets.levels[size_t(instance.mesh) * kMaxLodLevels + level];
            uint32_t flags = cone | level << kTaskChunkLevelShift;
            for (uint32_t first = 0; first < range.count; first += kMeshletsPerTask)
                chunks.push_back({d, range.first + first, std::min(kMeshletsPerTask, range.count - first),
                                  flags | (first == 0 ? kTaskChunkFirstOfLevel : 0u)});
        }
    }
    return chunks;
}

void meshlet_frame_allocations(const Scene& scene, bool capture, std::vector<PlannedAllocation>& out) {
    using K = AllocationKind;
    const Meshlets& m = scene_meshlets(scene);
    const uint64_t chunks = build_task_chunks(scene, m).size();
    const uint64_t list_entries = std::max<uint64_t>(1, chunks) * kMeshletsPerTask;
    auto uploaded = [](uint64_t bytes) { return std::max<uint64_t>(bytes, 4); };  // create()'s upload
    out.push_back({"meshlets", uploaded(m.meshlets.size() * sizeof(Meshlet)), K::storage_buffer});
    out.push_back({"meshlet positions", uploaded(m.vertices.size() * 3 * sizeof(float)), K::storage_buffer});
    out.push_back({"meshlet attributes", uploaded(m.vertices.size() * 11 * sizeof(float)), K::storage_buffer});
    out.push_back({"meshlet triangles", uploaded(m.triangles.size() * sizeof(uint32_t)), K::storage_buffer});
    out.push_back({"meshlet task chunks", uploaded(chunks * sizeof(TaskChunk)), K::storage_buffer});
    out.push_back({"meshlet visible list", kListEntry * list_entries, K::storage_buffer, false});
    out.push_back({"meshlet late list", 16 + 4 * list_entries, K::storage_buffer, false});
    out.push_back({"meshlet no pyramid", 16, K::storage_buffer, false});
    out.push_back({"meshlet capture", capture ? 4 * kCaptureStride * list_entries : 4, K::storage_buffer, false});
}

void MeshletPass::create(const Context& ctx, const Scene& scene, const GpuScene& gpu, bool capture,
                         ForwardTestOutput test_output) {
    ctx_ = &ctx;
    alpha_masked_ = gpu.alpha_masked;
    const VkPhysicalDeviceMeshShaderPropertiesEXT& mp = ctx.mesh_properties;
    // The shaders declare 64 vertices, 124 primitives, 32 invocations; the device must allow them.
    if (mp.maxMeshOutputVertices < kMeshletMaxVertices || mp.maxMeshOutputPrimitives < kMeshletMaxTriangles ||
        mp.maxMeshWorkGroupInvocations < 32 || mp.maxTaskWorkGroupInvocations < 32)
        throw UnsupportedRequest("--geometry meshlet: the device's mesh shaders output at most " +
                                 std::to_string(mp.maxMeshOutputVertices) + " vertices and " +
                                 std::to_string(mp.maxMeshOutputPrimitives) + " primitives; the meshlet path needs " +
                                 std::to_string(kMeshletMaxVertices) + " and " + std::to_string(kMeshletMaxTriangles));
    meshlets_ = scene_meshlets(scene);  // built by the memory plan where it counted them
    chunks_cpu_ = build_task_chunks(scene, meshlets_);
    chunk_count_ = uint32_t(chunks_cpu_.size());
    for (const TaskChunk& c : chunks_cpu_)
        if (c.flags >> kTaskChunkLevelShift == 0) instances_ += c.count;
    // A 2D grid of task workgroups where one dimension cannot hold them all.
    grid_.width = std::max(1u, std::min(chunk_count_, mp.maxTaskWorkGroupCount[0]));
    grid_.height = (chunk_count_ + grid_.width - 1) / grid_.width;
    if (grid_.height > mp.maxTaskWorkGroupCount[1] || uint64_t(grid_.width) * grid_.height > mp.maxTaskWorkGroupTotalCount)
        throw UnsupportedRequest("--geometry meshlet: the scene needs " + std::to_string(chunk_count_) +
                                 " task workgroups, more than the device launches in one draw; use a smaller --instances");

    // Per meshlet vertex, in meshlet order: positions (what the pre-pass reads, 12 bytes) and the
    // rest of the vertex (forward), so each meshlet's vertices are one contiguous read.
    std::vector<float> positions, attributes;
    positions.reserve(meshlets_.vertices.size() * 3);
    // kMeshletAttributes (meshlet.glsl): normal, uv, then the material stream's tangent and TEXCOORD_1.
    attributes.reserve(meshlets_.vertices.size() * 11);
    const bool has_materials = scene.vertex_materials.size() == scene.vertices.size();
    for (uint32_t index : meshlets_.vertices) {
        const Vertex& v = scene.vertices[index];
        VertexMaterial m = has_materials ? scene.vertex_materials[index] : VertexMaterial{};
        positions.insert(positions.end(), {v.position.x, v.position.y, v.position.z});
        attributes.insert(attributes.end(), {v.normal.x, v.normal.y, v.normal.z, v.uv.x, v.uv.y, m.tangent.x, m.tangent.y,
                                             m.tangent.z, m.tangent.w, m.uv1.x, m.uv1.y});
    }
    const VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    auto upload = [&](const auto& data, const char* name) {
        size_t bytes = data.size() * sizeof(data[0]);
        return create_buffer_with_data(ctx, data.data(), std::max<size_t>(bytes, 4), storage, name);
    };
    meshlet_buffer_ = upload(meshlets_.meshlets, "meshlets");
    positions_ = upload(positions, "meshlet positions");
    attributes_ = upload(attributes, "meshlet attributes");
    triangles_ = upload(meshlets_.triangles, "meshlet triangles");
    chunks_ = upload(chunks_cpu_, "meshlet task chunks");
    // The visible list: a fixed stretch of 32 entries per chunk (shaders/meshlet.glsl). Zeroed
    // once, so that every chunk reads as "kept nothing" until a pre-pass has written it.
    const VkDeviceSize list_entries = VkDeviceSize(std::max(1u, chunk_count_)) * kMeshletsPerTask;
    visible_ = create_buffer(ctx, kListEntry * list_entries, storage | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                                                                 VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                             MemoryKind::device_local, "meshlet visible list");
    VkCommandBuffer cmd = begin_one_shot(ctx);
    vkCmdFillBuffer(cmd, visible_.buffer, 0, VK_WHOLE_SIZE, 0);
    end_one_shot(ctx, cmd);
    // Occlusion phase 2's list: the indirect command and count (16 bytes), then one entry per meshlet
    // at most. Zeroed once: before any phase 1 it launches nothing.
    late_list_ = create_buffer(ctx, 16 + 4 * list_entries,
                               storage | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                               MemoryKind::device_local, "meshlet late list");
    no_pyramid_ = create_buffer(ctx, 16, storage, MemoryKind::device_local, "meshlet no pyramid");
    cmd = begin_one_shot(ctx);
    vkCmdFillBuffer(cmd, late_list_.buffer, 0, VK_WHOLE_SIZE, 0);
    end_one_shot(ctx, cmd);
    capture_enabled_ = capture;
    capture_ = create_buffer(ctx, capture ? 4 * kCaptureStride * list_entries : 4,
                             storage | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                             MemoryKind::device_local, "meshlet capture");

    // The depth pre-pass: the scene's bindings, then the meshlet path's; no fragment shader.
    // --shading visibility's (`ids`): the same with the visibility image, which the mesh shader's
    // per-primitive triangle names (its `ids_` variants) fill through visibility.frag.meshlet.
    // (Pipelines compile on first use: a run compiles only the ones it binds.)
    GraphicsDesc d = depth_desc(false), ids = depth_desc(true);
    const char* ids_fragment = gpu.alpha_masked ? "visibility.frag.meshlet_alpha" : "visibility.frag.meshlet";
    // As the other units: the subgroup pipelines where a plan of this run can pick them (masks count).
    bool subgroup = pass_missing(ctx.subgroup, ctx.features, PassId::cull, Geometry::meshlet).empty();
    const std::string fallback_stage = meshlet_fallback_stage();
    for (Variant v : {Variant::subgroup, Variant::fallback, Variant::off}) {
        if (v == Variant::subgroup && !subgroup) continue;
        auto [task, mesh] = depth_shaders(v, subgroup, gpu.alpha_masked, false, fallback_stage);
        d.shaders = {{VK_SHADER_STAGE_TASK_BIT_EXT, task}, {VK_SHADER_STAGE_MESH_BIT_EXT, mesh}};
        d.use_subgroup = ids.use_subgroup = v == Variant::subgroup;
        d.specialization = ids.specialization = {v == Variant::off ? 1u : 0u};  // CULL_OFF (meshlet_push.glsl)
        // As the indexed pre-pass (ScenePass::create): masked materials' holes are discarded.
        if (gpu.alpha_masked) d.shaders.push_back({VK_SHADER_STAGE_FRAGMENT_BIT, "depth_alpha.frag.main"});
        depth_[size_t(v)] = create_graphics_pipeline(ctx, d);
        ids.shaders = {{VK_SHADER_STAGE_TASK_BIT_EXT, task},
                       {VK_SHADER_STAGE_MESH_BIT_EXT, depth_shaders(v, subgroup, gpu.alpha_masked, true, fallback_stage).second},
                       {VK_SHADER_STAGE_FRAGMENT_BIT, ids_fragment}};
        ids_[size_t(v)] = create_graphics_pipeline(ctx, ids);
    }
    // Culling frozen: forward's task and mesh shaders draw the last list into depth. Their positions
    // are forward's, bit for bit, so forward's EQUAL test holds. (ids: meshlet_forward.mesh.ids
    // names the triangles as the pre-pass's mesh shader does.)
    d.shaders = {{VK_SHADER_STAGE_TASK_BIT_EXT, "meshlet_forward.task.main"}, {VK_SHADER_STAGE_MESH_BIT_EXT, "meshlet_forward.mesh.main"}};
    if (gpu.alpha_masked) d.shaders.push_back({VK_SHADER_STAGE_FRAGMENT_BIT, "depth_alpha.frag.main"});
    depth_frozen_ = create_graphics_pipeline(ctx, d);
    ids.shaders = {{VK_SHADER_STAGE_TASK_BIT_EXT, "meshlet_forward.task.main"},
                   {VK_SHADER_STAGE_MESH_BIT_EXT, "meshlet_forward.mesh.ids"},
                   {VK_SHADER_STAGE_FRAGMENT_BIT, ids_fragment}};
    ids_frozen_ = create_graphics_pipeline(ctx, ids);
    // Occlusion's late list: both paths from one SPIR-V (USE_SUBGROUP), or the fallback twin.
    const char* late_list = subgroup ? "meshlet_late_list.comp.switch" : "meshlet_late_list.comp.no_subgroup";
    if (subgroup)
        late_list_pipelines_[0] = create_compute_pipeline(ctx, {.shader = late_list, .use_subgroup = true});
    late_list_pipelines_[1] = create_compute_pipeline(ctx, {.shader = late_list});

    // Forward: forward.frag exactly as the indexed path runs it, fed by the list.
    for (int mip = 0; mip < 2; ++mip)
        for (int loop = 0; loop < 2; ++loop) {
            std::string fragment = forward_fragment_shader(ctx, mip, loop);
            if (fragment.empty()) continue;
            GraphicsDesc fwd = forward_pipeline_desc();
            fwd.vertex_attributes = 0;
            fwd.shaders = {{VK_SHADER_STAGE_TASK_BIT_EXT, "meshlet_forward.task.main"},
                           {VK_SHADER_STAGE_MESH_BIT_EXT, "meshlet_forward.mesh.main"},
                           {VK_SHADER_STAGE_FRAGMENT_BIT, fragment}};
            forward_[mip][loop] = create_graphics_pipeline(ctx, fwd);
        }
    // Tests only: forward.frag.meshlet_ids writes the name meshlet_forward.mesh.ids gives each
    // triangle, the visibility image's (gl_PrimitiveID means nothing here: no mesh shader sets it).
    if (test_output != ForwardTestOutput::colour) {
        bool ids = test_output == ForwardTestOutput::ids;
        GraphicsDesc test = forward_pipeline_desc();
        test.vertex_attributes = 0;
        test.shaders = {{VK_SHADER_STAGE_TASK_BIT_EXT, "meshlet_forward.task.main"},
                        {VK_SHADER_STAGE_MESH_BIT_EXT, ids ? "meshlet_forward.mesh.ids" : "meshlet_forward.mesh.main"},
                        {VK_SHADER_STAGE_FRAGMENT_BIT, ids ? "forward.frag.meshlet_ids" : "forward.frag.derivatives"}};
        forward_test_ = create_graphics_pipeline(ctx, test);
    }
}

GraphicsDesc MeshletPass::depth_desc(bool ids) const {
    GraphicsDesc d;
    // (The layout: the shaders', depth_alpha.frag's too where a material is masked.)
    d.depth_format = kDepthFormat;
    d.depth_compare = VK_COMPARE_OP_GREATER;  // reversed Z, as the indexed pre-pass
    d.vertex_attributes = 0;
    if (ids) {
        // As the indexed path's (ScenePass::create): of the fragments at a pixel's final depth the
        // last drawn keeps its id, as forward's EQUAL test keeps the last one's colour. The depth
        // written is the same as GREATER's.
        d.color_formats = {kVisibilityFormat};
        d.depth_compare = VK_COMPARE_OP_GREATER_OR_EQUAL;
    }
    return d;
}

void MeshletPass::push_bindings(const FrameContext& f, Descriptors& d, uint32_t first) const {
    d.buffer(first, meshlet_buffer_)
        .buffer(first + 1, positions_)
        .buffer(first + 2, attributes_)
        .buffer(first + 3, triangles_)
        .buffer(first + 4, chunks_)
        .buffer(first + 5, visible_)
        .buffer(first + kMeshletCountersOffset, f.counters)
        .buffer(first + 7, capture_)
        .buffer(first + 8, f.pyramid ? *f.pyramid : no_pyramid_)
        .buffer(first + 9, late_list_);
}

void MeshletPass::record_reset(FrameContext& f) {
    // The list needs no clearing (every task workgroup rewrites its chunk's count); the capture
    // does: slots no primitive was written to read as "no triangle" (read_drawn_indices refuses them).
    if (!capture_enabled_) return;
    f.graph().pass(f.cmd, {writes(Res::meshlet_lists, kTransferStage, VK_ACCESS_2_TRANSFER_WRITE_BIT)});
    vkCmdFillBuffer(f.cmd, capture_.buffer, 0, VK_WHOLE_SIZE, ~0u);
}

void MeshletPass::bind_depth(FrameContext& f, const Pipeline& p, uint32_t flags, uint32_t occlusion_phase) {
    if (!p) throw std::runtime_error("meshlet: the subgroup variant was planned but the device cannot run it");
    vkCmdBindPipeline(f.cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, p.handle());
    Descriptors d = scene_descriptors(f);
    push_bindings(f, d);
    d.push(f.cmd, p);
    CullParams params = make_cull_params(f.targets.extent.width, f.targets.extent.height,
                                         f.ctx.properties.limits.subPixelPrecisionBits);
    MeshletPush push{chunk_count_, params.snap_px, params.frustum_eps, flags, f.plan.lod ? kLodMaxErrorPixels : 0.0f,
                     occlusion_phase};
    push_constants(f.cmd, p, &push, sizeof(push));
}

void MeshletPass::record_depth(FrameContext& f, bool record, bool ids) {
    Variant variant = f.plan[PassId::cull].variant;
    Variant v = variant == Variant::subgroup || variant == Variant::fallback ? variant : Variant::off;
    const Pipeline& p = (ids ? ids_ : depth_)[size_t(v)];
    uint32_t occlusion = record && occlusion_culls(f) && f.pyramid ? 1u : 0u;
    bind_depth(f, p, !record ? 2u : capture_enabled_ ? 1u : 0u, occlusion);
    if (chunk_count_) vkCmdDrawMeshTasks_(f.cmd, grid_.width, grid_.height, 1);
}

void MeshletPass::record_late_list(FrameContext& f) {
    Variant variant = f.plan[PassId::cull].variant;
    const Pipeline& p = late_list_pipelines_[variant == Variant::subgroup ? 0 : 1];
    if (!p) throw std::runtime_error("meshlet: the subgroup variant was planned but the device cannot run it");
    // Phase 1's task shaders wrote the chunks' masks; the previous frame's phase 2 read this list as
    // its indirect command.
    f.graph().pass(f.cmd, {writes(Res::meshlet_lists, kComputeStage, kStorageReadWrite)});
    vkCmdBindPipeline(f.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p.handle());
    Descriptors d;
    d.buffer(0, visible_).buffer(1, late_list_);
    d.push(f.cmd, p);
    // (Rows within the compute limit too: --raster compute's culling dispatches from the same command.)
    uint32_t push[2] = {chunk_count_, std::min(f.ctx.mesh_properties.maxTaskWorkGroupCount[0],
                                               f.ctx.properties.limits.maxComputeWorkGroupCount[0])};
    push_constants(f.cmd, p, push, sizeof(push));
    vkCmdDispatch(f.cmd, 1, 1, 1);
}

void MeshletPass::record_late_depth(FrameContext& f, bool ids) {
    Variant v = f.plan[PassId::cull].variant == Variant::subgroup ? Variant::subgroup : Variant::fallback;
    bind_depth(f, (ids ? ids_ : depth_)[size_t(v)], capture_enabled_ ? 1u : 0u, 2u);
    // One task workgroup per 32 listed meshlets, as many as meshlet_late_list.comp wrote.
    vkCmdDrawMeshTasksIndirect_(f.cmd, late_list_.buffer, 0, 1, sizeof(VkDrawMeshTasksIndirectCommandEXT));
}

void MeshletPass::record_frozen_depth(FrameContext& f, bool ids) {
    const Pipeline& p = ids ? ids_frozen_ : depth_frozen_;
    vkCmdBindPipeline(f.cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, p.handle());
    Descriptors d = scene_descriptors(f);
    push_bindings(f, d);
    d.push(f.cmd, p);
    if (chunk_count_) vkCmdDrawMeshTasks_(f.cmd, grid_.width, grid_.height, 1);
}

void MeshletPass::record_forward(FrameContext& f, Descriptors& descriptors, uint32_t push_flags, bool quad_mip,
                                 bool light_loop) {
    const Pipeline& p = forward_test_ ? forward_test_ : forward_[quad_mip][light_loop];
    vkCmdBindPipeline(f.cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, p.handle());
    push_bindings(f, descriptors);
    descriptors.push(f.cmd, p);
    push_constants(f.cmd, p, &push_flags, sizeof(push_flags));
    // One task workgroup per chunk, the pre-pass's grid: each draws what its chunk kept.
    if (chunk_count_) vkCmdDrawMeshTasks_(f.cmd, grid_.width, grid_.height, 1);
}

void MeshletPass::record_view(FrameContext& f, Stage stage, const std::string& kind, const Buffer& view_params) {
    // The stage under view runs the view's variant; the other stage carries the record through.
    std::string task = stage == Stage::task ? "view_" + kind : "view_plain";
    std::string mesh = stage == Stage::task ? "view_task" : "view_" + kind;
    std::string key = task + "/" + mesh;
    Pipeline* p = nullptr;
    for (auto& [name, pipeline] : views_)
        if (name == key) p = &pipeline;
    if (!p) {
        GraphicsDesc d;
        // The shaders' layout: the scene's, 4 ViewParams (view_common.glsl), 5 the counters, the meshlet data.
        d.shaders = {{VK_SHADER_STAGE_TASK_BIT_EXT, std::string("meshlet_cull.task") + "." + task},
                     {VK_SHADER_STAGE_MESH_BIT_EXT, std::string("meshlet_cull.mesh") + "." + mesh},
                     {VK_SHADER_STAGE_FRAGMENT_BIT, "view.frag.primitive"}};
        d.color_formats = {kColorFormat};
        d.depth_format = kDepthFormat;
        d.depth_compare = VK_COMPARE_OP_EQUAL;
        d.depth_write = false;
        d.vertex_attributes = 0;
        d.blend = true;
        views_.emplace_back(key, create_graphics_pipeline(f.ctx, d));
        p = &views_.back().second;
    }
    vkCmdBindPipeline(f.cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, p->handle());
    Descriptors d = scene_descriptors(f);
    d.buffer(kMeshletViewCountersBinding - 1, view_params, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER).buffer(kMeshletViewCountersBinding, f.counters);
    push_bindings(f, d);
    d.push(f.cmd, *p);
    CullParams params = make_cull_params(f.targets.extent.width, f.targets.extent.height,
                                         f.ctx.properties.limits.subPixelPrecisionBits);
    MeshletPush push{chunk_count_, params.snap_px, params.frustum_eps, 0u, f.plan.lod ? kLodMaxErrorPixels : 0.0f};
    push_constants(f.cmd, *p, &push, sizeof(push));
    if (chunk_count_) vkCmdDrawMeshTasks_(f.cmd, grid_.width, grid_.height, 1);
}

std::vector<std::vector<uint32_t>> MeshletPass::read_kept_meshlets(const Context& ctx, uint32_t draw_count) const {
    std::vector<uint8_t> bytes = read_buffer(ctx, visible_);
    std::vector<uint32_t> words(bytes.size() / 4);
    memcpy(words.data(), bytes.data(), words.size() * 4);
    std::vector<std::vector<uint32_t>> kept(draw_count);
    // Each chunk c's kept and re-admitted meshlets: the bits of entry 32 c's chunk_kept | chunk_late
    // (shaders/meshlet.glsl's VisibleMeshlet: 8 words), bit i meshlet i of the chunk.
    for (uint32_t c = 0; c < chunk_count_; ++c) {
        const uint32_t* head = words.data() + size_t(c) * kMeshletsPerTask * 8;
        uint32_t mask = head[0] | head[1];
        const TaskChunk& chunk = chunks_cpu_[c];
        if (chunk.count < 32 && (mask >> chunk.count) != 0)
            throw std::runtime_error("meshlet chunk " + std::to_string(c) + " kept a meshlet it does not hold");
        if (chunk.draw >= draw_count) throw std::runtime_error("meshlet chunk " + std::to_string(c) + " names no draw");
        for (uint32_t i = 0; i < kMeshletsPerTask; ++i)
            if (mask >> i & 1u) kept[chunk.draw].push_back(chunk.first_meshlet + i);
    }
    return kept;
}

std::vector<std::vector<uint32_t>> MeshletPass::read_drawn_indices(const Context& ctx, uint32_t draw_count) const {
    if (!capture_enabled_) throw std::runtime_error("the meshlet path records what it drew only with capture on");
    Buffer list = create_buffer(ctx, visible_.size, VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryKind::host_readback,
                                "meshlet list readback");
    Buffer order = create_buffer(ctx, capture_.size, VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryKind::host_readback,
                                 "meshlet capture readback");
    VkCommandBuffer cmd = begin_one_shot(ctx);
    // Everything before it, to the copies.
    // Hand-written: a one-shot readback after the frames (tests, --cull-dump) that waits for everything, as read_buffer.
    memory_barrier(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_MEMORY_WRITE_BIT, VK_PIPELINE_STAGE_2_COPY_BIT,
                   VK_ACCESS_2_TRANSFER_READ_BIT);
    VkBufferCopy list_region{0, 0, visible_.size}, order_region{0, 0, capture_.size};
    vkCmdCopyBuffer(cmd, visible_.buffer, list.buffer, 1, &list_region);
    vkCmdCopyBuffer(cmd, capture_.buffer, order.buffer, 1, &order_region);
    end_one_shot(ctx, cmd);

    const auto* words = static_cast<const uint32_t*>(list.mapped);
    const auto* slots = static_cast<const uint32_t*>(order.mapped);
    std::vector<std::vector<uint32_t>> drawn(draw_count);
    // Chunk by chunk, in the order forward draws them: the meshlets of the chunk's kept and
    // re-admitted masks (entry 32 c), bit by bit; meshlet i's entry is 32 c + i.
    for (uint32_t c = 0; c < chunk_count_; ++c) {
        const uint32_t* head = words + size_t(c) * kMeshletsPerTask * 8;
        uint32_t mask = head[0] | head[1];  // chunk_kept | chunk_late
        const TaskChunk& chunk = chunks_cpu_[c];
        if (chunk.count < 32 && (mask >> chunk.count) != 0)
            throw std::runtime_error("meshlet chunk " + std::to_string(c) + " kept a meshlet it does not hold");
        if (chunk.draw >= draw_count) throw std::runtime_error("meshlet chunk " + std::to_string(c) + " names no draw");
        for (uint32_t i = 0; i < kMeshletsPerTask; ++i) {
            if (!(mask >> i & 1u)) continue;
            uint32_t e = c * kMeshletsPerTask + i;
            const uint32_t* entry = words + size_t(e) * 8;
            const Meshlet& m = meshlets_.meshlets[chunk.first_meshlet + i];
            uint32_t survivors = 0;
            for (int k = 0; k < 4; ++k) survivors += uint32_t(__builtin_popcount(entry[4 + k]));
            // The mesh shader's outputs in slot order: slot s drew meshlet triangle slots[e * 128 + s].
            for (uint32_t s = 0; s < survivors; ++s) {
                uint32_t t = slots[size_t(e) * kCaptureStride + s];
                if (t >= m.triangle_count)
                    throw std::runtime_error("meshlet capture: slot " + std::to_string(s) + " of entry " +
                                             std::to_string(e) + " holds no triangle of its meshlet");
                for (int k = 0; k < 3; ++k) drawn[chunk.draw].push_back(meshlets_.vertex_of(m, t, k));
            }
        }
    }
    return drawn;
}
