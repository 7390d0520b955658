// The street of a 2 x 2 grid of the bundled scene, where occlusion's late phase has work to do: the
// scene, the camera's step down the street, and the frames that hold the compute rasterizer's words
// under occlusion to the words without it (test_raster.cpp for the indexed path,
// test_meshlet_raster.cpp for the meshlet path).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "render/renderer.h"
#include "scene/camera.h"

// The bundled scene as a 2 x 2 grid (--instances 2), loaded once per process.
const Scene& street_grid();

// `c` moved by `fraction` of its distance to its target, to its right and half as far forward: what
// the nearest buildings hid comes out from behind them, so occlusion phase 1 (with the previous
// frame's pyramid) rejects some of what is now in view and phase 2 must re-admit it.
Camera step_down_the_street(Camera c, float fraction);

struct StreetWords {
    uint32_t identical = 0;     // frames whose words are, bit for bit, the reference's
    uint32_t with_late = 0;     // frames whose late phase re-admitted anything
    uint32_t readmitted = 0;    // what the late phases re-admitted, summed
};

// Renders `frames` frames of the street of street_grid() with `occluded` (occlusion on) and
// `reference` (--occlusion off, whose list holds the occluded too: they lose every pixel they
// cover), the camera stepping 0.012 of its distance each frame. In every frame the words that phase
// 1 and the late phase wrote must be, bit for bit, the reference's, and cover a quarter of the
// frame at least; at least 3 frames must re-admit something. `late(r)` reads what r's late phase
// re-admitted this frame (triangles or meshlets: `what`); `each_frame(i, late)` adds a caller's
// checks of frame i.
StreetWords expect_street_words_of_one_rasterization(const Context& ctx, Renderer& occluded, Renderer& reference, uint32_t frames,
                                                     const char* what, const std::function<uint32_t(Renderer&)>& late,
                                                     const std::function<void(uint32_t, uint32_t)>& each_frame = {});
