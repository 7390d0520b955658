// The CPU reference of the compute rasterizer's coverage (docs/raster.md, "Why the coverage is the
// hardware's"), the oracle of the raster tests: whether a triangle, given by its clip positions,
// covers a pixel's centre under the top-left rule in 8-bit sub-pixel fixed point, and its depth
// there. Written from the rule, not from raster.comp. And the comparison of the two rasterizers'
// ids that the indexed and the meshlet raster tests share (compare_ids).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "render/frame.h"  // kNoTriangle

struct Cover {
    bool covered = false;
    double depth = 0.0;
};

inline Cover cover_at(const glm::vec4 clip[3], uint32_t width, uint32_t height, int px, int py) {
    glm::dvec3 w[3];
    for (int i = 0; i < 3; ++i) {
        if (clip[i].w <= 0.0f) return {};  // (the comparison never names such a triangle at a tie)
        w[i] = {(double(clip[i].x) / clip[i].w * 0.5 + 0.5) * width, (double(clip[i].y) / clip[i].w * 0.5 + 0.5) * height,
                double(clip[i].z) / clip[i].w};
    }
    int64_t f[3][2];
    for (int i = 0; i < 3; ++i)
        for (int c = 0; c < 2; ++c) f[i][c] = int64_t(std::nearbyint(w[i][c] * 256.0));
    int64_t cross = (f[1][0] - f[0][0]) * (f[2][1] - f[0][1]) - (f[1][1] - f[0][1]) * (f[2][0] - f[0][0]);
    if (cross >= 0) return {};  // back face (counter-clockwise front, y down) or no area
    int order[3] = {0, 2, 1};  // wound so that the inside is E >= 0
    int64_t cx = int64_t(px) * 256 + 128, cy = int64_t(py) * 256 + 128;
    for (int e = 0; e < 3; ++e) {
        const int64_t* a = f[order[e]];
        const int64_t* b = f[order[(e + 1) % 3]];
        int64_t dx = b[0] - a[0], dy = b[1] - a[1];
        int64_t value = dx * (cy - a[1]) - dy * (cx - a[0]);
        bool top_left = dy < 0 || (dy == 0 && dx > 0);
        if (value < 0 || (value == 0 && !top_left)) return {};
    }
    // The depth: the plane through the snapped vertices at the centre, clamped to the triangle's
    // depth range (what the hardware interpolates: positions are snapped before rasterization).
    double abx = double(f[2][0] - f[0][0]), aby = double(f[2][1] - f[0][1]), acx = double(f[1][0] - f[0][0]),
           acy = double(f[1][1] - f[0][1]);
    double abz = w[2].z - w[0].z, acz = w[1].z - w[0].z;
    double det = abx * acy - aby * acx;
    double dzdx = (abz * acy - acz * aby) / det, dzdy = (acz * abx - abz * acx) / det;
    double depth = w[0].z + dzdx * double(cx - f[0][0]) + dzdy * double(cy - f[0][1]);
    return {true, std::clamp(depth, std::min({w[0].z, w[1].z, w[2].z}), std::max({w[0].z, w[1].z, w[2].z}))};
}

// The hardware and the compute rasterizer's ids of one frame, pixel by pixel (two words a pixel:
// the draw, kNoTriangle where none, and the triangle's name), as the raster tests compare them.
struct Comparison {
    int covered = 0;     // pixels the hardware covered
    int same = 0;        // of them, naming the same triangle
    int ties = 0;        // differing, both triangles cover the centre at the same depth
    int frame_edge = 0;  // differing, not a tie, one of the two reaching past the frame's edge
    std::string untied;  // the first differing pixel that is not a tie, and how many
};

// same(p): whether both name the same triangle at pixel p (the names may index different lists);
// cover(side, draw, name, x, y): the CPU reference's Cover of a triangle of side 0 (the hardware's
// ids) or 1 (the compute rasterizer's); crosses(side, draw, name): whether that triangle reaches
// past the frame's edge, where lavapipe's hardware clips it and its neighbour may take a pixel.
template <class Same, class CoverOf, class Crosses>
Comparison compare_ids(const std::vector<uint32_t>& hardware, const std::vector<uint32_t>& compute, uint32_t width,
                       Same same, CoverOf cover, Crosses crosses) {
    Comparison c;
    int untied = 0;
    for (size_t p = 0; p < hardware.size() / 2; ++p) {
        uint32_t hd = hardware[2 * p], hn = hardware[2 * p + 1], cd = compute[2 * p], cn = compute[2 * p + 1];
        if (hd != kNoTriangle) ++c.covered;
        if (same(p)) {
            if (hd != kNoTriangle) ++c.same;
            continue;
        }
        int x = int(p % width), y = int(p / width);
        bool tie = false;
        if (hd != kNoTriangle && cd != kNoTriangle) {
            Cover h = cover(0, hd, hn, x, y), k = cover(1, cd, cn, x, y);
            tie = h.covered && k.covered && std::abs(h.depth - k.depth) <= 1e-6 * std::max(h.depth, 1e-3);
        }
        bool frame_edge = !tie && ((hd != kNoTriangle && crosses(0, hd, hn)) || (cd != kNoTriangle && crosses(1, cd, cn)));
        if (tie) {
            ++c.ties;
        } else if (frame_edge) {
            ++c.frame_edge;
        } else if (untied++ == 0) {
            c.untied = "pixel (" + std::to_string(x) + ", " + std::to_string(y) + "): hardware (" + std::to_string(hd) + ", " +
                       std::to_string(hn) + "), compute (" + std::to_string(cd) + ", " + std::to_string(cn) + ")";
        }
    }
    if (untied) c.untied = std::to_string(untied) + " differing pixels are not depth ties, first " + c.untied;
    return c;
}
