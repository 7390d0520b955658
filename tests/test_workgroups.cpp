// The start-up's check of --subgroup-size against maxComputeWorkgroupSubgroups
// (check_device_limits) takes kLargestFixedWorkgroup as the largest workgroup of any compute
// shader but the cull's. Its oracle is the build's SPIR-V: every compute module's LocalSize,
// decoded here by the specification's numbers. A shader with a larger workgroup would pass the
// check and then fail to make its pipeline at that subgroup size.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "vk/resources.h"

namespace workgroups_tests {

struct ComputeModule {
    bool compute = false;          // an OpEntryPoint GLCompute
    uint32_t invocations = 0;      // LocalSize x * y * z
    bool sized_by_constant = false;  // a WorkgroupSize built-in: the size comes from specialization constants
};

ComputeModule decode(const std::filesystem::path& path) {
    constexpr uint32_t kOpEntryPoint = 15, kOpExecutionMode = 16, kOpConstant = 43, kOpSpecConstant = 50, kOpDecorate = 71,
                       kOpExecutionModeId = 331;
    constexpr uint32_t kGLCompute = 5, kLocalSize = 17, kLocalSizeId = 38, kBuiltIn = 11, kWorkgroupSize = 25;
    std::ifstream file(path, std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    std::vector<uint32_t> words(bytes.size() / 4);
    memcpy(words.data(), bytes.data(), words.size() * 4);
    ComputeModule m;
    std::map<uint32_t, uint32_t> constants;  // 32-bit OpConstant id -> value
    std::set<uint32_t> spec_constants;
    std::array<uint32_t, 3> size_ids{};
    bool by_id = false;
    for (size_t i = 5; i < words.size();) {
        uint32_t op = words[i] & 0xffff, count = words[i] >> 16;
        if (count == 0 || i + count > words.size()) break;
        const uint32_t* w = &words[i];
        if (op == kOpEntryPoint && count >= 2 && w[1] == kGLCompute) m.compute = true;
        // SPIR-V 1.6 from glslang: LocalSizeId naming three constants; older: LocalSize literals.
        if (op == kOpExecutionMode && count >= 6 && w[2] == kLocalSize) m.invocations = w[3] * w[4] * w[5];
        if (op == kOpExecutionModeId && count >= 6 && w[2] == kLocalSizeId) size_ids = {w[3], w[4], w[5]}, by_id = true;
        if (op == kOpConstant && count == 4) constants[w[2]] = w[3];
        if (op == kOpSpecConstant) spec_constants.insert(w[2]);
        if (op == kOpDecorate && count >= 4 && w[2] == kBuiltIn && w[3] == kWorkgroupSize) m.sized_by_constant = true;
        i += count;
    }
    if (by_id) {
        m.invocations = 1;
        for (uint32_t id : size_ids) {
            if (spec_constants.count(id)) m.sized_by_constant = true;
            m.invocations *= constants.count(id) ? constants[id] : 0;
        }
    }
    return m;
}

TEST(Workgroups, NoComputeShaderDeclaresMoreThanTheLargestFixedWorkgroup) {
    uint32_t modules = 0, largest = 0;
    std::string largest_name;
    for (const auto& entry : std::filesystem::directory_iterator(SGD_SHADER_DIR)) {
        const std::string name = entry.path().filename().string();
        if (!name.ends_with(".spv")) continue;
        ComputeModule m = decode(entry.path());
        if (!m.compute) continue;
        ++modules;
        if (m.sized_by_constant) {
            // The cull's test and merge run at --cull-group-size, which the check takes itself.
            EXPECT_TRUE(name.starts_with("cull.comp.") || name.starts_with("cull_merge.comp.")) << name << ": sized by a constant";
            continue;
        }
        EXPECT_LE(m.invocations, kLargestFixedWorkgroup) << name;
        if (m.invocations > largest) largest = m.invocations, largest_name = name;
    }
    EXPECT_GT(modules, 20u) << "the build's compute shaders were not found in " << SGD_SHADER_DIR;
    EXPECT_EQ(largest, kLargestFixedWorkgroup) << "the largest fixed workgroup is " << largest_name
                                               << "'s: the check would refuse sizes that every shader fits";
}

}  // namespace workgroups_tests
