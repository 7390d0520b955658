// Levels of detail (docs/lod.md): a chain of simplified index lists per mesh, built once at load
// with meshoptimizer's simplifier, and the rule that picks one per instance each frame (the GPU
// runs the same rule in shaders/lod.glsl; this is its CPU mirror for the tests). No Vulkan.
#pragma once

#include <cstdint>

#include <glm/glm.hpp>

#include "scene/scene.h"

// Appends each mesh's coarser levels to scene.indices and fills Mesh::lods, lod_count and
// bounding_sphere. A level keeps about half the triangles of the one before; the chain stops
// when a level no longer shrinks (more than 90% of the one before), at about 1/64 of level 0,
// or at kMaxLodLevels. Borders are locked, so the seams between meshes do not open. Call before
// replicate_grid (which copies the levels with the meshes).
void build_lod_chain(Scene& scene);

// What the level choice needs of one draw.
struct LodDraw {
    glm::mat4 model{1.0f};
    glm::vec4 bounding_sphere{0.0f};  // object space
    const float* errors = nullptr;    // object-space error per level (errors[0] is 0)
    uint32_t level_count = 1;
};

// The coarsest level whose error, scaled by the model and projected at the nearest point of the
// draw's bounding sphere, is at most max_error_px pixels. pixels_per_unit: P[1][1] * height / 2
// (a length of 1 at distance 1 covers that many pixels). max_error_px 0 (--lod off): level 0.
uint32_t choose_lod_level(const LodDraw& draw, glm::vec3 camera_position, float pixels_per_unit, float max_error_px);

// The default --lod auto threshold: one pixel.
constexpr float kLodMaxErrorPixels = 1.0f;
