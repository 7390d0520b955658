// The CPU contact sheet: layout arithmetic, sRGB-correct thumbnails, text and composition.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>

#include "compare/chart.h"  // image_difference, the comparison's difference panel
#include "compare/sheet.h"

namespace {

uint32_t pixel(const RgbaImage& image, int x, int y) {
    const uint8_t* p = image.at(uint32_t(x), uint32_t(y));
    return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

// 0xAABBGGRR as text, so a failure names the colour.
std::string hex(uint32_t rgba) {
    char text[16];
    snprintf(text, sizeof text, "0x%08x", rgba);
    return text;
}

int count_not(const RgbaImage& image, PixelRect r, uint32_t colour) {
    int n = 0;
    for (int y = r.y; y < r.y + r.h; ++y)
        for (int x = r.x; x < r.x + r.w; ++x) n += pixel(image, x, y) != colour;
    return n;
}

bool inside(PixelRect inner, PixelRect outer) {
    return inner.x >= outer.x && inner.y >= outer.y && inner.x + inner.w <= outer.x + outer.w &&
           inner.y + inner.h <= outer.y + outer.h;
}

bool overlap(PixelRect a, PixelRect b) {
    return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

TEST(SheetLayout, FullHdFramesGiveFifthSizeThumbnailsInFourColumns) {
    SheetLayout l = make_sheet_layout(1920, 1080, 11, 3, 5);
    EXPECT_EQ(l.downscale, 5);
    EXPECT_EQ(l.thumb_width, 384);
    EXPECT_EQ(l.thumb_height, 216);
    EXPECT_EQ(l.columns, 4);
    EXPECT_EQ(l.rows, 3);
    EXPECT_EQ(l.width, l.margin + 4 * (l.cell_width + l.margin));
}

TEST(SheetLayout, CellsTileTheSheetWithoutOverlapAtManySizes) {
    struct Case {
        uint32_t w, h;
        size_t cells;
    };
    for (Case c : {Case{160, 90, 11}, Case{3840, 2160, 11}, Case{1000, 3000, 7}, Case{16, 16, 1}, Case{1917, 1001, 13}}) {
        SheetLayout l = make_sheet_layout(c.w, c.h, c.cells, 3, 5);
        PixelRect sheet{0, 0, l.width, l.height};
        EXPECT_GE(l.downscale, 2);
        EXPECT_LE(l.thumb_width, kSheetMaxThumbWidth);
        EXPECT_LE(l.thumb_height, kSheetMaxThumbHeight);
        EXPECT_EQ(l.thumb_width, int(c.w) / l.downscale);
        EXPECT_LE(l.columns, kSheetMaxColumns);
        EXPECT_GE(size_t(l.columns * l.rows), c.cells);
        EXPECT_TRUE(inside(l.header(), sheet));
        for (size_t i = 0; i < c.cells; ++i) {
            EXPECT_TRUE(inside(l.cell(i), sheet)) << c.w << "x" << c.h << " cell " << i;
            EXPECT_TRUE(inside(l.thumb(i), l.cell(i)));
            EXPECT_TRUE(inside(l.label(i), l.cell(i)));
            EXPECT_FALSE(overlap(l.thumb(i), l.label(i)));
            EXPECT_FALSE(overlap(l.cell(i), l.header()));
            for (size_t j = 0; j < i; ++j) EXPECT_FALSE(overlap(l.cell(i), l.cell(j))) << i << " " << j;
        }
    }
}

TEST(Thumbnail, AveragesInLinearLightNotInSrgbBytes) {
    // Left 2x2 block: two white and two black pixels, 50% linear grey, which is sRGB 188, not the
    // byte average 128. Right block: all white.
    const uint32_t white = pack_rgba(255, 255, 255);
    RgbaImage src(4, 2, pack_rgba(0, 0, 0));
    for (auto [x, y] : std::initializer_list<std::pair<uint32_t, uint32_t>>{{0, 0}, {1, 1}, {2, 0}, {3, 0}, {2, 1}, {3, 1}}) memcpy(src.at(x, y), &white, 4);
    RgbaImage t = resize_srgb(src, 2, 1);
    double expected = (1.055 * std::pow(0.5, 1 / 2.4) - 0.055) * 255;  // 187.5
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(t.at(0, 0)[c], expected, 1.0) << c;
    EXPECT_EQ(pixel(t, 1, 0), white);
    EXPECT_EQ(t.at(0, 0)[3], 255);
}

TEST(Thumbnail, ConstantImageStaysConstant) {
    RgbaImage src(90, 60, pack_rgba(12, 150, 240));
    RgbaImage t = resize_srgb(src, 30, 20);
    ASSERT_EQ(t.width, 30u);
    ASSERT_EQ(t.height, 20u);
    for (uint32_t y = 0; y < t.height; ++y)
        for (uint32_t x = 0; x < t.width; ++x) EXPECT_EQ(pixel(t, int(x), int(y)), pack_rgba(12, 150, 240)) << x << "," << y;
}

// Where a string's glyphs land: the bounding box of the pixels that changed.
PixelRect ink(const RgbaImage& image, uint32_t background) {
    int x0 = int(image.width), y0 = int(image.height), x1 = -1, y1 = -1;
    for (int y = 0; y < int(image.height); ++y)
        for (int x = 0; x < int(image.width); ++x)
            if (pixel(image, x, y) != background) {
                x0 = std::min(x0, x), y0 = std::min(y0, y), x1 = std::max(x1, x), y1 = std::max(y1, y);
            }
    return x1 < 0 ? PixelRect{} : PixelRect{x0, y0, x1 - x0 + 1, y1 - y0 + 1};
}

TEST(Text, InkStaysInsideTheMeasuredBoxAndScalesByWholePixels) {
    const uint32_t bg = pack_rgba(0, 0, 0), fg = pack_rgba(255, 200, 0);
    for (int scale : {1, 2, 3}) {
        RgbaImage image(400, 100, bg);
        draw_text(image, 10, 20, "frame 12.35 ms", fg, scale);
        PixelRect box = ink(image, bg);
        ASSERT_GT(box.w, 0) << "nothing drawn at scale " << scale;
        EXPECT_GE(box.x, 10);
        EXPECT_GE(box.y, 20);
        EXPECT_LE(box.x + box.w, 10 + text_width("frame 12.35 ms", scale));
        EXPECT_LE(box.y + box.h, 20 + kTextLinePitch * scale);
        EXPECT_EQ(text_width("frame 12.35 ms", scale), scale * text_width("frame 12.35 ms", 1));
        // Every changed pixel has exactly the text colour: no blending, no stray writes.
        int fg_count = 0, other = 0;
        for (int y = 0; y < 100; ++y)
            for (int x = 0; x < 400; ++x) {
                uint32_t p = pixel(image, x, y);
                fg_count += p == fg;
                other += p != fg && p != bg;
            }
        EXPECT_EQ(other, 0);
        EXPECT_GT(fg_count, 20 * scale * scale);
    }
}

TEST(Text, DifferentStringsDrawDifferentPixelsAndNonAsciiDrawsQuestionMarks) {
    const uint32_t bg = pack_rgba(0, 0, 0), fg = pack_rgba(255, 255, 255);
    RgbaImage a(200, 30, bg), b(200, 30, bg), c(200, 30, bg), q(200, 30, bg);
    draw_text(a, 2, 2, "cull 0.123", fg, 2);
    draw_text(b, 2, 2, "cull 0.128", fg, 2);
    draw_text(c, 2, 2, "x\xc3\xa9y", fg, 2);  // UTF-8 e-acute: two bytes outside ASCII
    draw_text(q, 2, 2, "x??y", fg, 2);
    EXPECT_NE(a.rgba, b.rgba);
    EXPECT_EQ(c.rgba, q.rgba);
}

TEST(Text, ClipRectangleIsRespected) {
    const uint32_t bg = pack_rgba(0, 0, 0), fg = pack_rgba(255, 255, 255);
    RgbaImage image(200, 40, bg);
    PixelRect clip{0, 0, 50, 40};
    draw_text(image, 5, 5, "a long line that runs well past the clip", fg, 2, clip);
    EXPECT_GT(count_not(image, clip, bg), 0);
    EXPECT_EQ(count_not(image, {50, 0, 150, 40}, bg), 0);
    // Off the image entirely: nothing happens, nothing breaks.
    draw_text(image, -500, -500, "outside", fg, 2);
    draw_text(image, 1000, 1000, "outside", fg, 2);
    EXPECT_EQ(count_not(image, {50, 0, 150, 40}, bg), 0);
}

TEST(Text, WrapKeepsEveryWordAndEachLineFits) {
    std::string text = "--mip subgroup: fragment stage lacks the quad operation on this device; use auto or fallback";
    std::vector<std::string> lines = wrap_text(text, 200, 2);
    ASSERT_GT(lines.size(), 1u);
    std::string joined;
    for (const std::string& line : lines) {
        EXPECT_LE(text_width(line, 2), 200) << line;
        joined += (joined.empty() ? "" : " ") + line;
    }
    EXPECT_EQ(joined, text);
    // A word longer than the width gets a line of its own rather than being lost.
    std::vector<std::string> long_word = wrap_text("a abcdefghijklmnopqrstuvwxyz b", 60, 2);
    EXPECT_EQ(long_word, (std::vector<std::string>{"a", "abcdefghijklmnopqrstuvwxyz", "b"}));
}

TEST(Sheet, ThumbnailsLabelsAndEmptyCellsLandWhereTheLayoutSays) {
    const uint32_t red = pack_rgba(200, 30, 30), blue = pack_rgba(30, 30, 200);
    RgbaImage a(320, 180, red), b(320, 180, blue);
    SheetLayout l = make_sheet_layout(320, 180, 3, 2, 2);
    std::vector<SheetCell> cells = {{&a, {{"first"}, {"frame 1.000 ms"}}}, {nullptr, {{"skipped"}}}, {&b, {{"third"}}}};
    RgbaImage sheet = compose_sheet(l, {{"header"}, {"speed-up"}}, cells);
    ASSERT_EQ(sheet.width, uint32_t(l.width));
    ASSERT_EQ(sheet.height, uint32_t(l.height));
    EXPECT_EQ(count_not(sheet, l.thumb(0), red), 0);
    EXPECT_EQ(count_not(sheet, l.thumb(1), kSheetEmptyThumb), 0);
    EXPECT_EQ(count_not(sheet, l.thumb(2), blue), 0);
    for (size_t i = 0; i < 3; ++i) {
        PixelRect label = l.label(i);
        EXPECT_GT(count_not(sheet, label, kSheetCellBackground), 50) << i;
    }
    EXPECT_GT(count_not(sheet, l.header(), kSheetBackground), 50);
    // The margin between the first two cells is untouched background.
    PixelRect gap{l.cell(0).x + l.cell_width, l.cell(0).y, l.margin, l.cell_height};
    EXPECT_EQ(count_not(sheet, gap, kSheetBackground), 0);
}

// The comparison's difference panel (image_difference): two synthetic images that differ at known
// pixels, by known amounts. On lavapipe every pair of the comparison reads 0, so only this test
// sees the count, the amplified colour and the position where they are not.
TEST(DifferencePanel, CountsColoursAndPlacesEachDifferingPixel) {
    const uint32_t grey = pack_rgba(90, 120, 150);
    RgbaImage a(7, 5, grey), b(7, 5, grey);
    // One step in green at (1, 2); 40 steps in red and 3 in blue at (6, 4), the last pixel; alpha
    // alone at (3, 0), which is not a colour difference.
    b.at(1, 2)[1] += 1;
    b.at(6, 4)[0] -= 40, b.at(6, 4)[2] += 3;
    b.at(3, 0)[3] = 7;
    ImageDifference d = image_difference(a, b);
    EXPECT_EQ(d.differing, 2u);
    ASSERT_EQ(d.amplified.width, 7u);
    ASSERT_EQ(d.amplified.height, 5u);
    // The largest channel difference, x16 over a floor of 64, in (v, v/4, v/2): a one-step
    // difference reads 80, 40 steps saturate.
    auto expected = [](uint32_t x, uint32_t y) {
        if (x == 1 && y == 2) return pack_rgba(80, 20, 40);
        if (x == 6 && y == 4) return pack_rgba(255, 63, 127);
        return pack_rgba(0, 0, 0);
    };
    for (uint32_t y = 0; y < 5; ++y)
        for (uint32_t x = 0; x < 7; ++x)
            EXPECT_EQ(hex(pixel(d.amplified, int(x), int(y))), hex(expected(x, y))) << "amplified pixel at " << x << "," << y;
    // Symmetric, and identical images give 0 and an all-black panel.
    EXPECT_EQ(image_difference(b, a).differing, 2u);
    ImageDifference same = image_difference(a, a);
    EXPECT_EQ(same.differing, 0u);
    EXPECT_EQ(count_not(same.amplified, {0, 0, 7, 5}, pack_rgba(0, 0, 0)), 0);
}

}  // namespace
