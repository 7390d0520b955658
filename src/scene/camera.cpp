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

std::optional<CameraView> parse_camera_view(std::string_view name) {
    if (name == "overview") return CameraView::overview;
    if (name == "street") return CameraView::street;
    return std::nullopt;
}

std::string_view camera_view_name(CameraView v) { return v == CameraView::street ? "street" : "overview"; }

Camera street_camera(glm::vec3 bounds_min, glm::vec3 bounds_max, uint32_t grid) {
    // The grid grows the copy's extent e by (n - 1) spacings of 1.2 max(e.x, e.z) on x and z, so
    // the larger grown side gives the copy's larger side back.
    float n = float(std::max(grid, 1u));
    glm::vec3 size = bounds_max - bounds_min;
    float copy = std::max(std::max(size.x, size.z) / (1.0f + 1.2f * (n - 1.0f)), 1e-3f);
    float spacing = 1.2f * copy;
    glm::vec3 center = 0.5f * (bounds_min + bounds_max);
    // Rows of copies are centred at center.z + (k - (n - 1) / 2) spacing; the street between the
    // two middle rows (k = n/2 - 1 and n/2) runs along x. One copy: its middle.
    float street_z = grid > 1 ? center.z + (std::floor(n / 2.0f) - 0.5f - 0.5f * (n - 1.0f)) * spacing : center.z;
    float eye = bounds_min.y + 0.04f * copy;
    Camera c;
    c.position = glm::vec3(bounds_min.x - 0.02f * copy, eye, street_z);
    c.target = glm::vec3(bounds_max.x, eye, street_z);
    c.near_plane = 0.002f * copy;
    c.far_plane = glm::length(size) * 1.1f + copy;
    return c;
}

Camera camera_for(CameraView v, glm::vec3 bounds_min, glm::vec3 bounds_max, uint32_t grid) {
    return v == CameraView::street ? street_camera(bounds_min, bounds_max, grid) : default_camera(bounds_min, bounds_max);
}
