// What the subgroups of one stage reported about themselves, each counted once by its elected lane
// (subgroupElect): how many ran, their active lanes, the sum of their gl_SubgroupSize and which
// sizes ran. A stage may run at any size between the device's minimum and maximum subgroup size
// (ray-tracing stages in SPIR-V 1.6, any stage with varying sizes allowed), and the size may differ
// between the subgroups of one dispatch, so a per-stage figure comes from these counts, never from
// the device-wide subgroupSize: on a GPU that reports 64 and runs a stage at 32, lanes / (subgroups
// * 64) would show half the true occupancy.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

struct SubgroupTally {
    uint64_t subgroups = 0;
    uint64_t lanes = 0;       // active lanes, summed over the subgroups
    uint64_t lane_slots = 0;  // gl_SubgroupSize, summed over the subgroups
    // gl_SubgroupSize OR-ed over the subgroups. Sizes are powers of two (Vulkan requires it), so
    // bit k is set exactly where some subgroup ran at 2^k lanes.
    uint32_t sizes = 0;
};

// Active lanes over the lanes the stage's subgroups had; none where no subgroup ran.
std::optional<double> occupancy(const SubgroupTally& tally);

// The sizes of a `sizes` mask, ascending ({32, 64}); empty for 0.
std::vector<uint32_t> subgroup_sizes(uint32_t sizes);
// Every size the device may run at: the powers of two from min_size to max_size.
uint32_t sizes_in_range(uint32_t min_size, uint32_t max_size);
// "subgroup size 32", or the range "subgroup sizes 32-64"; empty for 0.
std::string sizes_text(uint32_t sizes);
