#include "oracles/light_reference.h"

#include <algorithm>
#include <cmath>

#include <glm/glm.hpp>

namespace {

// Reversed Z of glm::perspectiveRH_ZO(fov, aspect, far, near) (src/scene/camera.cpp): a point at
// view distance d (view z = -d) gets depth = n (f - d) / ((f - n) d); solved for d.
double view_distance(double depth, double n, double f) { return n * f / (depth * (f - n) + n); }

}  // namespace

ReferenceLists reference_light_lists(const FrameUniforms& frame, const std::vector<GpuLight>& lights,
                                     const std::vector<float>& depth, uint32_t tile_size, double tolerance) {
    const uint32_t width = frame.sizes.x, height = frame.sizes.y;
    const uint32_t tiles_x = (width + tile_size - 1) / tile_size, tiles_y = (height + tile_size - 1) / tile_size;
    const double n = frame.projection.z, f = frame.projection.w;
    const double p00 = frame.projection.x, p11 = frame.projection.y;

    // Light centres in view space, once.
    glm::dmat4 view(frame.view);
    std::vector<glm::dvec3> centers(lights.size());
    for (size_t i = 0; i < lights.size(); ++i)
        centers[i] = glm::dvec3(view * glm::dvec4(glm::dvec3(lights[i].position_radius), 1.0));

    ReferenceLists result;
    result.tiles.resize(size_t(tiles_x) * tiles_y);
    for (uint32_t ty = 0; ty < tiles_y; ++ty)
        for (uint32_t tx = 0; tx < tiles_x; ++tx) {
            ReferenceTile& tile = result.tiles[size_t(ty) * tiles_x + tx];
            uint32_t x0 = tx * tile_size, y0 = ty * tile_size;
            uint32_t x1 = std::min(x0 + tile_size, width), y1 = std::min(y0 + tile_size, height);
            float depth_min = 2.0f, depth_max = 0.0f;
            for (uint32_t y = y0; y < y1; ++y)
                for (uint32_t x = x0; x < x1; ++x) {
                    float d = depth[size_t(y) * width + x];
                    if (d <= 0.0f) continue;  // background: cleared to 0, never shaded
                    depth_min = std::min(depth_min, d);
                    depth_max = std::max(depth_max, d);
                }
            tile.has_geometry = depth_max > 0.0f;
            if (!tile.has_geometry) continue;

            // The tile's frustum between the nearest and farthest geometry, and its view-space box.
            double d_near = view_distance(depth_max, n, f), d_far = view_distance(depth_min, n, f);
            glm::dvec2 ndc0(2.0 * x0 / width - 1.0, 2.0 * y0 / height - 1.0);
            glm::dvec2 ndc1(2.0 * x1 / width - 1.0, 2.0 * y1 / height - 1.0);
            glm::dvec3 lo(1e300), hi(-1e300);
            for (double d : {d_near, d_far})
                for (glm::dvec2 ndc : {ndc0, ndc1, glm::dvec2(ndc0.x, ndc1.y), glm::dvec2(ndc1.x, ndc0.y)}) {
                    // Unprojection: x_view = ndc_x * d / P[0][0], y_view = ndc_y * d / P[1][1], z_view = -d.
                    glm::dvec3 corner(ndc.x * d / p00, ndc.y * d / p11, -d);
                    lo = glm::min(lo, corner);
                    hi = glm::max(hi, corner);
                }

            for (uint32_t i = 0; i < lights.size(); ++i) {
                glm::dvec3 c = centers[i];
                glm::dvec3 outside = glm::max(lo - c, glm::dvec3(0.0)) + glm::max(c - hi, glm::dvec3(0.0));
                double distance = glm::length(outside);
                double radius = lights[i].position_radius.w;
                if (std::abs(distance - radius) < tolerance) {
                    tile.borderline.push_back(i);
                    ++result.borderline_pairs;
                } else if (distance < radius) {
                    tile.lights.push_back(i);
                    ++result.pairs;
                }
            }
        }
    return result;
}
