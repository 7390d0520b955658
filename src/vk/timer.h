// GPU timestamps around each pass. Results are read after the frame's fence, never mid-frame.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "passes/pass_table.h"  // Timer: the slots, with their report keys in kTimers
#include "vk/context.h"

struct TimingStats {
    double median = 0, min = 0, max = 0;
    uint32_t frames = 0;  // the measured frames it ran in (occlusion's late draw: those of phase 2)
};
TimingStats summarize(std::vector<double> samples);

class GpuTimer {
public:
    explicit GpuTimer(const Context& ctx);
    ~GpuTimer();
    GpuTimer(const GpuTimer&) = delete;
    GpuTimer& operator=(const GpuTimer&) = delete;

    void reset(VkCommandBuffer cmd);  // at the start of the frame's command buffer
    void begin(VkCommandBuffer cmd, Timer timer);
    void end(VkCommandBuffer cmd, Timer timer);
    // After the frame completed: milliseconds per timer slot written this frame (negative: pass did not run).
    std::array<double, kTimerCount> read();

private:
    const Context& ctx_;
    VkQueryPool pool_ = VK_NULL_HANDLE;
    uint32_t written_ = 0;  // bit per timer slot that wrote both timestamps this frame
};
