// The debug views' barrier on the frame's counters (issue 43): for every view and every stage, the
// stages it waits in (view_counter_stages) must include every stage whose shader reads or writes
// the counters in the pipelines the view draws with. The oracle is the compiled SPIR-V itself: a
// stage counts when its module accesses the storage buffer at the binding where that pipeline
// family gets the counters. lavapipe never binds a view variant in the vertex, tessellation or
// geometry stages (it has no subgroups there), so no validated render could catch a missing stage.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "passes/debug_view_pass.h"

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

// Where each family's pipelines get the counters (the bindings the passes push them at):
// the views' graphics pipelines 5, the compute view 2, the meshlet path 22 and its views 5, the
// ray tracer 9 (its statistics) and its views 11.
const std::set<uint32_t> kGraphicsCounters = {5}, kComputeCounters = {2}, kMeshletCounters = {5, 22},
                         kRayCounters = {9, 11};

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

}  // namespace

TEST(ViewBarrier, CoversEveryStageThatCountsInTheViewsOwnPipelines) {
    for (Stage stage : {Stage::vertex, Stage::tess_control, Stage::tess_eval, Stage::geometry, Stage::fragment, Stage::compute})
        for (ViewKind kind : kKinds) {
            const std::set<uint32_t>& bindings = stage == Stage::compute ? kComputeCounters : kGraphicsCounters;
            VkPipelineStageFlags2 counting = 0;
            for (const PipelineShaders& pipeline : view_pipelines(stage, kind))
                for (const auto& [shader_stage, module] : pipeline) {
                    std::vector<uint32_t> spirv = load_spirv(module);
                    ASSERT_GT(spirv.size(), 5u) << module << ": not built";
                    if (accesses_binding(spirv, bindings)) counting |= stage_of(shader_stage);
                }
            std::string what = std::string(stage_name(stage)) + " kind " + std::to_string(int(kind));
            // A view variant counts the sizes that ran in its own stage; the hatch (plain) counts nothing.
            EXPECT_EQ(counting == 0, kind == ViewKind::plain) << what;
            EXPECT_EQ(view_counter_stages(stage, kind), counting) << what;
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
