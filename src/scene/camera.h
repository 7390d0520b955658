// The default view of a scene: fitted to its bounds, the same for every run.
#pragma once

#include <glm/glm.hpp>

struct Camera {
    glm::vec3 position{0.0f};
    glm::vec3 target{0.0f};
    float fov_y = glm::radians(50.0f);
    float near_plane = 0.1f;
    float far_plane = 100.0f;

    glm::mat4 view() const;
    // Reversed Z (depth 1 at the near plane, 0 at the far plane), Vulkan clip space (y down).
    glm::mat4 projection(float aspect) const;
};

Camera default_camera(glm::vec3 bounds_min, glm::vec3 bounds_max);
