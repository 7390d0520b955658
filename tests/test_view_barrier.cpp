// The debug views' barrier on the frame's counters: for every view and every stage, the
// stages it waits in (its destination) must be every stage whose shader reads or writes the
// counters in the pipelines the view draws with, and the stages it waits for (its source) every
// stage whose shader writes them anywhere in the frame. The oracle is the compiled SPIR-V itself: a
// stage counts when its module accesses the storage buffer at the binding where that pipeline
// family gets the counters (the bindings the passes push them at, from the passes' headers).
// lavapipe never binds a view variant in the vertex, tessellation or geometry stages (it has no
// subgroups there), so no validated render could catch a missing stage.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "passes/debug_view_pass.h"
#include "passes/meshlet_pass.h"
#include "passes/ray_trace_pass.h"

namespace {

std::vector<uint32_t> load_spirv(const std::string& name) {
    std::ifstream file(std::string(SGD_SHADER_DIR) + "/" + name + ".spv", std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    std::vector<uint32_t> words(bytes.size() / 4);
    memcpy(words.data(), bytes.data(), words.size() * 4);
    return words;
}

// Whether the module accesses a buffer variable of set 0 at one of `bindings`: some load, store,
// atomic, access chain or array length takes the variable as its pointer.
bool accesses_binding(const std::vector<uint32_t>& spirv, const std::set<uint32_t>& bindings) {
    constexpr uint32_t kOpLoad = 61, kOpStore = 62, kOpCopyMemory = 63, kOpAccessChain = 65, kOpInBoundsAccessChain = 66,
                       kOpPtrAccessChain = 67, kOpArrayLength = 68, kOpDecorate = 71, kOpAtomicLoad = 227,
                       kOpAtomicStore = 228, kOpAtomicXor = 242, kBinding = 33, kDescriptorSet = 34;
    std::map<uint32_t, uint32_t> binding_of, set_of;
    std::set<uint32_t> pointers;  // ids used as the pointer of an access
    for (size_t i = 5; i < spirv.size();) {
        uint32_t op = spirv[i] & 0xffff, count = spirv[i] >> 16;
        if (count == 0 || i + count > spirv.size()) break;
        const uint32_t* w = &spirv[i];
        if (op == kOpDecorate && count >= 4 && w[2] == kBinding) binding_of[w[1]] = w[3];
        if (op == kOpDecorate && count >= 4 && w[2] == kDescriptorSet) set_of[w[1]] = w[3];
        if (op == kOpStore || op == kOpAtomicStore) pointers.insert(w[1]);
        if (op == kOpCopyMemory) pointers.insert({w[1], w[2]});
        if (op == kOpLoad || op == kOpAccessChain || op == kOpInBoundsAccessChain || op == kOpPtrAccessChain ||
            op == kOpArrayLength || (op >= kOpAtomicLoad && op <= kOpAtomicXor && op != kOpAtomicStore))
            pointers.insert(w[3]);
        i += count;
    }
    for (auto [id, binding] : binding_of)
        if (bindings.count(binding) && set_of[id] == 0 && pointers.count(id)) return true;
    return false;
}

// The oracle's own table of where each shader stage runs.
VkPipelineStageFlags2 stage_of(VkShaderStageFlagBits s) {
    switch (s) {
        case VK_SHADER_STAGE_VERTEX_BIT: return VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT;
        case VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT: return VK_PIPELINE_STAGE_2_TESSELLATION_CONTROL_SHADER_BIT;
        case VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT: return VK_PIPELINE_STAGE_2_TESSELLATION_EVALUATION_SHADER_BIT;
        case VK_SHADER_STAGE_GEOMETRY_BIT: return VK_PIPELINE_STAGE_2_GEOMETRY_SHADER_BIT;
        case VK_SHADER_STAGE_FRAGMENT_BIT: return VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT;
        default: return VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
    }
}

// Where each family's pipelines get the counters (the bindings the passes push them at): the
// views' graphics pipelines and their compute pipeline, the meshlet path (and in its views also
// the views' binding), the ray tracer (its statistics, and in its views also the views' binding).
const std::set<uint32_t> kGraphicsCounters = {kViewGraphicsCountersBinding}, kComputeCounters = {kViewComputeCountersBinding},
                         kMeshletCounters = {kMeshletViewCountersBinding, kMeshletFirstBinding + kMeshletCountersOffset},
                         kRayCounters = {kRayStatsBinding, kRayViewCountersBinding};

// Every built module whose name starts with `prefix` ("meshlet_cull.task.").
std::vector<std::string> modules_named(const std::string& prefix) {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(SGD_SHADER_DIR)) {
        std::string name = entry.path().filename().string();
        if (name.rfind(prefix, 0) == 0 && name.ends_with(".spv")) names.push_back(name.substr(0, name.size() - 4));
    }
    return names;
}

constexpr ViewKind kKinds[] = {ViewKind::lane_id, ViewKind::first_last, ViewKind::active, ViewKind::plain};
constexpr Stage kRasterAndCompute[] = {Stage::vertex, Stage::tess_control, Stage::tess_eval, Stage::geometry, Stage::fragment,
                                       Stage::compute};

// The stages that the counters' accesses of the views' pipelines run in, from their SPIR-V.
VkPipelineStageFlags2 counting_stages(Stage stage, ViewKind kind) {
    const std::set<uint32_t>& bindings = stage == Stage::compute ? kComputeCounters : kGraphicsCounters;
    VkPipelineStageFlags2 counting = 0;
    for (const PipelineShaders& pipeline : view_pipelines(stage, kind))
        for (const auto& [shader_stage, module] : pipeline) {
            std::vector<uint32_t> spirv = load_spirv(module);
            EXPECT_GT(spirv.size(), 5u) << module << ": not built";
            if (accesses_binding(spirv, bindings)) counting |= stage_of(shader_stage);
        }
    return counting;
}

// The single stages a mask names: the synchronization2 spec's expansion of the aggregate bits
// this project uses (a barrier that names PRE_RASTERIZATION_SHADERS covers vertex to mesh).
VkPipelineStageFlags2 expand(VkPipelineStageFlags2 mask) {
    if (mask & VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT) return ~VkPipelineStageFlags2(0);
    if (mask & VK_PIPELINE_STAGE_2_PRE_RASTERIZATION_SHADERS_BIT)
        mask |= VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT | VK_PIPELINE_STAGE_2_TESSELLATION_CONTROL_SHADER_BIT |
                VK_PIPELINE_STAGE_2_TESSELLATION_EVALUATION_SHADER_BIT | VK_PIPELINE_STAGE_2_GEOMETRY_SHADER_BIT |
                VK_PIPELINE_STAGE_2_TASK_SHADER_BIT_EXT | VK_PIPELINE_STAGE_2_MESH_SHADER_BIT_EXT;
    if (mask & VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT)
        mask |= VK_PIPELINE_STAGE_2_COPY_BIT | VK_PIPELINE_STAGE_2_BLIT_BIT | VK_PIPELINE_STAGE_2_RESOLVE_BIT |
                VK_PIPELINE_STAGE_2_CLEAR_BIT;
    return mask;
}

// A device with every stage this project can run.
DeviceFeatures every_stage() {
    DeviceFeatures f;
    f.tessellation = f.geometry = f.mesh_shader = f.ray_tracing = true;
    return f;
}

}  // namespace

TEST(ViewBarrier, CoversEveryStageThatCountsInTheViewsOwnPipelines) {
    for (Stage stage : kRasterAndCompute)
        for (ViewKind kind : kKinds) {
            VkPipelineStageFlags2 counting = counting_stages(stage, kind);
            std::string what = std::string(stage_name(stage)) + " kind " + std::to_string(int(kind));
            // A view variant counts the sizes that ran in its own stage; the hatch (plain) counts nothing.
            EXPECT_EQ(counting == 0, kind == ViewKind::plain) << what;
            EXPECT_EQ(view_counter_stages(stage, kind), counting) << what;
            // The barrier the view records waits in exactly those stages (none for the hatch).
            EXPECT_EQ(view_counter_barrier(every_stage(), stage, kind).dst, counting) << what;
        }
}

// The barrier's source: every stage whose shaders write the counters in any pipeline of the frame
// (the views', the meshlet path's task and mesh shaders, the ray tracer's six stages, read from
// their SPIR-V), and the clear at the frame's start (vkCmdFillBuffer, a transfer). Each of those
// may have run before the view: the barrier must wait for all of them, on a device with every
// stage; on a device without mesh shaders or ray tracing it must not name those stages at all
// (a stage the device lacks is a validation error).
TEST(ViewBarrier, WaitsForEveryStageThatWritesTheCountersEarlierInTheFrame) {
    VkPipelineStageFlags2 writers = VK_PIPELINE_STAGE_2_CLEAR_BIT;
    for (Stage stage : kRasterAndCompute)
        for (ViewKind kind : kKinds) writers |= counting_stages(stage, kind);
    for (auto [prefix, stage] : {std::pair{"meshlet_cull.task.", VK_PIPELINE_STAGE_2_TASK_SHADER_BIT_EXT},
                                 std::pair{"meshlet_cull.mesh.", VK_PIPELINE_STAGE_2_MESH_SHADER_BIT_EXT}})
        for (const std::string& m : modules_named(prefix))
            if (accesses_binding(load_spirv(m), kMeshletCounters)) writers |= stage;
    for (const std::string& m : modules_named("raytrace."))
        if (accesses_binding(load_spirv(m), kRayCounters)) writers |= VK_PIPELINE_STAGE_2_RAY_TRACING_SHADER_BIT_KHR;
    // What the SPIR-V shows must include every kind of stage, or the oracle itself is broken.
    for (VkPipelineStageFlags2 s : {VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT, VK_PIPELINE_STAGE_2_TESSELLATION_CONTROL_SHADER_BIT,
                                    VK_PIPELINE_STAGE_2_TESSELLATION_EVALUATION_SHADER_BIT, VK_PIPELINE_STAGE_2_GEOMETRY_SHADER_BIT,
                                    VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                                    VK_PIPELINE_STAGE_2_TASK_SHADER_BIT_EXT, VK_PIPELINE_STAGE_2_MESH_SHADER_BIT_EXT,
                                    VK_PIPELINE_STAGE_2_RAY_TRACING_SHADER_BIT_KHR})
        EXPECT_TRUE(writers & s) << std::hex << s;

    for (Stage stage : kRasterAndCompute)
        for (ViewKind kind : kKinds) {
            std::string what = std::string(stage_name(stage)) + " kind " + std::to_string(int(kind));
            CounterBarrier b = view_counter_barrier(every_stage(), stage, kind);
            if (kind == ViewKind::plain) {
                EXPECT_EQ(b.src, 0u) << what << ": the hatch counts nothing and records no barrier";
                continue;
            }
            EXPECT_EQ(expand(b.src) & writers, writers) << what << std::hex << ": source 0x" << b.src << " misses 0x"
                                                        << (writers & ~expand(b.src));
            DeviceFeatures plain = every_stage();
            plain.mesh_shader = plain.ray_tracing = false;
            VkPipelineStageFlags2 lacking = VK_PIPELINE_STAGE_2_TASK_SHADER_BIT_EXT | VK_PIPELINE_STAGE_2_MESH_SHADER_BIT_EXT |
                                            VK_PIPELINE_STAGE_2_RAY_TRACING_SHADER_BIT_KHR;
            CounterBarrier without = view_counter_barrier(plain, stage, kind);
            EXPECT_EQ(without.src & lacking, 0u) << what;
            VkPipelineStageFlags2 present = writers & ~lacking;
            EXPECT_EQ(expand(without.src) & present, present) << what;
        }
}

TEST(ViewBarrier, CoversTheMeshletAndRayTracingStagesThatCount) {
    // Every module of the meshlet path (its depth redraw and its views) and of the mesh views'
    // fragment shader: the stages that touch the counters must be among the task/mesh views'.
    VkPipelineStageFlags2 meshlet = 0;
    std::vector<std::string> modules = modules_named("meshlet_cull.task.");
    for (const std::string& m : modules)
        if (accesses_binding(load_spirv(m), kMeshletCounters)) meshlet |= VK_PIPELINE_STAGE_2_TASK_SHADER_BIT_EXT;
    for (const std::string& m : modules_named("meshlet_cull.mesh."))
        if (accesses_binding(load_spirv(m), kMeshletCounters)) meshlet |= VK_PIPELINE_STAGE_2_MESH_SHADER_BIT_EXT;
    if (accesses_binding(load_spirv("view.frag.primitive"), kMeshletCounters)) meshlet |= VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT;
    ASSERT_FALSE(modules.empty());
    EXPECT_EQ(meshlet, VK_PIPELINE_STAGE_2_TASK_SHADER_BIT_EXT | VK_PIPELINE_STAGE_2_MESH_SHADER_BIT_EXT);
    for (Stage stage : {Stage::task, Stage::mesh})
        for (ViewKind kind : kKinds) EXPECT_EQ(view_counter_stages(stage, kind) & meshlet, meshlet) << stage_name(stage);

    bool rays_count = false;
    for (const std::string& m : modules_named("raytrace.")) rays_count |= accesses_binding(load_spirv(m), kRayCounters);
    EXPECT_TRUE(rays_count);
    for (Stage stage : {Stage::raygen, Stage::any_hit, Stage::closest_hit, Stage::miss, Stage::intersection, Stage::callable})
        for (ViewKind kind : kKinds)
            EXPECT_EQ(view_counter_stages(stage, kind), VK_PIPELINE_STAGE_2_RAY_TRACING_SHADER_BIT_KHR) << stage_name(stage);
}
