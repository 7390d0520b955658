// Deterministic animated point lights: a pure function of (count, frame, scene bounds), so the
// renderer and the tests' CPU references agree exactly.
#pragma once

#include <cstdint>
#include <vector>

#include <glm/glm.hpp>

struct PointLight {
    glm::vec3 position;
    float radius;
    glm::vec3 color;
};

std::vector<PointLight> animate_lights(uint32_t count, uint32_t frame, glm::vec3 bounds_min, glm::vec3 bounds_max);
