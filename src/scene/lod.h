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

// What the rule needs of the view (lod.glsl's LodView).
struct LodView {
    glm::mat4 view{1.0f};          // world -> view (camera at the origin looking down -z)
    float pixels_per_unit = 1.0f;  // f: pixels a unit length covers at depth 1 on the centre line
    float corner_stretch = 1.0f;   // |p| / z in the frame's corners: sqrt(1 + 1/P00^2 + 1/P11^2)
};
// From the camera's view and projection matrices and the frame's size in pixels.
LodView lod_view(const glm::mat4& view, const glm::mat4& projection, glm::uvec2 size);

// The coarsest level whose error, scaled by the model, moves no point of the draw's bounding
// sphere that is on screen by more than max_error_px pixels (docs/lod.md, "The bound"): the error
// projected at the sphere's nearest view depth, times the largest |p| / z of its points on
// screen. max_error_px 0 (--lod off): level 0.
uint32_t choose_lod_level(const LodDraw& draw, const LodView& view, float max_error_px);

// The --lod auto threshold: a quarter pixel of the simplifier's error. Its error is an estimate
// that fell short of the measured distance to level 0 by up to 7x on the bundled scene, and at
// 1280x720 with --instances 5 a whole pixel of it flipped enough edge pixels to drop the frame to
// 31.9 dB against --lod off; a quarter keeps 36.4 dB (docs/lod.md, "Image quality").
constexpr float kLodMaxErrorPixels = 0.25f;
