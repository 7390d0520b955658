#include "plan/plan.h"

#include <cstdio>

namespace {

constexpr std::array<std::string_view, 5> kRequestNames = {"auto", "subgroup", "fallback", "off", "forward"};
constexpr std::array<std::string_view, 5> kVariantNames = {"subgroup", "fallback", "off", "unsupported", "forward"};
constexpr std::array<std::string_view, 2> kGeometryNames = {"indexed", "meshlet"};
constexpr std::array<std::string_view, 2> kShadingNames = {"forward", "visibility"};
constexpr std::array<std::string_view, 2> kRasterNames = {"hardware", "compute"};

}  // namespace

std::string_view request_name(Request r) { return kRequestNames[size_t(r)]; }
std::string_view variant_name(Variant v) { return kVariantNames[size_t(v)]; }
std::string_view view_mode_name(ViewMode m) { return kViewNames[size_t(m)]; }
std::optional<Request> parse_request(std::string_view n) { return parse_name<Request>(kRequestNames, n); }
std::optional<ViewMode> parse_view_mode(std::string_view n) { return parse_name<ViewMode>(kViewNames, n); }

bool is_subgroup_view(ViewMode m) {
    return m == ViewMode::lane_id || m == ViewMode::first_last_lane || m == ViewMode::active_lanes;
}

std::string debug_label(const ViewPlan& view) {
    std::string label = debug_label(Timer::view) + ": " + std::string(view_mode_name(view.mode));
    if (is_subgroup_view(view.mode))
        label += " (" + std::string(stage_name(view.stage)) + (view.variant == Variant::subgroup ? "" : ", unsupported") + ")";
    return label;
}

PassNeeds pass_needs(PassId id) { return {pass_info(id).stage, pass_info(id).ops, pass_info(id).stages}; }

// lane-id reads gl_SubgroupInvocationID (basic); the other two ballot the active lanes.
uint32_t view_needs(ViewMode mode) {
    if (mode == ViewMode::lane_id) return bit(Op::basic);
    return bit(Op::basic) | bit(Op::ballot);
}

std::array<PassNeeds, 2> meshlet_cull_needs() {
    // meshlet_cull.task (gather_subgroup, meshlet_chunk_cull.glsl) and meshlet_cull.mesh: subgroupOr
    // of the kept bits (arithmetic), subgroupBallot and subgroupBallotBitCount (ballot),
    // subgroupElect (basic). Their switches declare these (SubgroupSwitch.*).
    const uint32_t ops = bit(Op::basic) | bit(Op::ballot) | bit(Op::arithmetic);
    return {{{Stage::task, ops}, {Stage::mesh, ops}}};
}

PassNeeds ray_lists_needs() { return {Stage::compute, bit(Op::basic) | bit(Op::ballot)}; }

std::string_view geometry_name(Geometry g) { return kGeometryNames[size_t(g)]; }
std::optional<Geometry> parse_geometry(std::string_view n) { return parse_name<Geometry>(kGeometryNames, n); }

std::string meshlet_missing(const DeviceFeatures& features) {
    return features.mesh_shader ? "" : "device lacks VK_EXT_mesh_shader (task and mesh shaders)";
}

bool draws_meshlets(const Plan& plan, bool mesh_shader) {
    bool meshlet_view = plan.view.variant != Variant::off && (plan.view.stage == Stage::task || plan.view.stage == Stage::mesh);
    return plan.geometry == Geometry::meshlet || (meshlet_view && mesh_shader);
}

std::string pass_missing(const SubgroupCaps& caps, const DeviceFeatures& features, PassId id, Geometry geometry) {
    const PassInfo& pass = pass_info(id);
    if (id == PassId::cull && geometry == Geometry::meshlet) {
        for (PassNeeds needs : meshlet_cull_needs())
            if (std::string missing = missing_support(caps, needs); !missing.empty()) return missing;
        return meshlet_missing(features);
    }
    std::string missing = missing_support(caps, pass_needs(id));
    if (missing.empty() && pass.missing_feature) missing = pass.missing_feature(features);
    return missing;
}

std::string forward_missing(const SubgroupCaps& caps, const DeviceFeatures& features, PassId id) {
    const PassInfo& pass = pass_info(id);
    std::string missing = missing_support(caps, {pass.stage, pass.forward_ops});
    if (missing.empty() && pass.missing_feature) missing = pass.missing_feature(features);
    return missing;
}

std::string_view shading_name(Shading s) { return kShadingNames[size_t(s)]; }
std::optional<Shading> parse_shading(std::string_view n) { return parse_name<Shading>(kShadingNames, n); }

std::string_view shading_request_name(const ShadingPlan& p) { return p.requested ? shading_name(*p.requested) : "auto"; }

std::string shading_variant_name(const ShadingPlan& p) {
    if (p.shading == Shading::forward) return "forward";
    return "visibility/" + std::string(variant_name(p.derivatives));
}

std::string visibility_missing(const DeviceFeatures& features, Geometry geometry) {
    // The meshlet path's mesh shader names each primitive's triangle itself (a per-primitive output),
    // which the meshlet path's own needs (mesh shaders) cover.
    if (geometry == Geometry::meshlet) return "";
    // The indexed pre-pass's fragment shader reads gl_PrimitiveID: SPIR-V's Geometry capability.
    return features.geometry ? "" : "device lacks the geometryShader feature (the pre-pass reads gl_PrimitiveID)";
}

std::string_view raster_name(Raster r) { return kRasterNames[size_t(r)]; }
std::optional<Raster> parse_raster(std::string_view n) { return parse_name<Raster>(kRasterNames, n); }

std::string raster_variant_name(const RasterPlan& p) {
    return p.raster == Raster::hardware ? "hardware" : "compute/" + std::string(variant_name(p.variant));
}

std::string raster_compute_missing(const DeviceFeatures& features, const Plan& plan) {
    if (!features.int64_atomics)
        return "device lacks shaderBufferInt64Atomics, shaderInt64 or fragmentStoresAndAtomics (the 64-bit visibility words)";
    if (features.sub_pixel_bits != kRasterSubPixelBits)
        return "device snaps vertices to " + std::to_string(features.sub_pixel_bits) + " sub-pixel bits (subPixelPrecisionBits), the compute "
               "rasterizer to " + std::to_string(kRasterSubPixelBits) + ": the edges it shares with the hardware's triangles would "
               "leave pinholes";
    if (plan.shading.shading != Shading::visibility)
        return "the words are the visibility path's pre-pass, and forward shading tests the hardware's depth";
    if (plan.view.mode != ViewMode::shaded && plan.view.mode != ViewMode::raster && plan.view.mode != ViewMode::materials)
        return "the debug views draw over the hardware pre-pass's depth";
    return "";
}

PassNeeds raster_subgroup_needs() {
    // raster.comp's USE_SUBGROUP path: subgroupBallot, its bit counts, FindLSB and
    // subgroupBroadcast (ballot), subgroupElect (basic).
    return {Stage::compute, bit(Op::basic) | bit(Op::ballot)};
}

std::string raster_subgroup_missing(const SubgroupCaps& caps) { return missing_support(caps, raster_subgroup_needs()); }

std::string visibility_derivatives_missing(const SubgroupCaps& caps, const DeviceFeatures& features) {
    // visibility_shade.comp VISIBILITY_QUADS: subgroupQuadBroadcast (quad) on lanes numbered by
    // gl_SubgroupID and gl_SubgroupInvocationID (basic), which full subgroups make dense.
    std::string missing = missing_support(caps, {Stage::compute, bit(Op::basic) | bit(Op::quad)});
    if (missing.empty() && !features.compute_full_subgroups)
        missing = "device lacks computeFullSubgroups (a quad is four lanes of a numbering by subgroup)";
    return missing;
}

std::optional<Timer> hosting_timer(const PassInfo& pass, const Plan& plan) {
    if (!pass.host_timer) return std::nullopt;
    bool in_shade = plan.shading.shading == Shading::visibility &&
                    (pass.id == PassId::light_loop || (pass.id == PassId::mip && plan.shading.quad_mip));
    return in_shade ? Timer::shade : *pass.host_timer;
}

namespace {

// Visibility's derivatives, as plan_pass resolves a pass: capabilities first (quad swaps only where
// `quads_missing` is empty), then a measured winner, else quad swaps. The reason is appended.
void plan_derivatives(ShadingPlan& plan, const std::string& quads_missing, const PlanRequest& request) {
    constexpr const char* kQuads = "quad-broadcast derivatives where the quad's first three pixels show the pixel's triangle, analytic elsewhere";
    constexpr const char* kAnalytic = "analytic derivatives everywhere";
    switch (request.derivatives) {
        case Request::subgroup:
            if (!quads_missing.empty())
                throw UnsupportedRequest("visibility's quad-swap derivatives: " + quads_missing + " on this device");
            plan.derivatives = Variant::subgroup;
            plan.reason += "; requested " + std::string(kQuads);
            return;
        case Request::fallback:
            plan.derivatives = Variant::fallback;
            plan.reason += "; requested " + std::string(kAnalytic);
            return;
        case Request::automatic: break;
        default: throw UnsupportedRequest("visibility's derivatives have no " + std::string(request_name(request.derivatives)) + " variant");
    }
    if (!quads_missing.empty()) {
        plan.derivatives = Variant::fallback;
        plan.reason += "; " + std::string(kAnalytic) + ": " + quads_missing;
    } else if (request.measured_derivatives && request.measured_derivatives->winner == Variant::fallback) {
        plan.derivatives = Variant::fallback;
        plan.reason += "; " + std::string(kAnalytic) + ": " + measured_reason(*request.measured_derivatives);
    } else {
        plan.derivatives = Variant::subgroup;
        plan.reason += "; " + std::string(kQuads) +
                       (request.measured_derivatives ? ": " + measured_reason(*request.measured_derivatives) : "");
    }
}

// The shading --shading resolves to, with its reason and source (derivatives and light loop come
// later, in finish_shading). make_plan has already refused an explicit visibility the device or
// geometry cannot run (before the geometry's own checks, so the refusal names the shading).
ShadingPlan choose_shading(const DeviceFeatures& features, const PlanRequest& request) {
    ShadingPlan plan;
    plan.requested = request.shading;
    plan.derivatives_requested = request.derivatives;
    plan.materials_requested = request.materials;
    std::string missing = visibility_missing(features, request.geometry);
    // The shading verdict was measured on the indexed path's rows: elsewhere it does not apply.
    std::optional<MeasuredPreference> measured = request.measured_shading;
    if (measured && !verdict_applies(*measured, std::nullopt, request.geometry, Shading::forward)) measured.reset();
    if (request.shading == Shading::forward) {
        plan.source = PlanSource::requested;
        plan.reason = "requested forward";
    } else if (request.shading == Shading::visibility) {
        plan.source = PlanSource::requested;
        plan.shading = Shading::visibility;
        plan.reason = "requested visibility";
    } else if (!missing.empty()) {
        plan.reason = "auto takes forward: " + missing;
    } else if (auto needed = shading_needed_by(request)) {
        // A typed request constrains auto; a verdict that says otherwise is named, not followed.
        plan.source = PlanSource::requested;
        plan.shading = needed->first;
        plan.reason = "auto takes " + std::string(shading_name(needed->first)) + ": " + needed->second;
        if (measured && (measured->winner == Variant::subgroup) != (needed->first == Shading::visibility))
            plan.reason += " (not the stored verdict: " +
                           std::string(measured->winner == Variant::subgroup ? "visibility " : "forward ") + measured_reason(*measured) + ")";
    } else if (measured) {
        plan.source = PlanSource::measured;
        plan.measured_by = measured->made_by, plan.measured_on = measured->date;
        plan.shading = measured->winner == Variant::subgroup ? Shading::visibility : Shading::forward;
        plan.reason = std::string(shading_name(plan.shading)) + " " + measured_reason(*measured);
    } else {
        plan.reason = "auto takes forward: no verdict stored for this device says visibility is faster";
    }
    return plan;
}

// The ray tracer's launch, once the pass is planned (Plan::ray_lists).
void plan_ray_lists(Plan& plan, const SubgroupCaps& caps, const DeviceFeatures& features, const PlanRequest& request) {
    const PassPlan& ray_trace = plan[PassId::ray_trace];
    Request asked = plan.ray_lists_requested = request.ray_lists;
    plan.ray_lists = Variant::off;
    if (ray_trace.variant == Variant::off || ray_trace.variant == Variant::unsupported) {
        plan.ray_lists_reason = "no rays traced";
        return;
    }
    if (asked == Request::off) {
        plan.ray_lists_reason = "one ray generation per pixel (requested)";
        return;
    }
    if (!features.ray_tracing_indirect) {
        const std::string why = "the device lacks rayTracingPipelineTraceRaysIndirect";
        if (asked != Request::automatic) throw UnsupportedRequest("dense ray launch: " + why);
        plan.ray_lists_reason = "one ray generation per pixel: " + why;
        return;
    }
    std::string ballot_missing = missing_support(caps, ray_lists_needs());
    if (asked == Request::subgroup && !ballot_missing.empty()) throw UnsupportedRequest("ray lists by ballot: " + ballot_missing);
    bool ballot = asked == Request::subgroup || (asked == Request::automatic && ray_trace.variant == Variant::subgroup && ballot_missing.empty());
    plan.ray_lists = ballot ? Variant::subgroup : Variant::fallback;
    plan.ray_lists_reason = ballot ? "dense launch: the rays listed with ballots, one atomic per subgroup and list"
                                   : "dense launch: the rays listed with one atomic per ray";
    if (!ballot && asked == Request::automatic && ray_trace.variant == Variant::subgroup)
        plan.ray_lists_reason += " (" + ballot_missing + ")";
}

// Visibility's derivatives and light loop, once the passes are planned.
void finish_shading(ShadingPlan& plan, const SubgroupCaps& caps, const DeviceFeatures& features, const PlanRequest& request,
                    Variant light_loop) {
    if (plan.shading == Shading::forward) return;
    PlanRequest applying = request;
    if (applying.measured_derivatives &&
        !verdict_applies(*applying.measured_derivatives, std::nullopt, request.geometry, Shading::visibility))
        applying.measured_derivatives.reset();
    plan_derivatives(plan, visibility_derivatives_missing(caps, features), applying);
    // The light loop's subgroup variant runs in the compute stage here: it needs its operations there.
    const PassInfo& loop = pass_info(PassId::light_loop);
    std::string loop_missing = missing_support(caps, {Stage::compute, loop.ops});
    plan.light_loop = light_loop == Variant::subgroup && !loop_missing.empty() ? Variant::fallback : light_loop;
    if (light_loop == Variant::subgroup && !loop_missing.empty()) plan.reason += "; per-lane light loop: " + loop_missing;
    // The material waterfall: subgroupBroadcastFirst in compute (the ballot operations), over an
    // index into an array of descriptors (with layers the index is a coordinate: nothing to make uniform).
    plan.materials_requested = request.materials;
    std::string waterfall_missing = missing_support(caps, {Stage::compute, bit(Op::basic) | bit(Op::ballot)});
    if (waterfall_missing.empty() && !features.descriptor_indexing)
        waterfall_missing = "the textures are layers of one array texture (" + features.textures_missing +
                            "): the index is a texture coordinate, no descriptor index to make uniform";
    if (request.materials == Request::subgroup && !waterfall_missing.empty())
        throw UnsupportedRequest("--materials subgroup (the material waterfall): " + waterfall_missing);
    plan.materials = request.materials == Request::fallback || !waterfall_missing.empty() ? Variant::fallback : Variant::subgroup;
    if (request.materials == Request::fallback)
        plan.materials_reason = "requested fallback: each lane its own material, textures indexed nonuniformEXT";
    else if (!waterfall_missing.empty())
        plan.materials_reason = "auto takes fallback: " + waterfall_missing;
    else
        plan.materials_reason = std::string(request.materials == Request::subgroup ? "requested" : "auto takes") +
                                " subgroup: a waterfall over each subgroup's materials (subgroupBroadcastFirst)";
    if (request.materials != Request::fallback && !waterfall_missing.empty())
        plan.reason += "; materials indexed nonuniformEXT (no waterfall): " + waterfall_missing;
}

}  // namespace

std::string_view plan_source_name(PlanSource s) {
    constexpr std::array<std::string_view, 3> names = {"requested", "capabilities", "measured"};
    return names[size_t(s)];
}

bool verdict_applies(const MeasuredPreference& m, std::optional<PassId> id, Geometry geometry, Shading shading) {
    // Shading and derivatives: the comparison's shading rows draw the indexed path.
    if (!id) return m.in.geometry == geometry;
    // The meshlet path's task/mesh culling is another pair than the indexed path's compute cull.
    if (*id == PassId::cull) return m.in.geometry == geometry;
    // Under visibility the shading pass runs the light loop and writes the quad mip, in compute:
    // other code than forward's fragment shader and resolve pass.
    if (*id == PassId::mip || *id == PassId::light_loop) return m.in.shading == shading;
    // Under visibility ray generation takes each pixel's surface from the visibility image and
    // traces no primary ray: other work than forward's, with a verdict of its own.
    if (*id == PassId::ray_trace) return m.in.shading == shading;
    return true;
}

std::optional<std::pair<Shading, std::string>> shading_needed_by(const PlanRequest& request) {
    if (request[PassId::mip] == Request::forward)
        return std::pair{Shading::forward, std::string("--mip forward writes the quad mip while the forward pass shades")};
    // The rasterizer's choice: the compute rasterizer writes the visibility path's words.
    if (request.raster == Raster::compute)
        return std::pair{Shading::visibility, std::string("--raster compute writes the visibility words")};
    return std::nullopt;
}

std::string source_text(PlanSource source, const std::string& measured_by, const std::string& measured_on) {
    if (source == PlanSource::measured && !measured_by.empty()) return measured_by + " " + measured_on;
    return std::string(plan_source_name(source));
}

std::string measured_reason(const MeasuredPreference& m) {
    // Two decimals, as the comparison prints ratios: 0.14x, 1.03x.
    char ratio[32];
    snprintf(ratio, sizeof ratio, "%.2fx", m.ratio);
    return "measured " + std::string(ratio) + " on this device (" + m.made_by + " of " + m.date + ")";
}

PassPlan plan_pass(const PassInfo& pass, Request requested, const std::string& missing,
                   const std::string& missing_forward, const std::optional<MeasuredPreference>& measured) {
    PassPlan plan{requested, Variant::off, "", PlanSource::requested};
    std::string option = "--" + std::string(pass.name);
    if (!offers(pass, requested))
        throw UnsupportedRequest(option + " " + std::string(request_name(requested)) + ": the " + std::string(pass.name) +
                                 " pass has no such variant");
    switch (requested) {
        case Request::off:
            plan.reason = "requested off";
            break;
        case Request::fallback:
            plan.variant = Variant::fallback;
            plan.reason = "requested fallback";
            break;
        case Request::subgroup:
            if (!missing.empty()) throw UnsupportedRequest(option + " subgroup: " + missing + " on this device; use auto or fallback");
            plan.variant = Variant::subgroup;
            plan.reason = "requested subgroup; supported";
            break;
        case Request::forward:
            if (!missing_forward.empty())
                throw UnsupportedRequest(option + " forward: " + missing_forward + " on this device; use auto or fallback");
            plan.variant = Variant::forward;
            plan.reason = "requested forward (the quad mip written while shading); supported";
            break;
        case Request::automatic:
            plan.source = PlanSource::capabilities;
            plan.variant = missing.empty() ? Variant::subgroup : Variant::fallback;
            plan.reason = missing.empty() ? "device supports everything the subgroup path needs" : missing;
            // Capabilities first: a measurement can only choose between paths the device can run.
            // The fallback runs everywhere; the subgroup path only where nothing is missing.
            if (measured && offers(pass, measured->winner == Variant::fallback ? Request::fallback : Request::subgroup) &&
                (measured->winner == Variant::fallback || missing.empty())) {
                plan.source = PlanSource::measured;
                plan.measured_by = measured->made_by, plan.measured_on = measured->date;
                plan.variant = measured->winner;
                plan.reason = measured_reason(*measured);
            }
            break;
    }
    return plan;
}

PassPlan plan_unavailable_pass(const PassInfo& pass, Request requested, const std::string& unavailable) {
    if (requested == Request::automatic || requested == Request::off)
        return {requested, Variant::off, requested == Request::off ? "requested off" : unavailable,
                requested == Request::off ? PlanSource::requested : PlanSource::capabilities};
    throw UnsupportedRequest("--" + std::string(pass.name) + " " + std::string(request_name(requested)) + ": " + unavailable +
                             " on this device; use auto or off");
}

// active-lanes counts its subgroups with an atomic in the stage under view (view_common.glsl):
// vertex, tessellation and geometry stages store only with vertexPipelineStoresAndAtomics, and
// fragment only with fragmentStoresAndAtomics. (Compute, task, mesh and ray tracing always may.)
static std::string active_lanes_store_missing(const DeviceFeatures& features, Stage stage) {
    bool pre_raster = stage == Stage::vertex || stage == Stage::tess_control || stage == Stage::tess_eval ||
                      stage == Stage::geometry;
    if (pre_raster && !features.vertex_stores)
        return "device lacks vertexPipelineStoresAndAtomics (active-lanes counts its subgroups with an atomic)";
    if (stage == Stage::fragment && !features.fragment_stores)
        return "device lacks fragmentStoresAndAtomics (active-lanes counts its subgroups with an atomic)";
    return "";
}

ViewPlan plan_view(const SubgroupCaps& caps, const DeviceFeatures& features, ViewMode mode, Stage stage) {
    ViewPlan plan{mode, stage, Variant::off, ""};
    if (!is_subgroup_view(mode)) {
        plan.reason = "not a subgroup view";
        return plan;
    }
    const StageInfo& info = stage_info(stage);
    if (std::string missing = info.missing_feature ? info.missing_feature(features) : ""; !missing.empty()) {
        plan.variant = Variant::unsupported;
        plan.reason = missing;
        return plan;
    }
    std::string missing = missing_support(caps, {stage, view_needs(mode)});
    if (missing.empty() && mode == ViewMode::active_lanes) missing = active_lanes_store_missing(features, stage);
    if (missing.empty() && !info.view_built)
        missing = std::string(stage_name(stage)) + " stage has subgroups on this device, but this build has no " +
                  std::string(view_mode_name(mode)) + " view in it";
    plan.variant = missing.empty() ? Variant::subgroup : Variant::unsupported;
    plan.reason = missing.empty() ? std::string(stage_name(stage)) + " stage supports the view's operations" : missing;
    return plan;
}

namespace {

// Resolves --raster for make_plan, once the shading, geometry and view are planned.
RasterPlan plan_raster(const SubgroupCaps& caps, const DeviceFeatures& features, const PlanRequest& request, const Plan& plan) {
    RasterPlan r;
    r.requested = request.raster;
    std::string missing = raster_compute_missing(features, plan);
    if (request.raster == Raster::hardware) {
        r.source = PlanSource::requested;
        r.reason = "requested hardware";
        return r;
    }
    if (request.raster == Raster::compute) {
        if (!missing.empty()) throw UnsupportedRequest("--raster compute: " + missing + "; use --raster hardware or auto");
        r.source = PlanSource::requested;
        r.reason = "requested compute";
    } else if (!missing.empty()) {
        r.reason = "auto takes hardware: " + missing;
        return r;
    } else if (request.measured_raster && request.measured_raster->winner == Variant::subgroup) {
        r.source = PlanSource::measured;
        r.reason = "compute " + measured_reason(*request.measured_raster);
    } else if (request.measured_raster) {
        r.source = PlanSource::measured;
        r.reason = "hardware " + measured_reason(*request.measured_raster);
        return r;
    } else {
        r.reason = "auto takes hardware: no verdict from a tune of this device says the compute rasterizer is faster";
        return r;
    }
    r.raster = Raster::compute;
    std::string subgroup_missing = raster_subgroup_missing(caps);
    if (request.raster_variant == Request::subgroup && !subgroup_missing.empty())
        throw UnsupportedRequest("--raster compute (subgroup path): " + subgroup_missing);
    // The path: a typed request, then the capabilities, then a stored verdict, else subgroup.
    std::optional<MeasuredPreference> path = request.raster_variant == Request::automatic ? request.measured_raster_path
                                                                                          : std::nullopt;
    constexpr const char* kFallback =
        "shared-memory atomics sort the triangles: tiny ones a lane each, medium ones split over the workgroup, large ones to tile bins";
    constexpr const char* kSubgroup =
        "ballots sort the triangles: tiny ones a lane each, medium ones split over the subgroup, large ones to tile bins";
    if (request.raster_variant == Request::fallback || !subgroup_missing.empty()) {
        r.variant = Variant::fallback;
        r.reason += "; fallback (" + (subgroup_missing.empty() ? std::string("requested") : subgroup_missing) + "): " + kFallback;
    } else if (path && path->winner == Variant::fallback) {
        r.variant = Variant::fallback;
        r.reason += "; fallback " + measured_reason(*path) + ": " + kFallback;
    } else {
        r.variant = Variant::subgroup;
        r.reason += "; subgroup" + (path ? " " + measured_reason(*path) : std::string()) + ": " + kSubgroup;
    }
    if (plan.geometry == Geometry::meshlet)
        r.reason += "; the meshlet path's meshlets culled in compute (the task shader's tests), a workgroup per 64 triangles of each kept meshlet";
    return r;
}

// The verdict that applies to a pass in this plan (verdict_applies), or none: under visibility the
// mip's and the ray tracer's are the ones measured there (the shading pass's quad mip against its
// fallback; the ray tracer starting from the visibility image's surfaces).
std::optional<MeasuredPreference> measured_for(const PlanRequest& request, PassId id, Shading shading) {
    const MeasuredPreferences& verdicts =
        shading == Shading::visibility && (id == PassId::mip || id == PassId::ray_trace) ? request.measured_visibility
                                                                                          : request.measured;
    const std::optional<MeasuredPreference>& m = verdicts[size_t(id)];
    if (!m || !verdict_applies(*m, id, request.geometry, shading)) return std::nullopt;
    return m;
}

}  // namespace

std::string_view texture_mode_name(const TexturePlan& t) { return t.layers ? "array-texture" : "descriptor-indexing"; }

Plan make_plan(const SubgroupCaps& caps, const DeviceFeatures& features, const PlanRequest& request) {
    Plan plan;
    plan.textures.layers = !features.descriptor_indexing;
    plan.textures.reason = plan.textures.layers
                               ? "the layers of one array texture at one size (sRGB and UNORM views): " + features.textures_missing
                               : "one array of descriptors, each texture at its own size, indexed nonuniformEXT";
    plan.geometry = request.geometry;
    plan.lod = request.lod;
    // Before the geometry's own checks, so the refusal names the shading.
    if (request.shading == Shading::visibility)
        if (std::string missing = visibility_missing(features, request.geometry); !missing.empty())
            throw UnsupportedRequest("--shading visibility: " + missing + "; use --shading forward or auto");
    if (request.geometry == Geometry::meshlet)
        if (std::string missing = meshlet_missing(features); !missing.empty())
            throw UnsupportedRequest("--geometry meshlet: " + missing + "; use --geometry indexed");
    // The shading first: which code runs the mip and the light loop, so which verdicts apply.
    plan.shading = choose_shading(features, request);
    const bool visibility = plan.shading.shading == Shading::visibility;
    // Under visibility the shading pass writes the quad mip in compute: the mip is planned against
    // the compute stage's capabilities there (the resolve pass's fragment needs only where compute
    // cannot: then the fragment resolve writes it, as for forward).
    const std::string compute_quads_missing = visibility_derivatives_missing(caps, features);
    for (const PassInfo& pass : kPasses) {
        if (std::string why = pass.unavailable ? pass.unavailable(features) : ""; !why.empty()) {
            plan[pass.id] = plan_unavailable_pass(pass, request[pass.id], why);
            continue;
        }
        std::string missing = pass_missing(caps, features, pass.id, request.geometry);
        if (visibility && pass.id == PassId::mip && compute_quads_missing.empty()) missing.clear();
        std::optional<MeasuredPreference> measured = measured_for(request, pass.id, plan.shading.shading);
        // The visibility mip verdict timed the shading pass's quad mip: only where it can be written.
        if (visibility && pass.id == PassId::mip && !compute_quads_missing.empty()) measured.reset();
        PassPlan& p = plan[pass.id] = plan_pass(pass, request[pass.id], missing, forward_missing(caps, features, pass.id), measured);
        if (p.variant == Variant::subgroup && pass.subgroup_note) p.reason += pass.subgroup_note(features);
        if (pass.id == PassId::cull && request.geometry == Geometry::meshlet && p.variant != Variant::off)
            p.reason += "; meshlets culled in the task shader, triangles in the mesh shader";
    }
    // Occlusion culls with the cull pass, in both geometry paths (docs/occlusion.md). A pass on by
    // default may cost the overview frame at most 1%: where nothing culls by the pyramid, auto builds
    // none; where something does, phase 2's work follows phase 1's rejections, and where a frame
    // shows that occlusion removed little, auto rests it for a while (Renderer::decide_occlusion_rest).
    PassPlan& occlusion = plan[PassId::occlusion];
    if (occlusion.variant == Variant::subgroup || occlusion.variant == Variant::fallback) {
        if (plan[PassId::cull].variant == Variant::off && occlusion.requested == Request::automatic) {
            occlusion.variant = Variant::off;
            occlusion.reason = "--cull off culls nothing by a depth pyramid, so auto builds none";
        } else if (plan[PassId::cull].variant == Variant::off) {
            occlusion.reason += "; the pyramid is built, but --cull off culls nothing by it";
        } else if (occlusion.requested == Request::automatic) {
            occlusion.reason += "; on: phase 2 re-tests only what phase 1 rejected; after a frame where occlusion removed "
                                "under 1/8 of what passed the other tests it rests " +
                                std::to_string(kOcclusionRestFrames) + " frames (no pyramid, no phase 1 or 2), then measures again";
        }
    }
    // Exposure measures the mip: without one it stays at the fixed exposure.
    PassPlan& exposure = plan[PassId::exposure];
    if (plan[PassId::mip].variant == Variant::off && exposure.variant != Variant::off) {
        if (exposure.requested != Request::automatic)
            throw UnsupportedRequest("--exposure " + std::string(request_name(exposure.requested)) +
                                     ": exposure measures the mip, but --mip off renders none; use --mip auto, subgroup, forward or fallback");
        exposure.variant = Variant::off;
        exposure.reason = "no mip to measure (--mip off): exposure fixed at 1.0";
    } else if (exposure.variant == Variant::off) {
        exposure.reason += ": exposure fixed at 1.0";
    }
    finish_shading(plan.shading, caps, features, request, plan[PassId::light_loop].variant);
    plan_ray_lists(plan, caps, features, request);
    const Variant rays = plan[PassId::ray_trace].variant;
    plan.ray_refit = request.ray_refit && rays != Variant::off && rays != Variant::unsupported;
    // The mip's forward variant is written by the forward pass, which visibility does not run.
    PassPlan& mip = plan[PassId::mip];
    if (plan.shading.shading == Shading::visibility && mip.variant == Variant::forward)
        throw UnsupportedRequest("--mip forward: the quad mip written while forward shades, but --shading visibility runs no "
                                 "forward pass; use --mip auto, subgroup or fallback");
    plan.view = plan_view(caps, features, request.view, request.view_stage);
    plan.view.level = request.view_level;
    // Under visibility the compute stage's lane views are the shading pass's own (VisibilityPass).
    bool lane_view = plan.view.mode == ViewMode::lane_id || plan.view.mode == ViewMode::first_last_lane ||
                     plan.view.mode == ViewMode::active_lanes;
    if (plan.shading.shading == Shading::visibility && plan.view.stage == Stage::compute && lane_view &&
        plan.view.variant == Variant::subgroup) {
        plan.view.shading_pass = true;
        plan.view.reason += "; drawn by the visibility shading pass: 2x2-pixel quads, " +
                            std::string(plan.shading.derivatives == Variant::subgroup ? "lanes numbered by subgroup"
                                                                                     : "lanes numbered by local index") +
                            ", 16x8-pixel workgroups";
    }
    // The mip's subgroup variant under visibility: the shading pass's quad swaps, where compute has them.
    if (visibility && mip.variant == Variant::subgroup && compute_quads_missing.empty()) {
        plan.shading.quad_mip = true;
        std::string resolve_note = pass_info(PassId::mip).subgroup_note(features);
        if (size_t at = mip.reason.find(resolve_note); at != std::string::npos) mip.reason.erase(at, resolve_note.size());
        mip.reason += "; written by the visibility shading pass: two quad swaps and one store per quad, every quad four real pixels";
    }
    plan.raster = plan_raster(caps, features, request, plan);
    // The meshlet path's pre-pass in compute: the task shader's tests in a compute pass, the mesh
    // shader's in the rasterizer's lanes (docs/raster.md, "The meshlet path").
    constexpr std::string_view kTaskAndMesh = "; meshlets culled in the task shader, triangles in the mesh shader";
    if (std::string& cull = plan[PassId::cull].reason; plan.raster.raster == Raster::compute && plan.geometry == Geometry::meshlet)
        if (size_t at = cull.find(kTaskAndMesh); at != std::string::npos)
            cull.replace(at, kTaskAndMesh.size(), "; meshlets culled in compute with the task shader's tests, triangles in the compute "
                                                  "rasterizer with the mesh shader's");
    // --view raster colours the compute rasterizer's words by who wrote them: nothing to show without them.
    if (plan.view.mode == ViewMode::raster && plan.raster.raster != Raster::compute) {
        plan.view.variant = Variant::unsupported;
        plan.view.reason = "the pre-pass is the hardware's (" + plan.raster.reason + ")";
    } else if (plan.view.mode == ViewMode::raster) {
        plan.view.reason = "the compute rasterizer's words, by who wrote them";
    }
    // --view materials colours each pixel by the materials its subgroup walked: the waterfall's.
    if (plan.view.mode == ViewMode::materials) {
        bool walks = plan.shading.shading == Shading::visibility && plan.shading.materials == Variant::subgroup;
        plan.view.variant = walks ? Variant::subgroup : Variant::unsupported;
        plan.view.shading_pass = walks;
        plan.view.reason = !walks && plan.shading.shading != Shading::visibility
                               ? "the material waterfall runs in the visibility shading pass, and this frame is shaded forward"
                           : !walks ? "no material waterfall: " + plan.shading.materials_reason
                                    : "the visibility shading pass's waterfall: each covered pixel in the colour of the number of "
                                      "materials its subgroup walked";
    }
    return plan;
}
