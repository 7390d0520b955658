// The pass table: every selectable pass, every GPU timer slot and every debug-view stage, in one
// place. The plan, the command line, --help and --info, the window's keys and HUD, the comparison
// (matrix, report.md, sheet, ratios), the report and the timer all iterate these tables; nothing
// else names a particular pass. docs/architecture.md, "Adding a pass", lists what a new pass touches.
//
// Plain data (no Vulkan objects): unit-tested without a GPU. Each pass's GPU work lives in its
// unit under src/passes/, created through the entry's `create` and recorded at its `point`.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "caps/caps.h"  // Stage, Op, DeviceFeatures

// `forward` is the mip's alone: its quad mip written while shading (docs/quad-mip.md), the seed's
// design, kept beside the resolve pass's (`subgroup`) as the lesson of what it costs.
enum class Request { automatic, subgroup, fallback, off, forward };
enum class Variant { subgroup, fallback, off, unsupported, forward };
std::string_view variant_name(Variant v);  // (plan/plan.cpp)
// How the scene's geometry is drawn (--geometry): the compute cull pass + indexed indirect draws,
// or task + mesh shaders over meshlets (docs/meshlets.md), whose culling --cull then selects.
enum class Geometry { indexed, meshlet };

constexpr uint32_t bit(Variant v) { return 1u << uint32_t(v); }

// Thrown when the user asks for `subgroup` where the device (after masking) cannot run it: exit 2.
struct UnsupportedRequest : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// GPU timestamp slots, in frame order; `frame` spans the whole frame. Report keys come from kTimers.
enum class Timer : uint32_t { cull, depth, pyramid, late_depth, ids, light_cull, ray_build, ray_trace, forward, shade, mip, mip_fixup, resolve, exposure, view, frame, count };
constexpr size_t kTimerCount = size_t(Timer::count);

struct TimerInfo {
    Timer timer;
    std::string_view key;    // timings_ms key, report.md column: "light_cull"
    std::string_view label;  // HUD row: "light cull"
    std::string_view brief;  // the comparison sheet's narrow labels: "light-cull", "fwd"
    // The HUD row this slot's time is added to (Timer::count: its own row): occlusion's phase 2
    // (late depth) shows in the pyramid's row, so the occlusion pass costs one row.
    Timer shown_in = Timer::count;
};
extern const std::array<TimerInfo, kTimerCount> kTimers;
const TimerInfo& timer_info(Timer t);

// The pieces of the compute rasterizer's `depth` and `late_depth` (docs/raster.md, "Counters"), in
// frame order: the report's counters.raster.dispatch_ms. Not timer slots: they split time that
// `depth` and `late_depth` already count (the HUD, the sheet and the per-pass sums add slots).
// late_cull and merge are occlusion phase 2's cull and merge, inside late_depth only.
enum class RasterPiece : uint32_t { late_cull, setup, meshlet_cull, chunks, tile_bins, hardware, merge, split, count };
constexpr size_t kRasterPieceCount = size_t(RasterPiece::count);
constexpr std::array<std::string_view, kRasterPieceCount> kRasterPieceKeys = {
    "late_cull", "setup", "meshlet_cull", "chunks", "tile_bins", "hardware", "merge", "split"};
// The timers split into pieces, [0] and [1] of GpuTimer's piece times.
constexpr std::array<Timer, 2> kPiecedTimers = {Timer::depth, Timer::late_depth};

// The selectable passes. Units record at their FramePoint in this order (light_loop, after mip
// here, has no unit work: it is a choice of forward shader, see its table entry).
enum class PassId : uint32_t { cull, light_cull, mip, light_loop, ray_trace, exposure, occlusion, count };
constexpr size_t kPassCount = size_t(PassId::count);

// Where in the frame a pass unit records (the renderer walks these points in order).
enum class FramePoint {
    before_depth,   // after the frame's counters are cleared: geometry work (cull)
    after_prepass,  // the depth pre-pass drew (occlusion phase 1's survivors): the depth pyramid;
                    // then the renderer runs occlusion phase 2 and its depth draw
    after_depth,    // depth is final: screen-space work that forward reads (light lists)
    after_forward,  // the shaded HDR frame exists: post-processing of it (mip downsample)
    after_resolve,  // the resolve pass wrote the 8-bit frame (and the mip): exposure reduces the mip
};

struct UnitSetup;
class PassUnit;
struct PassCounters;  // passes/pass_unit.h: what a pass reads to report on a frame
struct PlannedAllocation;
struct AllocationQuery;

// A line of the HUD's counter block: a label and spans of text, each in a tone the HUD colours.
enum class HudTone { normal, dim, alert };
struct HudSpan {
    std::string text;
    HudTone tone = HudTone::normal;
    // Cut (with an ellipsis) to the panel's width so far, never widening it: for long detail that
    // may show as far as it fits (the per-level counts).
    bool within_panel = false;
};
struct HudLine {
    std::string label;  // "triangles"
    std::vector<HudSpan> spans;
};

struct PassInfo {
    PassId id;
    std::string_view name;       // option (--light-cull), comparison rows (light-cull-subgroup), notes
    std::string_view key;        // report: plan, config, ratios: "light_cull"
    std::string_view label;      // HUD row
    std::string_view tag;        // screenshot and file names: "light" in "cull-subgroup_light-fallback_..."
    int window_key;              // '2' (GLFW key codes of digits are their ASCII codes)
    uint32_t variants;           // bit(Variant) of subgroup / fallback / off that the pass offers
    Stage stage;                 // where its subgroup path runs (the first stage of `stages`)
    // Every stage its subgroup path runs in, bit(Stage); 0: just `stage`. The ray-tracing pass
    // uses subgroups in all six ray-tracing stages, and needs them in each.
    uint32_t stages;
    uint32_t ops;                // bit(Op): what its subgroup path uses there
    // The mip's `forward` variant (bit(Variant::forward) in variants): what the quad mip in the
    // forward fragment shader uses (same stage). 0 for every other pass.
    uint32_t forward_ops = 0;
    std::string_view uses;       // the subgroup operations, in words (--help, docs)
    std::string_view fallback;   // what the fallback does, in words
    // A device feature (not a subgroup capability) the subgroup path also needs: why it is
    // missing, or empty. Null when there is none.
    std::string (*missing_feature)(const DeviceFeatures&);
    // Why the device cannot run the pass at all (no variant but off), or empty: then `auto`
    // resolves to off with this reason and an explicit subgroup or fallback request exits 2. Null:
    // every device runs it.
    std::string (*unavailable)(const DeviceFeatures&);
    // Appended to the reason when the subgroup path is chosen (how it will run). Null: nothing.
    std::string (*subgroup_note)(const DeviceFeatures&);
    Timer timer;                 // the slot its own GPU work is timed in (== *host_timer: it has none)
    // When its subgroup path runs inside another pass's work instead (the quad mip is stored by
    // the resolve pass's fragment shader): that pass's timer, and what the HUD and tables call it
    // there. A pass that is only a way of doing the host's work (the light loop: both variants are
    // the forward shader's loop) has timer == *host_timer and no work or timer slot of its own.
    std::optional<Timer> host_timer;
    std::string_view hosted_label;
    std::string_view docs;       // its page
    FramePoint point;
    std::unique_ptr<PassUnit> (*create)(const UnitSetup&);
    // What it adds to the report's "counters". Null: nothing.
    void (*report_counters)(nlohmann::json& counters, const PassCounters& c) = nullptr;
    // Its line in the HUD's counter block. Null: none.
    std::optional<HudLine> (*hud_line)(const PassCounters& c) = nullptr;
    // What it allocates on the device for a frame, for the start-up memory plan. Null: nothing.
    void (*frame_allocations)(const AllocationQuery& q, std::vector<PlannedAllocation>& out) = nullptr;
    // Whether the comparison's all-subgroup and all-fallback rows set this pass too; a pass left
    // out stays at auto in both (the same work in each), so the rows' frame ratio compares the
    // others. The ray tracer is left out: its variants differ only in counting statistics, which
    // its own rows and ratio measure, and on lavapipe its stages have no subgroups at all (an
    // all-subgroup row with it would never run there).
    bool in_all_rows = true;
};
extern const std::array<PassInfo, kPassCount> kPasses;
const PassInfo& pass_info(PassId id);
std::optional<PassId> find_pass_by_name(std::string_view name);  // "light-cull"
bool offers(const PassInfo& pass, Request request);               // automatic: always
// False for a pass whose work is all inside its host's timer (timer == *host_timer, the light loop).
bool has_own_timer(const PassInfo& pass);

// The VK_EXT_debug_utils label of a piece of the frame's work (what RenderDoc shows), one scheme
// from the tables' HUD labels: "<label>: <variant or view mode>", then what else it does in
// parentheses where it says more (a debug view's: debug_label(const ViewPlan&), plan/plan.h).
std::string debug_label(PassId id, Variant v, std::string_view detail = {});  // "mip: fallback (2x2 downsample)"
std::string debug_label(Timer t, std::string_view detail = {});               // "resolve (quad mip)", "depth"

// The functions the entries point at, each defined in its pass's unit (src/passes/<pass>_pass.cpp;
// the light loop's in scene_pass.cpp, forward's shader). Declared here, so that the table includes
// no unit: it stays plain data below the plan, and the units above it include it.
// The cull: triangles_visible; "triangles"; culled indices, culled indirect commands, chunk table.
std::unique_ptr<PassUnit> create_cull_unit(const UnitSetup& s);
void cull_report_counters(nlohmann::json& counters, const PassCounters& c);
std::optional<HudLine> cull_hud_line(const PassCounters& c);
void cull_frame_allocations(const AllocationQuery& q, std::vector<PlannedAllocation>& out);
// Light culling: light_list_entries, light_list_overflow, light_atomics; "lights"; the list buffer.
std::unique_ptr<PassUnit> create_light_cull_unit(const UnitSetup& s);
void light_cull_report_counters(nlohmann::json& counters, const PassCounters& c);
std::optional<HudLine> light_cull_hud_line(const PassCounters& c);
void light_cull_frame_allocations(const AllocationQuery& q, std::vector<PlannedAllocation>& out);
// The mip: the edge list's mip_edge_*; the edge list, the fix-up stamps and its indirect dispatch.
std::unique_ptr<PassUnit> create_mip_unit(const UnitSetup& s);
void mip_report_counters(nlohmann::json& counters, const PassCounters& c);
void mip_frame_allocations(const AllocationQuery& q, std::vector<PlannedAllocation>& out);
std::unique_ptr<PassUnit> create_light_loop_unit(const UnitSetup& s);
void light_loop_report_counters(nlohmann::json& counters, const PassCounters& c);
std::unique_ptr<PassUnit> create_ray_trace_unit(const UnitSetup& s);
void ray_trace_report_counters(nlohmann::json& counters, const PassCounters& c);
std::optional<HudLine> ray_trace_hud_line(const PassCounters& c);
void ray_trace_frame_allocations(const AllocationQuery& q, std::vector<PlannedAllocation>& out);
std::unique_ptr<PassUnit> create_exposure_unit(const UnitSetup& s);
std::unique_ptr<PassUnit> create_occlusion_unit(const UnitSetup& s);
void occlusion_report_counters(nlohmann::json& counters, const PassCounters& c);
void occlusion_frame_allocations(const AllocationQuery& q, std::vector<PlannedAllocation>& out);

// The debug-view stages (named by stage_name()): the device feature the stage itself needs, and the shader that
// draws the views there (shaders/<shader>.<variant>, variant plain / lane_id / first_last / active).
struct StageInfo {
    Stage stage;
    uint32_t vk_stage;        // VkShaderStageFlagBits
    std::string_view shader;  // "view.tesc"
    // Why the device cannot run the stage at all (a missing feature), or empty. Null: always runs.
    std::string (*missing_feature)(const DeviceFeatures&);
    // Whether this build has the views' shaders in the stage. A stage the device supports but
    // the build does not draw views in is reported as such, never as a device limitation.
    bool view_built = true;
};
extern const std::array<StageInfo, size_t(Stage::count)> kStages;
const StageInfo& stage_info(Stage s);
