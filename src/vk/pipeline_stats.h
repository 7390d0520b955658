// Diagnosis only: what the driver says about each pipeline it compiled (registers per invocation,
// shared memory, instruction counts: whatever the device reports), through
// VK_KHR_pipeline_executable_properties. Two variants of a pass can run the same memory traffic
// and differ in occupancy alone; this is where that shows (docs/culling.md, tools/gpu_pipeline_stats.sh).
//
//   SGD_PIPELINE_STATS=FILE  every pipeline compiled in the run appends one JSON line to FILE:
//                            {"pipeline": name, "executables": [{"name", "description", "stages",
//                            "subgroup_size", "statistics": {name: value}}]}
//
// Where the device does not offer the extension (lavapipe does not) the run says so once on stderr
// and writes nothing; nothing else changes. Ray-tracing pipelines are not reported.
#pragma once

#include <string>

#include <vulkan/vulkan.h>

// FILE of SGD_PIPELINE_STATS, or empty.
std::string pipeline_stats_request();

// Flags a pipeline is created with: VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR where statistics
// are being written (`path`: Context::pipeline_stats_path, empty where not), else 0.
VkPipelineCreateFlags pipeline_stats_flags(const std::string& path);

// Appends the pipeline's executables and their statistics to `path`, if set.
// `name`: what the pipeline runs, e.g. "cull.comp.switch [64] (subgroup)".
void write_pipeline_stats(VkDevice device, const std::string& path, VkPipeline pipeline, const std::string& name);
