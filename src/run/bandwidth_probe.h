// --bandwidth-probe: the GPU's buffer-copy bandwidth, measured with timestamps in the same
// run as the passes, so the cull pass's bytes per second have a reference on the same device.
#pragma once

#include <cstdint>

#include "vk/context.h"

struct CopyBandwidth {
    uint64_t bytes = 0;  // size of the copy (read once and written once)
    double ms = 0.0;     // median GPU time of the copies
    double gbps = 0.0;   // (bytes read + bytes written) / time, in 1e9 bytes per second
};

// Copies `bytes` between two device-local buffers `repeats` times (after one untimed copy)
// and keeps the median. The size is reduced to fit the device's memory and allocation limits.
CopyBandwidth measure_copy_bandwidth(const Context& ctx, uint64_t bytes = 256ull << 20, int repeats = 7);
