#include "scene/camera.h"

#include <algorithm>
#include <cmath>

#include <glm/gtc/matrix_transform.hpp>

glm::mat4 Camera::view() const { return glm::lookAt(position, target, glm::vec3(0.0f, 1.0f, 0.0f)); }

glm::mat4 Camera::projection(float aspect) const {
    // Swapping near and far in a [0,1]-depth projection gives reversed Z: better precision far away.
    glm::mat4 p = glm::perspectiveRH_ZO(fov_y, aspect, far_plane, near_plane);
    p[1][1] *= -1.0f;  // Vulkan's framebuffer y points down
    return p;
}

Camera default_camera(glm::vec3 bounds_min, glm::vec3 bounds_max) {
    Camera c;
    glm::vec3 center = 0.5f * (bounds_min + bounds_max);
    float radius = std::max(0.5f * glm::length(bounds_max - bounds_min), 1e-3f);
    float azimuth = glm::radians(35.0f), elevation = glm::radians(25.0f);
    glm::vec3 dir(std::cos(elevation) * std::sin(azimuth), std::sin(elevation), std::cos(elevation) * std::cos(azimuth));
    float distance = radius / std::sin(0.5f * c.fov_y) * 0.55f;  // inside the sphere: a flat scene fills the frame
    c.target = center;
    c.position = center + dir * distance;
    c.near_plane = std::max(distance - 1.5f * radius, distance * 0.01f);
    c.far_plane = distance + 1.5f * radius;
    return c;
}
