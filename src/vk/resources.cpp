#include "vk/resources.h"
#include "vk/fault_injection.h"
#include "vk/pipeline_stats.h"
#include "vk/spirv_reflect.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <semaphore>
#include <thread>

namespace {

// Names the size asked, exactly and in MiB, so a user can tell a huge request from a full heap.
std::string out_of_memory_message(VkResult result, VkDeviceSize size, const char* name) {
    char mib[32];
    snprintf(mib, sizeof(mib), "%.1f", double(size) / double(1 << 20));
    return std::string("out of ") + (result == VK_ERROR_OUT_OF_HOST_MEMORY ? "host" : "device") + " memory allocating " +
           std::to_string(size) + " bytes (" + mib + " MiB) for " + name + " (" + vk_result_name(result) +
           "); try a smaller --instances or --size";
}

uint32_t find_memory_type(const Context& ctx, uint32_t type_bits, VkMemoryPropertyFlags want) {
    for (uint32_t i = 0; i < ctx.memory.memoryTypeCount; ++i)
        if ((type_bits & (1u << i)) && (ctx.memory.memoryTypes[i].propertyFlags & want) == want) return i;
    return UINT32_MAX;
}

VkDeviceMemory allocate(const Context& ctx, VkMemoryRequirements req, MemoryKind kind, const char* name,
                        bool device_address = false) {
    VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    if (kind == MemoryKind::host_upload) want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    if (kind == MemoryKind::host_readback)
        want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT | VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
    uint32_t type = find_memory_type(ctx, req.memoryTypeBits, want);
    if (type == UINT32_MAX && kind == MemoryKind::host_readback)
        type = find_memory_type(ctx, req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    if (type == UINT32_MAX) throw VulkanError(std::string("no memory type for ") + name);
    VkMemoryAllocateInfo info{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    info.allocationSize = req.size;
    info.memoryTypeIndex = type;
    // Buffers whose device address is taken (ray tracing: build inputs, acceleration structures,
    // scratch, the shader binding table) need memory allocated for it.
    VkMemoryAllocateFlagsInfo flags{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO};
    flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
    if (device_address) info.pNext = &flags;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkResult result = inject_out_of_memory(req.size) ? VK_ERROR_OUT_OF_DEVICE_MEMORY
                                                    : vkAllocateMemory(ctx.device, &info, nullptr, &memory);
    if (result == VK_ERROR_OUT_OF_DEVICE_MEMORY || result == VK_ERROR_OUT_OF_HOST_MEMORY)
        throw VulkanError(out_of_memory_message(result, req.size, name));
    VK_CHECK(result);
    return memory;
}

std::vector<AllocationRecord>* g_allocation_log = nullptr;

void log_allocation(const char* name, VkDeviceSize bytes, bool image) {
    if (g_allocation_log) g_allocation_log->push_back({name, bytes, image});
}

VkMemoryRequirements memory_requirements(VkDevice device, VkBuffer buffer) {
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(device, buffer, &req);
    return req;
}
VkMemoryRequirements memory_requirements(VkDevice device, VkImage image) {
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(device, image, &req);
    return req;
}
void bind_memory(VkDevice device, VkBuffer buffer, VkDeviceMemory memory) {
    VK_CHECK(vkBindBufferMemory(device, buffer, memory, 0));
}
void bind_memory(VkDevice device, VkImage image, VkDeviceMemory memory) { VK_CHECK(vkBindImageMemory(device, image, memory, 0)); }
constexpr VkObjectType object_type(VkBuffer) { return VK_OBJECT_TYPE_BUFFER; }
constexpr VkObjectType object_type(VkImage) { return VK_OBJECT_TYPE_IMAGE; }

// The one way a new buffer or image gets its memory, after its vkCreate* call returned `created`:
// out of memory is reported as such, naming `requested` bytes; then memory of `kind` is allocated,
// bound, and the object named. `allocated`: the allocation's size (what the poison fills).
template <typename Handle>
VkDeviceMemory bind_new_memory(const Context& ctx, VkResult created, Handle handle, VkDeviceSize requested, MemoryKind kind,
                               const char* name, VkDeviceSize& allocated, bool device_address = false) {
    if (created == VK_ERROR_OUT_OF_DEVICE_MEMORY || created == VK_ERROR_OUT_OF_HOST_MEMORY)
        throw VulkanError(out_of_memory_message(created, requested, name));
    VK_CHECK(created);
    VkMemoryRequirements req = memory_requirements(ctx.device, handle);
    VkDeviceMemory memory = allocate(ctx, req, kind, name, device_address);
    bind_memory(ctx.device, handle, memory);
    set_name(ctx, object_type(handle), uint64_t(handle), name);
    allocated = req.size;
    return memory;
}

// SGD_POISON_ALLOCATIONS (vk/fault_injection.h): the word every new buffer starts out as. As a float
// it is a NaN, as an index or count it is out of range, so a read of memory nobody wrote shows.
constexpr uint32_t kPoisonWord = 0x7fc0dead;

void poison_buffer(const Context& ctx, Buffer& b, VkDeviceSize allocation_size) {
    if (b.mapped) {
        for (VkDeviceSize i = 0; i + 4 <= allocation_size; i += 4) memcpy(static_cast<char*>(b.mapped) + i, &kPoisonWord, 4);
        return;
    }
    VkCommandBuffer cmd = begin_one_shot(ctx);
    vkCmdFillBuffer(cmd, b.buffer, 0, VK_WHOLE_SIZE, kPoisonWord);
    end_one_shot(ctx, cmd);
}

// Images are cleared to values no pass writes: NaN in float formats, huge integers, an odd colour in
// 8-bit ones, a depth in the middle of the range (reversed Z clears to 0). The image is left in
// TRANSFER_DST_OPTIMAL, and its tracked state says so, so that a transition that keeps the contents
// keeps the poison too.
void poison_image(const Context& ctx, Image& img) {
    bool depth = img.format == VK_FORMAT_D32_SFLOAT;
    VkImageAspectFlags aspect = depth ? VK_IMAGE_ASPECT_DEPTH_BIT : VK_IMAGE_ASPECT_COLOR_BIT;
    VkImageSubresourceRange range{aspect, 0, img.levels, 0, img.layers};
    VkCommandBuffer cmd = begin_one_shot(ctx);
    image_barrier(cmd, img.image, aspect, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                  VK_PIPELINE_STAGE_2_NONE, VK_ACCESS_2_NONE, VK_PIPELINE_STAGE_2_CLEAR_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT);
    if (depth) {
        VkClearDepthStencilValue value{0.37f, 0};
        vkCmdClearDepthStencilImage(cmd, img.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &value, 1, &range);
    } else {
        VkClearColorValue value{};
        if (img.format == VK_FORMAT_R8G8B8A8_UNORM || img.format == VK_FORMAT_B8G8R8A8_UNORM ||
            img.format == VK_FORMAT_R8G8B8A8_SRGB || img.format == VK_FORMAT_B8G8R8A8_SRGB)
            value.float32[0] = 0.93f, value.float32[1] = 0.11f, value.float32[2] = 0.71f, value.float32[3] = 0.37f;
        else  // float formats read the bits as a NaN, integer formats as a huge value
            for (uint32_t& word : value.uint32) word = kPoisonWord;
        vkCmdClearColorImage(cmd, img.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &value, 1, &range);
    }
    end_one_shot(ctx, cmd);
    img.layout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
    img.last_stage = VK_PIPELINE_STAGE_2_CLEAR_BIT;
    img.last_access = VK_ACCESS_2_TRANSFER_WRITE_BIT;
}

}  // namespace

void set_allocation_log(std::vector<AllocationRecord>* log) { g_allocation_log = log; }

std::string executable_dir() {
    char path[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
    if (n <= 0) return ".";
    path[n] = 0;
    std::string s(path);
    return s.substr(0, s.rfind('/'));
}

void destroy(BufferFields& b) {
    if (b.buffer) vkDestroyBuffer(b.device, b.buffer, nullptr);
    if (b.memory) vkFreeMemory(b.device, b.memory, nullptr);
}

void destroy(ImageFields& i) {
    if (i.view) vkDestroyImageView(i.device, i.view, nullptr);
    if (i.image) vkDestroyImage(i.device, i.image, nullptr);
    if (i.memory) vkFreeMemory(i.device, i.memory, nullptr);
}

Buffer create_buffer(const Context& ctx, VkDeviceSize size, VkBufferUsageFlags usage, MemoryKind kind, const char* name) {
    Buffer b;
    b.device = ctx.device;
    b.size = size;
    log_allocation(name, size, false);
    VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.size = size ? size : 4;
    bool poison = poison_allocations();
    info.usage = usage | (poison ? VK_BUFFER_USAGE_TRANSFER_DST_BIT : 0);
    bool device_address = (usage & VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT) != 0;
    VkDeviceSize allocated = 0;
    VkResult created = vkCreateBuffer(ctx.device, &info, nullptr, &b.buffer);
    b.memory = bind_new_memory(ctx, created, b.buffer, info.size, kind, name, allocated, device_address);
    if (kind != MemoryKind::device_local) VK_CHECK(vkMapMemory(ctx.device, b.memory, 0, VK_WHOLE_SIZE, 0, &b.mapped));
    if (poison) poison_buffer(ctx, b, allocated);
    if (device_address) {
        VkBufferDeviceAddressInfo address{VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
        address.buffer = b.buffer;
        b.address = vkGetBufferDeviceAddress(ctx.device, &address);
    }
    return b;
}

Buffer create_buffer_with_data(const Context& ctx, const void* data, VkDeviceSize size, VkBufferUsageFlags usage,
                               const char* name) {
    Buffer b = create_buffer(ctx, size, usage | VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryKind::device_local, name);
    if (size == 0) return b;
    Buffer staging = create_buffer(ctx, size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, MemoryKind::host_upload, "staging");
    memcpy(staging.mapped, data, size);
    VkCommandBuffer cmd = begin_one_shot(ctx);
    VkBufferCopy region{0, 0, size};
    vkCmdCopyBuffer(cmd, staging.buffer, b.buffer, 1, &region);
    end_one_shot(ctx, cmd);
    return b;
}

Image create_image(const Context& ctx, VkExtent2D extent, VkFormat format, VkImageUsageFlags usage, const char* name,
                   uint32_t layers, bool array_view, uint32_t levels, VkImageCreateFlags flags) {
    Image img;
    img.device = ctx.device;
    img.format = format;
    img.extent = extent;
    img.layers = layers;
    img.levels = levels;
    // Every format the renderer uses is 4 bytes a texel, but HDR and visibility (8); every level counts.
    VkDeviceSize texel = format == VK_FORMAT_R16G16B16A16_SFLOAT || format == VK_FORMAT_R32G32_UINT ? 8 : 4;
    VkDeviceSize texels = 0;
    for (uint32_t l = 0; l < levels; ++l)
        texels += VkDeviceSize(std::max(1u, extent.width >> l)) * std::max(1u, extent.height >> l);
    texels *= layers;
    log_allocation(name, texels * texel, true);
    VkImageCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
    info.flags = flags;
    info.imageType = VK_IMAGE_TYPE_2D;
    info.format = format;
    info.extent = {extent.width, extent.height, 1};
    info.mipLevels = levels;
    info.arrayLayers = layers;
    info.samples = VK_SAMPLE_COUNT_1_BIT;
    info.tiling = VK_IMAGE_TILING_OPTIMAL;
    bool poison = poison_allocations();
    info.usage = usage | (poison ? VK_IMAGE_USAGE_TRANSFER_DST_BIT : 0);
    info.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    VkDeviceSize allocated = 0;
    VkResult created = vkCreateImage(ctx.device, &info, nullptr, &img.image);
    img.memory = bind_new_memory(ctx, created, img.image, texels * 4, MemoryKind::device_local, name, allocated);

    bool depth = format == VK_FORMAT_D32_SFLOAT;
    VkImageViewCreateInfo view{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
    view.image = img.image;
    view.viewType = layers > 1 || array_view ? VK_IMAGE_VIEW_TYPE_2D_ARRAY : VK_IMAGE_VIEW_TYPE_2D;
    view.format = format;
    view.subresourceRange = {VkImageAspectFlags(depth ? VK_IMAGE_ASPECT_DEPTH_BIT : VK_IMAGE_ASPECT_COLOR_BIT), 0, levels, 0,
                             layers};
    VK_CHECK(vkCreateImageView(ctx.device, &view, nullptr, &img.view));
    if (poison) poison_image(ctx, img);
    return img;
}

VkImageMemoryBarrier2 image_memory_barrier(VkImage image, VkImageAspectFlags aspect, VkImageLayout old_layout,
                                           VkImageLayout new_layout, VkPipelineStageFlags2 src_stage, VkAccessFlags2 src_access,
                                           VkPipelineStageFlags2 dst_stage, VkAccessFlags2 dst_access) {
    VkImageMemoryBarrier2 barrier{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2};
    barrier.srcStageMask = src_stage;
    barrier.srcAccessMask = src_access;
    barrier.dstStageMask = dst_stage;
    barrier.dstAccessMask = dst_access;
    barrier.oldLayout = old_layout;
    barrier.newLayout = new_layout;
    barrier.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    barrier.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    barrier.image = image;
    barrier.subresourceRange = {aspect, 0, VK_REMAINING_MIP_LEVELS, 0, VK_REMAINING_ARRAY_LAYERS};
    return barrier;
}

void image_barrier(VkCommandBuffer cmd, VkImage image, VkImageAspectFlags aspect, VkImageLayout old_layout,
                   VkImageLayout new_layout, VkPipelineStageFlags2 src_stage, VkAccessFlags2 src_access,
                   VkPipelineStageFlags2 dst_stage, VkAccessFlags2 dst_access) {
    VkImageMemoryBarrier2 barrier =
        image_memory_barrier(image, aspect, old_layout, new_layout, src_stage, src_access, dst_stage, dst_access);
    VkDependencyInfo dep{VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
    dep.imageMemoryBarrierCount = 1;
    dep.pImageMemoryBarriers = &barrier;
    vkCmdPipelineBarrier2(cmd, &dep);
}

void transition(VkCommandBuffer cmd, Image& image, VkImageLayout layout, VkPipelineStageFlags2 stage,
                VkAccessFlags2 access, bool discard) {
    VkImageAspectFlags aspect = image.format == VK_FORMAT_D32_SFLOAT ? VK_IMAGE_ASPECT_DEPTH_BIT : VK_IMAGE_ASPECT_COLOR_BIT;
    image_barrier(cmd, image.image, aspect, discard ? VK_IMAGE_LAYOUT_UNDEFINED : image.layout, layout, image.last_stage,
                  image.last_access, stage, access);
    image.layout = layout;
    image.last_stage = stage;
    image.last_access = access;
}

void dispatch(const Context& ctx, VkCommandBuffer cmd, uint32_t x, uint32_t y, uint32_t z) {
    const uint32_t* most = ctx.properties.limits.maxComputeWorkGroupCount;
    if (x > most[0] || y > most[1] || z > most[2])
        report_validation_error("vkCmdDispatch(" + std::to_string(x) + ", " + std::to_string(y) + ", " + std::to_string(z) +
                                ") exceeds maxComputeWorkGroupCount (" + std::to_string(most[0]) + ", " + std::to_string(most[1]) +
                                ", " + std::to_string(most[2]) + ")");
    vkCmdDispatch(cmd, x, y, z);
}

void memory_barrier(VkCommandBuffer cmd, VkPipelineStageFlags2 src_stage, VkAccessFlags2 src_access,
                    VkPipelineStageFlags2 dst_stage, VkAccessFlags2 dst_access) {
    VkMemoryBarrier2 barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER_2};
    barrier.srcStageMask = src_stage;
    barrier.srcAccessMask = src_access;
    barrier.dstStageMask = dst_stage;
    barrier.dstAccessMask = dst_access;
    VkDependencyInfo dep{VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
    dep.memoryBarrierCount = 1;
    dep.pMemoryBarriers = &barrier;
    vkCmdPipelineBarrier2(cmd, &dep);
}

VkRenderingAttachmentInfo color_attachment(const Image& image, VkAttachmentLoadOp load, VkClearColorValue clear) {
    VkRenderingAttachmentInfo a{VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO};
    a.imageView = image.view;
    a.imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    a.loadOp = load;
    a.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
    a.clearValue.color = clear;
    return a;
}

VkRenderingAttachmentInfo depth_attachment(const Image& image, VkImageLayout layout, VkAttachmentLoadOp load,
                                           VkAttachmentStoreOp store, float clear_depth) {
    VkRenderingAttachmentInfo a{VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO};
    a.imageView = image.view;
    a.imageLayout = layout;
    a.loadOp = load;
    a.storeOp = store;
    a.clearValue.depthStencil = {clear_depth, 0};
    return a;
}

void begin_rendering(VkCommandBuffer cmd, VkExtent2D extent, const VkRenderingAttachmentInfo* color,
                     const VkRenderingAttachmentInfo* depth) {
    VkRenderingInfo rendering{VK_STRUCTURE_TYPE_RENDERING_INFO};
    rendering.renderArea = {{0, 0}, extent};
    rendering.layerCount = 1;
    rendering.colorAttachmentCount = color ? 1 : 0;
    rendering.pColorAttachments = color;
    rendering.pDepthAttachment = depth;
    vkCmdBeginRendering(cmd, &rendering);
    VkViewport viewport{0, 0, float(extent.width), float(extent.height), 0, 1};
    VkRect2D scissor{{0, 0}, extent};
    vkCmdSetViewport(cmd, 0, 1, &viewport);
    vkCmdSetScissor(cmd, 0, 1, &scissor);
}

std::string shader_path(const std::string& name) { return executable_dir() + "/shaders/" + name + ".spv"; }

VkShaderModule load_shader(const Context& ctx, const std::string& name) {
    std::string path = shader_path(name);
    // Without descriptor indexing, a shader that samples the scene's textures has a twin that reads
    // them as layers of one array texture (shaders/CMakeLists.txt, SCENE_TEXTURE_LAYERS).
    if (!ctx.features.descriptor_indexing && std::filesystem::exists(shader_path(name + ".layers"))) path = shader_path(name + ".layers");
    if (auto loaded = ctx.shader_modules.find(path); loaded != ctx.shader_modules.end()) return loaded->second;
    std::ifstream file(path, std::ios::binary | std::ios::ate);
    if (!file) throw VulkanError("shader not found: " + path + " (rebuild: cmake --build build)");
    std::vector<char> code(size_t(file.tellg()));
    file.seekg(0);
    file.read(code.data(), std::streamsize(code.size()));
    VkShaderModuleCreateInfo info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    info.codeSize = code.size();
    info.pCode = reinterpret_cast<const uint32_t*>(code.data());
    VkShaderModule module;
    VK_CHECK(vkCreateShaderModule(ctx.device, &info, nullptr, &module));
    return ctx.shader_modules[path] = module;
}

void destroy(PipelineFields& p) {
    if (p.arena) {  // the layout's handle may be reused by the next pipeline
        for (auto it = p.arena->pushed.begin(); it != p.arena->pushed.end();)
            it = it->first.second == p.layout ? p.arena->pushed.erase(it) : std::next(it);
        p.arena->binding_counts.erase(p.layout);
    }
    if (!p.compiled && p.ahead.valid()) {  // compiled ahead but never used: wait for it, then free it
        try {
            p.compiled = p.ahead.get();
        } catch (const std::exception&) {  // its error was nobody's: nothing was drawn with it
        }
    }
    if (p.compiled) vkDestroyPipeline(p.device, p.compiled, nullptr);
    if (p.layout) vkDestroyPipelineLayout(p.device, p.layout, nullptr);
    if (p.set_layout) vkDestroyDescriptorSetLayout(p.device, p.set_layout, nullptr);
}

namespace {
PipelineCompiles compiles_so_far;
}

PipelineCompiles pipeline_compiles() { return compiles_so_far; }

SpecializationConstants::SpecializationConstants(std::vector<uint32_t> constants, bool use_subgroup) : values(std::move(constants)) {
    values.push_back(use_subgroup ? VK_TRUE : VK_FALSE);
    for (uint32_t i = 0; i < values.size(); ++i) entries.push_back({i, uint32_t(i * sizeof(uint32_t)), sizeof(uint32_t)});
    entries.back().constantID = kUseSubgroupConstant;
    info = {uint32_t(entries.size()), entries.data(), values.size() * sizeof(uint32_t), values.data()};
}

void push_constants(VkCommandBuffer cmd, const Pipeline& p, const void* data, uint32_t bytes) {
    if (p.push_constant_bytes > bytes)
        throw std::logic_error("a push of " + std::to_string(bytes) + " bytes to a layout of " + std::to_string(p.push_constant_bytes));
    if (p.push_constant_bytes) vkCmdPushConstants(cmd, p.layout, p.stages, 0, p.push_constant_bytes, data);
}

void compile_ahead(const Context& ctx, Pipeline& p) {
    if (!ctx.compile_ahead || !p.compile) return;
    compiles_so_far.ahead += 1;
    static std::counting_semaphore<1024> cores(std::clamp(std::thread::hardware_concurrency(), 1u, 1024u));
    p.ahead = std::async(std::launch::async, [compile = p.compile] {
        cores.acquire();
        struct Release {
            ~Release() { cores.release(); }
        } release;
        return compile();
    }).share();
}

VkPipeline Pipeline::handle() const {
    if (!compiled && compile) {
        auto started = std::chrono::steady_clock::now();  // ahead: the wait for its thread
        compiled = ahead.valid() ? ahead.get() : compile();
        compiles_so_far.count += 1;
        compiles_so_far.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    }
    return compiled;
}

void create_pipeline_layout(const Context& ctx, const LayoutDesc& desc, Pipeline& p) {
    std::vector<VkDescriptorSetLayoutBinding> bindings;
    for (uint32_t i = 0; i < desc.bindings.size(); ++i)
        if (desc.bindings[i] != kNoBinding) bindings.push_back({i, desc.bindings[i], 1, desc.stages, nullptr});
    VkDescriptorSetLayoutCreateInfo set{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    set.flags = ctx.descriptor_arena.enabled ? 0 : VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR;
    p.arena = ctx.descriptor_arena.enabled ? &ctx.descriptor_arena : nullptr;
    set.bindingCount = uint32_t(bindings.size());
    set.pBindings = bindings.data();
    VK_CHECK(vkCreateDescriptorSetLayout(ctx.device, &set, nullptr, &p.set_layout));
    VkPushConstantRange range{desc.stages, 0, desc.push_constant_bytes};
    VkPipelineLayoutCreateInfo info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    VkDescriptorSetLayout sets[2] = {p.set_layout, ctx.texture_set_layout};
    info.setLayoutCount = desc.scene_textures ? 2 : 1;
    info.pSetLayouts = sets;
    info.pushConstantRangeCount = desc.push_constant_bytes ? 1 : 0;
    info.pPushConstantRanges = &range;
    VK_CHECK(vkCreatePipelineLayout(ctx.device, &info, nullptr, &p.layout));
    if (p.arena) p.arena->binding_counts[p.layout] = uint32_t(bindings.size());
    p.bindings = desc.bindings;
    p.scene_textures = desc.scene_textures;
    p.stages = desc.stages;
    p.push_constant_bytes = desc.push_constant_bytes;
}

namespace {

// A SPIR-V file's reflection, read and parsed once per process: every renderer built again (a
// test's renders, --compare's rows, --atlas's cells) asks for the same layouts, and the files do not
// change while the program runs. (A map's entries stay where they are: the reference outlives the lock.)
const SpirvReflection& reflect_shader_file(const std::string& name) {
    static std::mutex mutex;
    static std::map<std::string, SpirvReflection> reflected;
    std::lock_guard lock(mutex);
    if (auto found = reflected.find(name); found != reflected.end()) return found->second;
    std::ifstream file(shader_path(name), std::ios::binary | std::ios::ate);
    if (!file) throw VulkanError("shader not found: " + shader_path(name) + " (rebuild: cmake --build build)");
    std::vector<uint32_t> words(size_t(file.tellg()) / 4);
    file.seekg(0).read(reinterpret_cast<char*>(words.data()), std::streamsize(words.size() * 4));
    try {
        return reflected.emplace(name, reflect_spirv(words)).first->second;
    } catch (const std::runtime_error& e) {
        throw VulkanError(name + ": " + e.what());
    }
}

}  // namespace

LayoutDesc shader_layout(const std::vector<std::string>& names) {
    std::vector<SpirvReflection> modules;
    for (const std::string& name : names) modules.push_back(reflect_shader_file(name));
    return layout_of(modules);
}

LayoutDesc pipeline_layout(const LayoutDesc& given, const std::vector<std::string>& shaders) {
    LayoutDesc declared = shader_layout(shaders);
    if (given == LayoutDesc{}) return declared;
    if (std::string wrong = layout_mismatch(given, declared); !wrong.empty())
        throw VulkanError("pipeline layout of " + shaders.back() + ": " + wrong);
    return given;
}

Pipeline create_compute_pipeline(const Context& ctx, const ComputeDesc& desc) {
    Pipeline p;
    p.device = ctx.device;
    p.bind_point = VK_PIPELINE_BIND_POINT_COMPUTE;
    LayoutDesc layout = pipeline_layout(desc.layout, {desc.shader});
    layout.stages = VK_SHADER_STAGE_COMPUTE_BIT;
    create_pipeline_layout(ctx, layout, p);
    p.modules = {load_shader(ctx, desc.shader)};
    p.compile = [&ctx, desc, module = p.modules[0], layout = p.layout] {
        VkPipelineShaderStageRequiredSubgroupSizeCreateInfo required{
            VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO};
        required.requiredSubgroupSize = desc.required_subgroup_size;
        if (!required.requiredSubgroupSize && desc.forced_subgroup_size)
            required.requiredSubgroupSize = required_subgroup_size(ctx.subgroup_unmasked, ctx.subgroup_size, Stage::compute);
        VkComputePipelineCreateInfo info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
        info.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
        info.stage.pNext = required.requiredSubgroupSize ? &required : nullptr;
        info.stage.flags = desc.full_subgroups ? VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT : 0;
        info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
        info.stage.module = module;
        info.stage.pName = "main";
        const SpecializationConstants specialization(desc.specialization, desc.use_subgroup);
        info.stage.pSpecializationInfo = &specialization.info;
        info.layout = layout;
        info.flags = pipeline_stats_flags(ctx.pipeline_stats_path);
        VkPipeline pipeline = VK_NULL_HANDLE;
        VK_CHECK(vkCreateComputePipelines(ctx.device, VK_NULL_HANDLE, 1, &info, nullptr, &pipeline));
        std::string name = desc.shader, constants;
        for (uint32_t value : desc.specialization) constants += (constants.empty() ? "" : ", ") + std::to_string(value);
        if (!constants.empty()) name += " [" + constants + "]";
        if (desc.shader.ends_with("switch")) name += desc.use_subgroup ? " (subgroup)" : " (fallback)";
        write_pipeline_stats(ctx.device, ctx.pipeline_stats_path, pipeline, name);
        return pipeline;
    };
    compile_ahead(ctx, p);
    return p;
}

VkPipeline compile_graphics_pipeline(const Context& ctx, const GraphicsDesc& desc,
                                     const std::vector<VkShaderModule>& modules, VkPipelineLayout layout);

Pipeline create_graphics_pipeline(const Context& ctx, const GraphicsDesc& desc) {
    Pipeline p;
    p.device = ctx.device;
    p.bind_point = VK_PIPELINE_BIND_POINT_GRAPHICS;
    std::vector<std::string> shaders;
    for (auto& shader : desc.shaders) shaders.push_back(shader.second);
    create_pipeline_layout(ctx, pipeline_layout(desc.layout, shaders), p);
    for (auto& shader : desc.shaders) p.modules.push_back(load_shader(ctx, shader.second));
    p.compile = [&ctx, desc, modules = p.modules, layout = p.layout] {
        return compile_graphics_pipeline(ctx, desc, modules, layout);
    };
    compile_ahead(ctx, p);
    return p;
}

// The body of create_graphics_pipeline's deferred compile: modules[i] is desc.shaders[i]'s.
VkPipeline compile_graphics_pipeline(const Context& ctx, const GraphicsDesc& desc,
                                     const std::vector<VkShaderModule>& modules, VkPipelineLayout layout) {
    std::vector<VkPipelineShaderStageCreateInfo> stages;
    // One per shader, never reallocated: the stages point at them.
    std::vector<VkPipelineShaderStageRequiredSubgroupSizeCreateInfo> required(
        desc.shaders.size(), {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO});
    const SpecializationConstants task_and_mesh(desc.specialization, desc.use_subgroup);  // the task and mesh stages
    for (auto& [stage, name] : desc.shaders) {
        VkPipelineShaderStageCreateInfo s{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
        if (stage == VK_SHADER_STAGE_TASK_BIT_EXT || stage == VK_SHADER_STAGE_MESH_BIT_EXT) {
            VkPipelineShaderStageRequiredSubgroupSizeCreateInfo& r = required[stages.size()];
            r.requiredSubgroupSize = required_subgroup_size(ctx.subgroup_unmasked, ctx.subgroup_size,
                                                            stage == VK_SHADER_STAGE_TASK_BIT_EXT ? Stage::task : Stage::mesh);
            s.pNext = r.requiredSubgroupSize ? &r : nullptr;
            s.pSpecializationInfo = &task_and_mesh.info;
        }
        s.stage = stage;
        s.module = modules[stages.size()];
        s.pName = "main";
        stages.push_back(s);
    }

    VkVertexInputBindingDescription bindings[2] = {
        {0, 32 /* sizeof(Vertex), scene/scene.h */, VK_VERTEX_INPUT_RATE_VERTEX},
        {1, 32 /* sizeof(VertexMaterial) */, VK_VERTEX_INPUT_RATE_VERTEX},
    };
    VkVertexInputAttributeDescription attributes[5] = {
        {0, 0, VK_FORMAT_R32G32B32_SFLOAT, 0},
        {1, 0, VK_FORMAT_R32G32B32_SFLOAT, 12},
        {2, 0, VK_FORMAT_R32G32_SFLOAT, 24},
        {3, 1, VK_FORMAT_R32G32B32A32_SFLOAT, 0},  // tangent
        {4, 1, VK_FORMAT_R32G32_SFLOAT, 16},       // TEXCOORD_1
    };
    // 2: position and uv (locations 0 and 2), no normal.
    if (desc.vertex_attributes == 2) attributes[1] = attributes[2];
    VkPipelineVertexInputStateCreateInfo vertex_input{VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
    if (desc.vertex_attributes) {
        vertex_input.vertexBindingDescriptionCount = desc.vertex_attributes == 5 ? 2 : 1;
        vertex_input.pVertexBindingDescriptions = bindings;
        vertex_input.vertexAttributeDescriptionCount = desc.vertex_attributes;
        vertex_input.pVertexAttributeDescriptions = attributes;
    }
    VkPipelineInputAssemblyStateCreateInfo assembly{VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
    assembly.topology = desc.patch_control_points ? VK_PRIMITIVE_TOPOLOGY_PATCH_LIST : desc.topology;
    VkPipelineTessellationStateCreateInfo tessellation{VK_STRUCTURE_TYPE_PIPELINE_TESSELLATION_STATE_CREATE_INFO};
    tessellation.patchControlPoints = desc.patch_control_points;
    VkPipelineViewportStateCreateInfo viewport{VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
    viewport.viewportCount = 1;
    viewport.scissorCount = 1;
    VkPipelineRasterizationStateCreateInfo raster{VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
    raster.polygonMode = VK_POLYGON_MODE_FILL;
    raster.cullMode = desc.cull_mode;
    raster.frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE;
    raster.lineWidth = 1.0f;
    VkPipelineMultisampleStateCreateInfo multisample{VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
    multisample.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
    VkPipelineDepthStencilStateCreateInfo depth{VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO};
    depth.depthTestEnable = desc.depth_format != VK_FORMAT_UNDEFINED;
    depth.depthWriteEnable = desc.depth_write;
    depth.depthCompareOp = desc.depth_compare;
    std::vector<VkPipelineColorBlendAttachmentState> blends(desc.color_formats.size());
    for (auto& b : blends) {
        b.colorWriteMask = 0xf;
        if (desc.blend) {
            b.blendEnable = VK_TRUE;
            b.srcColorBlendFactor = VK_BLEND_FACTOR_ONE;
            b.dstColorBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA;
            b.colorBlendOp = VK_BLEND_OP_ADD;
            b.srcAlphaBlendFactor = VK_BLEND_FACTOR_ONE;
            b.dstAlphaBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA;
            b.alphaBlendOp = VK_BLEND_OP_ADD;
        }
    }
    VkPipelineColorBlendStateCreateInfo blend{VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
    blend.attachmentCount = uint32_t(blends.size());
    blend.pAttachments = blends.data();
    VkDynamicState dynamic_states[] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
    VkPipelineDynamicStateCreateInfo dynamic{VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO};
    dynamic.dynamicStateCount = 2;
    dynamic.pDynamicStates = dynamic_states;
    VkPipelineRenderingCreateInfo rendering{VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO};
    rendering.colorAttachmentCount = uint32_t(desc.color_formats.size());
    rendering.pColorAttachmentFormats = desc.color_formats.data();
    rendering.depthAttachmentFormat = desc.depth_format;

    VkGraphicsPipelineCreateInfo info{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO, &rendering};
    info.stageCount = uint32_t(stages.size());
    info.pStages = stages.data();
    // A mesh pipeline has no vertex input or input assembly (the mesh shader makes the primitives).
    bool mesh = false;
    for (auto& [stage, name] : desc.shaders) mesh = mesh || stage == VK_SHADER_STAGE_MESH_BIT_EXT;
    info.pVertexInputState = mesh ? nullptr : &vertex_input;
    info.pInputAssemblyState = mesh ? nullptr : &assembly;
    info.pTessellationState = desc.patch_control_points ? &tessellation : nullptr;
    info.pViewportState = &viewport;
    info.pRasterizationState = &raster;
    info.pMultisampleState = &multisample;
    info.pDepthStencilState = &depth;
    info.pColorBlendState = &blend;
    info.pDynamicState = &dynamic;
    info.layout = layout;
    info.flags = pipeline_stats_flags(ctx.pipeline_stats_path);
    VkPipeline pipeline = VK_NULL_HANDLE;
    VK_CHECK(vkCreateGraphicsPipelines(ctx.device, VK_NULL_HANDLE, 1, &info, nullptr, &pipeline));
    std::string name;
    for (auto& [stage, shader] : desc.shaders) name += (name.empty() ? "" : " + ") + shader;
    write_pipeline_stats(ctx.device, ctx.pipeline_stats_path, pipeline, name);
    return pipeline;
}

Descriptors& Descriptors::buffer(uint32_t binding, const Buffer& b, VkDescriptorType type) {
    return buffer(binding, b.buffer, type);
}

Descriptors& Descriptors::buffer(uint32_t binding, VkBuffer b, VkDescriptorType type) {
    buffers.push_back({b, 0, VK_WHOLE_SIZE});
    VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    w.dstBinding = binding;
    w.descriptorCount = 1;
    w.descriptorType = type;
    w.pBufferInfo = &buffers.back();
    writes.push_back(w);
    return *this;
}

Descriptors& Descriptors::storage_buffers(uint32_t first, std::initializer_list<std::reference_wrapper<const Buffer>> list) {
    for (const Buffer& b : list) buffer(first++, b);
    return *this;
}

Descriptors& Descriptors::image(uint32_t binding, VkDescriptorType type, VkDescriptorImageInfo info) {
    images.push_back(info);
    VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    w.dstBinding = binding;
    w.descriptorCount = 1;
    w.descriptorType = type;
    w.pImageInfo = &images.back();
    writes.push_back(w);
    return *this;
}

Descriptors& Descriptors::storage_image(uint32_t binding, VkImageView view) {
    return image(binding, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, {VK_NULL_HANDLE, view, VK_IMAGE_LAYOUT_GENERAL});
}

Descriptors& Descriptors::sampled_image(uint32_t binding, VkImageView view, VkSampler sampler) {
    return image(binding, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, {sampler, view, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL});
}

Descriptors& Descriptors::sampled_depth(uint32_t binding, VkImageView view) {
    return sampled_texels(binding, view, VK_IMAGE_LAYOUT_DEPTH_READ_ONLY_OPTIMAL);
}

Descriptors& Descriptors::sampled_texels(uint32_t binding, VkImageView view, VkImageLayout layout) {
    return image(binding, VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, {VK_NULL_HANDLE, view, layout});
}

Descriptors& Descriptors::acceleration_structure(uint32_t binding, VkAccelerationStructureKHR tlas) {
    structures.push_back(tlas);
    VkWriteDescriptorSetAccelerationStructureKHR as{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET_ACCELERATION_STRUCTURE_KHR};
    as.accelerationStructureCount = 1;
    as.pAccelerationStructures = &structures.back();
    structure_writes.push_back(as);
    VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, &structure_writes.back()};
    w.dstBinding = binding;
    w.descriptorCount = 1;
    w.descriptorType = VK_DESCRIPTOR_TYPE_ACCELERATION_STRUCTURE_KHR;
    writes.push_back(w);
    return *this;
}

namespace {

VkDescriptorPool create_arena_pool(VkDevice device, bool acceleration_structures) {
    const uint32_t n = 4096;
    VkDescriptorPoolSize sizes[] = {{VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, n},         {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, n},
                                    {VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, n},          {VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, n},
                                    {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, n}, {VK_DESCRIPTOR_TYPE_SAMPLER, n},
                                    {VK_DESCRIPTOR_TYPE_ACCELERATION_STRUCTURE_KHR, n}};
    VkDescriptorPoolCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    info.maxSets = 1024;
    info.poolSizeCount = uint32_t(std::size(sizes)) - (acceleration_structures ? 0 : 1);
    info.pPoolSizes = sizes;
    VkDescriptorPool pool;
    VK_CHECK(vkCreateDescriptorPool(device, &info, nullptr, &pool));
    return pool;
}

// A fresh set for every push: the command buffer may still be pending with the previous ones.
VkDescriptorSet allocate_arena_set(VkDevice device, DescriptorArena& arena, VkDescriptorSetLayout layout) {
    VkDescriptorSetAllocateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    info.descriptorSetCount = 1;
    info.pSetLayouts = &layout;
    VkDescriptorSet set = VK_NULL_HANDLE;
    if (!arena.pools.empty()) {
        info.descriptorPool = arena.pools.back();
        VkResult result = vkAllocateDescriptorSets(device, &info, &set);
        if (result == VK_SUCCESS) return set;
        if (result != VK_ERROR_OUT_OF_POOL_MEMORY && result != VK_ERROR_FRAGMENTED_POOL) VK_CHECK(result);
    }
    arena.pools.push_back(create_arena_pool(device, arena.acceleration_structures));
    info.descriptorPool = arena.pools.back();
    VK_CHECK(vkAllocateDescriptorSets(device, &info, &set));
    return set;
}

}  // namespace

Descriptors& Descriptors::textures(VkDescriptorSet set) {
    texture_set = set;
    return *this;
}

void Descriptors::push(VkCommandBuffer cmd, const Pipeline& pipeline) {
    if (texture_set && pipeline.scene_textures)
        vkCmdBindDescriptorSets(cmd, pipeline.bind_point, pipeline.layout, 1, 1, &texture_set, 0, nullptr);
    std::vector<VkWriteDescriptorSet> held;
    for (const VkWriteDescriptorSet& w : writes)
        if (w.dstBinding < pipeline.bindings.size() && pipeline.bindings[w.dstBinding] != kNoBinding) held.push_back(w);
    if (held.empty()) return;
    if (!pipeline.arena) {
        vkCmdPushDescriptorSet_(cmd, pipeline.bind_point, pipeline.layout, 0, uint32_t(held.size()), held.data());
        return;
    }
    // Merge into what was pushed before for this layout, then write all of it to a fresh set.
    auto& pushed = pipeline.arena->pushed[{cmd, pipeline.layout}];
    for (const VkWriteDescriptorSet& w : held) {
        PushedDescriptor& d = pushed[w.dstBinding];
        d.type = w.descriptorType;
        d.buffer = w.pBufferInfo ? *w.pBufferInfo : VkDescriptorBufferInfo{};
        d.image = w.pImageInfo ? *w.pImageInfo : VkDescriptorImageInfo{};
        d.acceleration_structure = w.descriptorType == VK_DESCRIPTOR_TYPE_ACCELERATION_STRUCTURE_KHR
                                       ? static_cast<const VkWriteDescriptorSetAccelerationStructureKHR*>(w.pNext)
                                             ->pAccelerationStructures[0]
                                       : VK_NULL_HANDLE;
    }
    if (pushed.size() < pipeline.arena->binding_counts[pipeline.layout]) return;  // the rest comes next
    VkDescriptorSet set = allocate_arena_set(pipeline.device, *pipeline.arena, pipeline.set_layout);
    std::vector<VkWriteDescriptorSet> all;
    std::vector<VkWriteDescriptorSetAccelerationStructureKHR> structure_infos;
    structure_infos.reserve(pushed.size());
    for (const auto& [binding, d] : pushed) {
        VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
        w.dstSet = set;
        w.dstBinding = binding;
        w.descriptorCount = 1;
        w.descriptorType = d.type;
        bool is_buffer = d.type == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER || d.type == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        if (d.type == VK_DESCRIPTOR_TYPE_ACCELERATION_STRUCTURE_KHR) {
            VkWriteDescriptorSetAccelerationStructureKHR as{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET_ACCELERATION_STRUCTURE_KHR};
            as.accelerationStructureCount = 1;
            as.pAccelerationStructures = &d.acceleration_structure;
            structure_infos.push_back(as);
            w.pNext = &structure_infos.back();
        } else if (is_buffer) {
            w.pBufferInfo = &d.buffer;
        } else {
            w.pImageInfo = &d.image;
        }
        all.push_back(w);
    }
    vkUpdateDescriptorSets(pipeline.device, uint32_t(all.size()), all.data(), 0, nullptr);
    vkCmdBindDescriptorSets(cmd, pipeline.bind_point, pipeline.layout, 0, 1, &set, 0, nullptr);
}

std::vector<uint8_t> read_buffer(const Context& ctx, const Buffer& buffer) {
    Buffer readback = create_buffer(ctx, buffer.size, VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryKind::host_readback, "readback");
    VkCommandBuffer cmd = begin_one_shot(ctx);
    memory_barrier(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_MEMORY_WRITE_BIT, VK_PIPELINE_STAGE_2_COPY_BIT,
                   VK_ACCESS_2_TRANSFER_READ_BIT);
    VkBufferCopy region{0, 0, buffer.size};
    vkCmdCopyBuffer(cmd, buffer.buffer, readback.buffer, 1, &region);
    end_one_shot(ctx, cmd);
    std::vector<uint8_t> bytes(buffer.size);
    memcpy(bytes.data(), readback.mapped, bytes.size());
    return bytes;
}

void write_buffer(const Context& ctx, const Buffer& buffer, const void* data, VkDeviceSize size) {
    Buffer staging = create_buffer(ctx, size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, MemoryKind::host_upload, "staging");
    memcpy(staging.mapped, data, size);
    VkCommandBuffer cmd = begin_one_shot(ctx);
    constexpr VkAccessFlags2 any = VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT;
    memory_barrier(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, any, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT);
    VkBufferCopy region{0, 0, size};
    vkCmdCopyBuffer(cmd, staging.buffer, buffer.buffer, 1, &region);
    memory_barrier(cmd, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, any);
    end_one_shot(ctx, cmd);
}

std::vector<uint8_t> read_image(const Context& ctx, Image& image, uint32_t texel_bytes, VkImageAspectFlags aspect) {
    VkDeviceSize bytes = VkDeviceSize(image.extent.width) * image.extent.height * texel_bytes;
    Buffer readback = create_buffer(ctx, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryKind::host_readback, "readback");
    VkCommandBuffer cmd = begin_one_shot(ctx);
    transition(cmd, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_READ_BIT);
    VkBufferImageCopy region{};
    region.imageSubresource = {aspect, 0, 0, 1};
    region.imageExtent = {image.extent.width, image.extent.height, 1};
    vkCmdCopyImageToBuffer(cmd, image.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, readback.buffer, 1, &region);
    memory_barrier(cmd, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_2_HOST_BIT,
                   VK_ACCESS_2_HOST_READ_BIT);
    end_one_shot(ctx, cmd);
    std::vector<uint8_t> texels(bytes);
    memcpy(texels.data(), readback.mapped, bytes);
    return texels;
}
