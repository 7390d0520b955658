// The window's heads-up display: device, plan, smoothed per-pass GPU times, counters, notes and key help,
// drawn with the renderer's overlay at the end of the frame (so F12 screenshots include it).
#pragma once

#include <array>
#include <string>
#include <vector>

#include "render/overlay.h"
#include "vk/timer.h"

// Exponentially smoothed per-pass milliseconds; a pass that stops running shows as not run at once.
struct SmoothedTimes {
    static constexpr double kWeight = 0.1;  // of the newest sample: about the last 10 frames
    std::array<double, kTimerCount> ms;
    SmoothedTimes() { ms.fill(-1.0); }
    void add(const std::array<double, kTimerCount>& sample);
};

// The GPU milliseconds of the last kFrames frames, per timer slot (negative: did not run), for the
// HUD's frame-time graph.
struct FrameHistory {
    static constexpr size_t kFrames = 240;
    std::array<std::array<float, kTimerCount>, kFrames> ms{};
    size_t count = 0, next = 0;  // frames held; where the next goes
    void add(const std::array<double, kTimerCount>& sample);
    // The i-th oldest frame held (i < count).
    const std::array<float, kTimerCount>& at(size_t i) const { return ms[(next + kFrames - count + i) % kFrames]; }
};

struct HudState {
    std::string device;
    uint32_t subgroup_size = 0;
    VkExtent2D extent{};
    std::string present_mode;
    Plan plan;
    SmoothedTimes gpu;
    FrameHistory history;
    double cpu_frame_ms = 0;  // smoothed wall-clock time between frames
    GpuCounters counters{};
    uint64_t triangles_total = 0;
    uint32_t lights = 0;
    uint32_t animation_frame = 0;
    bool paused = false;
    bool cull_frozen = false;  // key F: the counters are the frozen frame's
    bool help = false;
    bool graph = true;  // the frame-time graph (key G)
    std::string tuning;              // "tuned auto on (T): tune of 2026-11-25", "tuning: none (T)"
    std::vector<std::string> notes;  // newest last, shown at the bottom
};

struct KeyHelp {
    std::string keys;
    std::string action;
};
// Every key and mouse control of the window (also what docs/controls.md lists).
const std::vector<KeyHelp>& key_help();

// Text scale for a frame height: stb_easy_font is ~7 px tall, so 1x up to 600 rows, then larger.
float hud_scale(uint32_t height);

// A piece of HUD text where it was drawn (for the layout test: no two may overlap).
struct HudText {
    OverlayBox box;
    std::string text;
};

// Draws the HUD around what the overlay already holds (view legends). `texts`, if given, receives
// every text drawn, with its box.
void draw_hud(Overlay& overlay, const HudState& hud, std::vector<HudText>* texts = nullptr);

// The colour of a timer slot in the frame-time graph.
uint32_t hud_timer_colour(Timer t);

// `text` cut to at most `width` pixels at `scale`, ending in "..." where it was cut.
std::string fit_text(const std::string& text, float width, float scale);
