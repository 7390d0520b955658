// Subgroup capabilities of the device and the user's masks: the bottom of the planning stack
// (capabilities here, then the pass table in passes/pass_table.h, then the plan in plan/plan.h).
// Plain data and pure functions: tested without a GPU.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

// Every shader stage Vulkan has, in the contract's order: the debug views' stages, --mask-stages.
enum class Stage : uint32_t {
    vertex, tess_control, tess_eval, geometry, fragment, compute,
    task, mesh,                                                     // VK_EXT_mesh_shader
    raygen, any_hit, closest_hit, miss, intersection, callable,    // VK_KHR_ray_tracing_pipeline
    count
};
enum class Op : uint32_t { basic, vote, arithmetic, ballot, shuffle, shuffle_relative, clustered, quad, count };
constexpr uint32_t bit(Stage s) { return 1u << uint32_t(s); }
constexpr uint32_t bit(Op o) { return 1u << uint32_t(o); }
constexpr uint32_t kRayTracingStages = bit(Stage::raygen) | bit(Stage::any_hit) | bit(Stage::closest_hit) |
                                       bit(Stage::miss) | bit(Stage::intersection) | bit(Stage::callable);

// Names as the command line and the report spell them ("tess-control", "shuffle-relative").
std::string_view stage_name(Stage stage);
std::string_view op_name(Op op);
// The enumerator whose name is `name`, from a table of names in enumerator order.
template <typename E, size_t N>
std::optional<E> parse_name(const std::array<std::string_view, N>& names, std::string_view name) {
    for (size_t i = 0; i < N; ++i)
        if (names[i] == name) return E(i);
    return std::nullopt;
}
std::optional<Stage> parse_stage(std::string_view name);
std::optional<Op> parse_op(std::string_view name);

struct SubgroupCaps {
    uint32_t size = 0;
    uint32_t min_size = 0;
    uint32_t max_size = 0;
    uint32_t stages = 0;  // bit(Stage) set, after masking
    uint32_t ops = 0;     // bit(Op) set, after masking
    bool quad_in_all_stages = false;
    bool size_control = false;      // VK_EXT_subgroup_size_control / 1.3 subgroupSizeControl
    bool full_subgroups = false;    // computeFullSubgroups
    uint32_t required_size_stages = 0;
    uint32_t max_workgroup_subgroups = 0;  // maxComputeWorkgroupSubgroups (subgroup size control)
    uint32_t masked_stages = 0;     // what --mask-stages removed (bits, whether or not the device had them)
    uint32_t masked_ops = 0;

    bool has(Stage s) const { return stages & bit(s); }
    bool has(Op o) const { return ops & bit(o); }
};

// Device features (not subgroup properties) that passes and views depend on.
struct DeviceFeatures {
    bool pipeline_statistics = false;  // pipelineStatisticsQuery (experiment-only counts, scene_pass.cpp)
    bool tessellation = false;
    bool geometry = false;
    bool fragment_stores = false;        // fragmentStoresAndAtomics: the quad mip stores from the fragment shader
    bool vertex_stores = false;          // vertexPipelineStoresAndAtomics
    // shaderBufferInt64Atomics, shaderInt64 and fragmentStoresAndAtomics: --raster compute's 64-bit
    // visibility words (docs/raster.md), written by compute and fragment shaders alike.
    bool int64_atomics = false;
    // subPixelPrecisionBits: the compute rasterizer snaps to 8 bits (kRasterSubPixelBits) and runs
    // only where the hardware it shares edges with snaps the same (docs/raster.md).
    uint32_t sub_pixel_bits = 8;
    bool multi_draw_indirect = false;
    // drawIndirectCount (Vulkan 1.2), enabled where offered: the hardware pre-pass's ids pass after
    // occlusion's merge draws only in frames whose phase 2 re-admitted something (ScenePass::record_ids).
    bool draw_indirect_count = false;
    // computeFullSubgroups: the single-pass depth pyramid numbers its invocations by subgroup, so
    // that a quad of lanes is a 2x2 texel block (shaders/pyramid.comp).
    bool compute_full_subgroups = false;
    bool quad_control = false;           // VK_KHR_shader_quad_control
    bool maximal_reconvergence = false;  // VK_KHR_shader_maximal_reconvergence
    // Both of the above enabled on the device: the quad mip runs its RequireFullQuadsKHR +
    // MaximallyReconvergesKHR SPIR-V (forward.frag.quad_mip_full_quads). See create_device().
    bool quad_control_enabled = false;
    // Enabled on the device (not only offered): the task and mesh stages, and the six
    // ray-tracing stages. Without them those stages cannot run at all.
    bool mesh_shader = false;  // VK_EXT_mesh_shader
    bool ray_tracing = false;  // VK_KHR_ray_tracing_pipeline + VK_KHR_acceleration_structure
    // Without ray_tracing: why, where the device offers the extensions but they cannot be enabled
    // (VK_KHR_acceleration_structure requires descriptor indexing); empty: the device lacks them.
    std::string ray_tracing_missing;
    // With ray_tracing: rayTracingPipelineTraceRaysIndirect, the ray tracer's dense launch.
    bool ray_tracing_indirect = false;
    // Descriptor indexing (a runtime array of sampled images, partially bound, variable count,
    // indexed non-uniformly): the scene's textures as one array of descriptors, each at its own
    // size. Without it (the Mesa 22.3 lavapipe, SGD_MASK_FEATURES=descriptor-indexing) they are
    // the layers of one array texture at one size, and textures_missing says why (docs/materials.md).
    bool descriptor_indexing = true;
    std::string textures_missing;
};

// Removes masked stages/ops as a device lacking them would. Quad ops masked also clear quad_in_all_stages.
void apply_masks(SubgroupCaps& caps, uint32_t masked_stages, uint32_t masked_ops);

// --subgroup-size N (a power of two): why the device cannot run each of `stages` (bit(Stage)) at
// N lanes, or empty. It can where N is its one size (it runs nothing else), or where N lies in its
// range [min_size, max_size] and each stage is in requiredSubgroupSizeStages. The reason names the
// sizes the device offers.
std::string subgroup_size_refusal(const SubgroupCaps& caps, uint32_t size, uint32_t stages);
// The requiredSubgroupSize a pipeline's `stage` gets for --subgroup-size `size` (0: none asked):
// `size` where the device offers a range and can require a size of the stage; else 0, the
// driver's choice, which subgroup_size_refusal has made sure is `size` (the device's one size:
// every stage runs at it unasked, and a workgroup may hold more than maxComputeWorkgroupSubgroups
// of them, which a required size would forbid).
uint32_t required_subgroup_size(const SubgroupCaps& caps, uint32_t size, Stage stage);

// What a subgroup path needs: operations in one stage, or in each of several (a pass's from its
// table entry).
struct PassNeeds {
    Stage stage;
    uint32_t ops;         // bit(Op) set
    uint32_t stages = 0;  // bit(Stage) set; 0: just `stage`
};
// Why a subgroup path cannot run, or empty if it can.
std::string missing_support(const SubgroupCaps& caps, PassNeeds needs);
std::vector<std::string> stage_names(uint32_t stage_bits);
std::vector<std::string> op_names(uint32_t op_bits);
