// The oracle of the level-of-detail rule (docs/lod.md, "The bound"), by brute force and without the
// rule's formula: how far, in pixels, a level's error can move a point of a draw on screen. Used by
// the unit test of the rule (tests/test_lod.cpp) and by the GPU test of the levels the shaders pick
// (tests/gpu/test_lod.cpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include <glm/glm.hpp>

// The largest distance, in pixels, between the screen positions of two points of a sphere that lie
// `error` apart, both on screen: what a level whose points lie within `error` of the full mesh's can
// move a point of the draw by, where the draw shows (both surfaces lie inside the bounding sphere).
// Over a grid of points inside the sphere and points on its surface, each moved in 98 directions;
// projected in double precision through view_proj, as the rasterizer maps clip space to pixels.
inline double largest_error_pixels(glm::dvec3 centre, double radius, double error, const glm::dmat4& view_proj,
                                   glm::dvec2 size) {
    auto fibonacci = [](int n) {
        std::vector<glm::dvec3> d;
        for (int i = 0; i < n; ++i) {
            double y = 1.0 - 2.0 * (i + 0.5) / n, r = std::sqrt(1.0 - y * y), phi = i * M_PI * (3.0 - std::sqrt(5.0));
            d.push_back({r * std::cos(phi), y, r * std::sin(phi)});
        }
        return d;
    };
    static const std::vector<glm::dvec3> directions = fibonacci(98), surface = fibonacci(64);
    std::vector<glm::dvec3> points;
    const int n = 6;  // grid points per axis over the sphere's cube
    for (int i = 0; i <= n; ++i)
        for (int j = 0; j <= n; ++j)
            for (int k = 0; k <= n; ++k) {
                glm::dvec3 offset = glm::dvec3(i, j, k) * (2.0 / n) - 1.0;
                if (glm::length(offset) <= 1.0) points.push_back(centre + radius * offset);
            }
    for (glm::dvec3 d : surface) points.push_back(centre + radius * (1.0 - 1e-9) * d);

    auto on_screen = [&](glm::dvec3 p, glm::dvec2& pixel) {
        glm::dvec4 clip = view_proj * glm::dvec4(p, 1.0);
        if (clip.w <= 0.0 || std::abs(clip.x) > clip.w || std::abs(clip.y) > clip.w || clip.z < 0.0 || clip.z > clip.w)
            return false;
        pixel = (glm::dvec2(clip) / clip.w * 0.5 + 0.5) * size;
        return true;
    };
    double largest = 0.0;
    for (glm::dvec3 p : points) {
        glm::dvec2 a, b;
        if (!on_screen(p, a)) continue;
        for (glm::dvec3 d : directions) {
            glm::dvec3 q = p + error * d;
            if (glm::length(q - centre) <= radius && on_screen(q, b)) largest = std::max(largest, glm::length(b - a));
        }
    }
    return largest;
}
