#include "caps/caps.h"

namespace {

constexpr std::array<std::string_view, size_t(Stage::count)> kStageNames = {
    "vertex", "tess-control", "tess-eval", "geometry", "fragment", "compute", "task", "mesh",
    "raygen", "any-hit", "closest-hit", "miss", "intersection", "callable"};
constexpr std::array<std::string_view, size_t(Op::count)> kOpNames = {
    "basic", "vote", "arithmetic", "ballot", "shuffle", "shuffle-relative", "clustered", "quad"};

}  // namespace

std::string_view stage_name(Stage s) { return kStageNames[size_t(s)]; }
std::string_view op_name(Op o) { return kOpNames[size_t(o)]; }
std::optional<Stage> parse_stage(std::string_view n) { return parse_name<Stage>(kStageNames, n); }
std::optional<Op> parse_op(std::string_view n) { return parse_name<Op>(kOpNames, n); }

std::string subgroup_size_refusal(const SubgroupCaps& caps, uint32_t size, uint32_t stages) {
    std::string offered = caps.min_size == caps.max_size
                              ? "subgroup size " + std::to_string(caps.min_size) + " only"
                              : "subgroup sizes " + std::to_string(caps.min_size) + "-" + std::to_string(caps.max_size);
    if (size < caps.min_size || size > caps.max_size) return "this device offers " + offered;
    if (caps.min_size == caps.max_size) return "";
    for (uint32_t s = 0; s < uint32_t(Stage::count); ++s)
        if ((stages & bit(Stage(s))) && !(caps.required_size_stages & bit(Stage(s))))
            return "this device offers " + offered + ", but cannot require a size of the " + std::string(stage_name(Stage(s))) +
                   " stage (it is not in requiredSubgroupSizeStages)";
    return "";
}

uint32_t required_subgroup_size(const SubgroupCaps& caps, uint32_t size, Stage stage) {
    return caps.min_size < caps.max_size && caps.size_control && (caps.required_size_stages & bit(stage)) ? size : 0;
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

std::string missing_support(const SubgroupCaps& caps, PassNeeds needs) {
    // Every needed stage without subgroups, named in the table's order ("raygen, miss stages ...").
    uint32_t stages = needs.stages ? needs.stages : bit(needs.stage);
    uint32_t lacking = stages & ~caps.stages;
    if (lacking) {
        std::string names;
        for (const std::string& name : stage_names(lacking)) names += (names.empty() ? "" : ", ") + name;
        bool several = lacking & (lacking - 1);
        bool masked = (lacking & caps.masked_stages) != 0;
        return names + (several ? " stages have" : " stage has") + " no subgroup support" +
               (masked ? " (masked by --mask-stages)" : "");
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
