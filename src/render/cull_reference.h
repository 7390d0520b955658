// CPU reference of the cull pass's triangle tests, written from the maths in docs/culling.md
// (not from the shader): the oracle the GPU tests compare the cull pass against, triangle by
// triangle, and the source of the per-test counts in the docs.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include <glm/glm.hpp>

#include "render/gpu_types.h"
#include "scene/scene.h"

// Why a triangle is rejected; the tests run in this order and the first that rejects names it.
enum class CullResult : uint32_t { visible, degenerate, frustum, backface, small, count };
const char* cull_result_name(CullResult result);

struct CullParams {
    glm::vec2 viewport{0.0f};  // framebuffer size, pixels
    float snap_px = 0.0f;      // how far the rasterizer's vertex may be from ours, pixels
    float frustum_eps = 0.0f;  // outside a clip plane means beyond frustum_eps * |w|
};

// A vertex is outside a clip plane only beyond this fraction of |w|.
constexpr float kFrustumEps = 1.0f / 16384.0f;

// The rasterizer snaps vertices to a grid of 1 / 2^subpixel_bits pixel (VkPhysicalDeviceLimits::
// subPixelPrecisionBits), which moves them by at most half a step; we allow a whole step, plus
// 2^-20 of the larger framebuffer side for the float rounding of pixel positions (about 16 ulp).
CullParams make_cull_params(uint32_t width, uint32_t height, uint32_t subpixel_bits);

// One triangle: its vertex indices, object-space positions, and the transforms of its draw.
CullResult classify_triangle(const glm::uvec3& index, const std::array<glm::vec3, 3>& position, const glm::mat4& model,
                             const glm::mat4& view_proj, const CullParams& params);

struct CullReference {
    // Per draw, the numbers (within the draw) of the triangles that survive, ascending.
    std::vector<std::vector<uint32_t>> survivors;
    // Per draw, the triangles whose fate changes when the tolerances (snap_px, frustum_eps)
    // move by kBorderline either way: they sit on a decision boundary to within rounding, and a
    // GPU that rounds differently (operation order, reciprocal) may decide them either way.
    // Both outcomes are safe for the image: the tolerances are twice what the rasterizer needs.
    std::vector<std::vector<uint32_t>> borderline;
    std::array<uint64_t, size_t(CullResult::count)> counts{};  // triangles per result

    uint64_t visible() const { return counts[size_t(CullResult::visible)]; }
};

constexpr float kBorderline = 0.01f;

// Every triangle of every draw, as the cull pass sees it in a frame with this view_proj.
CullReference cull_reference(const Scene& scene, const std::vector<GpuDraw>& draws, const glm::mat4& view_proj,
                             const CullParams& params);
