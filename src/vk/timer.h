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

// Milliseconds per piece of each timer in kPiecedTimers (negative: the piece was not recorded).
using PieceTimes = std::array<std::array<double, kRasterPieceCount>, kPiecedTimers.size()>;

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

    // The pieces of a timer in kPiecedTimers (the compute rasterizer's): a timestamp where its first
    // piece starts, right after the timer's own begin, and one after each piece, the last right
    // before the timer's end. A piece's time runs from the timestamp before it, so the pieces of a
    // frame add up to the timer's time but for the timestamps' own cost.
    void start_pieces(VkCommandBuffer cmd, Timer timer);
    void end_piece(VkCommandBuffer cmd, Timer timer, RasterPiece piece);
    // After the frame completed: milliseconds per piece of each kPiecedTimers entry (negative: not recorded this frame).
    PieceTimes read_pieces();

private:
    const Context& ctx_;
    VkQueryPool pool_ = VK_NULL_HANDLE;
    uint32_t written_ = 0;  // bit per timer slot that wrote both timestamps this frame
    std::array<uint32_t, kPiecedTimers.size()> marked_{};  // per pieced timer, bit per mark written this frame
};
