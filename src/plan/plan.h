// The plan: what each selectable pass and the debug view resolve to, from the user's requests,
// the device's capabilities (caps/caps.h), the pass table (passes/pass_table.h) and what this
// device measured (compare/tuning.h). The top of the planning stack.
// Plain data and pure functions: tested without a GPU.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "caps/caps.h"
#include "passes/pass_table.h"

// The debug views (--view, docs/debug-views.md). A view's name stands beside it: --view, --help,
// its errors and the window's V key (which steps through them in this order) read kViewNames.
enum class ViewMode { shaded, lane_id, first_last_lane, active_lanes, mip, light_count, lod, depth_pyramid, raster, materials, depth, overdraw, count };
inline constexpr std::array<std::string_view, size_t(ViewMode::count)> kViewNames = {
    "shaded", "lane-id", "first-last-lane", "active-lanes", "mip", "light-count", "lod", "depth-pyramid", "raster", "materials", "depth", "overdraw"};

std::string_view request_name(Request r);
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
    std::string measured_by, measured_on;  // source measured: the verdict's maker ("quick", "tune") and date
};
// --info's source column: "requested", "capabilities", or the verdict's maker and date ("quick 2026-11-28").
std::string source_text(PlanSource source, const std::string& measured_by, const std::string& measured_on);

// --shading (docs/visibility.md): forward shades in the fragment stage; visibility has the pre-pass
// write which triangle covers each pixel and a compute pass over 2x2-pixel quads shade it.
enum class Shading { forward, visibility };
std::string_view shading_name(Shading s);  // "forward", "visibility"
std::optional<Shading> parse_shading(std::string_view name);

// The configuration a verdict was measured in. A verdict holds for the paths it timed: auto uses
// it only where the plan runs those same paths (verdict_applies): the cull's only on the geometry
// path it was measured on, the mip's and the light loop's only under the shading they were
// measured under (under visibility the shading pass runs both), the ray tracer's only under the
// shading it was measured under (under visibility it starts from the visibility image's surfaces),
// the shading and derivatives verdicts only on the indexed path their rows draw.
struct MeasuredIn {
    Geometry geometry = Geometry::indexed;
    Shading shading = Shading::forward;
    bool operator==(const MeasuredIn&) const = default;
};

// What a comparison measured for one pass on this device, where its verdict was significant (the
// 95% interval of fallback ms / subgroup ms excludes 1.0): the faster path. Read from the tuning
// file (compare/tuning.h); the planner takes it as an input, after capabilities.
struct MeasuredPreference {
    Variant winner = Variant::subgroup;  // subgroup (ratio above 1) or fallback (below 1)
    double ratio = 1;                    // fallback ms / subgroup ms
    std::string made_by;                 // "compare", "tune" or "quick" (the first run's measurement)
    std::string date;                    // "2026-11-25"
    MeasuredIn in{};                     // where it was measured
    bool operator==(const MeasuredPreference&) const = default;
};
using MeasuredPreferences = std::array<std::optional<MeasuredPreference>, kPassCount>;  // by PassId

struct ViewPlan {
    ViewMode mode = ViewMode::shaded;
    Stage stage = Stage::fragment;
    // subgroup or unsupported for the subgroup views; the raster view unsupported where the
    // pre-pass is not the compute rasterizer's; off for the others
    Variant variant = Variant::off;
    std::string reason;
    uint32_t level = 0;  // depth-pyramid: the level shown (the view clamps it to the coarsest)
    bool shading_pass = false;  // compute lane views under --shading visibility: the shading pass draws them
};
// The view's VK_EXT_debug_utils label, in the scheme of the table's (passes/pass_table.h):
// "view: lane-id (vertex, unsupported)".
std::string debug_label(const ViewPlan& view);


struct ShadingPlan {
    std::optional<Shading> requested;  // nullopt: auto
    Shading shading = Shading::forward;
    // Visibility's texture derivatives: subgroup (quad swaps where a quad's four pixels share a
    // triangle, else analytic) or fallback (analytic everywhere); off with forward.
    Request derivatives_requested = Request::automatic;  // PlanRequest::derivatives
    Variant derivatives = Variant::off;
    // Visibility's light loop: the plan's light-loop variant where the compute stage can run it.
    Variant light_loop = Variant::off;
    // Visibility's per-pixel materials (docs/materials.md): subgroup, the waterfall over the
    // subgroup's distinct materials (ballot in compute); fallback, nonuniformEXT indexing alone.
    Request materials_requested = Request::automatic;  // PlanRequest::materials
    Variant materials = Variant::off;
    std::string materials_reason;
    // Visibility with --mip subgroup where compute has quad operations: the shading pass writes the
    // mip. Under visibility the mip is planned against the compute stage's capabilities, so a
    // masked fragment stage does not take the quad mip from the shading pass.
    bool quad_mip = false;
    std::string reason;
    PlanSource source = PlanSource::capabilities;
    std::string measured_by, measured_on;  // as PassPlan's
};

std::string_view shading_request_name(const ShadingPlan& p);  // "auto", "forward", "visibility"
// The --info column: "forward", or visibility's derivatives: "visibility/subgroup", "visibility/fallback".
std::string shading_variant_name(const ShadingPlan& p);

// --raster (docs/raster.md): who writes the visibility pre-pass. hardware: the graphics pipeline
// (depth image and visibility id); compute: a compute rasterizer writes each pixel's 64-bit word
// (depth high, id low) with atomics, and the hardware rasterizer the triangles it is not built for.
enum class Raster { hardware, compute };
// The compute rasterizer's sub-pixel precision (raster.comp's kSubPixelBits): it runs only where
// the device's subPixelPrecisionBits is the same, so that both rasterizers snap alike.
constexpr uint32_t kRasterSubPixelBits = 8;
std::string_view raster_name(Raster r);  // "hardware", "compute"
std::optional<Raster> parse_raster(std::string_view name);

struct RasterPlan {
    std::optional<Raster> requested;  // nullopt: auto
    Raster raster = Raster::hardware;
    // The compute rasterizer's path: subgroup (ballot-compacted hardware list, the lanes of a
    // subgroup sharing a triangle's pixels) or fallback (per-lane atomics and pixels); off with hardware.
    Variant variant = Variant::off;
    std::string reason;
    PlanSource source = PlanSource::capabilities;
};
// The --info column: "hardware", "compute/subgroup", "compute/fallback".
std::string raster_variant_name(const RasterPlan& p);

// How the shaders reach the scene's textures (docs/materials.md): one array of descriptors, each
// texture at its own size and indexed nonuniformEXT (descriptor indexing), or, where the device
// lacks that, the layers of one array texture at one size, the index a texture coordinate.
struct TexturePlan {
    bool layers = false;
    std::string reason;
};
std::string_view texture_mode_name(const TexturePlan& t);  // "descriptor-indexing", "array-texture"

// What each selectable pass (indexed by PassId, see passes/pass_table.h) and the debug view resolve to.
struct Plan {
    std::array<PassPlan, kPassCount> passes;
    ViewPlan view;
    Geometry geometry = Geometry::indexed;  // with meshlet, passes[cull] is the task/mesh culling
    bool lod = true;  // --lod auto: each draw's level of detail is chosen per frame (docs/lod.md)
    ShadingPlan shading;
    RasterPlan raster;
    TexturePlan textures;
    // The ray tracer's launch (docs/ray-tracing.md, "Dense rays"): subgroup, a compute pass lists
    // the pixels by the rays they trace with ballots (one atomic per subgroup and list) and an
    // indirect launch traces one ray per invocation; fallback, the same lists with one atomic per
    // ray; off, one ray generation per pixel (a device without indirect trace launches, or asked).
    // The forward path's primary rays are a per-pixel launch of their own before the lists.
    Variant ray_lists = Variant::off;
    Request ray_lists_requested = Request::automatic;  // PlanRequest::ray_lists
    std::string ray_lists_reason;
    // The ray tracer's acceleration structures (docs/ray-tracing.md, "Refitting"): true, built once
    // with ALLOW_UPDATE and refitted every frame (MODE_UPDATE, the lights moved); false, the
    // lights' BLAS and the TLAS rebuilt every frame (asked for, or no rays traced).
    bool ray_refit = false;

    PassPlan& operator[](PassId id) { return passes[size_t(id)]; }
    const PassPlan& operator[](PassId id) const { return passes[size_t(id)]; }
};

struct PlanRequest {
    std::array<Request, kPassCount> passes{};  // value-initialised: every pass Request::automatic
    ViewMode view = ViewMode::shaded;
    Stage view_stage = Stage::fragment;
    uint32_t view_level = 0;  // the depth-pyramid view's level (the window's P key)
    Geometry geometry = Geometry::indexed;
    bool lod = true;  // --lod auto | off
    std::optional<Shading> shading;  // --shading; nullopt: auto
    // The ray tracer's dense launch (Plan::ray_lists): auto (the pass's variant, where compute has
    // ballots), subgroup, fallback or off (one ray generation per pixel). No option sets it: tests
    // and gpu_bench.sh's rays suite (SGD_RAY_LISTS) do.
    Request ray_lists = Request::automatic;
    // Plan::ray_refit where rays are traced; false forces the full rebuild every frame. No option
    // sets it: tests and gpu_bench.sh's refit suite (SGD_RAY_REFIT=off) do.
    bool ray_refit = true;
    // Visibility's derivatives: auto, subgroup (quad swaps; refused where compute lacks quads) or
    // fallback (analytic). No option sets it: the comparison's shading-visibility rows do.
    Request derivatives = Request::automatic;
    // Visibility's per-pixel materials (--materials): auto, subgroup (the waterfall; refused where
    // compute lacks ballot) or fallback (nonuniformEXT indexing).
    Request materials = Request::automatic;
    // A verdict of this device on forward against visibility (winner subgroup: visibility faster).
    std::optional<MeasuredPreference> measured_shading;
    // A verdict on visibility's derivatives (winner fallback: analytic faster than quad swaps).
    std::optional<MeasuredPreference> measured_derivatives;
    // --raster; nullopt: auto. And the compute rasterizer's path (no option sets it: the comparison's
    // raster-compute rows, the tests and gpu_bench.sh's raster suite (SGD_RASTER_PATH) do), and a
    // verdict of hardware against compute (winner subgroup: compute faster).
    std::optional<Raster> raster;
    Request raster_variant = Request::automatic;
    std::optional<MeasuredPreference> measured_raster;
    // A verdict on the compute rasterizer's path (winner fallback: the shared-memory sorting faster
    // than the ballots'); auto follows it where the subgroup path could run.
    std::optional<MeasuredPreference> measured_raster_path;
    // What this device measured (empty: --no-tuning, no tuning file, or the window's T key off).
    // Only `auto` consults it, and only where the measured winner can run and the verdict applies
    // (verdict_applies): `measured` holds the pass rows' verdicts (forward shading, indexed
    // geometry), `measured_visibility` those measured under visibility (the mip's: the shading
    // pass's quad mip against the compute downsample; the ray tracer's, tracing from the
    // visibility image's surfaces).
    MeasuredPreferences measured{};
    MeasuredPreferences measured_visibility{};

    Request& operator[](PassId id) { return passes[size_t(id)]; }
    Request operator[](PassId id) const { return passes[size_t(id)]; }
};


// Occlusion `auto` rests where it removes little (docs/occlusion.md, "What auto chooses"): a frame
// whose phase 1 had a previous pyramid, and in which occlusion finally removed less than
// kOcclusionRestBelow of what passed every other test (triangles; meshlets on the meshlet path),
// starts kOcclusionRestFrames frames without the pyramid or either phase. Then occlusion comes
// back, builds a pyramid, culls with it, and the next such frame decides again. The frames are
// the same either way (occlusion only removes what no pixel shows); only the cost changes.
constexpr double kOcclusionRestBelow = 0.125;
constexpr uint32_t kOcclusionRestFrames = 60;

PassNeeds pass_needs(PassId id);
// With --geometry meshlet the cull pass's subgroup path runs in the task shader and in the mesh
// shader (subgroupOr of the kept meshlets' or triangles' bits, ballots counting them): its needs in
// both stages, task first.
std::array<PassNeeds, 2> meshlet_cull_needs();
// The dense ray launch's ballot lists (ray_lists.comp's subgroup path): subgroupBallot, its bit
// counts, subgroupElect and subgroupBroadcastFirst in compute.
PassNeeds ray_lists_needs();
std::string_view geometry_name(Geometry g);
std::optional<Geometry> parse_geometry(std::string_view name);
// Why the device cannot draw --geometry meshlet at all, or empty.
std::string meshlet_missing(const DeviceFeatures& features);
// Whether a renderer of `plan` makes the meshlet path's buffers: it draws meshlets, or a task or
// mesh debug view, which the meshlet path's shaders draw whatever the geometry (mesh_shader: the
// device has them).
bool draws_meshlets(const Plan& plan, bool mesh_shader);
uint32_t view_needs(ViewMode mode);  // ops a subgroup debug view needs in its stage


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

// Whether a verdict measured in `m.in` holds for pass `id` (nullopt: shading's and derivatives')
// in a plan of this geometry and shading (MeasuredIn).
bool verdict_applies(const MeasuredPreference& m, std::optional<PassId> id, Geometry geometry, Shading shading);
// The shading a typed request needs of --shading auto, and why (--mip forward: forward), or
// nullopt. A stored verdict never turns a typed request into an error: auto takes what it needs.
std::optional<std::pair<Shading, std::string>> shading_needed_by(const PlanRequest& request);

// Why the device cannot run the visibility path on this geometry at all, or empty.
std::string visibility_missing(const DeviceFeatures& features, Geometry geometry);
// The timer a pass's subgroup work runs inside where it has no slot of its own (PassInfo::host_timer),
// in this plan: the quad mip in resolve, the light loop in forward; under visibility both in the
// shading pass (shade) when it runs them. nullopt for a pass that is never hosted.
std::optional<Timer> hosting_timer(const PassInfo& pass, const Plan& plan);

// Why visibility's quad-swap derivatives cannot run (compute quad operations, full subgroups), or empty.
std::string visibility_derivatives_missing(const SubgroupCaps& caps, const DeviceFeatures& features);

// Why --raster compute cannot run on this device with this plan's other choices, or empty.
std::string raster_compute_missing(const DeviceFeatures& features, const Plan& plan);
// Why the compute rasterizer's subgroup path cannot run (compute basic and ballot operations), or empty.
std::string raster_subgroup_missing(const SubgroupCaps& caps);
// What the compute rasterizer's subgroup path needs (raster.comp.switch, meshlet_switch): where
// the device has it, RasterPass loads the switch rather than its twin.
PassNeeds raster_subgroup_needs();

ViewPlan plan_view(const SubgroupCaps& caps, const DeviceFeatures& features, ViewMode mode, Stage stage);
