// The per-triangle tests of the cull pass, shared by its subgroup and fallback variants.
// src/render/cull_reference.cpp is the CPU reference of the same tests (written from the
// maths in docs/culling.md, not from this file); tests compare the two triangle by triangle.
//
// Every test is conservative: it rejects a triangle only when the fixed-function pipeline,
// given the positions the vertex shader writes, could not produce a fragment from it, so the
// image with culling is identical to the image without it. The pipeline already culls back
// faces (VK_CULL_MODE_BACK_BIT, counter-clockwise front faces, zero area counts as back).
#ifndef CULL_TESTS_GLSL
#define CULL_TESTS_GLSL

// Why a triangle was rejected, in the order the tests run (the first that rejects names it).
const uint CULL_VISIBLE = 0;
const uint CULL_DEGENERATE = 1;  // repeated index or coincident positions
const uint CULL_FRUSTUM = 2;     // all three vertices outside one plane of the clip volume
const uint CULL_BACKFACE = 3;    // back-facing beyond what vertex snapping could flip
const uint CULL_SMALL = 4;       // its (widened) bounding box holds no pixel centre

// The cull pass's chunk (src/passes/cull_pass.h kCullTrianglesPerInvocation): each invocation of
// cull.comp tests this many consecutive triangles, so a workgroup's chunk is gl_WorkGroupSize.x
// times as many; cull_late.comp and cull_merge.comp index the chunk's masks the same way.
const uint kTrianglesPerInvocation = 8u;

struct CullParams {
    vec2 viewport;      // framebuffer size in pixels
    float snap_px;      // how far (pixels) the rasterizer's vertex may sit from ours: snapping + float error
    float frustum_eps;  // a vertex is outside a clip plane only beyond frustum_eps * |w|
};

// Signed distances of a clip-space vertex to the six planes of Vulkan's clip volume
// -w <= x <= w, -w <= y <= w, 0 <= z <= w; negative is outside. With the reversed-Z
// projection of src/scene/camera.cpp, z = w is the near plane and z = 0 the far plane.
// Clipping happens in homogeneous space, so these hold for any w, including w <= 0.
//
// The tests are written with vector compares and selects, without && or || between calls: those
// short-circuit into branches, and the caller runs subgroup operations right after (see the
// reconvergence note in cull.comp).
struct PlaneSides {
    bvec3 low;   // clearly outside x = -w (left), y = -w (top), z = 0 (far)
    bvec3 high;  // clearly outside x = w (right), y = w (bottom), z = w (near)
};

// `precise` here and in every test below: cull.comp's look-back fallback recounts a predecessor's
// survivors with a second inlined copy of these tests, which must give the same verdict bit for bit;
// without it a compiler may fuse a multiply-add in one copy and not in the other.
PlaneSides outside_planes(vec4 v, float eps) {
    precise vec3 margin = vec3(-eps * abs(v.w));
    precise vec3 low = vec3(v.w + v.x, v.w + v.y, v.z);
    precise vec3 high = vec3(v.w - v.x, v.w - v.y, v.w - v.z);
    return PlaneSides(lessThan(low, margin), lessThan(high, margin));
}

bvec3 and3(bvec3 a, bvec3 b, bvec3 c) { return bvec3(uvec3(a) & uvec3(b) & uvec3(c)); }

bool outside_one_plane(vec4 a, vec4 b, vec4 c, float eps) {
    PlaneSides pa = outside_planes(a, eps), pb = outside_planes(b, eps), pc = outside_planes(c, eps);
    return any(bvec2(any(and3(pa.low, pb.low, pc.low)), any(and3(pa.high, pb.high, pc.high))));
}

// Clearly between the near and far planes (so w > 0): the clipper leaves such a vertex alone.
bool inside_depth_range(vec4 v, float eps) {
    precise float margin = eps * abs(v.w);
    precise float to_near = v.w - v.z;
    return all(bvec3(v.w > 0.0, v.z >= margin, to_near >= margin));
}

// Framebuffer position of a vertex with w > 0 (the viewport transform of the depth pass).
vec2 to_pixels(vec4 v, vec2 viewport) {
    precise float inv_w = 1.0 / v.w;
    precise vec2 pixels = (vec2(v.x * inv_w, v.y * inv_w) * 0.5 + 0.5) * viewport;
    return pixels;
}

// index: the triangle's vertex indices; p0..p2: object-space positions; c0..c2: clip space.
uint classify_triangle(uvec3 index, vec3 p0, vec3 p1, vec3 p2, vec4 c0, vec4 c1, vec4 c2, CullParams params) {
    // Zero area that survives any transform: a repeated index, or two bitwise-equal positions
    // (the vertex shader maps equal inputs to equal outputs, so the rasterizer sees a triangle
    // of exactly zero area, which is back-facing by definition and culled). Collinear but
    // distinct positions are NOT rejected: after rounding they can become a sliver that covers
    // a pixel centre.
    bool repeated_index = any(equal(index.xyx, index.yzz));
    bool coincident = any(bvec3(p0 == p1, p1 == p2, p0 == p2));
    bool degenerate = any(bvec2(repeated_index, coincident));

    bool frustum = outside_one_plane(c0, c1, c2, params.frustum_eps);

    // The remaining tests look at the projected triangle, so they need all w > 0. They also
    // leave alone triangles that the near or far plane clips: the clipper makes new vertices
    // whose snapped area and coverage we would have to second-guess. Triangles crossing
    // w <= 0 are among those and are kept.
    bool projectable = all(bvec3(inside_depth_range(c0, params.frustum_eps), inside_depth_range(c1, params.frustum_eps),
                                 inside_depth_range(c2, params.frustum_eps)));

    // Backface, in homogeneous coordinates: det[c0.xyw; c1.xyw; c2.xyw] = w0 w1 w2 * (twice
    // the signed area in NDC), so with all w > 0 its sign is the facing, no division needed.
    // Written as det[c0; c1 - c0; c2 - c0] (same value) to keep the rounding error
    // proportional to the triangle, not to its distance from the eye. In Vulkan's framebuffer
    // (y down) a counter-clockwise front face has a negative cross product, so det > 0 is a
    // back face. Vertex snapping moves each framebuffer coordinate by up to snap_px, which
    // changes the doubled pixel area by at most 2 snap (|e1|_1 + |e2|_1) + 8 snap^2: only a
    // triangle back-facing by more than that is rejected; thinner ones are left to the
    // rasterizer. The same margin covers edge-on triangles (area near zero either way).
    // `precise` (no fused multiply-add) keeps the arithmetic the CPU reference's.
    vec3 h0 = c0.xyw;
    precise vec3 h1 = c1.xyw - h0;
    precise vec3 h2 = c2.xyw - h0;
    precise float det = dot(h0, cross(h1, h2));
    vec2 s0 = to_pixels(c0, params.viewport);
    vec2 s1 = to_pixels(c1, params.viewport);
    vec2 s2 = to_pixels(c2, params.viewport);
    precise vec2 e1 = abs(s1 - s0);
    precise vec2 e2 = abs(s2 - s0);
    float snap = params.snap_px;
    precise float margin = 2.0 * snap * (e1.x + e1.y + e2.x + e2.y) + 8.0 * snap * snap;
    precise float area2_px = det / (c0.w * c1.w * c2.w) * (0.25 * params.viewport.x * params.viewport.y);
    bool backface = all(bvec2(projectable, area2_px > margin));

    // Small primitive: single-sample rasterization only produces fragments at pixel centres
    // (k + 0.5). If the bounding box, widened by the snapping distance, holds no centre in x
    // or in y, the triangle covers none.
    precise vec2 lo = min(s0, min(s1, s2)) - snap;
    precise vec2 hi = max(s0, max(s1, s2)) + snap;
    bvec2 no_centre = lessThan(floor(hi - 0.5), ceil(lo - 0.5));
    bool small = all(bvec2(projectable, any(no_centre)));

    // The first test that rejects names the result: selects, not early returns.
    uint result = CULL_VISIBLE;
    result = small ? CULL_SMALL : result;
    result = backface ? CULL_BACKFACE : result;
    result = frustum ? CULL_FRUSTUM : result;
    result = degenerate ? CULL_DEGENERATE : result;
    return result;
}

#endif
