// The window's soak test (--soak-frames N, tools/soak.sh; docs/controls.md): presses every key in
// turn, orbits, zooms, flies and resizes the window, and watches resident memory, which after a
// warm-up must not grow beyond 1%. Debug code, kept out of the window's frame loop: the window
// calls step() before each frame and result() when it closes, and the soak acts only through the
// hooks it is given (the same press() as the keyboard).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

struct OrbitCamera;

class Soak {
public:
    struct Hooks {
        std::function<void(int key)> press;                 // a GLFW key, as if pressed
        std::function<void(int width, int height)> resize;  // the window's size
        OrbitCamera* camera = nullptr;
    };
    // `width` x `height`: the window's size, restored after each resize. Logs "soak: N frames".
    Soak(uint32_t frames, uint32_t width, uint32_t height, Hooks hooks);
    // Before frame `frame` (counted from 0) is drawn; false once `frames` frames are drawn.
    bool step(uint32_t frame);
    // Logs the summary line; the exit code: 0, 1 (memory grew, or the window closed early), 2 (too
    // few frames to compare memory).
    int result(uint32_t frames_drawn) const;

private:
    uint32_t frames_, width_, height_;
    Hooks hooks_;
    uint32_t actions_ = 0;
    uint32_t min_frames_ = 0;
    uint32_t last_action_frame_ = UINT32_MAX;
    size_t rss_warm_ = 0, rss_end_ = 0, rss_peak_ = 0, heap_warm_ = 0, heap_end_ = 0;
};
