// Contact sheets composed on the CPU: RGBA8 images, sRGB-correct thumbnails (stb_image_resize),
// filled rectangles and text (stb_easy_font's quads, filled pixel by pixel), and a grid layout of
// labelled thumbnails under a header. Used by `--compare` for compare.png; no Vulkan here.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

// Tightly packed RGBA8, rows top to bottom (what the renderer reads back and PNG stores).
struct RgbaImage {
    uint32_t width = 0, height = 0;
    std::vector<uint8_t> rgba;

    RgbaImage() = default;
    RgbaImage(uint32_t w, uint32_t h, uint32_t fill_rgba = 0xff000000u);
    uint8_t* at(uint32_t x, uint32_t y) { return &rgba[(size_t(y) * width + x) * 4]; }
    const uint8_t* at(uint32_t x, uint32_t y) const { return &rgba[(size_t(y) * width + x) * 4]; }
};

// 0xAABBGGRR, the byte order of an RGBA8 pixel read as a little-endian uint32.
constexpr uint32_t pack_rgba(uint8_t r, uint8_t g, uint8_t b, uint8_t a = 255) {
    return uint32_t(r) | uint32_t(g) << 8 | uint32_t(b) << 16 | uint32_t(a) << 24;
}

struct PixelRect {
    int x = 0, y = 0, w = 0, h = 0;
};

// The overlap of two rectangles (w or h 0 where they do not overlap).
PixelRect intersect(PixelRect a, PixelRect b);

// Reads a PNG (or anything stb_image decodes) as RGBA8; an empty image if it cannot.
RgbaImage load_image(const std::string& path);

// Box filter in linear light (sRGB decode, average, encode), the filter that keeps a thumbnail's
// brightness right; alpha is averaged linearly.
RgbaImage resize_srgb(const RgbaImage& src, uint32_t width, uint32_t height);

// Copies src with its top-left corner at (x, y), clipped to dst.
void blit(RgbaImage& dst, const RgbaImage& src, int x, int y);
// Opaque fill, clipped to the image.
void fill_rect(RgbaImage& image, PixelRect rect, uint32_t rgba);

// stb_easy_font text, scaled by an integer so glyph edges stay on pixels. One line per call
// (no '\n'); characters outside printable ASCII are drawn as '?'. Clipped to `clip` (and the image).
constexpr int kTextLinePitch = 12;  // stb_easy_font's line advance at scale 1
int text_width(std::string_view text, int scale);
void draw_text(RgbaImage& image, int x, int y, std::string_view text, uint32_t rgba, int scale, PixelRect clip);
void draw_text(RgbaImage& image, int x, int y, std::string_view text, uint32_t rgba, int scale);
// Splits on spaces so that each line is at most `max_width` pixels wide (a longer word gets its own line).
std::vector<std::string> wrap_text(std::string_view text, int max_width, int scale);

struct TextLine {
    std::string text;
    uint32_t rgba = pack_rgba(230, 230, 230);
};

// A grid of `cells` thumbnails of a frame_width x frame_height image, each above a label strip of
// `label_lines` lines, under a header of `header_lines` lines. Everything follows from the inputs,
// so a test recomputes the layout and finds each thumbnail and label in the composed sheet.
struct SheetLayout {
    int margin = 0;          // around and between cells
    int text_scale = 0;      // header and labels
    int header_height = 0;   // header strip at the top, full width
    int band_height = 0;     // a full-width band under the header (compare.png's chart), may be 0
    int columns = 0, rows = 0;
    int downscale = 1;       // thumbnail = frame / downscale (integer, at least 2)
    int thumb_width = 0, thumb_height = 0;
    int label_height = 0;
    int cell_width = 0, cell_height = 0;
    int width = 0, height = 0;

    PixelRect header() const;
    PixelRect band() const;
    PixelRect cell(size_t index) const;
    PixelRect thumb(size_t index) const;  // inside the cell, centred horizontally, at its top
    PixelRect label(size_t index) const;  // below the thumbnail, the cell's full width
};

constexpr int kSheetMaxThumbWidth = 384;
constexpr int kSheetMaxThumbHeight = 288;
constexpr int kSheetMinCellWidth = 336;  // room for a label line of ~28 characters at scale 2
constexpr int kSheetMaxColumns = 4;

SheetLayout make_sheet_layout(uint32_t frame_width, uint32_t frame_height, size_t cells, int header_lines,
                              int label_lines, int band_height = 0);

struct SheetCell {
    const RgbaImage* image = nullptr;  // frame-sized; null draws an empty (skipped) thumbnail
    std::vector<TextLine> lines;       // at most label_lines; longer lines are clipped to the cell
};

constexpr uint32_t kSheetBackground = pack_rgba(18, 18, 22);
constexpr uint32_t kSheetCellBackground = pack_rgba(38, 38, 46);
constexpr uint32_t kSheetEmptyThumb = pack_rgba(70, 70, 78);

RgbaImage compose_sheet(const SheetLayout& layout, const std::vector<TextLine>& header,
                        const std::vector<SheetCell>& cells);
