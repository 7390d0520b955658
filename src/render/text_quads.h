// Text as axis-aligned rectangles, from stb_easy_font: the one text path of the HUD (Overlay), the
// comparison sheet (compare/sheet.cpp) and tools/png_sheet.cpp. Plain CPU code, no Vulkan.
#pragma once

#include <string>
#include <string_view>
#include <vector>

struct TextQuad {
    float x0, y0, x1, y1;  // font units (about 7 per line of capitals), origin at the text's top-left
};

// stb_easy_font indexes a table by (c - 32) without checking: anything outside printable ASCII
// becomes '?'.
std::string printable_text(std::string_view text);

// Every stroke of `text` (printable_text applied). Never truncated: stb_easy_font silently stops
// when its output buffer fills, so the buffer is sized for the widest glyph and checked.
std::vector<TextQuad> text_quads(std::string_view text);

// stb_easy_font's width and height of the text, in font units.
int text_units_wide(std::string_view text);
int text_units_high(std::string_view text);
