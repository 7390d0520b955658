#include "passes/ray_trace_pass.h"
#include "passes/meshlet_pass.h"  // the meshlet data
#include "passes/subgroup_tally.h"
#include "scene/lod.h"  // kLodMaxErrorPixels

#include <cmath>
#include <cstdio>
#include <cstring>

namespace {

// VK_KHR_acceleration_structure and VK_KHR_ray_tracing_pipeline entry points (not exported by the
// loader: fetched from the device once, when a RayTracePass is made on a device that has them).
PFN_vkCreateAccelerationStructureKHR create_structure;
PFN_vkDestroyAccelerationStructureKHR destroy_structure;
PFN_vkGetAccelerationStructureBuildSizesKHR build_sizes;
PFN_vkGetAccelerationStructureDeviceAddressKHR structure_address;
PFN_vkCmdBuildAccelerationStructuresKHR cmd_build;
PFN_vkCreateRayTracingPipelinesKHR create_pipelines;
PFN_vkGetRayTracingShaderGroupHandlesKHR group_handles;
PFN_vkCmdTraceRaysKHR cmd_trace_rays;
PFN_vkCmdTraceRaysIndirectKHR cmd_trace_rays_indirect;  // where features.ray_tracing_indirect

template <typename F>
void load(VkDevice device, F& f, const char* name) {
    f = reinterpret_cast<F>(vkGetDeviceProcAddr(device, name));
    if (!f) throw VulkanError(std::string("ray tracing entry point missing: ") + name);
}

constexpr VkPipelineStageFlags2 kRayShader = VK_PIPELINE_STAGE_2_RAY_TRACING_SHADER_BIT_KHR;
constexpr VkPipelineStageFlags2 kBuild = VK_PIPELINE_STAGE_2_ACCELERATION_STRUCTURE_BUILD_BIT_KHR;
constexpr VkPipelineStageFlags2 kIndirectStage = VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT;
constexpr VkAccessFlags2 kStructureRead = VK_ACCESS_2_ACCELERATION_STRUCTURE_READ_BIT_KHR;
constexpr VkAccessFlags2 kStructureWrite = VK_ACCESS_2_ACCELERATION_STRUCTURE_WRITE_BIT_KHR;
constexpr VkAccessFlags2 kSampledRead = VK_ACCESS_2_SHADER_SAMPLED_READ_BIT;

// The pipelines' layouts are their shaders' (shader_layout: of all six stages' modules for a ray
// pipeline). shaders/raytrace.glsl's set 0: frame, draws, lights, (3 free), TLAS, vertices,
// indices, depth, the traced image, the statistics (GpuCounters), the debug views' colours and
// counters at 10 and 11, and at 14 the vertices' materials; set 1 the scene's textures
// (scene_textures.glsl). The dispatches write every binding of their path; each pipeline takes
// those its shaders declare (Descriptors::push).
// Where ray generation takes each pixel's surface from (raytrace.rgen): a primary ray (forward
// shading's depth-only pre-pass), or the pixel's triangle in the visibility image, whose bindings
// follow the views' 10 and 11: 12 the drawn indices, 13 their indirect commands, 15 the visibility
// image (visibility_surface.glsl), and on the meshlet path the meshlet data from 16 (meshlet.glsl).
// Binding 14, on every path: the vertices' tangents and TEXCOORD_1 (VertexMaterial), for the
// reflected surface's material (raytrace.rchit).
constexpr uint32_t kSurfaceBinding = 12, kVertexMaterialsBinding = 14, kRayMeshletBinding = 16;

// The raygen variant's suffix for `surface` (shaders/variants.cmake): the other five stages are
// the same in every pipeline.
const char* surface_suffix(RaySurface surface) {
    return surface == RaySurface::visibility ? "_visibility" : surface == RaySurface::visibility_meshlet ? "_visibility_meshlet" : "";
}

// The dense launch's bindings (ray_lists.comp's, the dense ray generation's and the forward path's
// primary launch's): the lists at 3 and, on the forward path, the primary hits at 12 (free there).
constexpr uint32_t kRayListsBinding = 3, kPrimaryHitsBinding = 12;

VkDeviceSize align_up(VkDeviceSize v, VkDeviceSize a) { return a ? (v + a - 1) / a * a : v; }

// The six shaders in the pipeline's stage order (the groups below index it).
const std::pair<Stage, const char*> kShaders[] = {{Stage::raygen, "raytrace.rgen"},       {Stage::miss, "raytrace.rmiss"},
                                                  {Stage::closest_hit, "raytrace.rchit"}, {Stage::any_hit, "raytrace.rahit"},
                                                  {Stage::intersection, "raytrace.rint"}, {Stage::callable, "raytrace.rcall"}};

// `variant(stage)`: the SPIR-V variant each stage runs ("switch", "no_subgroup", "view_plain", ...);
// `use_subgroup` the switched stages' USE_SUBGROUP (raytrace_stats.glsl; the others have none).
template <typename VariantOf>
Pipeline create_ray_pipeline(const Context& ctx, VariantOf variant, bool use_subgroup = false) {
    Pipeline p;
    p.device = ctx.device;
    p.bind_point = VK_PIPELINE_BIND_POINT_RAY_TRACING_KHR;
    std::vector<std::string> shaders;
    for (auto [stage, name] : kShaders) shaders.push_back(std::string(name) + "." + std::string(variant(stage)));
    create_pipeline_layout(ctx, shader_layout(shaders), p);
    for (const std::string& shader : shaders) p.modules.push_back(load_shader(ctx, shader));
    // Compiled where first traced, or ahead (resources.h, Pipeline, compile_ahead).
    p.compile = [&ctx, modules = p.modules, layout = p.layout, use_subgroup] {
        const SpecializationConstants specialization({}, use_subgroup);
        std::vector<VkPipelineShaderStageCreateInfo> infos;
        for (auto [stage, name] : kShaders) {
            VkPipelineShaderStageCreateInfo s{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
            s.stage = VkShaderStageFlagBits(stage_info(stage).vk_stage);
            s.module = modules[infos.size()];
            s.pName = "main";
            s.pSpecializationInfo = &specialization.info;  // (a module without the constant ignores it)
            infos.push_back(s);
        }
        auto group = [](VkRayTracingShaderGroupTypeKHR type, uint32_t general, uint32_t closest, uint32_t any, uint32_t isect) {
            VkRayTracingShaderGroupCreateInfoKHR g{VK_STRUCTURE_TYPE_RAY_TRACING_SHADER_GROUP_CREATE_INFO_KHR};
            g.type = type;
            g.generalShader = general;
            g.closestHitShader = closest;
            g.anyHitShader = any;
            g.intersectionShader = isect;
            return g;
        };
        const uint32_t none = VK_SHADER_UNUSED_KHR;
        VkRayTracingShaderGroupCreateInfoKHR groups[kGroupCount] = {
            group(VK_RAY_TRACING_SHADER_GROUP_TYPE_GENERAL_KHR, 0, none, none, none),                  // raygen
            group(VK_RAY_TRACING_SHADER_GROUP_TYPE_GENERAL_KHR, 1, none, none, none),                  // miss
            group(VK_RAY_TRACING_SHADER_GROUP_TYPE_TRIANGLES_HIT_GROUP_KHR, none, 2, 3, none),         // triangles
            group(VK_RAY_TRACING_SHADER_GROUP_TYPE_PROCEDURAL_HIT_GROUP_KHR, none, 2, none, 4),        // light spheres
            group(VK_RAY_TRACING_SHADER_GROUP_TYPE_GENERAL_KHR, 5, none, none, none)};                 // material
        VkRayTracingPipelineCreateInfoKHR info{VK_STRUCTURE_TYPE_RAY_TRACING_PIPELINE_CREATE_INFO_KHR};
        info.stageCount = uint32_t(infos.size());
        info.pStages = infos.data();
        info.groupCount = kGroupCount;
        info.pGroups = groups;
        info.maxPipelineRayRecursionDepth = 1;  // raygen traces; hit shaders only call the callable
        info.layout = layout;
        VkPipeline pipeline = VK_NULL_HANDLE;
        VK_CHECK(create_pipelines(ctx.device, VK_NULL_HANDLE, VK_NULL_HANDLE, 1, &info, nullptr, &pipeline));
        return pipeline;
    };
    compile_ahead(ctx, p);
    return p;
}

}  // namespace

SbtLayout sbt_layout(uint32_t handle_size, uint32_t handle_alignment, uint32_t base_alignment, uint32_t miss_count,
                     uint32_t hit_count, uint32_t callable_count) {
    SbtLayout l;
    VkDeviceSize stride = align_up(handle_size, handle_alignment);
    l.raygen = {0, align_up(stride, base_alignment), align_up(stride, base_alignment)};
    VkDeviceSize at = l.raygen.size;
    auto region = [&](uint32_t count) {
        SbtRegion r{at, stride, align_up(count * stride, base_alignment)};
        at += r.size;
        return r;
    };
    l.miss = region(miss_count);
    l.hit = region(hit_count);
    l.callable = region(callable_count);
    l.bytes = at;
    return l;
}

std::vector<TlasInstance> tlas_instances(const GpuScene& scene) {
    std::vector<TlasInstance> out;
    auto row_major = [](TlasInstance& t, const glm::mat4& m) {
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 4; ++c) t.transform[r][c] = m[c][r];  // glm is column-major
    };
    for (uint32_t i = 0; i < scene.draw_count; ++i) {
        TlasInstance t{};
        row_major(t, scene.cpu_draws[i].model);
        t.custom_index = i;
        t.mask = kTlasMaskGeometry;
        t.sbt_offset = kGroupTriangles - kGroupTriangles;
        t.blas = scene.cpu_draws[i].mesh;
        t.flip_facing = glm::determinant(glm::mat3(scene.cpu_draws[i].model)) < 0.0f;
        out.push_back(t);
    }
    TlasInstance lights{};
    row_major(lights, glm::mat4(1.0f));
    lights.custom_index = 0;
    lights.mask = kTlasMaskLights;
    lights.sbt_offset = kGroupLights - kGroupTriangles;
    lights.blas = uint32_t(scene.meshes.size());
    out.push_back(lights);
    return out;
}

RayTracePass::~RayTracePass() {
    if (!enabled_) return;
    for (Structure& s : blas_)
        if (s.handle) destroy_structure(device_, s.handle, nullptr);
    if (tlas_.handle) destroy_structure(device_, tlas_.handle, nullptr);
}

void RayTracePass::light_build_info(VkAccelerationStructureBuildGeometryInfoKHR& info,
                                    VkAccelerationStructureGeometryKHR& geometry, bool updatable) const {
    geometry = {VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_GEOMETRY_KHR};
    geometry.geometryType = VK_GEOMETRY_TYPE_AABBS_KHR;
    geometry.flags = VK_GEOMETRY_OPAQUE_BIT_KHR;
    geometry.geometry.aabbs = {VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_GEOMETRY_AABBS_DATA_KHR};
    geometry.geometry.aabbs.data.deviceAddress = light_aabbs_.address;
    geometry.geometry.aabbs.stride = sizeof(VkAabbPositionsKHR);
    info = {VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_BUILD_GEOMETRY_INFO_KHR};
    info.type = VK_ACCELERATION_STRUCTURE_TYPE_BOTTOM_LEVEL_KHR;
    // Rebuilt every frame: a fast build. Refitted: built once, so the better tree for the rays.
    info.flags = updatable ? VK_BUILD_ACCELERATION_STRUCTURE_PREFER_FAST_TRACE_BIT_KHR | VK_BUILD_ACCELERATION_STRUCTURE_ALLOW_UPDATE_BIT_KHR
                           : VK_BUILD_ACCELERATION_STRUCTURE_PREFER_FAST_BUILD_BIT_KHR;
    info.mode = VK_BUILD_ACCELERATION_STRUCTURE_MODE_BUILD_KHR;
    info.geometryCount = 1;
    info.pGeometries = &geometry;
}

void RayTracePass::tlas_build_info(VkAccelerationStructureBuildGeometryInfoKHR& info,
                                   VkAccelerationStructureGeometryKHR& geometry, bool updatable) const {
    geometry = {VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_GEOMETRY_KHR};
    geometry.geometryType = VK_GEOMETRY_TYPE_INSTANCES_KHR;
    geometry.geometry.instances = {VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_GEOMETRY_INSTANCES_DATA_KHR};
    geometry.geometry.instances.data.deviceAddress = instances_.address;
    info = {VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_BUILD_GEOMETRY_INFO_KHR};
    info.type = VK_ACCELERATION_STRUCTURE_TYPE_TOP_LEVEL_KHR;
    info.flags = VK_BUILD_ACCELERATION_STRUCTURE_PREFER_FAST_TRACE_BIT_KHR | (updatable ? VK_BUILD_ACCELERATION_STRUCTURE_ALLOW_UPDATE_BIT_KHR : 0);
    info.mode = VK_BUILD_ACCELERATION_STRUCTURE_MODE_BUILD_KHR;
    info.geometryCount = 1;
    info.pGeometries = &geometry;
}

void RayTracePass::create(const Context& ctx, const GpuScene& scene, uint32_t lights, VkExtent2D extent) {
    enabled_ = ctx.features.ray_tracing;
    if (!enabled_) return;  // the plan keeps the pass off (pass_table.cpp: ray_tracing_missing)
    device_ = ctx.device;
    lights_ = lights;
    load(ctx.device, create_structure, "vkCreateAccelerationStructureKHR");
    load(ctx.device, destroy_structure, "vkDestroyAccelerationStructureKHR");
    load(ctx.device, build_sizes, "vkGetAccelerationStructureBuildSizesKHR");
    load(ctx.device, structure_address, "vkGetAccelerationStructureDeviceAddressKHR");
    load(ctx.device, cmd_build, "vkCmdBuildAccelerationStructuresKHR");
    load(ctx.device, create_pipelines, "vkCreateRayTracingPipelinesKHR");
    load(ctx.device, group_handles, "vkGetRayTracingShaderGroupHandlesKHR");
    load(ctx.device, cmd_trace_rays, "vkCmdTraceRaysKHR");
    if (ctx.features.ray_tracing_indirect) load(ctx.device, cmd_trace_rays_indirect, "vkCmdTraceRaysIndirectKHR");

    // Per surface the device can give (compiled where first traced: a run uses one or two). Each
    // stage is one switched SPIR-V (raytrace_stats.glsl): the subgroup variant is the switch with
    // USE_SUBGROUP, the fallback the switch without it where the device (as masked) has the
    // subgroup branch's operations in these stages, else its twin without them.
    bool subgroup = pass_missing(ctx.subgroup_unmasked, ctx.features, PassId::ray_trace).empty();
    const char* fallback = pass_missing(ctx.subgroup, ctx.features, PassId::ray_trace).empty() ? "switch" : "no_subgroup";
    for (RaySurface surface : {RaySurface::camera, RaySurface::visibility, RaySurface::visibility_meshlet}) {
        if (!surface_available(ctx, surface)) continue;
        size_t s = size_t(surface);
        // Ray generation's variants are named by launch and surface ("dense_visibility_switch").
        auto variant = [surface](const char* kind, std::string launch = "") {
            std::string raygen = launch + surface_suffix(surface);  // ("_visibility": the suffix's own "_")
            if (raygen.starts_with("_")) raygen.erase(0, 1);
            return [kind, raygen](Stage stage) {
                return stage == Stage::raygen && !raygen.empty() ? raygen + "_" + kind : std::string(kind);
            };
        };
        pipeline_[s][0] = create_ray_pipeline(ctx, variant(fallback));
        if (subgroup) pipeline_[s][1] = create_ray_pipeline(ctx, variant("switch"), true);
        if (!ctx.features.ray_tracing_indirect) continue;
        dense_[s][0] = create_ray_pipeline(ctx, variant(fallback, "dense"));
        if (subgroup) dense_[s][1] = create_ray_pipeline(ctx, variant("switch", "dense"), true);
        if (surface != RaySurface::camera) continue;
        primary_[0] = create_ray_pipeline(ctx, variant(fallback, "primary"));
        if (subgroup) primary_[1] = create_ray_pipeline(ctx, variant("switch", "primary"), true);
    }
    resize(ctx, extent);
    aabbs_ = create_compute_pipeline(ctx, {"light_aabbs.comp.main"});
    stat_stripes_ = create_buffer(ctx, kRayStatStripesBytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                  MemoryKind::device_local, "ray stat stripes");
    stats_fold_ = create_compute_pipeline(ctx, {"ray_stats_fold.comp.main"});
    const auto& rt = ctx.ray_tracing_properties;
    sbt_layout_ = sbt_layout(rt.shaderGroupHandleSize, rt.shaderGroupHandleAlignment, rt.shaderGroupBaseAlignment, 1, 2, 1);
    build_static(ctx, scene);
}

// The shader binding table of a pipeline: one record per group (miss, the two hit groups, the callable).
Buffer RayTracePass::make_sbt(const Context& ctx, const Pipeline& pipeline) const {
    const auto& rt = ctx.ray_tracing_properties;
    {
        std::vector<uint8_t> handles(size_t(kGroupCount) * rt.shaderGroupHandleSize);
        VK_CHECK(group_handles(ctx.device, pipeline.handle(), 0, kGroupCount, handles.size(), handles.data()));
        std::vector<uint8_t> table(sbt_layout_.bytes, 0);
        auto put = [&](const SbtRegion& region, uint32_t record, uint32_t group) {
            memcpy(&table[region.offset + record * region.stride], &handles[size_t(group) * rt.shaderGroupHandleSize],
                   rt.shaderGroupHandleSize);
        };
        put(sbt_layout_.raygen, 0, kGroupRaygen);
        put(sbt_layout_.miss, 0, kGroupMiss);
        put(sbt_layout_.hit, 0, kGroupTriangles);
        put(sbt_layout_.hit, 1, kGroupLights);
        put(sbt_layout_.callable, 0, kGroupMaterial);
        // Regions start at shaderGroupBaseAlignment from the buffer's address: over-allocate by one
        // alignment and place the table at the first aligned address inside.
        Buffer sbt = create_buffer(ctx, table.size() + rt.shaderGroupBaseAlignment,
                                   VK_BUFFER_USAGE_SHADER_BINDING_TABLE_BIT_KHR | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT,
                                   MemoryKind::host_upload, "shader binding table");
        VkDeviceSize skip = align_up(sbt.address, rt.shaderGroupBaseAlignment) - sbt.address;
        memcpy(static_cast<uint8_t*>(sbt.mapped) + skip, table.data(), table.size());
        return sbt;
    }
}

void RayTracePass::build_static(const Context& ctx, const GpuScene& scene) {
    const VkBufferUsageFlags input = VK_BUFFER_USAGE_ACCELERATION_STRUCTURE_BUILD_INPUT_READ_ONLY_BIT_KHR |
                                     VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
    light_aabbs_ = create_buffer(ctx, std::max<VkDeviceSize>(1, lights_) * sizeof(VkAabbPositionsKHR),
                                 input | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, MemoryKind::device_local, "light aabbs");
    std::vector<TlasInstance> cpu = tlas_instances(scene);
    instance_count_ = uint32_t(cpu.size());

    // Sizes: a BLAS per unique mesh (opaque unless its material is masked: only masked geometry
    // runs the any-hit shader), the lights' BLAS, the TLAS.
    const size_t meshes = scene.meshes.size();
    std::vector<VkAccelerationStructureGeometryKHR> geometries(meshes + 2);
    std::vector<VkAccelerationStructureBuildGeometryInfoKHR> infos(meshes + 2);
    std::vector<VkAccelerationStructureBuildRangeInfoKHR> ranges(meshes + 2);
    for (size_t m = 0; m < meshes; ++m) {
        const GpuScene::MeshRange& mesh = scene.meshes[m];
        VkAccelerationStructureGeometryKHR& g = geometries[m];
        g = {VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_GEOMETRY_KHR};
        g.geometryType = VK_GEOMETRY_TYPE_TRIANGLES_KHR;
        g.flags = mesh.alpha_masked ? 0 : VK_GEOMETRY_OPAQUE_BIT_KHR;
        auto& t = g.geometry.triangles;
        t = {VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_GEOMETRY_TRIANGLES_DATA_KHR};
        t.vertexFormat = VK_FORMAT_R32G32B32_SFLOAT;
        t.vertexData.deviceAddress = scene.vertices.address;
        t.vertexStride = sizeof(Vertex);
        t.maxVertex = std::max(1u, scene.vertex_count) - 1;
        t.indexType = VK_INDEX_TYPE_UINT32;
        t.indexData.deviceAddress = scene.indices.address + VkDeviceSize(mesh.first_index) * sizeof(uint32_t);
        infos[m] = {VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_BUILD_GEOMETRY_INFO_KHR};
        infos[m].type = VK_ACCELERATION_STRUCTURE_TYPE_BOTTOM_LEVEL_KHR;
        infos[m].flags = VK_BUILD_ACCELERATION_STRUCTURE_PREFER_FAST_TRACE_BIT_KHR;
        infos[m].mode = VK_BUILD_ACCELERATION_STRUCTURE_MODE_BUILD_KHR;
        infos[m].geometryCount = 1;
        infos[m].pGeometries = &geometries[m];
        ranges[m] = {mesh.index_count / 3, 0, 0, 0};
    }
    light_build_info(infos[meshes], geometries[meshes], false);
    ranges[meshes] = {lights_, 0, 0, 0};
    instances_ = create_buffer(ctx, cpu.size() * sizeof(VkAccelerationStructureInstanceKHR), input | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                               MemoryKind::device_local, "ray trace instances");
    tlas_build_info(infos[meshes + 1], geometries[meshes + 1], false);
    ranges[meshes + 1] = {instance_count_, 0, 0, 0};

    const VkDeviceSize scratch_alignment = ctx.acceleration_structure_properties.minAccelerationStructureScratchOffsetAlignment;
    blas_.resize(meshes + 1);
    VkDeviceSize storage = 0, static_scratch = 0;
    for (size_t i = 0; i < meshes + 2; ++i) {
        Structure& s = i < meshes + 1 ? blas_[i] : tlas_;
        VkAccelerationStructureBuildSizesInfoKHR sizes{VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_BUILD_SIZES_INFO_KHR};
        build_sizes(ctx.device, VK_ACCELERATION_STRUCTURE_BUILD_TYPE_DEVICE_KHR, &infos[i], &ranges[i].primitiveCount, &sizes);
        s.offset = storage;
        s.size = sizes.accelerationStructureSize;
        s.scratch = align_up(sizes.buildScratchSize, scratch_alignment);
        if (i >= meshes) {  // the frames' structures: room for either build and for the refit's update
            VkAccelerationStructureGeometryKHR geometry;
            VkAccelerationStructureBuildGeometryInfoKHR updatable;
            if (i == meshes) light_build_info(updatable, geometry, true);
            else tlas_build_info(updatable, geometry, true);
            build_sizes(ctx.device, VK_ACCELERATION_STRUCTURE_BUILD_TYPE_DEVICE_KHR, &updatable, &ranges[i].primitiveCount, &sizes);
            s.size = std::max(s.size, sizes.accelerationStructureSize);
            s.scratch = std::max(s.scratch, align_up(std::max(sizes.buildScratchSize, sizes.updateScratchSize), scratch_alignment));
        }
        storage = align_up(storage + s.size, 256);  // AS offsets: multiples of 256
        if (i < meshes) static_scratch += s.scratch;
    }
    // Scratch: the meshes' BLASes are built together once (a region each); every frame the lights'
    // BLAS and then the TLAS use two regions of their own, each as large as its build or update needs.
    light_scratch_offset_ = 0;
    tlas_scratch_offset_ = blas_[meshes].scratch;
    VkDeviceSize scratch_bytes = std::max(static_scratch, blas_[meshes].scratch + tlas_.scratch);
    structures_ = create_buffer(ctx, storage, VK_BUFFER_USAGE_ACCELERATION_STRUCTURE_STORAGE_BIT_KHR | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT,
                                MemoryKind::device_local, "acceleration structures");
    scratch_ = create_buffer(ctx, scratch_bytes + scratch_alignment,
                             VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT,
                             MemoryKind::device_local, "acceleration structure scratch");
    VkDeviceAddress scratch_base = align_up(scratch_.address, scratch_alignment);
    for (size_t i = 0; i < meshes + 2; ++i) {
        Structure& s = i < meshes + 1 ? blas_[i] : tlas_;
        VkAccelerationStructureCreateInfoKHR create{VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_CREATE_INFO_KHR};
        create.buffer = structures_.buffer;
        create.offset = s.offset;
        create.size = s.size;
        create.type = i < meshes + 1 ? VK_ACCELERATION_STRUCTURE_TYPE_BOTTOM_LEVEL_KHR : VK_ACCELERATION_STRUCTURE_TYPE_TOP_LEVEL_KHR;
        VK_CHECK(create_structure(ctx.device, &create, nullptr, &s.handle));
        VkAccelerationStructureDeviceAddressInfoKHR address{VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_DEVICE_ADDRESS_INFO_KHR};
        address.accelerationStructure = s.handle;
        s.address = structure_address(ctx.device, &address);
    }

    // The instances, now that the BLAS addresses are known.
    std::vector<VkAccelerationStructureInstanceKHR> instances(cpu.size());
    for (size_t i = 0; i < cpu.size(); ++i) {
        VkAccelerationStructureInstanceKHR& out = instances[i];
        memcpy(&out.transform, cpu[i].transform, sizeof(out.transform));
        out.instanceCustomIndex = cpu[i].custom_index;
        out.mask = cpu[i].mask;
        out.instanceShaderBindingTableRecordOffset = cpu[i].sbt_offset;
        out.flags = cpu[i].flip_facing ? VK_GEOMETRY_INSTANCE_TRIANGLE_FLIP_FACING_BIT_KHR : 0;
        out.accelerationStructureReference = blas_[cpu[i].blas].address;
    }
    Buffer staging = create_buffer(ctx, instances.size() * sizeof(instances[0]), VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                   MemoryKind::host_upload, "staging");
    memcpy(staging.mapped, instances.data(), instances.size() * sizeof(instances[0]));

    // Build the meshes' BLASes once.
    VkCommandBuffer cmd = begin_one_shot(ctx);
    VkBufferCopy region{0, 0, staging.size};
    vkCmdCopyBuffer(cmd, staging.buffer, instances_.buffer, 1, &region);
    VkDeviceSize at = 0;
    std::vector<const VkAccelerationStructureBuildRangeInfoKHR*> range_pointers;
    for (size_t m = 0; m < meshes; ++m) {
        infos[m].dstAccelerationStructure = blas_[m].handle;
        infos[m].scratchData.deviceAddress = scratch_base + at;
        at += blas_[m].scratch;
        range_pointers.push_back(&ranges[m]);
    }
    if (meshes) cmd_build(cmd, uint32_t(meshes), infos.data(), range_pointers.data());
    // The frames' builds reuse the scratch and read the instances.
    // Hand-written: the meshes' BLASes built once at load, before any frame (the graph follows frames).
    memory_barrier(cmd, kBuild | VK_PIPELINE_STAGE_2_COPY_BIT,
                   VK_ACCESS_2_ACCELERATION_STRUCTURE_WRITE_BIT_KHR | VK_ACCESS_2_TRANSFER_WRITE_BIT, kBuild,
                   VK_ACCESS_2_ACCELERATION_STRUCTURE_READ_BIT_KHR | VK_ACCESS_2_ACCELERATION_STRUCTURE_WRITE_BIT_KHR |
                       VK_ACCESS_2_SHADER_READ_BIT);
    end_one_shot(ctx, cmd);
    updatable_ = false;  // the first frame builds the lights' BLAS and the TLAS
}

bool RayTracePass::surface_available(const Context& ctx, RaySurface surface) {
    if (surface == RaySurface::camera) return true;
    if (!visibility_missing(ctx.features, Geometry::indexed).empty()) return false;
    return surface == RaySurface::visibility || meshlet_missing(ctx.features).empty();
}

RaySurface RayTracePass::surface(const FrameContext& f) const {
    if (f.test_camera_rays || f.plan.shading.shading != Shading::visibility || !f.targets.visibility.image)
        return RaySurface::camera;
    RaySurface s = f.plan.geometry == Geometry::meshlet && f.meshlets ? RaySurface::visibility_meshlet : RaySurface::visibility;
    return pipeline_[size_t(s)][0] ? s : RaySurface::camera;
}

void RayTracePass::record(FrameContext& f) {
    Variant variant = f.plan[PassId::ray_trace].variant;
    if (!enabled_ || variant == Variant::off) return;
    RaySurface s = surface(f);
    auto& pipelines = pipeline_[size_t(s)];
    int v = variant == Variant::subgroup && pipelines[1] ? 1 : 0;
    begin_label(f.ctx, f.cmd, debug_label(PassId::ray_trace, v ? Variant::subgroup : Variant::fallback));
    bind(f);
    f.timer.begin(f.cmd, Timer::ray_build);
    build_frame(f);
    f.timer.end(f.cmd, Timer::ray_build);
    f.timer.begin(f.cmd, Timer::ray_trace);
    // The dense launch where planned, and where its width fits one dimension of a launch.
    const auto& limits = f.ctx.properties.limits;
    uint64_t most = std::min<uint64_t>(f.ctx.ray_tracing_properties.maxRayDispatchInvocationCount,
                                       uint64_t(limits.maxComputeWorkGroupCount[0]) * limits.maxComputeWorkGroupSize[0]);
    bool dense = f.plan.ray_lists != Variant::off && dense_[size_t(s)][v] && 2ull * extent_.width * extent_.height <= most;
    traced_dense_ = dense;
    Buffer& sbt = sbt_[size_t(s)][v];
    FrameGraph& g = f.graph();
    if (v) {  // the subgroup variant's stripes, zeroed (raytrace_stats.glsl)
        g.pass(f.cmd, {writes(Res::ray_stat_stripes, kTransferStage, VK_ACCESS_2_TRANSFER_WRITE_BIT)});
        vkCmdFillBuffer(f.cmd, stat_stripes_.buffer, 0, VK_WHOLE_SIZE, 0);
    }
    if (dense) {
        trace_dense(f, s, v);
    } else {
        if (!sbt.buffer) sbt = make_sbt(f.ctx, pipelines[v]);  // where the pipeline is first compiled
        trace(f, pipelines[v], sbt, s, v, nullptr);
    }
    if (v) {  // the stripes added up into the frame's counters, inside the pass's time
        g.pass(f.cmd, {reads(Res::ray_stat_stripes, kComputeStage, kStorageRead), writes(Res::counters, kComputeStage, kStorageReadWrite)});
        vkCmdBindPipeline(f.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, stats_fold_.handle());
        Descriptors().buffer(0, stat_stripes_).buffer(1, f.counters).push(f.cmd, stats_fold_);
        dispatch(f.ctx, f.cmd, 1);
    }
    f.ray_traced = true;
    f.timer.end(f.cmd, Timer::ray_trace);
    end_label(f.ctx, f.cmd);
}

void RayTracePass::bind(FrameContext& f) {
    FrameGraph& g = f.graph();
    g.bind(Res::ray_structures, structures_);
    g.bind(Res::ray_scratch, scratch_);
    g.bind(Res::light_aabbs, light_aabbs_);
    g.bind(Res::ray_lists, ray_lists_buffer_);
    g.bind(Res::ray_primary_hits, primary_hits_);
    g.bind(Res::ray_stat_stripes, stat_stripes_);
}

void RayTracePass::build_frame(FrameContext& f) {
    FrameGraph& g = f.graph();
    // This frame's light boxes, after the previous frame's build read them.
    g.pass(f.cmd, {writes(Res::light_aabbs, kComputeStage, VK_ACCESS_2_SHADER_WRITE_BIT)});
    if (lights_) {
        vkCmdBindPipeline(f.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, aabbs_.handle());
        Descriptors d;
        d.buffer(0, f.lights).buffer(1, light_aabbs_);
        d.push(f.cmd, aabbs_);
        struct {
            uint32_t count;
            float radius;
        } push{lights_, kBulbRadius};
        push_constants(f.cmd, aabbs_, &push, sizeof(push));
        vkCmdDispatch(f.cmd, (lights_ + 63) / 64, 1, 1);
    }

    // The lights' BLAS, then the TLAS over it and the meshes' BLASes: refitted (MODE_UPDATE, src ==
    // dst) where the plan refits and the last build allowed it, else built. An update keeps the
    // topology (one AABB per light, the same instances, the same flags) and moves the boxes: the
    // lights orbit fixed anchors, so the refitted tree's boxes stay within the anchors' tree grown
    // by the orbits and its quality does not decay with time (docs/ray-tracing.md, "Refitting").
    const bool refit = f.plan.ray_refit && updatable_;
    const VkBuildAccelerationStructureModeKHR mode = refit ? VK_BUILD_ACCELERATION_STRUCTURE_MODE_UPDATE_KHR : VK_BUILD_ACCELERATION_STRUCTURE_MODE_BUILD_KHR;
    VkDeviceAddress scratch_base =
        align_up(scratch_.address, f.ctx.acceleration_structure_properties.minAccelerationStructureScratchOffsetAlignment);
    VkAccelerationStructureGeometryKHR geometry;
    VkAccelerationStructureBuildGeometryInfoKHR info;
    light_build_info(info, geometry, f.plan.ray_refit);
    info.mode = mode;
    info.srcAccelerationStructure = refit ? blas_.back().handle : VK_NULL_HANDLE;
    info.dstAccelerationStructure = blas_.back().handle;
    info.scratchData.deviceAddress = scratch_base + light_scratch_offset_;
    VkAccelerationStructureBuildRangeInfoKHR range{lights_, 0, 0, 0};
    const VkAccelerationStructureBuildRangeInfoKHR* range_pointer = &range;
    // The light BLAS from the boxes, after the previous frame's rays and TLAS build read it (the
    // structures are one buffer: every BLAS and the TLAS).
    const Use kBuildWrites[] = {writes(Res::ray_structures, kBuild, kStructureRead | kStructureWrite),
                                writes(Res::ray_scratch, kBuild, kStructureRead | kStructureWrite)};
    g.pass(f.cmd, {reads(Res::light_aabbs, kBuild, VK_ACCESS_2_SHADER_READ_BIT), kBuildWrites[0], kBuildWrites[1]});
    cmd_build(f.cmd, 1, &info, &range_pointer);
    // The TLAS over the meshes' BLASes and the lights' just built.
    g.pass(f.cmd, kBuildWrites);
    tlas_build_info(info, geometry, f.plan.ray_refit);
    info.mode = mode;
    info.srcAccelerationStructure = refit ? tlas_.handle : VK_NULL_HANDLE;
    info.dstAccelerationStructure = tlas_.handle;
    info.scratchData.deviceAddress = scratch_base + tlas_scratch_offset_;
    range = {instance_count_, 0, 0, 0};
    cmd_build(f.cmd, 1, &info, &range_pointer);
    updatable_ = f.plan.ray_refit;
}

void RayTracePass::scene_uses(FrameContext& f, RaySurface surface, VkPipelineStageFlags2 stages, std::vector<Use>& uses) {
    // Depth sampled in the layout light culling and the forward depth test also use
    // (--raster compute: the depth taken from the visibility words).
    uses.push_back(reads(Res::depth, stages, kSampledRead, depth_read_layout(depth_to_read(f))));
    // Every stage may count into the frame's counters (RayStats). The graph's barrier on them is a
    // global memory barrier (frame_graph.h: buffers share one), and the counters' last writers
    // before the ray tracer include the passes that record their own barriers (the cull, the
    // meshlet path: Renderer::record declares them one pass in every counting stage), so it also
    // orders those passes' writes of the lists that the visibility ids name before the rays.
    uses.push_back(writes(Res::counters, stages, kStorageReadWrite));
    // The pre-pass's triangles, as the shading pass reads them (VisibilityPass::bind_frame).
    if (surface != RaySurface::camera)
        uses.push_back(reads(Res::visibility, stages, kSampledRead, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL));
}

void RayTracePass::push_scene(FrameContext& f, Descriptors& d, RaySurface surface, bool striped) const {
    Image& depth_image = depth_to_read(f);
    d.buffer(0, f.uniforms, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER)
        .buffer(1, f.scene.draws)
        .buffer(2, f.lights)
        .textures(f.scene.texture_set)
        .buffer(5, f.scene.vertices)
        .buffer(6, f.scene.indices)
        .buffer(kVertexMaterialsBinding, f.scene.vertex_materials)
        .sampled_texels(7, depth_image.view, depth_read_layout(depth_image));
    d.storage_image(8, f.targets.ray_traced.view).buffer(kRayStatsBinding, striped ? stat_stripes_ : f.counters);
    if (surface != RaySurface::camera) {
        d.buffer(kSurfaceBinding, named_indices(f))  // the list the visibility ids name
            .buffer(kSurfaceBinding + 1, named_indirect(f))
            .sampled_texels(kSurfaceBinding + 3, f.targets.visibility.view, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
        if (surface == RaySurface::visibility_meshlet) f.meshlets->push_bindings(f, d, kRayMeshletBinding);
    }
}

namespace {

VkStridedDeviceAddressRegionKHR sbt_region(const FrameContext& f, const Buffer& sbt, const SbtRegion& r) {
    VkDeviceAddress base = align_up(sbt.address, f.ctx.ray_tracing_properties.shaderGroupBaseAlignment);
    return {base + r.offset, r.stride, r.size};
}

}  // namespace

// One ray per pixel through `pipeline` into the traced image (view_params: the views' pipelines).
void RayTracePass::trace(FrameContext& f, const Pipeline& pipeline, const Buffer& sbt, RaySurface surface, bool striped,
                         const Buffer* view_params) {
    // The traced image written whole (every pixel is stored; forward may have read it: wait for
    // that), the structures as this frame's builds left them.
    std::vector<Use> uses = {writes(Res::ray_traced, kRayShader, kStorageWrite, VK_IMAGE_LAYOUT_GENERAL, true),
                             reads(Res::ray_structures, kRayShader, kStructureRead)};
    scene_uses(f, surface, kRayShader, uses);
    if (striped) uses.push_back(writes(Res::ray_stat_stripes, kRayShader, kStorageReadWrite));
    f.graph().pass(f.cmd, uses);
    vkCmdBindPipeline(f.cmd, VK_PIPELINE_BIND_POINT_RAY_TRACING_KHR, pipeline.handle());
    Descriptors d;
    push_scene(f, d, surface, striped);
    d.acceleration_structure(4, tlas_.handle);
    if (view_params)
        d.buffer(kRayViewCountersBinding - 1, *view_params, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER).buffer(kRayViewCountersBinding, f.counters);
    d.push(f.cmd, pipeline);
    // --lod's bound in pixels, with which the visibility path's ray generation finds the level the
    // raster drew (ray_surface.glsl); the camera path's shaders read no level and declare no block,
    // and push_constants then pushes nothing.
    float lod_max_error_px = f.plan.lod ? kLodMaxErrorPixels : 0.0f;
    push_constants(f.cmd, pipeline, &lod_max_error_px, sizeof(lod_max_error_px));
    VkStridedDeviceAddressRegionKHR raygen = sbt_region(f, sbt, sbt_layout_.raygen), miss = sbt_region(f, sbt, sbt_layout_.miss),
                                    hit = sbt_region(f, sbt, sbt_layout_.hit), callable = sbt_region(f, sbt, sbt_layout_.callable);
    cmd_trace_rays(f.cmd, &raygen, &miss, &hit, &callable, f.targets.extent.width, f.targets.extent.height, 1);
}

uint64_t ray_lists_bytes(VkExtent2D extent) { return 32 + 2 * uint64_t(extent.width) * extent.height * sizeof(uint32_t); }
uint64_t ray_primary_hits_bytes(VkExtent2D extent) { return uint64_t(extent.width) * extent.height * 2 * sizeof(uint32_t); }

void RayTracePass::resize(const Context& ctx, VkExtent2D extent) {
    if (!enabled_) return;
    extent_ = extent;
    ray_lists_buffer_ = create_buffer(ctx, ray_lists_bytes(extent),
                                      VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT |
                                          VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                          VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT,
                                      MemoryKind::device_local, "ray lists");
    primary_hits_ = create_buffer(ctx, ray_primary_hits_bytes(extent), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, MemoryKind::device_local,
                                  "ray primary hits");
}

// The dense launch (docs/ray-tracing.md, "Dense rays"): ray_lists.comp lists the pixels by the rays
// they trace (f.plan.ray_lists: ballots or one atomic per ray) and writes each pixel's value as far
// as it is known without a ray; its finish writes the launch's width; the indirect launch traces
// one listed ray per invocation and ORs in what it found.
void RayTracePass::trace_dense(FrameContext& f, RaySurface surface, int variant) {
    size_t s = size_t(surface);
    int ballot = f.plan.ray_lists == Variant::subgroup ? 1 : 0;
    Pipeline& lists = ray_lists_[s][ballot];
    if (!lists) {
        // Both paths from one SPIR-V per surface (USE_SUBGROUP) where the ballot lists can be
        // planned (the masks count); elsewhere the fallback twin, which declares no ballot.
        bool possible = missing_support(f.ctx.subgroup, ray_lists_needs()).empty();
        if (ballot && !possible) throw std::runtime_error("ray lists: the ballot variant was planned but the device cannot run it");
        const char* shader = surface == RaySurface::visibility_meshlet
                                 ? (possible ? "ray_lists.comp.visibility_meshlet_switch" : "ray_lists.comp.visibility_meshlet_no_subgroup")
                             : surface == RaySurface::visibility ? (possible ? "ray_lists.comp.visibility_switch" : "ray_lists.comp.visibility_no_subgroup")
                                                                 : (possible ? "ray_lists.comp.camera_switch" : "ray_lists.comp.camera_no_subgroup");
        lists = create_compute_pipeline(f.ctx, {.shader = shader, .use_subgroup = ballot == 1});
    }
    if (!ray_lists_finish_) ray_lists_finish_ = create_compute_pipeline(f.ctx, {"ray_lists.comp.finish"});
    Buffer& sbt = dense_sbt_[s][variant];
    if (!sbt.buffer) sbt = make_sbt(f.ctx, dense_[s][variant]);  // where the pipeline is first compiled
    FrameGraph& g = f.graph();

    // The header, after the last frame's launch read it and its rays read the lists: the launch
    // {0, 1, 1} (the finish writes the width), both counts 0, the reflection list after the
    // shadow list's room for every pixel.
    uint32_t pixels = extent_.width * extent_.height;
    uint32_t header[8] = {0, 1, 1, 0, 0, pixels, 0, 0};
    g.pass(f.cmd, {writes(Res::ray_lists, kTransferStage, VK_ACCESS_2_TRANSFER_WRITE_BIT)});
    vkCmdUpdateBuffer(f.cmd, ray_lists_buffer_.buffer, 0, sizeof(header), header);
    float lod_max_error_px = f.plan.lod ? kLodMaxErrorPixels : 0.0f;
    if (surface == RaySurface::camera) {
        // The forward path: its primary launch, one raygen per pixel, stores each pixel's hit
        // (after the last frame's compaction and rays read them), which the compaction reads.
        std::vector<Use> uses = {writes(Res::ray_primary_hits, kRayShader, kStorageWrite),
                                 reads(Res::ray_structures, kRayShader, kStructureRead)};
        scene_uses(f, surface, kRayShader, uses);
        if (variant) uses.push_back(writes(Res::ray_stat_stripes, kRayShader, kStorageReadWrite));
        g.pass(f.cmd, uses);
        Buffer& primary_sbt = primary_sbt_[variant];
        if (!primary_sbt.buffer) primary_sbt = make_sbt(f.ctx, primary_[variant]);
        const Pipeline& primary = primary_[variant];
        vkCmdBindPipeline(f.cmd, VK_PIPELINE_BIND_POINT_RAY_TRACING_KHR, primary.handle());
        Descriptors d;
        push_scene(f, d, surface, variant);
        d.acceleration_structure(4, tlas_.handle).buffer(kRayListsBinding, ray_lists_buffer_).buffer(kPrimaryHitsBinding, primary_hits_);
        d.push(f.cmd, primary);
        push_constants(f.cmd, primary, &lod_max_error_px, sizeof(lod_max_error_px));
        VkStridedDeviceAddressRegionKHR raygen = sbt_region(f, primary_sbt, sbt_layout_.raygen),
                                        miss = sbt_region(f, primary_sbt, sbt_layout_.miss),
                                        hit = sbt_region(f, primary_sbt, sbt_layout_.hit),
                                        callable = sbt_region(f, primary_sbt, sbt_layout_.callable);
        cmd_trace_rays(f.cmd, &raygen, &miss, &hit, &callable, extent_.width, extent_.height, 1);
    }
    {
        // The compaction: the lists after the header, every pixel of the traced image written
        // (forward may have read it: wait for that), the primary hits read on the forward path.
        std::vector<Use> uses = {writes(Res::ray_lists, kComputeStage, kStorageReadWrite),
                                 writes(Res::ray_traced, kComputeStage, kStorageWrite, VK_IMAGE_LAYOUT_GENERAL, true)};
        scene_uses(f, surface, kComputeStage, uses);
        if (surface == RaySurface::camera) uses.push_back(reads(Res::ray_primary_hits, kComputeStage, kStorageRead));
        g.pass(f.cmd, uses);
        vkCmdBindPipeline(f.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, lists.handle());
        Descriptors d;
        push_scene(f, d, surface, false);  // (the compaction counts nothing)
        d.buffer(kRayListsBinding, ray_lists_buffer_);
        if (surface == RaySurface::camera) d.buffer(kPrimaryHitsBinding, primary_hits_);
        d.push(f.cmd, lists);
        push_constants(f.cmd, lists, &lod_max_error_px, sizeof(lod_max_error_px));
        dispatch(f.ctx, f.cmd, (extent_.width + 7) / 8, (extent_.height + 7) / 8);
    }
    g.pass(f.cmd, {writes(Res::ray_lists, kComputeStage, kStorageReadWrite)});
    vkCmdBindPipeline(f.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, ray_lists_finish_.handle());
    Descriptors().buffer(kRayListsBinding, ray_lists_buffer_).push(f.cmd, ray_lists_finish_);
    dispatch(f.ctx, f.cmd, 1);
    // The launch reads its width as an indirect command, the rays read the lists, and OR into the
    // pixels the compaction wrote.
    std::vector<Use> uses = {reads(Res::ray_lists, kIndirectStage | kRayShader,
                                   VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT | kStorageRead),
                             writes(Res::ray_traced, kRayShader, kStorageReadWrite, VK_IMAGE_LAYOUT_GENERAL),
                             reads(Res::ray_structures, kRayShader, kStructureRead)};
    scene_uses(f, surface, kRayShader, uses);
    if (surface == RaySurface::camera) uses.push_back(reads(Res::ray_primary_hits, kRayShader, kStorageRead));
    if (variant) uses.push_back(writes(Res::ray_stat_stripes, kRayShader, kStorageReadWrite));
    g.pass(f.cmd, uses);

    const Pipeline& pipeline = dense_[s][variant];
    vkCmdBindPipeline(f.cmd, VK_PIPELINE_BIND_POINT_RAY_TRACING_KHR, pipeline.handle());
    Descriptors d;
    push_scene(f, d, surface, variant);
    d.acceleration_structure(4, tlas_.handle).buffer(kRayListsBinding, ray_lists_buffer_);
    if (surface == RaySurface::camera) d.buffer(kPrimaryHitsBinding, primary_hits_);
    d.push(f.cmd, pipeline);
    push_constants(f.cmd, pipeline, &lod_max_error_px, sizeof(lod_max_error_px));
    VkStridedDeviceAddressRegionKHR raygen = sbt_region(f, sbt, sbt_layout_.raygen), miss = sbt_region(f, sbt, sbt_layout_.miss),
                                    hit = sbt_region(f, sbt, sbt_layout_.hit), callable = sbt_region(f, sbt, sbt_layout_.callable);
    cmd_trace_rays_indirect(f.cmd, &raygen, &miss, &hit, &callable, ray_lists_buffer_.address);
}

bool RayTracePass::record_stage_view(FrameContext& f, const Buffer& params) {
    const ViewPlan& plan = f.plan.view;
    if (!enabled_ || !(kRayTracingStages & bit(plan.stage))) return false;
    RaySurface s = surface(f);
    // The launch the frame traced: where it went dense, its lists are still in ray_lists_buffer_
    // (only the pass's next record resets them), and the view traces those same entries.
    bool dense = f.ray_traced && traced_dense_;
    // The stage under view measures its lanes where the plan found subgroups there; elsewhere it
    // marks its invocations with "no lane data" (view_none), which raytrace_view.comp hatches.
    std::string kind = plan.variant != Variant::subgroup           ? "view_none"
                       : plan.mode == ViewMode::lane_id           ? "view_lane_id"
                       : plan.mode == ViewMode::first_last_lane ? "view_first_last"
                                                                  : "view_active";
    ViewPipeline& view = views_[{uint32_t(plan.stage), kind, uint32_t(s), dense}];
    if (!view.pipeline) {
        Stage under_view = plan.stage;
        auto variant = [&](const char* launch) {
            return [&, launch](Stage stage) {
                return (stage == under_view ? kind : std::string("view_plain")) +
                       (stage == Stage::raygen ? launch + std::string(surface_suffix(s)) : "");
            };
        };
        view.pipeline = dense ? create_ray_pipeline(f.ctx, variant("_dense"))
                              : create_ray_pipeline(f.ctx, variant(""));
        view.sbt = make_sbt(f.ctx, view.pipeline);
        if (dense && s == RaySurface::camera) {
            view.primary = create_ray_pipeline(f.ctx, variant("_primary"));
            view.primary_sbt = make_sbt(f.ctx, view.primary);
        }
    }
    if (!view_colour_)
        view_colour_ = create_compute_pipeline(f.ctx, {"raytrace_view.comp.main"});
    // The structures of this frame (built already where the pass ran).
    bind(f);
    if (!f.ray_traced) build_frame(f);
    if (dense) trace_dense_view(f, view, s, params);
    else trace(f, view.pipeline, view.sbt, s, false, &params);  // (the views count nothing)
    f.graph().pass(f.cmd, {reads(Res::ray_traced, kComputeStage, kStorageRead, VK_IMAGE_LAYOUT_GENERAL),
                           writes(Res::color, kComputeStage, kStorageReadWrite, VK_IMAGE_LAYOUT_GENERAL)});
    vkCmdBindPipeline(f.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, view_colour_.handle());
    Descriptors()
        .storage_image(0, f.targets.color.view)
        .storage_image(1, f.targets.ray_traced.view)
        .buffer(2, params, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER)
        .push(f.cmd, view_colour_);
    uint32_t lane_data = plan.variant == Variant::subgroup;  // 0: the hatch over every pixel (raytrace_view.comp)
    push_constants(f.cmd, view_colour_, &lane_data, sizeof(lane_data));
    vkCmdDispatch(f.cmd, (f.targets.extent.width + 7) / 8, (f.targets.extent.height + 7) / 8, 1);
    return true;
}

void RayTracePass::trace_dense_view(FrameContext& f, const ViewPipeline& view, RaySurface surface, const Buffer& params) {
    FrameGraph& g = f.graph();
    // The image cleared (after the shading that read it): a pixel that no invocation serves stays 0.
    g.pass(f.cmd, {writes(Res::ray_traced, kTransferStage, VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_IMAGE_LAYOUT_GENERAL, true)});
    VkClearColorValue zero{};
    VkImageSubresourceRange range{VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    vkCmdClearColorImage(f.cmd, f.targets.ray_traced.image, VK_IMAGE_LAYOUT_GENERAL, &zero, 1, &range);
    float lod_max_error_px = f.plan.lod ? kLodMaxErrorPixels : 0.0f;
    auto bind_launch = [&](const Pipeline& pipeline, std::vector<Use> uses) {
        scene_uses(f, surface, kRayShader, uses);
        g.pass(f.cmd, uses);
        vkCmdBindPipeline(f.cmd, VK_PIPELINE_BIND_POINT_RAY_TRACING_KHR, pipeline.handle());
        Descriptors d;
        push_scene(f, d, surface, false);
        d.acceleration_structure(4, tlas_.handle)
            .buffer(kRayListsBinding, ray_lists_buffer_)
            .buffer(kRayViewCountersBinding - 1, params, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER)
            .buffer(kRayViewCountersBinding, f.counters);
        if (surface == RaySurface::camera) d.buffer(kPrimaryHitsBinding, primary_hits_);
        d.push(f.cmd, pipeline);
        push_constants(f.cmd, pipeline, &lod_max_error_px, sizeof(lod_max_error_px));
    };
    // Each invocation keeps the greater of its record and the pixel's (imageAtomicMax: store_view_record).
    const Use image = writes(Res::ray_traced, kRayShader, kStorageReadWrite, VK_IMAGE_LAYOUT_GENERAL);
    const Use structures = reads(Res::ray_structures, kRayShader, kStructureRead);
    if (surface == RaySurface::camera) {  // the primary launch, one raygen per pixel (it leaves the frame's hits)
        bind_launch(view.primary, {image, structures});
        VkStridedDeviceAddressRegionKHR raygen = sbt_region(f, view.primary_sbt, sbt_layout_.raygen),
                                        miss = sbt_region(f, view.primary_sbt, sbt_layout_.miss),
                                        hit = sbt_region(f, view.primary_sbt, sbt_layout_.hit),
                                        callable = sbt_region(f, view.primary_sbt, sbt_layout_.callable);
        cmd_trace_rays(f.cmd, &raygen, &miss, &hit, &callable, extent_.width, extent_.height, 1);
    }
    // The frame's lists, as its dense launch traced them: the width its finish wrote, the entries.
    std::vector<Use> uses = {reads(Res::ray_lists, kIndirectStage | kRayShader, VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT | kStorageRead),
                             image, structures};
    if (surface == RaySurface::camera) uses.push_back(reads(Res::ray_primary_hits, kRayShader, kStorageRead));
    bind_launch(view.pipeline, uses);
    VkStridedDeviceAddressRegionKHR raygen = sbt_region(f, view.sbt, sbt_layout_.raygen), miss = sbt_region(f, view.sbt, sbt_layout_.miss),
                                    hit = sbt_region(f, view.sbt, sbt_layout_.hit), callable = sbt_region(f, view.sbt, sbt_layout_.callable);
    cmd_trace_rays_indirect(f.cmd, &raygen, &miss, &hit, &callable, ray_lists_buffer_.address);
}

RayTracePass::Lists RayTracePass::read_lists(const Context& ctx) const {
    std::vector<uint8_t> bytes = read_buffer(ctx, ray_lists_buffer_);
    std::vector<uint32_t> words(bytes.size() / sizeof(uint32_t));
    memcpy(words.data(), bytes.data(), words.size() * sizeof(uint32_t));
    // The header (ray_surface.glsl, RayLists): the launch (3 words), the two counts, the reflection
    // list's start, 2 words of padding; then the entries.
    constexpr size_t kHeaderWords = 8;
    uint32_t shadows = words[3], reflections = words[4], reflection_base = words[5];
    Lists lists;
    lists.shadow.assign(words.begin() + kHeaderWords, words.begin() + kHeaderWords + shadows);
    lists.reflection.assign(words.begin() + kHeaderWords + reflection_base,
                            words.begin() + kHeaderWords + reflection_base + reflections);
    return lists;
}

// What the subgroup variant's stage `stage` counted about its subgroups (raytrace_stats.glsl).
static SubgroupTally ray_stage_tally(const GpuCounters& c, int stage) {
    return {c.rays.subgroups[stage], c.rays.invocations[stage], c.ray_lane_slots[stage], c.ray_sizes[stage]};
}

// Rays per second of each kind: the last frame's rays over the traces' median time (the ray_trace
// timer, which leaves the acceleration structures' rebuild to its own ray_build row; the same rays
// every frame of a run: the camera and the geometry do not move, only the lights).
nlohmann::json ray_trace_rays_per_second(const nlohmann::json& rays, double median_ms) {
    if (!(median_ms > 0)) return nullptr;
    nlohmann::json out = nlohmann::json::object();
    uint64_t total = 0;
    for (const char* kind : {"primary", "shadow", "reflection"}) {
        uint64_t n = rays[kind].get<uint64_t>();
        total += n;
        out[kind] = double(n) / (median_ms * 1e-3);
    }
    out["total"] = double(total) / (median_ms * 1e-3);
    return out;
}

// The statistics of the last frame (docs/ray-tracing.md): rays per kind, each stage's invocations
// and atomics (one per subgroup with subgroups, one per invocation in the fallback), and with
// subgroups the mean lanes per subgroup, the sizes the stage ran at, and the occupancy: lanes over
// the sizes of the subgroups that ran (not over the device's subgroupSize, which a ray-tracing
// stage need not run at).
void ray_trace_report_counters(nlohmann::json& counters, const PassCounters& c) {
    Variant v = c.plan[PassId::ray_trace].variant;
    if (v == Variant::off || !c.ran) {
        counters["ray_trace"] = nullptr;
        return;
    }
    const RayStats& s = c.frame.rays;
    bool subgroup = v == Variant::subgroup;
    static const char* kStageKeys[6] = {"raygen", "any_hit", "closest_hit", "miss", "intersection", "callable"};
    nlohmann::json stages = nlohmann::json::object();
    for (int i = 0; i < 6; ++i) {
        uint32_t atomics = subgroup ? s.subgroups[i] : s.invocations[i];
        nlohmann::json st = {{"invocations", s.invocations[i]}, {"atomics", atomics}};
        if (subgroup && atomics) {
            SubgroupTally tally = ray_stage_tally(c.frame, i);
            st["lanes_per_subgroup"] = double(s.invocations[i]) / double(atomics);
            st["subgroup_sizes"] = subgroup_sizes(tally.sizes);
            std::optional<double> full = occupancy(tally);
            st["occupancy"] = full ? nlohmann::json(*full) : nlohmann::json(nullptr);
        }
        stages[kStageKeys[i]] = st;
    }
    counters["ray_trace"] = {{"variant", variant_name(v)},
                             {"rays", {{"primary", s.rays[0]}, {"shadow", s.rays[1]}, {"reflection", s.rays[2]}}},
                             {"stages", stages},
                             {"any_hit_rejections", s.any_hit_rejections},
                             {"sphere_hits", s.sphere_hits},
                             {"shadow_skipped_subgroups", subgroup ? nlohmann::json(s.shadow_skips) : nlohmann::json(nullptr)}};
}

// One HUD line, each stage in short (rg ah ch mi is ca): with subgroups, how full its subgroups
// were in percent (invocations over the sizes of the subgroups that ran); the
// fallback makes one atomic per invocation and so measures no lanes: its invocations instead.
std::optional<HudLine> ray_trace_hud_line(const PassCounters& c) {
    Variant v = c.plan[PassId::ray_trace].variant;
    if (v == Variant::off || !c.ran) return std::nullopt;
    auto compact = [](uint64_t n) {
        char text[32];
        if (n < 1000) snprintf(text, sizeof(text), "%llu", (unsigned long long)n);
        else if (n < 1000000) snprintf(text, sizeof(text), "%lluk", (unsigned long long)(n / 1000));
        else snprintf(text, sizeof(text), "%.1fM", double(n) / 1e6);
        return std::string(text);
    };
    const RayStats& r = c.frame.rays;
    bool subgroup = v == Variant::subgroup;
    static const char* kShort[6] = {"rg", "ah", "ch", "mi", "is", "ca"};
    std::string line;
    for (int i = 0; i < 6; ++i) {
        line += std::string(i ? " " : "") + kShort[i] + " ";
        if (!subgroup) line += compact(r.invocations[i]);
        else if (std::optional<double> full = occupancy(ray_stage_tally(c.frame, i))) line += std::to_string(int(std::lround(100.0 * *full)));
        else line += "-";
    }
    return HudLine{subgroup ? "RT lanes %" : "RT calls", {{line, subgroup ? HudTone::normal : HudTone::dim}}};
}

// What the scene alone sizes (kDriverSizedAllocations in run/limits.h: the rest).
void ray_trace_frame_allocations(const AllocationQuery& q, std::vector<PlannedAllocation>& out) {
    if (!q.ray_tracing) return;
    out.push_back({"light aabbs", std::max<uint64_t>(1, q.lights) * sizeof(VkAabbPositionsKHR), AllocationKind::storage_buffer, false});
    out.push_back({"ray trace instances", (q.scene.instances.size() + 1) * sizeof(VkAccelerationStructureInstanceKHR),
                   AllocationKind::buffer});
    out.push_back({"ray lists", ray_lists_bytes({q.width, q.height}), AllocationKind::storage_buffer, false});
    out.push_back({"ray primary hits", ray_primary_hits_bytes({q.width, q.height}), AllocationKind::storage_buffer, false});
    out.push_back({"ray stat stripes", kRayStatStripesBytes, AllocationKind::storage_buffer, false});
}

std::unique_ptr<PassUnit> create_ray_trace_unit(const UnitSetup& s) {
    return make_unit<RayTracePass>(s.ctx, s.scene, s.lights, s.extent);
}
