#include "caps/caps.h"

namespace {

constexpr std::array<std::string_view, size_t(Stage::count)> kStageNames = {
    "vertex", "tess-control", "tess-eval", "geometry", "fragment", "compute"};
constexpr std::array<std::string_view, size_t(Op::count)> kOpNames = {
    "basic", "vote", "arithmetic", "ballot", "shuffle", "shuffle-relative", "clustered", "quad"};
constexpr std::array<std::string_view, 4> kRequestNames = {"auto", "subgroup", "fallback", "off"};
constexpr std::array<std::string_view, 4> kVariantNames = {"subgroup", "fallback", "off", "unsupported"};
constexpr std::array<std::string_view, 6> kViewNames = {
    "shaded", "lane-id", "first-last-lane", "active-lanes", "mip", "light-count"};

template <typename E, size_t N>
std::optional<E> parse_name(const std::array<std::string_view, N>& names, std::string_view name) {
    for (size_t i = 0; i < N; ++i)
        if (names[i] == name) return E(i);
    return std::nullopt;
}

}  // namespace

std::string_view stage_name(Stage s) { return kStageNames[size_t(s)]; }
std::string_view op_name(Op o) { return kOpNames[size_t(o)]; }
std::string_view request_name(Request r) { return kRequestNames[size_t(r)]; }
std::string_view variant_name(Variant v) { return kVariantNames[size_t(v)]; }
std::string_view view_mode_name(ViewMode m) { return kViewNames[size_t(m)]; }
std::optional<Stage> parse_stage(std::string_view n) { return parse_name<Stage>(kStageNames, n); }
std::optional<Op> parse_op(std::string_view n) { return parse_name<Op>(kOpNames, n); }
std::optional<Request> parse_request(std::string_view n) { return parse_name<Request>(kRequestNames, n); }
std::optional<ViewMode> parse_view_mode(std::string_view n) { return parse_name<ViewMode>(kViewNames, n); }

bool is_subgroup_view(ViewMode m) {
    return m == ViewMode::lane_id || m == ViewMode::first_last_lane || m == ViewMode::active_lanes;
}

void apply_masks(SubgroupCaps& caps, uint32_t masked_stages, uint32_t masked_ops) {
    caps.masked_stages = masked_stages;
    caps.masked_ops = masked_ops;
    caps.stages &= ~masked_stages;
    caps.ops &= ~masked_ops;
    if (masked_ops & bit(Op::quad)) caps.quad_in_all_stages = false;
}

std::vector<std::string> stage_names(uint32_t bits) {
    std::vector<std::string> names;
    for (uint32_t i = 0; i < uint32_t(Stage::count); ++i)
        if (bits & (1u << i)) names.emplace_back(kStageNames[i]);
    return names;
}

std::vector<std::string> op_names(uint32_t bits) {
    std::vector<std::string> names;
    for (uint32_t i = 0; i < uint32_t(Op::count); ++i)
        if (bits & (1u << i)) names.emplace_back(kOpNames[i]);
    return names;
}

// cull.comp: subgroupExclusiveAdd (arithmetic), subgroupElect (basic), subgroupBroadcastFirst (ballot).
PassNeeds cull_needs() { return {Stage::compute, bit(Op::basic) | bit(Op::arithmetic) | bit(Op::ballot)}; }

// light_cull.comp: subgroupAny (vote), subgroupBallot/BitCount/ExclusiveBitCount/BroadcastFirst (ballot),
// subgroupElect (basic).
PassNeeds light_cull_needs() { return {Stage::compute, bit(Op::basic) | bit(Op::vote) | bit(Op::ballot)}; }

// forward.frag: subgroupQuadSwapHorizontal/Vertical (quad) in the fragment stage.
PassNeeds mip_needs() { return {Stage::fragment, bit(Op::basic) | bit(Op::quad)}; }

// lane-id reads gl_SubgroupInvocationID (basic); the other two ballot the active lanes.
uint32_t view_needs(ViewMode mode) {
    if (mode == ViewMode::lane_id) return bit(Op::basic);
    return bit(Op::basic) | bit(Op::ballot);
}

std::string missing_support(const SubgroupCaps& caps, PassNeeds needs) {
    std::string stage(stage_name(needs.stage));
    if (!caps.has(needs.stage)) {
        bool masked = caps.masked_stages & bit(needs.stage);
        return stage + " stage has no subgroup support" + (masked ? " (masked by --mask-stages)" : "");
    }
    for (uint32_t i = 0; i < uint32_t(Op::count); ++i) {
        Op op = Op(i);
        if ((needs.ops & bit(op)) && !caps.has(op)) {
            bool masked = caps.masked_ops & bit(op);
            return std::string(op_name(op)) + " subgroup operations are not supported" +
                   (masked ? " (masked by --mask-ops)" : "");
        }
    }
    return {};
}

PassPlan plan_pass(std::string_view pass, Request requested, const std::string& missing) {
    PassPlan plan{requested, Variant::off, ""};
    switch (requested) {
        case Request::off:
            plan.reason = "requested off";
            break;
        case Request::fallback:
            plan.variant = Variant::fallback;
            plan.reason = "requested fallback";
            break;
        case Request::subgroup:
            if (!missing.empty())
                throw UnsupportedRequest("--" + std::string(pass) + " subgroup: " + missing +
                                         " on this device; use auto or fallback");
            plan.variant = Variant::subgroup;
            plan.reason = "requested subgroup; supported";
            break;
        case Request::automatic:
            plan.variant = missing.empty() ? Variant::subgroup : Variant::fallback;
            plan.reason = missing.empty() ? "device supports everything the subgroup path needs" : missing;
            break;
    }
    return plan;
}

ViewPlan plan_view(const SubgroupCaps& caps, const DeviceFeatures& features, ViewMode mode, Stage stage) {
    ViewPlan plan{mode, stage, Variant::off, ""};
    if (!is_subgroup_view(mode)) {
        plan.reason = "not a subgroup view";
        return plan;
    }
    bool tess = stage == Stage::tess_control || stage == Stage::tess_eval;
    if (tess && !features.tessellation) {
        plan.variant = Variant::unsupported;
        plan.reason = "device lacks the tessellationShader feature";
        return plan;
    }
    if (stage == Stage::geometry && !features.geometry) {
        plan.variant = Variant::unsupported;
        plan.reason = "device lacks the geometryShader feature";
        return plan;
    }
    std::string missing = missing_support(caps, {stage, view_needs(mode)});
    plan.variant = missing.empty() ? Variant::subgroup : Variant::unsupported;
    plan.reason = missing.empty() ? std::string(stage_name(stage)) + " stage supports the view's operations" : missing;
    return plan;
}

Plan make_plan(const SubgroupCaps& caps, const DeviceFeatures& features, const PlanRequest& request) {
    Plan plan;
    plan.cull = plan_pass("cull", request.cull, missing_support(caps, cull_needs()));
    plan.light_cull = plan_pass("light-cull", request.light_cull, missing_support(caps, light_cull_needs()));
    std::string mip_missing = missing_support(caps, mip_needs());
    if (mip_missing.empty() && !features.fragment_stores)
        mip_missing = "device lacks fragmentStoresAndAtomics (the fragment shader cannot store the mip)";
    plan.mip = plan_pass("mip", request.mip, mip_missing);
    if (plan.mip.variant == Variant::subgroup)
        plan.mip.reason += features.quad_control_enabled
                               ? "; full quads and maximal reconvergence (VK_KHR_shader_quad_control)"
                               : "; core quad-operation rules (no VK_KHR_shader_quad_control)";
    plan.view = plan_view(caps, features, request.view, request.view_stage);
    return plan;
}
