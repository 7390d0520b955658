#include "run/limits.h"
#include "render/visibility_id.h"

#include <algorithm>
#include <set>

#include "passes/meshlet_pass.h"  // meshlet_frame_allocations
#include "passes/raster_pass.h"  // raster_chunk_count
#include "render/frame.h"
#include "render/gpu_scene.h"
#include "render/renderer.h"
#include "vk/context.h"

namespace {

std::string mib(uint64_t bytes) {
    // One decimal below 10 MiB so small limits (and tests with made-up ones) still read sensibly.
    double m = double(bytes) / double(1 << 20);
    char text[32];
    snprintf(text, sizeof(text), m < 10 ? "%.1f MiB" : "%.0f MiB", m);
    return text;
}

std::string size_text(const Options& o) { return std::to_string(o.width) + "x" + std::to_string(o.height); }

// What to change to make an allocation smaller, by what it scales with.
std::string advice(const std::string& name, const Scene& scene) {
    if (name == "light lists" || name == "color" || name == "hdr" || name == "depth" || name == "half-resolution mip" || name == "ray traced" ||
        name == "mip edge list" || name == "mip fix-up stamps" || name == "visibility" || name == "raster words" ||
        name == "raster depth")
        return "use a smaller --size";
    if (name == "lights") return "use fewer --lights";
    if (name == "textures" || name == "texture staging") return "use a scene with fewer or smaller textures";
    if (name == "vertices" || name == "source indices")  // shared by all copies, unless --unique-meshes
        return scene.unique_meshes ? "use a smaller --instances or drop --unique-meshes" : "use a smaller scene";
    return "use a smaller --instances or a smaller scene";
}

}  // namespace

DeviceLimits device_limits(const Context& ctx) {
    VkPhysicalDeviceMaintenance4Properties m4{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_4_PROPERTIES};
    VkPhysicalDeviceMaintenance3Properties m3{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES, &m4};
    VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &m3};
    vkGetPhysicalDeviceProperties2(ctx.physical, &props);
    const VkPhysicalDeviceLimits& l = ctx.properties.limits;  // as SGD_MASK_LIMITS may have lowered them

    DeviceLimits d;
    d.ray_tracing = ctx.features.ray_tracing;
    d.mesh_shader = ctx.features.mesh_shader;
    d.max_image_dimension_2d = l.maxImageDimension2D;
    d.max_scene_textures = ctx.max_scene_textures;
    d.max_storage_buffer_range = l.maxStorageBufferRange;
    d.max_buffer_size = m4.maxBufferSize;
    d.max_allocation_size = m3.maxMemoryAllocationSize;
    int heap = -1;
    for (uint32_t i = 0; i < ctx.memory.memoryHeapCount; ++i)
        if ((ctx.memory.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) &&
            (heap < 0 || ctx.memory.memoryHeaps[i].size > ctx.memory.memoryHeaps[heap].size))
            heap = int(i);
    if (heap >= 0) {
        d.device_local_heap = ctx.memory.memoryHeaps[heap].size;
        for (uint32_t t = 0; t < ctx.memory.memoryTypeCount; ++t)
            if (ctx.memory.memoryTypes[t].heapIndex == uint32_t(heap) &&
                (ctx.memory.memoryTypes[t].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT))
                d.unified_memory = true;
    }
    return d;
}

std::vector<PlannedAllocation> planned_allocations(const Scene& scene, const Options& options, const Plan& plan,
                                                   const DeviceLimits& device) {
    using K = AllocationKind;
    const uint64_t draws = scene.instances.size();
    const uint64_t indirect = sizeof(VkDrawIndexedIndirectCommand);
    const uint64_t w = options.width, h = options.height;

    std::vector<PlannedAllocation> a = {
        // upload_scene (render/gpu_scene.cpp)
        {"vertices", scene.vertices.size() * sizeof(Vertex), K::storage_buffer},
        {"vertex materials", std::max<uint64_t>(scene.vertices.size(), 1) * sizeof(VertexMaterial), K::storage_buffer},
        {"source indices", scene.indices.size() * sizeof(uint32_t), K::storage_buffer},
        {"draws", draws * sizeof(GpuDraw), K::storage_buffer},
        {"indirect (all)", draws * indirect, K::storage_buffer},
        {"indirect template", draws * indirect, K::storage_buffer},
        {"all draws count", 4, K::storage_buffer},
        // every texture at its own size with its full mip chain, and the white texel
        {"textures", texture_bytes(scene, plan.textures.layers), K::image},
        // frame targets (render/renderer.cpp)
        {"hdr", w * h * 8, K::image},  // RGBA16F
        {"color", w * h * 4, K::image},
        {"depth", w * h * 4, K::image},
        {"half-resolution mip", std::max<uint64_t>(1, w / 2) * std::max<uint64_t>(1, h / 2) * 8, K::image},  // RGBA16F
        {"ray traced", w * h * 4, K::image},
        {"counters", sizeof(GpuCounters), K::buffer},
        {"exposure state", 48, K::storage_buffer},
        {"view params", 4096, K::buffer},  // the debug views' constant palette: under 4 KiB
    };
    // --shading visibility's image (R32_UINT: the 32-bit visibility id), made when the plan shades
    // with visibility: counted unless forward was asked for and nothing can switch (the window's I key can).
    if (options.plan.shading != Shading::forward || options.mode == Mode::window)
        a.push_back({"visibility", w * h * 4, K::image});
    // The compute rasterizer (passes/raster_pass.cpp), made when the plan rasterizes in compute:
    // asked for, or auto with a verdict of this device for it. The 64-bit words, the depth taken
    // from them, and the hardware list (a command, then an id for every triangle the draws may list).
    // (The late draw's command, one VkDrawIndirectCommand, and its two VkDispatchIndirectCommands are
    // made with the pass whatever the plan.)
    a.push_back({"raster late command", 16, K::storage_buffer});
    a.push_back({"raster late dispatches", 32, K::storage_buffer});
    if (plan.raster.raster == Raster::compute) {
        a.push_back({"raster words", w * h * 8, K::storage_buffer});
        a.push_back({"raster depth", w * h * 4, K::image});
        a.push_back({"raster hardware list", 16 + 4 * std::max<uint64_t>(1, scene.triangle_count()), K::storage_buffer});
        a.push_back({"raster chunks", 8 * std::max<uint64_t>(1, raster_chunk_count(scene)), K::storage_buffer});
        a.push_back({"raster tile bins", 32 + 16 * uint64_t(kRasterBinCapacity), K::storage_buffer});
    }
    // The meshlet path (passes/meshlet_pass.cpp), made where the plan draws meshlets (or a task or
    // mesh debug view): its meshlets, task chunks and lists, and under --raster compute on that
    // path the chunk list its culling in compute fills for the rasterizer (MeshletRaster).
    // Counting them builds the meshlets, kept with the scene for the renderer.
    if (draws_meshlets(plan, device.mesh_shader)) {
        meshlet_frame_allocations(scene, !options.cull_dump.empty(), a);
        if (plan.geometry == Geometry::meshlet && plan.raster.raster == Raster::compute)
            a.push_back({"meshlet raster chunks", meshlet_raster_list_bytes(build_task_chunks(scene, scene_meshlets(scene)), scene_meshlets(scene)),
                         K::storage_buffer, false});
    }
    // Each pass's own share (its table entry).
    AllocationQuery query{scene, options.width, options.height, options.lights, options.cull_group_size, device.ray_tracing};
    for (const PassInfo& pass : kPasses)
        if (pass.frame_allocations) pass.frame_allocations(query, a);
    for (uint32_t slot = 0; slot < kFramesInFlight; ++slot) {
        a.push_back({"lights", std::max<uint64_t>(1, options.lights) * sizeof(GpuLight), K::host_buffer});
        a.push_back({"frame uniforms", sizeof(FrameUniforms), K::host_buffer});
        a.push_back({"overlay vertices", Overlay::kMaxVertices * sizeof(OverlayVertex), K::host_buffer});
        a.push_back({"frame counters readback", sizeof(GpuCounters), K::host_buffer});
    }
    // Uploads stage one buffer at a time; the largest staging buffer lives next to everything above.
    uint64_t staging = texture_staging_bytes(scene, plan.textures.layers);
    for (const PlannedAllocation& p : a)
        if (p.kind == K::storage_buffer && p.uploaded) staging = std::max(staging, p.bytes);
    a.push_back({"staging", staging, K::host_buffer});
    // Screenshot readback at the end of the run.
    a.push_back({"readback", w * h * 4, K::host_buffer});
    return a;
}

std::vector<PlannedAllocation> planned_allocations(const Scene& scene, const Options& options, const std::vector<Plan>& plans,
                                                   const DeviceLimits& device) {
    if (plans.size() == 1) return planned_allocations(scene, options, plans[0], device);
    auto bytes_named = [](const std::vector<PlannedAllocation>& list, const std::string& name) {
        uint64_t bytes = 0;
        for (const PlannedAllocation& p : list) bytes += p.name == name ? p.bytes : 0;
        return bytes;
    };
    std::vector<PlannedAllocation> all;
    for (const Plan& plan : plans) {
        // A name this plan allocates more under (in all its entries: a copy per frame in flight)
        // than the plans before it takes its entries; in the plan's order, so the check meets
        // them as it meets one plan's.
        std::vector<PlannedAllocation> mine = planned_allocations(scene, options, plan, device);
        std::set<std::string> seen;
        for (const PlannedAllocation& p : mine) {
            if (!seen.insert(p.name).second || bytes_named(all, p.name) >= bytes_named(mine, p.name)) continue;
            std::erase_if(all, [&](const PlannedAllocation& q) { return q.name == p.name; });
            for (const PlannedAllocation& q : mine)
                if (q.name == p.name) all.push_back(q);
        }
    }
    return all;
}

void check_limits(const DeviceLimits& limits, const Options& options, const Plan& plan, const Scene& scene) {
    check_limits(limits, options, std::vector<Plan>{plan}, scene);
}

void check_limits(const DeviceLimits& limits, const Options& options, const std::vector<Plan>& plans, const Scene& scene) {
    if (options.width > limits.max_image_dimension_2d || options.height > limits.max_image_dimension_2d)
        throw UsageError("--size " + size_text(options) + " exceeds the device's largest image (" +
                         std::to_string(limits.max_image_dimension_2d) + " pixels a side); use a smaller --size");
    if (scene.instances.size() > kMaxDraws)
        throw UsageError("the scene has " + std::to_string(scene.instances.size()) + " draws, more than the " +
                         std::to_string(kMaxDraws) + " the renderer supports; use a smaller --instances");
    // The 32-bit visibility id (render/visibility_id.h), before anything is allocated for a scene
    // it cannot name. (The meshlet path's limit needs the meshlets: the renderer checks it.)
    for (const Plan& plan : plans)
        if (plan.shading.shading == Shading::visibility && plan.geometry != Geometry::meshlet)
            if (std::string error = visibility_id_error(scene); !error.empty()) throw UsageError(error);
    const bool layers = !plans.empty() && plans[0].textures.layers;  // the device's, the same in every plan
    if (scene.textures.size() + 1 > limits.max_scene_textures)
        throw UsageError("the scene has " + std::to_string(scene.textures.size()) +
                         " textures; the texture array holds at most " + std::to_string(limits.max_scene_textures - 1) +
                         (layers ? " on this device (its maxImageArrayLayers: the textures are one array texture's layers)"
                                 : " on this device (its sampler and sampled-image descriptor limits)") +
                         "; use a scene with fewer textures");
    for (size_t i = 0; i < scene.textures.size(); ++i) {
        const Texture& t = scene.textures[i];
        if (uint64_t(t.width) > limits.max_image_dimension_2d || uint64_t(t.height) > limits.max_image_dimension_2d)
            throw UsageError("texture " + std::to_string(i) + " is " + std::to_string(t.width) + "x" + std::to_string(t.height) +
                             ", larger than the device's largest image (" + std::to_string(limits.max_image_dimension_2d) +
                             " pixels a side); resize it in the scene");
    }

    uint64_t device_bytes = 0, host_bytes = 0;
    for (const PlannedAllocation& p : planned_allocations(scene, options, plans, limits)) {
        auto refuse = [&](const std::string& limit, uint64_t value) {
            const char* what = p.kind == AllocationKind::image ? " image" : " buffer";
            throw UsageError("the " + p.name + what + " would need " + mib(p.bytes) + " (" + std::to_string(p.bytes) +
                             " bytes), more than the device's " + limit + " of " + mib(value) + "; " + advice(p.name, scene));
        };
        if (p.kind == AllocationKind::storage_buffer && p.bytes > limits.max_storage_buffer_range)
            refuse("storage buffer range", limits.max_storage_buffer_range);
        if (p.kind != AllocationKind::image && limits.max_buffer_size && p.bytes > limits.max_buffer_size)
            refuse("largest buffer", limits.max_buffer_size);
        if (limits.max_allocation_size && p.bytes > limits.max_allocation_size)
            refuse("largest allocation", limits.max_allocation_size);
        (p.kind == AllocationKind::host_buffer ? host_bytes : device_bytes) += p.bytes;
    }
    // Leave a tenth of the heap to the driver, the window system and other programs.
    uint64_t need = device_bytes + (limits.unified_memory ? host_bytes : 0);
    uint64_t usable = limits.device_local_heap / 10 * 9;
    if (limits.device_local_heap && need > usable)
        throw UsageError("the renderer would need " + mib(need) + " of GPU memory for " + size_text(options) + " and " +
                         std::to_string(scene.triangle_count()) + " triangles, more than 90% of the device's " +
                         mib(limits.device_local_heap) + " heap; use a smaller --instances or --size" +
                         (scene.unique_meshes ? ", or drop --unique-meshes" : ""));
}
