#include "window/camera_control.h"

#include <algorithm>
#include <cmath>

namespace {

constexpr float kMaxPitch = glm::radians(89.0f);
constexpr float kRadiansPerPixel = 0.005f;
constexpr float kZoomPerStep = 0.85f;

}  // namespace

void OrbitCamera::reset(const Camera& view, glm::vec3 bounds_min, glm::vec3 bounds_max) {
    home = view;
    moved = false;
    scene_center = 0.5f * (bounds_min + bounds_max);
    scene_radius = std::max(0.5f * glm::length(bounds_max - bounds_min), 1e-3f);
    target = view.target;
    fov_y = view.fov_y;
    glm::vec3 offset = view.position - view.target;
    distance = std::max(glm::length(offset), 1e-6f);
    glm::vec3 dir = offset / distance;
    pitch = std::clamp(std::asin(std::clamp(dir.y, -1.0f, 1.0f)), -kMaxPitch, kMaxPitch);
    yaw = std::atan2(dir.x, dir.z);
}

void OrbitCamera::orbit(float dx, float dy) {
    if (dx == 0 && dy == 0) return;
    moved = true;
    yaw -= dx * kRadiansPerPixel;
    pitch = std::clamp(pitch + dy * kRadiansPerPixel, -kMaxPitch, kMaxPitch);
}

void OrbitCamera::pan(float dx, float dy, float viewport_height) {
    // One pixel at the target's depth spans this many world units.
    if (dx == 0 && dy == 0) return;
    moved = true;
    float units_per_pixel = 2.0f * distance * std::tan(0.5f * fov_y) / std::max(viewport_height, 1.0f);
    glm::vec3 f = forward();
    glm::vec3 right = glm::normalize(glm::cross(f, glm::vec3(0, 1, 0)));
    glm::vec3 up = glm::cross(right, f);
    target += (-dx * right + dy * up) * units_per_pixel;
}

void OrbitCamera::zoom(float steps) {
    if (steps == 0) return;
    moved = true;
    distance = std::clamp(distance * std::pow(kZoomPerStep, steps), scene_radius * 1e-3f, scene_radius * 100.0f);
}

void OrbitCamera::fly(glm::vec3 direction, float seconds) {
    if (direction == glm::vec3(0.0f) || seconds == 0) return;
    moved = true;
    glm::vec3 f = forward();
    glm::vec3 right = glm::normalize(glm::cross(f, glm::vec3(0, 1, 0)));
    glm::vec3 move = direction.x * right + direction.y * glm::vec3(0, 1, 0) + direction.z * f;
    target += move * (scene_radius * 0.5f * seconds);
}

glm::vec3 OrbitCamera::forward() const {
    glm::vec3 dir(std::cos(pitch) * std::sin(yaw), std::sin(pitch), std::cos(pitch) * std::cos(yaw));
    return -dir;
}

glm::vec3 OrbitCamera::position() const { return target - forward() * distance; }

Camera OrbitCamera::camera() const {
    if (!moved) return home;
    Camera c;
    c.fov_y = fov_y;
    c.target = target;
    c.position = position();
    // The same depth range rule as default_camera(), from the camera's distance to the scene centre,
    // with the near plane kept positive when the camera flies into the scene (reversed Z keeps the precision).
    float d = glm::length(c.position - scene_center);
    c.far_plane = d + 1.5f * scene_radius;
    c.near_plane = std::max(d - 1.5f * scene_radius, std::max(d * 0.01f, scene_radius * 1e-3f));
    return c;
}
