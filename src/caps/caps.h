// Subgroup capabilities of the device, the user's masks, and the plan derived from them.
// Plain data and pure functions: tested without a GPU.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "passes/pass_table.h"  // Stage, Op, Request, Variant and the passes

// Names as the command line and the report spell them ("tess-control", "shuffle-relative").
std::string_view stage_name(Stage stage);
std::string_view op_name(Op op);
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
    bool multi_draw_indirect = false;
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

enum class ViewMode { shaded, lane_id, first_last_lane, active_lanes, mip, light_count };

std::string_view request_name(Request r);
std::string_view variant_name(Variant v);
std::string_view view_mode_name(ViewMode m);
std::optional<Request> parse_request(std::string_view name);
std::optional<ViewMode> parse_view_mode(std::string_view name);
bool is_subgroup_view(ViewMode m);  // lane-id, first-last-lane, active-lanes

// Where a pass's variant came from: the user's request, the device's capabilities (today's rule
// for auto), or what --tune / --compare measured on this device (tuned auto).
enum class PlanSource { requested, capabilities, measured };
std::string_view plan_source_name(PlanSource s);  // "requested", "capabilities", "measured"

struct PassPlan {
    Request requested = Request::automatic;
    Variant variant = Variant::off;
    std::string reason;
    PlanSource source = PlanSource::capabilities;
};

// What a comparison measured for one pass on this device, where its verdict was significant (the
// 95% interval of fallback ms / subgroup ms excludes 1.0): the faster path. Read from the tuning
// file (app/tuning.h); the planner takes it as an input, after capabilities.
struct MeasuredPreference {
    Variant winner = Variant::subgroup;  // subgroup (ratio above 1) or fallback (below 1)
    double ratio = 1;                    // fallback ms / subgroup ms
    std::string made_by;                 // "compare" or "tune"
    std::string date;                    // "2026-11-25"
    bool operator==(const MeasuredPreference&) const = default;
};
using MeasuredPreferences = std::array<std::optional<MeasuredPreference>, kPassCount>;  // by PassId

struct ViewPlan {
    ViewMode mode = ViewMode::shaded;
    Stage stage = Stage::fragment;
    Variant variant = Variant::off;  // subgroup, unsupported, or off for non-subgroup views
    std::string reason;
};

// What each selectable pass (indexed by PassId, see passes/pass_table.h) and the debug view resolve to.
struct Plan {
    std::array<PassPlan, kPassCount> passes;
    ViewPlan view;
    Geometry geometry = Geometry::indexed;  // with meshlet, passes[cull] is the task/mesh culling
    bool lod = true;  // --lod auto: each draw's level of detail is chosen per frame (docs/lod.md)

    PassPlan& operator[](PassId id) { return passes[size_t(id)]; }
    const PassPlan& operator[](PassId id) const { return passes[size_t(id)]; }
};

struct PlanRequest {
    std::array<Request, kPassCount> passes{};  // value-initialised: every pass Request::automatic
    ViewMode view = ViewMode::shaded;
    Stage view_stage = Stage::fragment;
    Geometry geometry = Geometry::indexed;
    bool lod = true;  // --lod auto | off
    // What this device measured (empty: --no-tuning, no tuning file, or the window's T key off).
    // Only `auto` consults it, and only where the measured winner can run.
    MeasuredPreferences measured{};

    Request& operator[](PassId id) { return passes[size_t(id)]; }
    Request operator[](PassId id) const { return passes[size_t(id)]; }
};

// Thrown when the user asks for `subgroup` where the device (after masking) cannot run it: exit 2.
struct UnsupportedRequest : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// What a subgroup path needs: operations in one stage, or in each of several (a pass's from its
// table entry).
struct PassNeeds {
    Stage stage;
    uint32_t ops;         // bit(Op) set
    uint32_t stages = 0;  // bit(Stage) set; 0: just `stage`
};
PassNeeds pass_needs(PassId id);
// With --geometry meshlet the cull pass's subgroup path runs in the task shader (ballot compaction
// of meshlets into the payload) and in the mesh shader (ballot scan of the surviving triangles,
// subgroupOr of the visibility mask): its needs in both stages, task first.
std::array<PassNeeds, 2> meshlet_cull_needs();
std::string_view geometry_name(Geometry g);
std::optional<Geometry> parse_geometry(std::string_view name);
// Why the device cannot draw --geometry meshlet at all, or empty.
std::string meshlet_missing(const DeviceFeatures& features);
uint32_t view_needs(ViewMode mode);  // ops a subgroup debug view needs in its stage

// Why a subgroup path cannot run, or empty if it can.
std::string missing_support(const SubgroupCaps& caps, PassNeeds needs);

Plan make_plan(const SubgroupCaps& caps, const DeviceFeatures& features, const PlanRequest& request);

// Why the device cannot run a pass's subgroup path (subgroup support, then device features), or empty.
std::string pass_missing(const SubgroupCaps& caps, const DeviceFeatures& features, PassId id,
                         Geometry geometry = Geometry::indexed);

// Resolves one pass request; throws UnsupportedRequest for `subgroup` when `missing` is not empty,
// and for a variant the pass does not offer. `auto`: capabilities first (a path the device, after
// masking, cannot run is never chosen), then the measured winner where there is one, else subgroup.
PassPlan plan_pass(const PassInfo& pass, Request requested, const std::string& missing,
                   const std::string& missing_forward = "", const std::optional<MeasuredPreference>& measured = {});
// "measured 0.14x on this device (compare of 2026-11-25)"
std::string measured_reason(const MeasuredPreference& m);
// Why the device cannot run the mip's `forward` variant (the pass's forward_ops), or empty.
std::string forward_missing(const SubgroupCaps& caps, const DeviceFeatures& features, PassId id);
// The same for a pass the device cannot run at all (`unavailable` says why): auto is off with the
// reason, off is off, subgroup and fallback throw UnsupportedRequest naming what is missing.
PassPlan plan_unavailable_pass(const PassInfo& pass, Request requested, const std::string& unavailable);

ViewPlan plan_view(const SubgroupCaps& caps, const DeviceFeatures& features, ViewMode mode, Stage stage);

std::vector<std::string> stage_names(uint32_t stage_bits);
std::vector<std::string> op_names(uint32_t op_bits);
