#include "passes/subgroup_tally.h"

#include <algorithm>
#include <bit>

std::optional<double> occupancy(const SubgroupTally& t) {
    if (t.lane_slots == 0) return std::nullopt;
    return double(t.lanes) / double(t.lane_slots);
}

std::vector<uint32_t> subgroup_sizes(uint32_t sizes) {
    std::vector<uint32_t> out;
    for (uint32_t bit = 1; bit != 0 && bit <= sizes; bit <<= 1)
        if (sizes & bit) out.push_back(bit);
    return out;
}

uint32_t sizes_in_range(uint32_t min_size, uint32_t max_size) {
    uint32_t sizes = 0;
    for (uint32_t s = std::bit_ceil(std::max(min_size, 1u)); s != 0 && s <= max_size; s <<= 1) sizes |= s;
    return sizes;
}

std::string sizes_text(uint32_t sizes) {
    if (sizes == 0) return "";
    uint32_t smallest = sizes & (~sizes + 1), largest = std::bit_floor(sizes);
    if (smallest == largest) return "subgroup size " + std::to_string(smallest);
    return "subgroup sizes " + std::to_string(smallest) + "-" + std::to_string(largest);
}
