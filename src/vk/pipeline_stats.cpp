#include "vk/pipeline_stats.h"
#include "vk/errors.h"

#include <cstdlib>
#include <fstream>
#include <mutex>
#include <vector>

#include <nlohmann/json.hpp>

std::string pipeline_stats_request() {
    const char* path = getenv("SGD_PIPELINE_STATS");
    return path ? path : "";
}

VkPipelineCreateFlags pipeline_stats_flags(const std::string& path) {
    return path.empty() ? 0 : VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
}

namespace {

nlohmann::json statistic_value(const VkPipelineExecutableStatisticKHR& s) {
    switch (s.format) {
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR: return bool(s.value.b32);
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR: return s.value.i64;
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR: return s.value.u64;
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR: return s.value.f64;
        default: return nullptr;
    }
}

// Vulkan's two calls: how many there are, then that many, each made with its sType.
template <typename T, typename Query, typename Info>
std::vector<T> query_all(Query query, VkDevice device, const Info& info, VkStructureType type) {
    uint32_t count = 0;
    VK_CHECK(query(device, &info, &count, nullptr));
    std::vector<T> all(count, T{type});
    VK_CHECK(query(device, &info, &count, all.data()));
    return all;
}

}  // namespace

void write_pipeline_stats(VkDevice device, const std::string& path, VkPipeline pipeline, const std::string& name) {
    if (path.empty()) return;
    auto properties = (PFN_vkGetPipelineExecutablePropertiesKHR)vkGetDeviceProcAddr(device, "vkGetPipelineExecutablePropertiesKHR");
    auto statistics = (PFN_vkGetPipelineExecutableStatisticsKHR)vkGetDeviceProcAddr(device, "vkGetPipelineExecutableStatisticsKHR");
    VkPipelineInfoKHR info{VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR};
    info.pipeline = pipeline;
    auto executables = query_all<VkPipelineExecutablePropertiesKHR>(properties, device, info,
                                                                    VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR);
    nlohmann::json out = nlohmann::json::array();
    for (uint32_t i = 0; i < executables.size(); ++i) {
        VkPipelineExecutableInfoKHR executable{VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR};
        executable.pipeline = pipeline;
        executable.executableIndex = i;
        auto stats = query_all<VkPipelineExecutableStatisticKHR>(statistics, device, executable,
                                                                 VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR);
        nlohmann::json values = nlohmann::json::object();
        for (const auto& s : stats) values[s.name] = statistic_value(s);
        out.push_back({{"name", executables[i].name},
                       {"description", executables[i].description},
                       {"stages", executables[i].stages},
                       {"subgroup_size", executables[i].subgroupSize},
                       {"statistics", values}});
    }
    static std::mutex appending;  // pipelines compiled ahead (Context::compile_ahead) finish on their own threads
    std::lock_guard lock(appending);
    std::ofstream(path, std::ios::app)
        << nlohmann::json{{"pipeline", name}, {"executables", out}}.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}
