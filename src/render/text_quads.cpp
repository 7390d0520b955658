#include "render/text_quads.h"

#include <cstring>

#include <stb/stb_easy_font.h>

namespace {

// stb_easy_font writes 4 vertices of 16 bytes (x, y, z, colour) per quad. A glyph takes up to 11
// quads ('X' is the worst: 704 bytes); the average is about 270, which is why buffers of 300 bytes
// a glyph lost strokes of text heavy in wide glyphs.
constexpr size_t kQuadBytes = 64;
constexpr size_t kMaxGlyphQuads = 11;

}  // namespace

std::string printable_text(std::string_view text) {
    std::string s(text);
    for (char& c : s)
        if (c < 32 || c > 126) c = '?';
    return s;
}

std::vector<TextQuad> text_quads(std::string_view text) {
    std::string s = printable_text(text);
    // One quad more than the worst case: a full buffer would mean stb_easy_font may have stopped early.
    std::vector<char> buffer((s.size() * kMaxGlyphQuads + 1) * kQuadBytes);
    int quads = stb_easy_font_print(0, 0, s.data(), nullptr, buffer.data(), int(buffer.size()));
    std::vector<TextQuad> out(size_t(quads > 0 ? quads : 0));
    for (size_t q = 0; q < out.size(); ++q) {
        float corner0[2], corner2[2];  // vertices 0 and 2 span the quad
        memcpy(corner0, buffer.data() + q * kQuadBytes, sizeof(corner0));
        memcpy(corner2, buffer.data() + q * kQuadBytes + 32, sizeof(corner2));
        out[q] = {corner0[0], corner0[1], corner2[0], corner2[1]};
    }
    return out;
}

int text_units_wide(std::string_view text) {
    std::string s = printable_text(text);
    return stb_easy_font_width(s.data());
}

int text_units_high(std::string_view text) {
    std::string s = printable_text(text);
    return stb_easy_font_height(s.data());
}
