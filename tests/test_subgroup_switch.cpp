// The switched shaders (shaders/subgroup_switch.glsl), read from the build's SPIR-V: each
// NAME.switch holds both paths behind the specialization constant USE_SUBGROUP (SpecId
// kUseSubgroupConstant, a boolean defaulting to false) and declares the subgroup capabilities its
// subgroup path needs; its twin NAME.no_subgroup, the fallback for devices or stages without them,
// declares no subgroup capability, no subgroup instruction and no subgroup built-in, so a device
// lacking every subgroup operation may load it, and keeps the switch's other specialization
// constants; and the switch declares no operation beyond the
// pass table's `ops` for its pass, which decide where the switch is loaded rather than the twin.
// The oracle is the SPIR-V binary itself, decoded
// here by its specification's numbers, independently of the tools that made it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

#include "passes/pass_table.h"
#include "plan/plan.h"
#include "vk/resources.h"

namespace {

std::vector<uint32_t> read_spirv_words(const std::filesystem::path& path) {
    std::ifstream file(path, std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    std::vector<uint32_t> words(bytes.size() / 4);
    memcpy(words.data(), bytes.data(), words.size() * 4);
    return words;
}

struct SpirvModule {
    std::set<uint32_t> capabilities;
    uint32_t subgroup_instructions = 0;  // OpGroupNonUniform* (333..366) and the KHR subgroup ops
    uint32_t subgroup_builtins = 0;      // variables decorated BuiltIn Subgroup*/NumSubgroups
    bool use_subgroup_constant = false;  // a boolean OpSpecConstantFalse decorated SpecId kUseSubgroupConstant
    std::set<uint32_t> other_spec_ids;   // the SpecIds of the module's other specialization constants
};

SpirvModule decode_module(const std::vector<uint32_t>& spirv) {
    constexpr uint32_t kOpCapability = 17, kOpSpecConstantFalse = 49, kOpDecorate = 71, kSpecId = 1, kBuiltIn = 11;
    constexpr uint32_t kOpGroupNonUniformFirst = 333, kOpGroupNonUniformLast = 366;
    constexpr uint32_t kOpSubgroupBallotKHR = 4421, kOpSubgroupAllEqualKHR = 4430;  // SPV_KHR_shader_ballot / _vote
    const std::set<uint32_t> kSubgroupBuiltIns = {36, 38, 40, 41, 4416, 4417, 4418, 4419, 4420};
    SpirvModule m;
    std::set<uint32_t> spec_false, use_subgroup_ids;
    for (size_t i = 5; i < spirv.size();) {
        uint32_t op = spirv[i] & 0xffff, count = spirv[i] >> 16;
        if (count == 0 || i + count > spirv.size()) break;
        const uint32_t* w = &spirv[i];
        if (op == kOpCapability) m.capabilities.insert(w[1]);
        if ((op >= kOpGroupNonUniformFirst && op <= kOpGroupNonUniformLast) ||
            (op >= kOpSubgroupBallotKHR && op <= kOpSubgroupAllEqualKHR))
            ++m.subgroup_instructions;
        if (op == kOpDecorate && count >= 4 && w[2] == kBuiltIn && kSubgroupBuiltIns.count(w[3])) ++m.subgroup_builtins;
        if (op == kOpDecorate && count >= 4 && w[2] == kSpecId && w[3] == kUseSubgroupConstant) use_subgroup_ids.insert(w[1]);
        if (op == kOpDecorate && count >= 4 && w[2] == kSpecId && w[3] != kUseSubgroupConstant) m.other_spec_ids.insert(w[3]);
        if (op == kOpSpecConstantFalse) spec_false.insert(w[2]);
        i += count;
    }
    for (uint32_t id : use_subgroup_ids) m.use_subgroup_constant = m.use_subgroup_constant || spec_false.count(id);
    return m;
}

// GroupNonUniform (61) .. GroupNonUniformQuad (68), SubgroupBallotKHR, SubgroupVoteKHR,
// GroupNonUniformPartitionedNV, GroupNonUniformRotateKHR.
bool is_subgroup_capability(uint32_t c) { return (c >= 61 && c <= 68) || c == 4423 || c == 4431 || c == 5297 || c == 6026; }

// The built modules named PREFIX + `ending` + ".spv", each as PREFIX: for "switch", "cull.comp." for
// cull.comp.switch.spv, "ray_lists.comp.camera_" for ray_lists.comp.camera_switch.spv; a switch's
// twin is PREFIX + "no_subgroup".
std::vector<std::string> built_shaders_ending(const std::string& ending) {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(SGD_SHADER_DIR)) {
        std::string file = entry.path().filename().string();
        for (const std::string suffix : {"." + ending + ".spv", "_" + ending + ".spv"})
            if (file.size() > suffix.size() && file.ends_with(suffix)) names.push_back(file.substr(0, file.size() - suffix.size() + 1));
    }
    std::sort(names.begin(), names.end());
    return names;
}
std::vector<std::string> built_switched_shaders() { return built_shaders_ending("switch"); }

// A twin: no subgroup capability, instruction or built-in, and USE_SUBGROUP frozen.
void expect_twin(const SpirvModule& twin) {
    EXPECT_FALSE(twin.capabilities.empty()) << "not a SPIR-V module";
    for (uint32_t c : twin.capabilities) EXPECT_FALSE(is_subgroup_capability(c)) << "the twin declares capability " << c;
    EXPECT_EQ(twin.subgroup_instructions, 0u);
    EXPECT_EQ(twin.subgroup_builtins, 0u);
    EXPECT_FALSE(twin.use_subgroup_constant) << "the twin's USE_SUBGROUP is frozen to false";
}

}  // namespace

// A switched shader's capabilities are operations the pass table says its pass needs: a pass loads
// the switch only where the device has those (subgroup_path_possible), so one capability more
// would reach a device that lacks it.
TEST(SubgroupSwitch, TheSwitchDeclaresOnlyTheOperationsItsPassAsksFor) {
    // The meshlet path's late list (meshlet_late_list.comp) is the cull's: it is loaded where the
    // meshlet cull's subgroup path can be planned, and needs the cull's operations. The dense ray
    // launch's lists are loaded where ray_lists_needs() holds (the plan's Plan::ray_lists).
    const std::pair<const char*, PassNeeds> switched[] = {
        {"light_cull.comp.switch", pass_needs(PassId::light_cull)},
        {"exposure_reduce.comp.switch", pass_needs(PassId::exposure)},
        {"pyramid.comp.switch", pass_needs(PassId::occlusion)},
        {"cull.comp.switch", pass_needs(PassId::cull)},
        {"cull_scan.comp.switch", pass_needs(PassId::cull)},
        {"meshlet_late_list.comp.switch", pass_needs(PassId::cull)},
        {"ray_lists.comp.camera_switch", ray_lists_needs()},
        {"ray_lists.comp.visibility_switch", ray_lists_needs()},
        {"ray_lists.comp.visibility_meshlet_switch", ray_lists_needs()},
        {"raster.comp.switch", raster_subgroup_needs()},
        {"raster.comp.meshlet_switch", raster_subgroup_needs()},
        {"meshlet_cull.task.switch", meshlet_cull_needs()[0]},
        {"meshlet_cull.mesh.switch", meshlet_cull_needs()[1]},
        {"meshlet_cull.mesh.alpha_switch", meshlet_cull_needs()[1]},
        {"meshlet_cull.mesh.ids_switch", meshlet_cull_needs()[1]},
        {"meshlet_cull.mesh.alpha_ids_switch", meshlet_cull_needs()[1]},
        // --raster compute's meshlet culling: the task shader's, run in compute, loaded where the
        // meshlet cull's needs hold (MeshletRaster::create).
        {"meshlet_raster_cull.comp.switch", {Stage::compute, meshlet_cull_needs()[0].ops}}};
    for (auto [name, needs] : switched) {
        SCOPED_TRACE(name);
        SpirvModule both = decode_module(read_spirv_words(std::filesystem::path(SGD_SHADER_DIR) / (std::string(name) + ".spv")));
        uint32_t declared = 0;  // bit(Op): GroupNonUniform (61) .. GroupNonUniformQuad (68) in Op's order
        for (uint32_t c : both.capabilities) {
            EXPECT_TRUE(!is_subgroup_capability(c) || (c >= 61 && c <= 68)) << "capability " << c << " has no Op";
            if (c >= 61 && c <= 68) declared |= bit(Op(c - 61));
        }
        EXPECT_NE(declared, 0u);
        EXPECT_EQ(declared & ~needs.ops, 0u) << "operations the pass's needs do not list";
        const std::string file = name;
        EXPECT_EQ(needs.stage, file.find(".task.") != std::string::npos   ? Stage::task
                               : file.find(".mesh.") != std::string::npos ? Stage::mesh
                                                                          : Stage::compute);
    }
}

TEST(SubgroupSwitch, EverySwitchedShaderHasItsConstantAndATwinWithoutSubgroupOperations) {
    std::vector<std::string> names = built_switched_shaders();
    // The passes whose subgroup path and fallback are one shader (shaders/variants.cmake).
    for (const char* expected : {"exposure_reduce.comp.", "light_cull.comp.", "pyramid.comp.", "cull.comp.", "cull_scan.comp.",
                                 "meshlet_late_list.comp.", "ray_lists.comp.camera_", "ray_lists.comp.visibility_",
                                 "ray_lists.comp.visibility_meshlet_", "raster.comp.", "raster.comp.meshlet_",
                                 "meshlet_raster_cull.comp.", "meshlet_cull.task.", "meshlet_cull.mesh.", "meshlet_cull.mesh.alpha_",
                                 "meshlet_cull.mesh.ids_", "meshlet_cull.mesh.alpha_ids_"})
        EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected << "switch.spv not built";
    for (const std::string& name : names) {
        SCOPED_TRACE(name);
        std::filesystem::path dir = SGD_SHADER_DIR;
        SpirvModule both = decode_module(read_spirv_words(dir / (name + "switch.spv")));
        EXPECT_TRUE(both.use_subgroup_constant) << "no boolean USE_SUBGROUP with SpecId " << kUseSubgroupConstant;
        EXPECT_TRUE(std::any_of(both.capabilities.begin(), both.capabilities.end(), is_subgroup_capability))
            << "the subgroup path uses no subgroup operation";
        EXPECT_GT(both.subgroup_instructions + both.subgroup_builtins, 0u);

        ASSERT_TRUE(std::filesystem::exists(dir / (name + "no_subgroup.spv")));
        SpirvModule twin = decode_module(read_spirv_words(dir / (name + "no_subgroup.spv")));
        expect_twin(twin);
        // Only USE_SUBGROUP is frozen: a constant the pipeline sets (cull.comp's workgroup size)
        // stays one, or the twin would run at its default.
        EXPECT_EQ(twin.other_spec_ids, both.other_spec_ids) << "the twin froze another specialization constant";
    }
}

// The variants whose pipelines only run the fallback are built as a twin alone (sgd_switch_shader
// TWIN_ONLY): the compute rasterizer's view. They load on a device without any subgroup operation.
TEST(SubgroupSwitch, TwinsWithoutASwitchHaveNoSubgroupOperations) {
    std::vector<std::string> twins = built_shaders_ending("no_subgroup"), switches = built_switched_shaders();
    std::vector<std::string> alone;
    std::set_difference(twins.begin(), twins.end(), switches.begin(), switches.end(), std::back_inserter(alone));
    EXPECT_EQ(alone, (std::vector<std::string>{"raster.comp.meshlet_view_", "raster.comp.view_"}));
    for (const std::string& name : alone) {
        SCOPED_TRACE(name);
        expect_twin(decode_module(read_spirv_words(std::filesystem::path(SGD_SHADER_DIR) / (name + "no_subgroup.spv"))));
    }
}
