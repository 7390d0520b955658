// The one text path (src/render/text_quads.h) that the HUD, the comparison sheet and png-sheet
// draw with: worst-case strings come out whole.
#include <gtest/gtest.h>

#include <string>

#include "compare/sheet.h"
#include "render/text_quads.h"

namespace {

// The oracle: each glyph printed on its own, where no buffer can run short.
size_t strokes_one_by_one(const std::string& text) {
    size_t n = 0;
    for (char c : text) n += text_quads(std::string(1, c)).size();
    return n;
}

TEST(Text, WorstCaseGlyphsAreDrawnWhole) {
    // 'X' has the most strokes of any glyph; a buffer of 300 bytes a glyph (the old size) held
    // fewer than half of them.
    std::string xs(500, 'X');
    EXPECT_EQ(text_quads(xs).size(), strokes_one_by_one(xs));
    EXPECT_EQ(text_quads(xs).size(), 500 * text_quads("X").size());
    std::string every;
    for (char c = 32; c < 127; ++c) every += c;
    EXPECT_EQ(text_quads(every).size(), strokes_one_by_one(every));
}

TEST(Text, UnprintableBytesBecomeQuestionMarks) {
    EXPECT_EQ(printable_text(std::string("a\x01\xff", 3)), "a??");
    EXPECT_EQ(text_quads(std::string("\x01", 1)).size(), text_quads("?").size());
}

TEST(Text, TheSheetDrawsTheLastGlyphOfALongLine) {
    // The last 'X' of a long line must land on the sheet exactly as an 'X' drawn alone there.
    std::string xs(120, 'X');
    int last_x = text_width(xs.substr(0, xs.size() - 1), 1);
    RgbaImage line(uint32_t(text_width(xs, 1) + 8), 16), alone(uint32_t(text_width(xs, 1) + 8), 16);
    draw_text(line, 0, 2, xs, 0xffffffffu, 1);
    draw_text(alone, last_x, 2, "X", 0xffffffffu, 1);
    int lit = 0;
    for (uint32_t y = 0; y < alone.height; ++y)
        for (uint32_t x = uint32_t(last_x); x < alone.width; ++x)
            if (alone.at(x, y)[0]) {
                ++lit;
                EXPECT_EQ(line.at(x, y)[0], 255) << x << "," << y;
            }
    EXPECT_GT(lit, 10);
}

}  // namespace
