#include "compare/sheet.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "render/text_quads.h"
#include <stb/stb_image.h>
#include <stb/stb_image_resize.h>

RgbaImage::RgbaImage(uint32_t w, uint32_t h, uint32_t fill_rgba) : width(w), height(h), rgba(size_t(w) * h * 4) {
    for (size_t i = 0; i < size_t(w) * h; ++i) memcpy(&rgba[i * 4], &fill_rgba, 4);
}

RgbaImage load_image(const std::string& path) {
    RgbaImage image;
    int w = 0, h = 0, channels = 0;
    uint8_t* data = stbi_load(path.c_str(), &w, &h, &channels, 4);
    if (!data) return image;
    image.width = uint32_t(w);
    image.height = uint32_t(h);
    image.rgba.assign(data, data + size_t(w) * h * 4);
    stbi_image_free(data);
    return image;
}

RgbaImage resize_srgb(const RgbaImage& src, uint32_t width, uint32_t height) {
    RgbaImage dst(width, height);
    if (src.width == 0 || src.height == 0 || width == 0 || height == 0) return dst;
    stbir_resize_uint8_generic(src.rgba.data(), int(src.width), int(src.height), int(src.width * 4), dst.rgba.data(),
                               int(width), int(height), int(width * 4), 4, 3, 0, STBIR_EDGE_CLAMP, STBIR_FILTER_BOX,
                               STBIR_COLORSPACE_SRGB, nullptr);
    return dst;
}

PixelRect intersect(PixelRect a, PixelRect b) {
    int x0 = std::max(a.x, b.x), y0 = std::max(a.y, b.y);
    int x1 = std::min(a.x + a.w, b.x + b.w), y1 = std::min(a.y + a.h, b.y + b.h);
    return {x0, y0, std::max(0, x1 - x0), std::max(0, y1 - y0)};
}

static PixelRect bounds(const RgbaImage& image) { return {0, 0, int(image.width), int(image.height)}; }

void blit(RgbaImage& dst, const RgbaImage& src, int x, int y) {
    PixelRect r = intersect({x, y, int(src.width), int(src.height)}, bounds(dst));
    for (int row = r.y; row < r.y + r.h; ++row)
        memcpy(dst.at(r.x, row), src.at(r.x - x, row - y), size_t(r.w) * 4);
}

void fill_rect(RgbaImage& image, PixelRect rect, uint32_t rgba) {
    PixelRect r = intersect(rect, bounds(image));
    for (int row = r.y; row < r.y + r.h; ++row)
        for (int col = r.x; col < r.x + r.w; ++col) memcpy(image.at(col, row), &rgba, 4);
}

int text_width(std::string_view text, int scale) { return text_units_wide(text) * scale; }

void draw_text(RgbaImage& image, int x, int y, std::string_view text, uint32_t rgba, int scale, PixelRect clip) {
    PixelRect limit = intersect(clip, bounds(image));
    for (const TextQuad& q : text_quads(text)) {
        // Glyph quads are axis-aligned with corners on the font's integer grid (fractional only
        // for a few strokes): round to pixels at this scale.
        int x0 = x + int(std::lround(q.x0 * scale)), y0 = y + int(std::lround(q.y0 * scale));
        int x1 = x + int(std::lround(q.x1 * scale)), y1 = y + int(std::lround(q.y1 * scale));
        fill_rect(image, intersect({x0, y0, x1 - x0, y1 - y0}, limit), rgba);
    }
}

void draw_text(RgbaImage& image, int x, int y, std::string_view text, uint32_t rgba, int scale) {
    draw_text(image, x, y, text, rgba, scale, bounds(image));
}

std::vector<std::string> wrap_text(std::string_view text, int max_width, int scale) {
    std::vector<std::string> lines;
    std::string line;
    size_t start = 0;
    while (start < text.size()) {
        size_t space = text.find(' ', start);
        if (space == std::string_view::npos) space = text.size();
        std::string_view word = text.substr(start, space - start);
        start = space + 1;
        if (word.empty()) continue;
        std::string candidate = line.empty() ? std::string(word) : line + " " + std::string(word);
        if (!line.empty() && text_width(candidate, scale) > max_width) {
            lines.push_back(line);
            line = std::string(word);
        } else {
            line = candidate;
        }
    }
    if (!line.empty()) lines.push_back(line);
    return lines;
}

PixelRect SheetLayout::header() const { return {0, 0, width, header_height}; }
PixelRect SheetLayout::band() const { return {0, header_height, width, band_height}; }

PixelRect SheetLayout::cell(size_t index) const {
    int col = int(index) % columns, row = int(index) / columns;
    return {margin + col * (cell_width + margin), header_height + band_height + row * (cell_height + margin), cell_width,
            cell_height};
}

PixelRect SheetLayout::thumb(size_t index) const {
    PixelRect c = cell(index);
    return {c.x + (cell_width - thumb_width) / 2, c.y, thumb_width, thumb_height};
}

PixelRect SheetLayout::label(size_t index) const {
    PixelRect c = cell(index);
    return {c.x, c.y + thumb_height, cell_width, label_height};
}

SheetLayout make_sheet_layout(uint32_t frame_width, uint32_t frame_height, size_t cells, int header_lines,
                              int label_lines, int band_height) {
    SheetLayout l;
    l.margin = 8;
    l.text_scale = 2;
    int pitch = kTextLinePitch * l.text_scale;
    l.header_height = l.margin + header_lines * pitch + l.margin;
    l.columns = int(std::clamp<size_t>(cells, 1, kSheetMaxColumns));
    l.rows = int((std::max<size_t>(cells, 1) + l.columns - 1) / l.columns);
    // An integer factor of at least 2, so a thumbnail is always a true reduction whose texels
    // average whole k x k blocks of the frame (and a test can recompute them exactly).
    int by_width = int((frame_width + kSheetMaxThumbWidth - 1) / kSheetMaxThumbWidth);
    int by_height = int((frame_height + kSheetMaxThumbHeight - 1) / kSheetMaxThumbHeight);
    l.downscale = std::max({2, by_width, by_height});
    l.thumb_width = std::max(1, int(frame_width) / l.downscale);
    l.thumb_height = std::max(1, int(frame_height) / l.downscale);
    l.label_height = l.margin / 2 + label_lines * pitch + l.margin / 2;
    l.cell_width = std::max(l.thumb_width, kSheetMinCellWidth);
    l.cell_height = l.thumb_height + l.label_height;
    l.width = l.margin + l.columns * (l.cell_width + l.margin);
    l.band_height = band_height;
    l.height = l.header_height + band_height + l.rows * (l.cell_height + l.margin);
    return l;
}

RgbaImage compose_sheet(const SheetLayout& l, const std::vector<TextLine>& header, const std::vector<SheetCell>& cells) {
    RgbaImage sheet(uint32_t(l.width), uint32_t(l.height), kSheetBackground);
    int pitch = kTextLinePitch * l.text_scale;
    PixelRect h = l.header();
    h = {h.x + l.margin, h.y + l.margin, h.w - 2 * l.margin, h.h - 2 * l.margin};
    for (size_t i = 0; i < header.size(); ++i)
        draw_text(sheet, h.x, h.y + int(i) * pitch, header[i].text, header[i].rgba, l.text_scale, h);

    for (size_t i = 0; i < cells.size(); ++i) {
        fill_rect(sheet, l.cell(i), kSheetCellBackground);
        PixelRect t = l.thumb(i);
        const RgbaImage* image = cells[i].image;
        if (image && image->width && image->height)
            blit(sheet, resize_srgb(*image, uint32_t(t.w), uint32_t(t.h)), t.x, t.y);
        else
            fill_rect(sheet, t, kSheetEmptyThumb);
        PixelRect label = l.label(i);
        PixelRect text_area{label.x + l.margin / 2, label.y + l.margin / 2, label.w - l.margin, label.h - l.margin};
        for (size_t line = 0; line < cells[i].lines.size(); ++line)
            draw_text(sheet, text_area.x, text_area.y + int(line) * pitch, cells[i].lines[line].text,
                      cells[i].lines[line].rgba, l.text_scale, text_area);
    }
    return sheet;
}
