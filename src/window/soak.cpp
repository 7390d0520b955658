#include "window/soak.h"

#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <GLFW/glfw3.h>

#include "plan/plan.h"
#include "window/camera_control.h"
#include "vk/context.h"

namespace {

void log_line(const char* line) {
    printf("%s\n", line);
    fflush(stdout);  // tools/soak.sh follows this log while the window runs
}

// Bytes malloc has handed out and not taken back (glibc's main arena): flat when nothing leaks.
size_t heap_in_use() { return mallinfo2().uordblks; }

size_t resident_bytes() {
    std::ifstream statm("/proc/self/statm");
    size_t size = 0, resident = 0;
    statm >> size >> resident;
    return resident * size_t(sysconf(_SC_PAGESIZE));
}

constexpr int kResize = -1, kResizeBack = -2;
constexpr size_t kViews = size_t(ViewMode::count);

// The presses of one cycle. The V presses follow kViewNames (src/plan/plan.h): a view added there
// is visited here without a word in this file.
std::vector<int> cycle_sequence() {
    std::vector<int> s;
    auto press = [&](int key, size_t times = 1) { s.insert(s.end(), times, key); };
    press(GLFW_KEY_1, 4);  // cull: subgroup, fallback, off, auto
    press(GLFW_KEY_2, 4);  // light cull
    press(GLFW_KEY_3, 4);  // mip
    press(GLFW_KEY_V, kViews);  // every view, back to shaded
    press(GLFW_KEY_V), press(GLFW_KEY_B, 6);  // lane-id at every stage
    press(GLFW_KEY_V), press(GLFW_KEY_B), press(GLFW_KEY_V), press(GLFW_KEY_B);  // first-last-lane, active-lanes at other stages
    press(GLFW_KEY_V, kViews - size_t(ViewMode::active_lanes));  // the views after them, to shaded
    press(GLFW_KEY_P, 2), press(GLFW_KEY_F, 2);  // depth-pyramid levels 0 and 1, culling frozen and resumed
    press(GLFW_KEY_V, kViews - size_t(ViewMode::depth_pyramid));  // the views after it, to shaded
    for (int key : {GLFW_KEY_SPACE, GLFW_KEY_H, GLFW_KEY_F12, GLFW_KEY_SPACE, GLFW_KEY_H, GLFW_KEY_R}) press(key);
    press(kResize), press(GLFW_KEY_0), press(kResizeBack);
    return s;
}
const std::vector<int> kSequence = cycle_sequence();

constexpr uint32_t kFramesPerAction = 4;

}  // namespace

Soak::Soak(uint32_t frames, uint32_t width, uint32_t height, Hooks hooks)
    : frames_(frames), width_(width), height_(height), hooks_(std::move(hooks)) {
    log_line(("soak: " + std::to_string(frames) + " frames").c_str());
}

bool Soak::step(uint32_t frame) {
    // Memory is compared at cycle boundaries only, where the window is back in the same state
    // (passes auto, view shaded, full size, help hidden, animating): what a configuration holds
    // while it is on screen then cancels out, and only what accumulates remains. Free pages
    // glibc keeps are given back first (malloc_trim), so the figure is memory in use.
    uint32_t cycle = uint32_t(kSequence.size()) * kFramesPerAction;
    uint32_t warmup = cycle * std::max(2u, (frames_ / 10 + cycle - 1) / cycle);
    uint32_t last_boundary = frames_ / cycle * cycle;
    min_frames_ = warmup + cycle;
    if (frame >= frames_) return false;
    rss_peak_ = std::max(rss_peak_, resident_bytes());
    bool boundary = frame % cycle == 0 && frame != last_action_frame_;
    if (boundary && frame >= warmup && last_boundary > warmup) {
        malloc_trim(0);
        size_t rss = resident_bytes();
        if (frame == warmup) rss_warm_ = rss, heap_warm_ = heap_in_use();
        if (frame == last_boundary) rss_end_ = rss, heap_end_ = heap_in_use();
        if (frame == warmup || frame == last_boundary || frame / cycle % 3 == 0) {
            char line[160];
            snprintf(line, sizeof(line), "soak: frame %u (cycle %u), resident memory %.2f MiB, heap in use %.3f MiB%s",
                     frame, frame / cycle, double(rss) / (1 << 20), double(heap_in_use()) / (1 << 20),
                     frame == warmup ? " (warm-up ends)" : "");
            log_line(line);
        }
    }

    hooks_.camera->orbit(3.0f, 0.0f);
    hooks_.camera->zoom(frame % 80 < 40 ? 0.05f : -0.05f);
    hooks_.camera->fly(glm::vec3(0.0f, 0.0f, frame % 60 < 30 ? 0.2f : -0.2f), 0.05f);
    if (frame % kFramesPerAction != 0 || frame == last_action_frame_) return true;
    last_action_frame_ = frame;
    int action = kSequence[(frame / kFramesPerAction) % kSequence.size()];
    if (action == kResize) hooks_.resize(int(width_) * 3 / 4, int(height_) * 3 / 4 + 8);
    else if (action == kResizeBack) hooks_.resize(int(width_), int(height_));
    else hooks_.press(action);
    actions_++;
    return true;
}

int Soak::result(uint32_t frames_drawn) const {
    auto mib = [](size_t bytes) { return double(bytes) / (1 << 20); };
    auto percent = [](size_t from, size_t to) { return from ? 100.0 * (double(to) - double(from)) / double(from) : 0.0; };
    double growth = percent(rss_warm_, rss_end_);
    char line[360];
    snprintf(line, sizeof(line),
             "soak: %u frames, %u actions, resident memory %.2f MiB after warm-up, %.2f MiB at the last cycle "
             "(%+.2f%%), peak %.1f MiB; heap in use %+.3f%%; %u validation message(s)",
             frames_drawn, actions_, mib(rss_warm_), mib(rss_end_), growth, mib(rss_peak_),
             percent(heap_warm_, heap_end_), validation_message_count());
    log_line(line);
    if (frames_drawn < frames_) {
        fprintf(stderr, "error: the soak stopped after %u of %u frames (window closed)\n", frames_drawn, frames_);
        return 1;
    }
    if (rss_end_ == 0) {
        fprintf(stderr, "error: --soak-frames %u is too few to compare memory: the warm-up and one more cycle of "
                        "actions need %u\n", frames_, min_frames_);
        return 2;
    }
    if (growth > 1.0) {
        fprintf(stderr, "error: resident memory grew by %.2f%% after the warm-up (more than 1%%)\n", growth);
        return 1;
    }
    return 0;
}
