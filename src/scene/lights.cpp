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

}  // namespace

std::vector<PointLight> animate_lights(uint32_t count, uint32_t frame, glm::vec3 bounds_min, glm::vec3 bounds_max) {
    std::vector<PointLight> lights(count);
    glm::vec3 extent = glm::max(bounds_max - bounds_min, glm::vec3(1e-3f));
    float footprint = std::max(extent.x, extent.z);
    // Radius shrinks as lights multiply, so a tile sees a similar number of them at any count.
    float radius = footprint * 0.14f / std::sqrt(std::max(1.0f, float(count) / 64.0f));
    radius = std::max(radius, footprint * 0.012f);
    float time = float(frame) / 60.0f;
    for (uint32_t i = 0; i < count; ++i) {
        float u = hash01(i * 4 + 0), v = hash01(i * 4 + 1), w = hash01(i * 4 + 2), s = hash01(i * 4 + 3);
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
