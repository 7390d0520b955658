// Screen-space overlay: solid rectangles and text (stb_easy_font) drawn over the final frame.
// Used by debug-view legends and markings, and by the window's HUD. Everything added before or
// during Renderer::record is drawn at the end of that frame, then the list is cleared.
#pragma once

#include <string>
#include <vector>

#include "render/frame.h"

struct OverlayVertex {
    float x, y;      // pixels, origin top-left
    uint32_t rgba;   // 8-bit sRGB-encoded colour, alpha in the top byte (0xAABBGGRR)
    uint32_t unused = 0;  // std430 rounds the struct to 16 bytes (vec2 alignment)
};
static_assert(sizeof(OverlayVertex) == 16);

constexpr uint32_t rgba8(uint8_t r, uint8_t g, uint8_t b, uint8_t a = 255) {
    return uint32_t(r) | uint32_t(g) << 8 | uint32_t(b) << 16 | uint32_t(a) << 24;
}

// A rectangle in pixels, [x0, x1) x [y0, y1).
struct OverlayBox {
    float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    bool empty() const { return x1 <= x0 || y1 <= y0; }
    bool overlaps(const OverlayBox& o) const {
        return !empty() && !o.empty() && x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1;
    }
};

class Overlay {
public:
    static constexpr uint32_t kMaxVertices = 6 * 32768;  // per frame slot; extra quads are dropped

    void create(const Context& ctx, uint32_t slots);
    void rect(float x, float y, float w, float h, uint32_t rgba);
    // Text at (x, y) top-left; `scale` multiplies stb_easy_font's ~7 px glyph height.
    void text(float x, float y, const std::string& s, uint32_t rgba, float scale = 2.0f);
    // Text on a dark translucent box, the usual label style.
    void label(float x, float y, const std::string& s, uint32_t rgba = rgba8(255, 255, 255), float scale = 2.0f);
    static float text_width(const std::string& s, float scale = 2.0f);
    static float text_height(const std::string& s, float scale = 2.0f);
    bool empty() const { return vertices_.empty(); }
    // What everything added so far covers (empty when nothing was): the window's HUD keeps clear of it.
    OverlayBox bounds() const;

    // Draws everything added so far into f.targets.color, then clears the list.
    void record(FrameContext& f, uint32_t slot);

private:
    std::vector<OverlayVertex> vertices_;
    std::vector<Buffer> buffers_;  // one per frame slot, host-visible
    Pipeline pipeline_;
};
