#include "passes/pass_table.h"

#include <vulkan/vulkan_core.h>

#include <nlohmann/json.hpp>


const std::array<TimerInfo, kTimerCount> kTimers = {{
    {Timer::cull, "cull", "cull", "cull"},
    {Timer::depth, "depth", "depth", "depth"},
    {Timer::pyramid, "pyramid", "occlusion", "pyr"},
    {Timer::late_depth, "late_depth", "late depth", "late", Timer::pyramid},
    // The hardware pre-pass's ids after occlusion's merge (ScenePass::record_ids): its frames are
    // those in which it drew (phase 2 re-admitted something), the draw count being the GPU's.
    {Timer::ids, "ids", "ids", "ids", Timer::pyramid},
    {Timer::light_cull, "light_cull", "light cull", "light-cull"},
    // The ray tracer's per-frame rebuild of the lights' BLAS and the TLAS (and the light boxes'
    // dispatch), timed apart from its traces so rays per second divide by the traces alone.
    {Timer::ray_build, "ray_build", "AS rebuild", "rt-build"},
    {Timer::ray_trace, "ray_trace", "ray trace", "rt"},
    {Timer::forward, "forward", "forward", "fwd"},
    // --shading visibility's compute pass (docs/visibility.md) instead of forward: forward's HUD row.
    {Timer::shade, "shade", "visibility shade", "shade", Timer::forward},
    {Timer::mip, "mip", "mip", "mip"},
    {Timer::mip_fixup, "mip_fixup", "mip fix-up", "mip-fix"},
    {Timer::resolve, "resolve", "resolve", "resolve"},
    {Timer::exposure, "exposure", "exposure", "expo"},
    {Timer::view, "view", "view", "view"},
    {Timer::frame, "frame", "frame", "frame"},
}};

namespace {

constexpr uint32_t kAllVariants = bit(Variant::subgroup) | bit(Variant::fallback) | bit(Variant::off);

std::string light_loop_note(const DeviceFeatures&) {
    // Shown in --info / the report: what the choice means beyond the shader.
    const PassInfo& lists = pass_info(PassId::light_cull);
    return "; " + std::string(lists.label) + " sorts each tile's list (the subgroup loop walks sorted lists); with --" +
           std::string(lists.name) + " off both variants run one uniform loop over every light";
}

std::string mip_missing_feature(const DeviceFeatures& f) {
    return f.fragment_stores ? "" : "device lacks fragmentStoresAndAtomics (the fragment shader cannot store the mip)";
}

std::string mip_subgroup_note(const DeviceFeatures&) {
    return "; written by the resolve pass: every quad is four real pixels (no helpers, no edge list)";
}

std::string pyramid_missing_feature(const DeviceFeatures& f) {
    return f.compute_full_subgroups ? "" : "device lacks computeFullSubgroups (the pyramid's quads are 2x2 blocks of a numbering by subgroup)";
}

std::string tessellation_missing(const DeviceFeatures& f) {
    return f.tessellation ? "" : "device lacks the tessellationShader feature";
}

std::string geometry_missing(const DeviceFeatures& f) {
    return f.geometry ? "" : "device lacks the geometryShader feature";
}

std::string mesh_shader_missing(const DeviceFeatures& f) {
    return f.mesh_shader ? "" : "device lacks VK_EXT_mesh_shader (task and mesh shaders)";
}

std::string ray_tracing_missing(const DeviceFeatures& f) {
    if (f.ray_tracing) return "";
    return f.ray_tracing_missing.empty() ? "device lacks VK_KHR_ray_tracing_pipeline and VK_KHR_acceleration_structure"
                                         : f.ray_tracing_missing;
}

}  // namespace

const std::array<PassInfo, kPassCount> kPasses = {{
    {.id = PassId::cull,
     .name = "cull",
     .key = "cull",
     .label = "cull",
     .tag = "cull",
     .window_key = '1',
     .variants = kAllVariants,
     // cull.comp (workgroup_scan.glsl): subgroupExclusiveAdd, subgroupAdd and subgroupMin (arithmetic),
     // subgroupElect and gl_SubgroupID (basic), subgroupBallot and its bit counts (ballot).
     .stage = Stage::compute,
     .stages = 0,
     .ops = bit(Op::basic) | bit(Op::arithmetic) | bit(Op::ballot),
     .uses = "a subgroup scan and a subgroup look-back window compact the surviving triangles in input order, in one dispatch",
     .fallback = "a shared-memory scan and a one-lane look-back, the same order",
     .missing_feature = nullptr,
     .unavailable = nullptr,
     .subgroup_note = nullptr,
     .timer = Timer::cull,
     .host_timer = std::nullopt,
     .hosted_label = "",
     .docs = "docs/culling.md",
     .point = FramePoint::before_depth,
     .create = create_cull_unit,
     .report_counters = cull_report_counters,
     .hud_line = cull_hud_line,
     .frame_allocations = cull_frame_allocations},
    {.id = PassId::light_cull,
     .name = "light-cull",
     .key = "light_cull",
     .label = "light cull",
     .tag = "light",
     .window_key = '2',
     .variants = kAllVariants,
     // light_cull.comp: subgroupAny (vote), subgroupBallot/BitCount/ExclusiveBitCount/BroadcastFirst
     // (ballot), subgroupElect (basic).
     .stage = Stage::compute,
     .stages = 0,
     .ops = bit(Op::basic) | bit(Op::vote) | bit(Op::ballot),
     .uses = "ballot-aggregated atomics append to 16x16-tile light lists",
     .fallback = "one atomic per list entry",
     .missing_feature = nullptr,
     .unavailable = nullptr,
     .subgroup_note = nullptr,
     .timer = Timer::light_cull,
     .host_timer = std::nullopt,
     .hosted_label = "",
     .docs = "docs/light-lists.md",
     .point = FramePoint::after_depth,
     .create = create_light_cull_unit,
     .report_counters = light_cull_report_counters,
     .hud_line = light_cull_hud_line,
     .frame_allocations = light_cull_frame_allocations},
    {.id = PassId::mip,
     .name = "mip",
     .key = "mip",
     .label = "mip",
     .tag = "mip",
     .window_key = '3',
     .variants = kAllVariants | bit(Variant::forward),
     // resolve.frag RESOLVE_MIP: subgroupQuadSwapHorizontal/Vertical (quad) sum each quad's four
     // pixels; lanes of a quad are its 2x2 block (basic: the quad's layout in the subgroup).
     // forward.frag (quad_mip.glsl): subgroupBallot (ballot) finds each quad's real lanes,
     // subgroupQuadSwapHorizontal/Vertical (quad) sum full quads, and the edge list's append uses
     // subgroupBallotBitCount/ExclusiveBitCount/BroadcastFirst (ballot) and subgroupElect (basic).
     .stage = Stage::fragment,
     .stages = 0,
     .ops = bit(Op::basic) | bit(Op::quad),
     .forward_ops = bit(Op::basic) | bit(Op::ballot) | bit(Op::quad),
     .uses = "quad swaps in the full-screen resolve pass write the half-resolution HDR mip, one store per quad "
             "(--mip forward: while shading, with an edge list and a compute fix-up)",
     .fallback = "compute 2x2 downsample of the HDR frame",
     .missing_feature = mip_missing_feature,
     .unavailable = nullptr,
     .subgroup_note = mip_subgroup_note,
     .timer = Timer::mip,
     // The quad mip is stored by the resolve pass's fragment shader (passes/resolve_pass.cpp): its
     // cost is the resolve pass with the mip minus without. (--mip forward is hosted by forward and
     // times its edge fix-up as Timer::mip_fixup; under --shading visibility the shading pass
     // stores it, inside Timer::shade.)
     .host_timer = Timer::resolve,
     .hosted_label = "quad mip",
     .docs = "docs/quad-mip.md",
     .point = FramePoint::after_forward,
     .create = create_mip_unit,
     .report_counters = mip_report_counters,
     .frame_allocations = mip_frame_allocations},
    {.id = PassId::light_loop,
     .name = "light-loop",
     .key = "light_loop",
     .label = "light loop",
     .tag = "loop",
     .window_key = '4',
     // No off: forward shading always walks some loop over the lights.
     .variants = bit(Variant::subgroup) | bit(Variant::fallback),
     // forward.frag LIGHT_LOOP_SUBGROUP: subgroupMin (arithmetic) picks the next light of the union,
     // subgroupAll/subgroupBroadcastFirst (vote, ballot) find one-tile subgroups, subgroupElect and
     // subgroupBallot (basic, ballot) count trips in the instrumented frame.
     .stage = Stage::fragment,
     .stages = 0,
     .ops = bit(Op::basic) | bit(Op::vote) | bit(Op::arithmetic) | bit(Op::ballot),
     .uses = "the lanes of a subgroup walk the union of their tiles' sorted light lists in subgroup-uniform order",
     .fallback = "each lane walks its own tile's list",
     .missing_feature = nullptr,
     .unavailable = nullptr,
     .subgroup_note = light_loop_note,
     // Its work is forward shading's loop: timed in the forward pass, which hosts it.
     .timer = Timer::forward,
     .host_timer = Timer::forward,
     .hosted_label = "light loop",
     .docs = "docs/light-lists.md",
     .point = FramePoint::after_depth,
     .create = create_light_loop_unit,
     .report_counters = light_loop_report_counters},
    {.id = PassId::ray_trace,
     .name = "ray-trace",
     .key = "ray_trace",
     .label = "ray trace",
     .tag = "rt",
     .window_key = '5',
     .variants = kAllVariants,
     // Both variants trace the same rays with the same six shaders; they differ in how the
     // statistics are counted (shaders/raytrace_stats.glsl: raygen after each trace, the
     // closest-hit, any-hit, intersection and callable stages in place): subgroupBallot + BitCount
     // + Elect, one atomic per subgroup (basic, ballot), and raygen's subgroupAny skip of the
     // shadow ray (vote).
     .stage = Stage::raygen,
     .stages = kRayTracingStages,
     .ops = bit(Op::basic) | bit(Op::vote) | bit(Op::ballot),
     .uses = "sun shadows and reflections traced from the raster's surfaces in all six ray-tracing stages; "
             "the statistics counted with one ballot-aggregated atomic per subgroup",
     .fallback = "the same rays, one atomic per invocation and counter",
     .missing_feature = nullptr,
     .unavailable = ray_tracing_missing,
     .subgroup_note = nullptr,
     .timer = Timer::ray_trace,
     .host_timer = std::nullopt,
     .hosted_label = "",
     .docs = "docs/ray-tracing.md",
     .point = FramePoint::after_depth,
     .create = create_ray_trace_unit,
     .report_counters = ray_trace_report_counters,
     .hud_line = ray_trace_hud_line,
     .frame_allocations = ray_trace_frame_allocations,
     .in_all_rows = false},
    {.id = PassId::exposure,
     .name = "exposure",
     .key = "exposure",
     .label = "exposure",
     .tag = "expo",
     .window_key = '6',
     .variants = kAllVariants,
     // exposure_reduce.comp USE_SUBGROUP: subgroupAdd (arithmetic), subgroupElect (basic).
     .stage = Stage::compute,
     .stages = 0,
     .ops = bit(Op::basic) | bit(Op::arithmetic),
     .uses = "subgroupAdd of the mip's fixed-point log luminance, twice (subgroups, then their sums), one atomic per workgroup",
     .fallback = "shared-memory tree reduction, one atomic per workgroup",
     .missing_feature = nullptr,
     .unavailable = nullptr,
     .subgroup_note = nullptr,
     .timer = Timer::exposure,
     .host_timer = std::nullopt,
     .hosted_label = "",
     .docs = "docs/exposure.md",
     .point = FramePoint::after_resolve,
     .create = create_exposure_unit},
    {.id = PassId::occlusion,
     .name = "occlusion",
     .key = "occlusion",
     .label = "occlusion",
     .tag = "occl",
     .window_key = '7',
     .variants = kAllVariants,
     // pyramid.comp USE_SUBGROUP: subgroupQuadSwapHorizontal/Vertical (quad) take each 2x2
     // block's min; gl_SubgroupID / gl_SubgroupInvocationID (basic) put a quad on a 2x2 block.
     .stage = Stage::compute,
     .stages = 0,
     .ops = bit(Op::basic) | bit(Op::quad),
     .uses = "two-phase occlusion culling against a depth pyramid built in one dispatch: quad swaps take each "
             "2x2 min, the last workgroup reduces the tail",
     .fallback = "the same culling, the pyramid built one level per dispatch",
     .missing_feature = pyramid_missing_feature,
     .unavailable = nullptr,
     .subgroup_note = nullptr,
     .timer = Timer::pyramid,
     .host_timer = std::nullopt,
     .hosted_label = "",
     .docs = "docs/occlusion.md",
     .point = FramePoint::after_prepass,
     .create = create_occlusion_unit,
     .report_counters = occlusion_report_counters,
     .frame_allocations = occlusion_frame_allocations},
}};

const std::array<StageInfo, size_t(Stage::count)> kStages = {{
    {Stage::vertex, VK_SHADER_STAGE_VERTEX_BIT, "view.vert", nullptr},
    {Stage::tess_control, VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT, "view.tesc", tessellation_missing},
    {Stage::tess_eval, VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT, "view.tese", tessellation_missing},
    {Stage::geometry, VK_SHADER_STAGE_GEOMETRY_BIT, "view.geom", geometry_missing},
    {Stage::fragment, VK_SHADER_STAGE_FRAGMENT_BIT, "view.frag", nullptr},
    {Stage::compute, VK_SHADER_STAGE_COMPUTE_BIT, "view.comp", nullptr},
    // The meshlet path's own shaders (shaders/meshlet_cull.task, meshlet_cull.mesh) draw these views.
    {Stage::task, VK_SHADER_STAGE_TASK_BIT_EXT, "meshlet_cull.task", mesh_shader_missing},
    {Stage::mesh, VK_SHADER_STAGE_MESH_BIT_EXT, "meshlet_cull.mesh", mesh_shader_missing},
    {Stage::raygen, VK_SHADER_STAGE_RAYGEN_BIT_KHR, "raytrace.rgen", ray_tracing_missing},
    {Stage::any_hit, VK_SHADER_STAGE_ANY_HIT_BIT_KHR, "raytrace.rahit", ray_tracing_missing},
    {Stage::closest_hit, VK_SHADER_STAGE_CLOSEST_HIT_BIT_KHR, "raytrace.rchit", ray_tracing_missing},
    {Stage::miss, VK_SHADER_STAGE_MISS_BIT_KHR, "raytrace.rmiss", ray_tracing_missing},
    {Stage::intersection, VK_SHADER_STAGE_INTERSECTION_BIT_KHR, "raytrace.rint", ray_tracing_missing},
    {Stage::callable, VK_SHADER_STAGE_CALLABLE_BIT_KHR, "raytrace.rcall", ray_tracing_missing},
}};

const TimerInfo& timer_info(Timer t) { return kTimers[size_t(t)]; }
const PassInfo& pass_info(PassId id) { return kPasses[size_t(id)]; }
const StageInfo& stage_info(Stage s) { return kStages[size_t(s)]; }

std::optional<PassId> find_pass_by_name(std::string_view name) {
    for (const PassInfo& p : kPasses)
        if (p.name == name) return p.id;
    return std::nullopt;
}

bool offers(const PassInfo& pass, Request request) {
    switch (request) {
        case Request::subgroup: return pass.variants & bit(Variant::subgroup);
        case Request::fallback: return pass.variants & bit(Variant::fallback);
        case Request::off: return pass.variants & bit(Variant::off);
        case Request::forward: return pass.variants & bit(Variant::forward);
        default: return true;
    }
}

bool has_own_timer(const PassInfo& pass) { return !pass.host_timer || pass.timer != *pass.host_timer; }

namespace {

std::string label_of(std::string_view what, std::string_view choice, std::string_view detail) {
    std::string s(what);
    if (!choice.empty()) s += ": " + std::string(choice);
    if (!detail.empty()) s += " (" + std::string(detail) + ")";
    return s;
}

}  // namespace

std::string debug_label(PassId id, Variant v, std::string_view detail) {
    return label_of(pass_info(id).label, variant_name(v), detail);
}

std::string debug_label(Timer t, std::string_view detail) { return label_of(timer_info(t).label, {}, detail); }

