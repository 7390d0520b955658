// The occlusion test against the depth pyramid (docs/occlusion.md), for the compute cull (a
// triangle) and the meshlet path's task shader (a meshlet's bounding box). Include after
// cull_tests.glsl (inside_depth_range, to_pixels), with the pyramid bound as a float array that
// PYRAMID_BUFFER names.
//
// Something is occluded when its nearest depth is farther than the farthest depth of every pixel
// its screen rectangle can touch: then no fragment of it can pass the depth test of the final
// depth buffer, whose every pixel is at least as near as the pyramid's texel over it. The test
// only rejects; anything it cannot judge (a point outside the depth range: clipped, or behind the
// eye) is kept. Straight-line code: callers run workgroup scans and subgroup operations after it.
#ifndef OCCLUSION_GLSL
#define OCCLUSION_GLSL

#include "pyramid.glsl"

// Word offsets of GpuCounters::occlusion_triangles and occlusion_meshlets (src/render/frame.h):
// each is rejected in phase 1, rejected in phase 2, re-admitted by phase 2, tested by phase 2.
const uint kOcclusionTrianglesWord = 75u;
const uint kOcclusionMeshletsWord = 79u;
const uint kOcclusionRejected1 = 0u, kOcclusionRejected2 = 1u, kOcclusionReadmitted = 2u, kOcclusionTested = 3u;

// The projected extent of what is tested: its points' pixel rectangle, their largest depth (z / w,
// reversed Z: the nearest), and whether every point was inside the depth range.
struct ScreenExtent {
    vec2 lo, hi;
    float nearest;
    bool judgeable;
};

// `precise` (as in cull_tests.glsl): the look-back fallback's recount must repeat the verdict bit for bit.
ScreenExtent extent_of_point(vec4 c, vec2 viewport, float eps) {
    vec2 s = to_pixels(c, viewport);
    precise float depth = c.z / c.w;
    return ScreenExtent(s, s, depth, inside_depth_range(c, eps));
}

ScreenExtent extent_add(ScreenExtent e, vec4 c, vec2 viewport, float eps) {
    ScreenExtent p = extent_of_point(c, viewport, eps);
    return ScreenExtent(min(e.lo, p.lo), max(e.hi, p.hi), max(e.nearest, p.nearest), all(bvec2(e.judgeable, p.judgeable)));
}

// margin_px: how far the rasterizer's vertex may sit from ours (the cull's snap_px);
// pyramid_base: where the pyramid starts in the buffer. finer: how many levels below the coarsest
// useful one to read. At that coarsest level the rectangle spans at most 2x2 texels, four reads,
// but a texel there is as wide as the rectangle, so it also holds the sky or the near side of an
// edge that the rectangle does not touch; each level finer halves that reach and at most doubles
// the texels per axis (finer 3: at most 9x9 reads; docs/occlusion.md measures 0 to 3 levels).
const uint kBoxFinerLevels = 3u;
bool extent_occluded(ScreenExtent e, vec2 viewport, float margin_px, uint pyramid_base, uint finer) {
    // The pixels whose centres the widened rectangle can hold (one more on each side for safety).
    // Clamped while still floats: a point near w = 0 projects far outside the range of int, where
    // the conversion is undefined.
    ivec2 size = ivec2(viewport);
    vec2 last = vec2(size - 1);
    precise vec2 lo_px = floor(e.lo - margin_px) - 1.0;
    precise vec2 hi_px = floor(e.hi + margin_px) + 1.0;
    ivec2 lo = ivec2(clamp(lo_px, vec2(0.0), last));
    ivec2 hi = ivec2(clamp(hi_px, vec2(0.0), last));
    // Nearest depth: depth is interpolated linearly in screen space, so no fragment of a triangle
    // is nearer (larger, reversed Z) than its largest vertex depth, and none of a convex hull's
    // triangles nearer than the hull's largest corner depth. A relative margin covers the
    // rasterizer's own rounding of z / w.
    precise float nearest = e.nearest * (1.0 + 1.0 / 4096.0) + 1e-7;
    // The coarsest useful level is where the rectangle spans at most 2x2 texels (texel = pixel >>
    // (level + 1)): a run of d + 1 pixels lies in at most two texels of 2^(level+1) pixels once
    // 2^(level+1) >= d + 1, the first such level being findMSB(d) (0 for d = 0). `finer` levels
    // below it, the run lies in at most 2^finer + 1 texels.
    uvec2 depth_size = uvec2(size);
    ivec2 d = hi - lo;
    int coarsest = max(findMSB(max(d.x, d.y)), 0);
    uint level = min(uint(max(coarsest - int(finer), 0)), pyramid_level_count(depth_size) - 1u);
    ivec2 t0 = lo >> (level + 1u), t1 = hi >> (level + 1u);
    uvec2 level_size = pyramid_level_size(depth_size, level);
    uint offset = pyramid_base + pyramid_level_offset(depth_size, level);
    // The farthest depth over the texels. The loops run the same count in every invocation (the
    // bound is uniform: `finer` is a constant at each call), reading the last row or column again
    // where the rectangle spans fewer texels, so the code stays straight-line for its callers.
    int span = (1 << finer) + 1;
    float farthest = 1.0;
    for (int i = 0; i < span; ++i)
        for (int j = 0; j < span; ++j) {
            ivec2 t = min(t0 + ivec2(j, i), t1);
            farthest = min(farthest, PYRAMID_BUFFER[offset + uint(t.y) * level_size.x + uint(t.x)]);
        }
    return all(bvec2(e.judgeable, nearest < farthest));
}

// A triangle, c0..c2 in clip space.
bool triangle_occluded(vec4 c0, vec4 c1, vec4 c2, vec2 viewport, float margin_px, float eps, uint pyramid_base) {
    ScreenExtent e = extent_add(extent_add(extent_of_point(c0, viewport, eps), c1, viewport, eps), c2, viewport, eps);
    return extent_occluded(e, viewport, margin_px, pyramid_base, 0u);
}

// A box: the 8 clip-space corners centre +- x +- y +- z. Whatever lies inside it (a meshlet inside
// its bounding box) is inside the convex hull of the corners; with every corner in front
// of the eye, the projection keeps that hull convex with the corners' images as its extreme
// points, so the corners' rectangle and largest depth bound every fragment of what is inside.
bool box_occluded(vec4 centre, vec4 x, vec4 y, vec4 z, vec2 viewport, float margin_px, float eps, uint pyramid_base) {
    ScreenExtent e = extent_of_point(centre - x - y - z, viewport, eps);
    e = extent_add(e, centre + x - y - z, viewport, eps);
    e = extent_add(e, centre - x + y - z, viewport, eps);
    e = extent_add(e, centre + x + y - z, viewport, eps);
    e = extent_add(e, centre - x - y + z, viewport, eps);
    e = extent_add(e, centre + x - y + z, viewport, eps);
    e = extent_add(e, centre - x + y + z, viewport, eps);
    e = extent_add(e, centre + x + y + z, viewport, eps);
    return extent_occluded(e, viewport, margin_px, pyramid_base, kBoxFinerLevels);
}

#endif
