#include "vk/timer.h"

#include <algorithm>
#include <cassert>

TimingStats summarize(std::vector<double> samples) {
    if (samples.empty()) return {};
    std::sort(samples.begin(), samples.end());
    size_t n = samples.size();
    double median = n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
    return {median, samples.front(), samples.back(), uint32_t(n)};
}

namespace {

// The pool: a pair per timer slot, then per pieced timer its start and a mark after each piece.
constexpr uint32_t kMarks = uint32_t(kRasterPieceCount) + 1;
constexpr uint32_t kQueries = 2 * uint32_t(Timer::count) + uint32_t(kPiecedTimers.size()) * kMarks;

// A timer's place in kPiecedTimers; only those timers are pieced (the callers are the rasterizer's).
uint32_t pieced_index(Timer timer) {
    auto found = std::find(kPiecedTimers.begin(), kPiecedTimers.end(), timer);
    assert(found != kPiecedTimers.end());
    return uint32_t(found - kPiecedTimers.begin());
}

// mark 0: the start; 1 + piece: after the piece.
uint32_t mark_query(Timer timer, uint32_t mark) { return 2 * uint32_t(Timer::count) + pieced_index(timer) * kMarks + mark; }

}  // namespace

GpuTimer::GpuTimer(const Context& ctx) : ctx_(ctx) {
    VkQueryPoolCreateInfo info{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    info.queryType = VK_QUERY_TYPE_TIMESTAMP;
    info.queryCount = kQueries;
    VK_CHECK(vkCreateQueryPool(ctx.device, &info, nullptr, &pool_));
}

GpuTimer::~GpuTimer() { vkDestroyQueryPool(ctx_.device, pool_, nullptr); }

void GpuTimer::reset(VkCommandBuffer cmd) {
    vkCmdResetQueryPool(cmd, pool_, 0, kQueries);
    written_ = 0;
    marked_.fill(0);
}

void GpuTimer::begin(VkCommandBuffer cmd, Timer timer) {
    vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, pool_, 2 * uint32_t(timer));
}

void GpuTimer::end(VkCommandBuffer cmd, Timer timer) {
    vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, pool_, 2 * uint32_t(timer) + 1);
    written_ |= 1u << uint32_t(timer);
}

std::array<double, kTimerCount> GpuTimer::read() {
    std::array<double, kTimerCount> ms;
    ms.fill(-1.0);
    for (uint32_t p = 0; p < uint32_t(Timer::count); ++p) {
        if (!(written_ & (1u << p))) continue;
        uint64_t ticks[2];
        VK_CHECK(vkGetQueryPoolResults(ctx_.device, pool_, 2 * p, 2, sizeof(ticks), ticks, sizeof(uint64_t),
                                       VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
        ms[p] = double(ticks[1] - ticks[0]) * ctx_.info.timestamp_period_ns * 1e-6;
    }
    return ms;
}

void GpuTimer::start_pieces(VkCommandBuffer cmd, Timer timer) {
    vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, pool_, mark_query(timer, 0));
    marked_[pieced_index(timer)] |= 1u;
}

void GpuTimer::end_piece(VkCommandBuffer cmd, Timer timer, RasterPiece piece) {
    uint32_t mark = 1 + uint32_t(piece);
    vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, pool_, mark_query(timer, mark));
    marked_[pieced_index(timer)] |= 1u << mark;
}

PieceTimes GpuTimer::read_pieces() {
    PieceTimes ms;
    for (size_t t = 0; t < kPiecedTimers.size(); ++t) {
        ms[t].fill(-1.0);
        if (!(marked_[t] & 1u)) continue;  // (no start: no piece)
        uint64_t last = 0;
        for (uint32_t mark = 0; mark < kMarks; ++mark) {
            if (!(marked_[t] & (1u << mark))) continue;
            uint64_t ticks = 0;
            VK_CHECK(vkGetQueryPoolResults(ctx_.device, pool_, mark_query(kPiecedTimers[t], mark), 1, sizeof(ticks), &ticks,
                                           sizeof(ticks), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
            if (mark > 0) ms[t][mark - 1] = double(ticks - last) * ctx_.info.timestamp_period_ns * 1e-6;
            last = ticks;
        }
    }
    return ms;
}
