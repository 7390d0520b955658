#include "render/cull_reference.h"

#include <algorithm>
#include <cmath>

// The derivations are in docs/culling.md; in short, with clip-space vertices v0, v1, v2:
// - Vulkan clips to -w <= x <= w, -w <= y <= w, 0 <= z <= w (homogeneous: valid for any w).
// - For w > 0, framebuffer position = (x/w, y/w) * 0.5 + 0.5, times the viewport size.
// - Vulkan's polygon area a = -1/2 * sum(x_i y_(i+1) - x_(i+1) y_i) over framebuffer
//   coordinates; a > 0 is front-facing with VK_FRONT_FACE_COUNTER_CLOCKWISE, and the rest
//   (a <= 0, zero area included) is culled by VK_CULL_MODE_BACK_BIT.
// - det[v0.xyw; v1.xyw; v2.xyw] = w0 w1 w2 * sum(xn_i yn_(i+1) - xn_(i+1) yn_i) in NDC.

const char* cull_result_name(CullResult result) {
    static const char* names[] = {"visible", "degenerate", "frustum", "backface", "small"};
    return names[size_t(result)];
}

CullParams make_cull_params(uint32_t width, uint32_t height, uint32_t subpixel_bits) {
    CullParams p;
    p.viewport = glm::vec2(float(width), float(height));
    p.snap_px = std::ldexp(1.0f, -int(subpixel_bits)) + float(std::max(width, height)) * std::ldexp(1.0f, -20);
    p.frustum_eps = kFrustumEps;
    return p;
}

namespace {

// Plane distances of one clip-space vertex; negative means outside that plane.
std::array<float, 6> plane_distances(const glm::vec4& v) {
    return {v.w + v.x, v.w - v.x, v.w + v.y, v.w - v.y, v.z /* far, reversed Z */, v.w - v.z /* near */};
}

bool clearly_outside(float distance, float w, float eps) { return distance < -eps * std::fabs(w); }

glm::vec2 framebuffer_position(const glm::vec4& v, const glm::vec2& viewport) {
    float inv_w = 1.0f / v.w;
    glm::vec2 ndc(v.x * inv_w, v.y * inv_w);
    return (ndc * 0.5f + 0.5f) * viewport;
}

}  // namespace

CullResult classify_triangle(const glm::uvec3& index, const std::array<glm::vec3, 3>& position, const glm::mat4& model,
                             const glm::mat4& view_proj, const CullParams& params) {
    // Degenerate: the rasterizer gets a zero-area triangle no matter how it rounds.
    if (index[0] == index[1] || index[1] == index[2] || index[0] == index[2]) return CullResult::degenerate;
    if (position[0] == position[1] || position[1] == position[2] || position[0] == position[2])
        return CullResult::degenerate;

    // Object -> world -> clip, summed column by column from left to right (the order in which
    // Mesa, for one, evaluates OpMatrixTimesVector), so that CPU and GPU round alike more often.
    std::array<glm::vec4, 3> clip;
    for (int i = 0; i < 3; ++i) {
        const glm::vec3& p = position[i];
        glm::vec4 world = model[0] * p.x + model[1] * p.y + model[2] * p.z + model[3];
        clip[i] = view_proj[0] * world.x + view_proj[1] * world.y + view_proj[2] * world.z + view_proj[3] * world.w;
    }

    // Frustum: some plane has all three vertices clearly on its outside.
    std::array<std::array<float, 6>, 3> distances;
    for (int i = 0; i < 3; ++i) distances[i] = plane_distances(clip[i]);
    for (int plane = 0; plane < 6; ++plane) {
        bool all_outside = true;
        for (int i = 0; i < 3; ++i)
            all_outside = all_outside && clearly_outside(distances[i][plane], clip[i].w, params.frustum_eps);
        if (all_outside) return CullResult::frustum;
    }

    // Only triangles the near and far planes do not clip (hence all w > 0) go further.
    for (int i = 0; i < 3; ++i) {
        float margin = params.frustum_eps * std::fabs(clip[i].w);
        bool inside = clip[i].w > 0.0f && distances[i][4] >= margin && distances[i][5] >= margin;
        if (!inside) return CullResult::visible;
    }

    std::array<glm::vec2, 3> px;
    for (int i = 0; i < 3; ++i) px[i] = framebuffer_position(clip[i], params.viewport);
    const float snap = params.snap_px;

    // Backface from the homogeneous determinant, converted to twice the signed pixel area in
    // framebuffer coordinates (positive: clockwise on screen, i.e. a back face here). Rows
    // 2 and 3 minus row 1 leave the determinant unchanged and keep its rounding small.
    glm::vec3 r0(clip[0].x, clip[0].y, clip[0].w);
    glm::vec3 r1 = glm::vec3(clip[1].x, clip[1].y, clip[1].w) - r0;
    glm::vec3 r2 = glm::vec3(clip[2].x, clip[2].y, clip[2].w) - r0;
    float det = glm::dot(r0, glm::cross(r1, r2));
    float twice_area_px = det / (clip[0].w * clip[1].w * clip[2].w) * (0.25f * params.viewport.x * params.viewport.y);
    // Moving every vertex coordinate by up to `snap` changes e1 x e2 by at most
    // 2 snap (|e1.x| + |e1.y| + |e2.x| + |e2.y|) + 8 snap^2 (e = edges from vertex 0).
    glm::vec2 e1 = glm::abs(px[1] - px[0]);
    glm::vec2 e2 = glm::abs(px[2] - px[0]);
    float snap_change = 2.0f * snap * (e1.x + e1.y + e2.x + e2.y) + 8.0f * snap * snap;
    if (twice_area_px > snap_change) return CullResult::backface;

    // Small: no pixel centre (k + 0.5) inside the bounding box widened by the snapping distance.
    glm::vec2 lo = glm::min(px[0], glm::min(px[1], px[2])) - snap;
    glm::vec2 hi = glm::max(px[0], glm::max(px[1], px[2])) + snap;
    for (int axis = 0; axis < 2; ++axis) {
        float first_centre = std::ceil(lo[axis] - 0.5f);  // smallest k with k + 0.5 >= lo
        float last_centre = std::floor(hi[axis] - 0.5f);  // largest k with k + 0.5 <= hi
        if (last_centre < first_centre) return CullResult::small;
    }
    return CullResult::visible;
}

CullReference cull_reference(const Scene& scene, const std::vector<GpuDraw>& draws, const glm::mat4& view_proj,
                             const CullParams& params) {
    CullReference ref;
    ref.survivors.resize(draws.size());
    ref.borderline.resize(draws.size());
    CullParams tight = params, loose = params;
    tight.snap_px *= 1.0f - kBorderline;
    tight.frustum_eps *= 1.0f - kBorderline;
    loose.snap_px *= 1.0f + kBorderline;
    loose.frustum_eps *= 1.0f + kBorderline;
    for (size_t d = 0; d < draws.size(); ++d) {
        const GpuDraw& draw = draws[d];
        for (uint32_t t = 0; t < draw.index_count / 3; ++t) {
            glm::uvec3 index;
            std::array<glm::vec3, 3> position;
            for (int i = 0; i < 3; ++i) {
                index[i] = scene.indices[draw.first_index + 3 * t + i];
                position[i] = scene.vertices[index[i]].position;
            }
            CullResult result = classify_triangle(index, position, draw.model, view_proj, params);
            ref.counts[size_t(result)]++;
            if (result == CullResult::visible) ref.survivors[d].push_back(t);
            bool tight_keeps = classify_triangle(index, position, draw.model, view_proj, tight) == CullResult::visible;
            bool loose_keeps = classify_triangle(index, position, draw.model, view_proj, loose) == CullResult::visible;
            if (tight_keeps != loose_keeps) ref.borderline[d].push_back(t);
        }
    }
    return ref;
}
