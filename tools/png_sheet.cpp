// png-sheet: lays PNG screenshots out on one labelled sheet (each tile titled with its file name),
// so a batch of debug-view screenshots travels as one file. Optional crop and integer zoom per
// tile, for looking at lanes pixel by pixel. Only stb (Debian's libstb-dev), no other packages.
//
//   png-sheet OUT.png [--columns N] [--crop X,Y,W,H] [--zoom K] IN.png...
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "render/text_quads.h"
#include <stb/stb_image.h>
#include <stb/stb_image_write.h>

namespace {

struct Rgba {
    int width = 0, height = 0;
    std::vector<uint8_t> pixels;
    uint8_t* at(int x, int y) { return &pixels[(size_t(y) * width + x) * 4]; }
};

void fill(Rgba& img, int x0, int y0, int w, int h, const uint8_t colour[3]) {
    for (int y = std::max(0, y0); y < std::min(img.height, y0 + h); ++y)
        for (int x = std::max(0, x0); x < std::min(img.width, x0 + w); ++x) {
            uint8_t* p = img.at(x, y);
            p[0] = colour[0], p[1] = colour[1], p[2] = colour[2], p[3] = 255;
        }
}

void text(Rgba& img, int x, int y, const std::string& s, int scale) {
    const uint8_t white[3] = {255, 255, 255};
    for (const TextQuad& q : text_quads(s))
        fill(img, x + int(q.x0) * scale, y + int(q.y0) * scale, int(q.x1 - q.x0) * scale, int(q.y1 - q.y0) * scale, white);
}

std::string stem(const std::string& path) {
    std::string name = path.substr(path.find_last_of('/') + 1);
    return name.substr(0, name.rfind(".png"));
}

int usage() {
    fprintf(stderr, "usage: png-sheet OUT.png [--columns N] [--crop X,Y,W,H] [--zoom K] IN.png...\n");
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) return usage();
    std::string out = argv[1];
    int columns = 0, zoom = 1, crop[4] = {0, 0, 0, 0};
    std::vector<std::string> inputs;
    for (int i = 2; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--columns" && i + 1 < argc) columns = atoi(argv[++i]);
        else if (a == "--zoom" && i + 1 < argc) zoom = std::max(1, atoi(argv[++i]));
        else if (a == "--crop" && i + 1 < argc) {
            if (sscanf(argv[++i], "%d,%d,%d,%d", &crop[0], &crop[1], &crop[2], &crop[3]) != 4) return usage();
        } else inputs.push_back(a);
    }
    if (inputs.empty()) return usage();
    if (columns <= 0) columns = std::min<int>(int(inputs.size()), 3);

    std::vector<Rgba> tiles;
    for (const std::string& path : inputs) {
        Rgba src;
        int channels = 0;
        uint8_t* data = stbi_load(path.c_str(), &src.width, &src.height, &channels, 4);
        if (!data) {
            fprintf(stderr, "error: cannot read %s: %s\n", path.c_str(), stbi_failure_reason());
            return 3;
        }
        src.pixels.assign(data, data + size_t(src.width) * src.height * 4);
        stbi_image_free(data);
        int cx = std::clamp(crop[0], 0, src.width - 1), cy = std::clamp(crop[1], 0, src.height - 1);
        int cw = crop[2] > 0 ? std::min(crop[2], src.width - cx) : src.width - cx;
        int ch = crop[3] > 0 ? std::min(crop[3], src.height - cy) : src.height - cy;
        Rgba tile;
        tile.width = cw * zoom;
        tile.height = ch * zoom;
        tile.pixels.resize(size_t(tile.width) * tile.height * 4);
        for (int y = 0; y < tile.height; ++y)
            for (int x = 0; x < tile.width; ++x) std::copy_n(src.at(cx + x / zoom, cy + y / zoom), 4, tile.at(x, y));
        tiles.push_back(std::move(tile));
    }

    int cell_w = 0, cell_h = 0;
    for (const Rgba& t : tiles) cell_w = std::max(cell_w, t.width), cell_h = std::max(cell_h, t.height);
    const int text_scale = cell_w >= 480 ? 2 : 1, title = 12 * text_scale, gap = 4;
    int rows = (int(tiles.size()) + columns - 1) / columns;
    Rgba sheet;
    sheet.width = columns * (cell_w + gap) + gap;
    sheet.height = rows * (cell_h + title + gap) + gap;
    sheet.pixels.resize(size_t(sheet.width) * sheet.height * 4);
    const uint8_t background[3] = {24, 24, 28};
    fill(sheet, 0, 0, sheet.width, sheet.height, background);
    for (size_t i = 0; i < tiles.size(); ++i) {
        int x0 = gap + int(i % columns) * (cell_w + gap), y0 = gap + int(i / columns) * (cell_h + title + gap);
        text(sheet, x0 + 2, y0 + 2 * text_scale, stem(inputs[i]), text_scale);
        for (int y = 0; y < tiles[i].height; ++y)
            std::copy_n(tiles[i].at(0, y), size_t(tiles[i].width) * 4, sheet.at(x0, y0 + title + y));
    }
    if (!stbi_write_png(out.c_str(), sheet.width, sheet.height, 4, sheet.pixels.data(), sheet.width * 4)) {
        fprintf(stderr, "error: cannot write %s\n", out.c_str());
        return 1;
    }
    printf("%s: %d tiles, %dx%d\n", out.c_str(), int(tiles.size()), sheet.width, sheet.height);
    return 0;
}
