// The switched shaders (shaders/subgroup_switch.glsl), read from the build's SPIR-V: each
// NAME.switch holds both paths behind the specialization constant USE_SUBGROUP (SpecId
// kUseSubgroupConstant, a boolean defaulting to false) and declares the subgroup capabilities its
// subgroup path needs; its twin NAME.no_subgroup, the fallback for devices or stages without them,
// declares no subgroup capability, no subgroup instruction and no subgroup built-in, so a device
// lacking every subgroup operation may load it; and the switch declares no operation beyond the
// pass table's `ops` for its pass, which decide where the switch is loaded rather than the twin.
// The oracle is the SPIR-V binary itself, decoded
// here by its specification's numbers, independently of the tools that made it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

#include "passes/pass_table.h"
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
        if (op == kOpSpecConstantFalse) spec_false.insert(w[2]);
        i += count;
    }
    for (uint32_t id : use_subgroup_ids) m.use_subgroup_constant = m.use_subgroup_constant || spec_false.count(id);
    return m;
}

// GroupNonUniform (61) .. GroupNonUniformQuad (68), SubgroupBallotKHR, SubgroupVoteKHR,
// GroupNonUniformPartitionedNV, GroupNonUniformRotateKHR.
bool is_subgroup_capability(uint32_t c) { return (c >= 61 && c <= 68) || c == 4423 || c == 4431 || c == 5297 || c == 6026; }

std::vector<std::string> built_switched_shaders() {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(SGD_SHADER_DIR)) {
        std::string file = entry.path().filename().string();
        const std::string suffix = ".switch.spv";
        if (file.size() > suffix.size() && file.ends_with(suffix)) names.push_back(file.substr(0, file.size() - suffix.size()));
    }
    std::sort(names.begin(), names.end());
    return names;
}

}  // namespace

// A switched shader's capabilities are operations the pass table says its pass needs: a pass loads
// the switch only where the device has those (subgroup_path_possible), so one capability more
// would reach a device that lacks it.
TEST(SubgroupSwitch, TheSwitchDeclaresOnlyTheOperationsItsPassAsksFor) {
    const std::pair<const char*, PassId> switched[] = {
        {"light_cull.comp", PassId::light_cull}, {"exposure_reduce.comp", PassId::exposure}, {"pyramid.comp", PassId::occlusion}};
    for (auto [name, id] : switched) {
        SCOPED_TRACE(name);
        SpirvModule both = decode_module(read_spirv_words(std::filesystem::path(SGD_SHADER_DIR) / (std::string(name) + ".switch.spv")));
        uint32_t declared = 0;  // bit(Op): GroupNonUniform (61) .. GroupNonUniformQuad (68) in Op's order
        for (uint32_t c : both.capabilities) {
            EXPECT_TRUE(!is_subgroup_capability(c) || (c >= 61 && c <= 68)) << "capability " << c << " has no Op";
            if (c >= 61 && c <= 68) declared |= bit(Op(c - 61));
        }
        EXPECT_NE(declared, 0u);
        EXPECT_EQ(declared & ~pass_info(id).ops, 0u) << "operations the pass table does not list for " << pass_info(id).label;
        EXPECT_EQ(pass_info(id).stage, Stage::compute);
    }
}

TEST(SubgroupSwitch, EverySwitchedShaderHasItsConstantAndATwinWithoutSubgroupOperations) {
    std::vector<std::string> names = built_switched_shaders();
    // The passes whose subgroup path and fallback are one shader (shaders/variants.cmake).
    for (const char* expected : {"exposure_reduce.comp", "light_cull.comp", "pyramid.comp"})
        EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected << ".switch.spv not built";
    for (const std::string& name : names) {
        SCOPED_TRACE(name);
        std::filesystem::path dir = SGD_SHADER_DIR;
        SpirvModule both = decode_module(read_spirv_words(dir / (name + ".switch.spv")));
        EXPECT_TRUE(both.use_subgroup_constant) << "no boolean USE_SUBGROUP with SpecId " << kUseSubgroupConstant;
        EXPECT_TRUE(std::any_of(both.capabilities.begin(), both.capabilities.end(), is_subgroup_capability))
            << "the subgroup path uses no subgroup operation";
        EXPECT_GT(both.subgroup_instructions + both.subgroup_builtins, 0u);

        ASSERT_TRUE(std::filesystem::exists(dir / (name + ".no_subgroup.spv")));
        SpirvModule twin = decode_module(read_spirv_words(dir / (name + ".no_subgroup.spv")));
        EXPECT_FALSE(twin.capabilities.empty()) << "not a SPIR-V module";
        for (uint32_t c : twin.capabilities) EXPECT_FALSE(is_subgroup_capability(c)) << "the twin declares capability " << c;
        EXPECT_EQ(twin.subgroup_instructions, 0u);
        EXPECT_EQ(twin.subgroup_builtins, 0u);
        EXPECT_FALSE(twin.use_subgroup_constant) << "the twin's USE_SUBGROUP is frozen to false";
    }
}
