// The window's camera: orbit around a target with the mouse, zoom with the wheel, fly with WASD/QE.
// Plain math, no window system (tested without a window).
#pragma once

#include <glm/glm.hpp>

#include "scene/camera.h"

struct OrbitCamera {
    glm::vec3 target{0.0f};
    float yaw = 0.0f;    // radians around +Y; 0 looks from +Z towards -Z
    float pitch = 0.0f;  // radians above the horizon, kept inside (-89, 89) degrees
    float distance = 1.0f;
    float fov_y = glm::radians(50.0f);
    glm::vec3 scene_center{0.0f};
    float scene_radius = 1.0f;  // sets speeds and the depth range
    Camera home;                // the view reset() was given, returned exactly until the camera moves
    bool moved = false;

    // Starts from `view` (normally Renderer::default_view()), framing the scene bounds.
    void reset(const Camera& view, glm::vec3 bounds_min, glm::vec3 bounds_max);
    // Mouse drag in pixels: horizontal turns around the target, vertical tilts.
    void orbit(float dx, float dy);
    // Mouse drag in pixels: moves the target in the view plane so the scene follows the cursor.
    void pan(float dx, float dy, float viewport_height);
    // Wheel steps: positive moves closer to the target.
    void zoom(float steps);
    // Moves camera and target together: x right, y world up, z forward (along the view), in scene radii per second.
    void fly(glm::vec3 direction, float seconds);

    glm::vec3 position() const;
    glm::vec3 forward() const;  // unit vector from the camera to the target
    // `home` until the camera moves (so the window's frame equals the headless one bit for bit);
    // after that, near and far planes that enclose the scene from wherever the camera is.
    Camera camera() const;
};
