// GPU timestamps around each pass. Results are read after the frame's fence, never mid-frame.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "vk/context.h"

enum class Pass : uint32_t { cull, depth, light_cull, forward, mip, view, frame, count };
const char* pass_name(Pass pass);  // report keys: "cull", "light_cull", ...

struct TimingStats {
    double median = 0, min = 0, max = 0;
};
TimingStats summarize(std::vector<double> samples);

class GpuTimer {
public:
    explicit GpuTimer(const Context& ctx);
    ~GpuTimer();
    GpuTimer(const GpuTimer&) = delete;
    GpuTimer& operator=(const GpuTimer&) = delete;

    void reset(VkCommandBuffer cmd);  // at the start of the frame's command buffer
    void begin(VkCommandBuffer cmd, Pass pass);
    void end(VkCommandBuffer cmd, Pass pass);
    // After the frame completed: milliseconds per pass written this frame (negative: pass did not run).
    std::array<double, size_t(Pass::count)> read();

private:
    const Context& ctx_;
    VkQueryPool pool_ = VK_NULL_HANDLE;
    uint32_t written_ = 0;  // bit per pass that wrote both timestamps this frame
};
