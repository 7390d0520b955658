// The CPU reference of the compute rasterizer's coverage (docs/raster.md, "Why the coverage is the
// hardware's"), the oracle of the raster tests: whether a triangle, given by its clip positions,
// covers a pixel's centre under the top-left rule in 8-bit sub-pixel fixed point, and its depth
// there. Written from the rule, not from raster.comp.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include <glm/glm.hpp>

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
