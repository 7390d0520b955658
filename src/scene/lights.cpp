#include "scene/lights.h"

#include <algorithm>
#include <cmath>

namespace {

// Integer hash to [0,1): the same on every machine, unlike std::rand or <random> distributions.
float hash01(uint32_t x) {
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return float(x >> 8) * (1.0f / 16777216.0f);
}

glm::vec3 hue(float h) {
    glm::vec3 c = glm::abs(glm::fract(glm::vec3(h) + glm::vec3(0.0f, 2.0f / 3.0f, 1.0f / 3.0f)) * 6.0f - 3.0f) - 1.0f;
    return glm::clamp(c, 0.0f, 1.0f);
}

// Inverse of interleaving x and y bits (Morton / Z-order): code -> (x, y).
uint32_t compact_bits(uint32_t x) {
    x &= 0x55555555u;
    x = (x | (x >> 1)) & 0x33333333u;
    x = (x | (x >> 2)) & 0x0f0f0f0fu;
    x = (x | (x >> 4)) & 0x00ff00ffu;
    x = (x | (x >> 8)) & 0x0000ffffu;
    return x;
}

}  // namespace

std::vector<PointLight> animate_lights(uint32_t count, uint32_t frame, glm::vec3 bounds_min, glm::vec3 bounds_max) {
    std::vector<PointLight> lights(count);
    glm::vec3 extent = glm::max(bounds_max - bounds_min, glm::vec3(1e-3f));
    float footprint = std::max(extent.x, extent.z);
    // Radius shrinks as lights multiply, so a tile sees a similar number of them at any count.
    float radius = footprint * 0.14f / std::sqrt(std::max(1.0f, float(count) / 64.0f));
    radius = std::max(radius, footprint * 0.012f);
    float time = float(frame) / 60.0f;
    // Anchors in spatial order: light i sits in cell floor((i + 0.5) * G^2 / count) of a G x G grid
    // (G^2 >= count) walked along the Morton curve, jittered inside the cell. Neighbouring indices
    // are neighbours on the floor, as a renderer that sorts its lights leaves them; light culling
    // tests lights in index order, so a subgroup's lanes then tend to agree (see docs/light-lists.md).
    uint32_t grid = 1;
    while (uint64_t(grid) * grid < count) grid *= 2;
    const double cells = double(grid) * grid;
    for (uint32_t i = 0; i < count; ++i) {
        float w = hash01(i * 4 + 2), s = hash01(i * 4 + 3);
        uint32_t cell = uint32_t((double(i) + 0.5) * cells / double(count));
        float u = (float(compact_bits(cell)) + hash01(i * 4 + 0)) / float(grid);
        float v = (float(compact_bits(cell >> 1)) + hash01(i * 4 + 1)) / float(grid);
        glm::vec3 anchor = bounds_min + glm::vec3(u, 0.0f, v) * extent;
        anchor.y = bounds_min.y + extent.y * (0.05f + 0.35f * w);
        float orbit = radius * (0.3f + 0.7f * s);
        float phase = 6.2831853f * w + time * (0.4f + 0.8f * s) * (i % 2 ? 1.0f : -1.0f);
        PointLight& l = lights[i];
        l.position = anchor + glm::vec3(std::cos(phase) * orbit, 0.25f * orbit * std::sin(2.0f * phase), std::sin(phase) * orbit);
        l.radius = radius * (0.7f + 0.6f * hash01(i * 7 + 5));
        l.color = hue(hash01(i * 13 + 11)) * 2.5f + glm::vec3(0.3f);
    }
    return lights;
}
