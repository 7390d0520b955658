// The default view of a scene: fitted to its bounds, the same for every run.
#pragma once

#include <cstdint>

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

#include <optional>
#include <string_view>

Camera default_camera(glm::vec3 bounds_min, glm::vec3 bounds_max);

// --camera: the fitted view from above (overview), or eye height down a street (docs/occlusion.md).
enum class CameraView { overview, street };
std::optional<CameraView> parse_camera_view(std::string_view name);
std::string_view camera_view_name(CameraView v);
// At eye height (4% of a copy's size above the floor), at the grid's -x edge, looking along +x
// down the street between the middle rows of the --instances grid (grid copies spaced 1.2x the
// copy's larger horizontal extent, scene/scene.cpp); with one copy, through its middle.
Camera street_camera(glm::vec3 bounds_min, glm::vec3 bounds_max, uint32_t grid);
Camera camera_for(CameraView v, glm::vec3 bounds_min, glm::vec3 bounds_max, uint32_t grid);
