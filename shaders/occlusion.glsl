// The occlusion test against the depth pyramid (docs/occlusion.md), for the compute cull. Include
// after pyramid.glsl, with the pyramid bound as `float pyramid_texels[]` (PYRAMID_BUFFER names it).
//
// A triangle is occluded when its nearest depth is farther than the farthest depth of every
// pixel its screen rectangle can touch: then no fragment of it can pass the depth test of the
// final depth buffer, whose every pixel is at least as near as the pyramid's texel over it. The
// test only rejects; anything it cannot judge (a vertex outside the depth range: clipped, or
// behind the eye) is kept.
#ifndef OCCLUSION_GLSL
#define OCCLUSION_GLSL

#include "pyramid.glsl"

// Word offsets of GpuCounters (src/render/frame.h): triangles rejected by occlusion in phase 1
// and phase 2, and phase-1 rejections that phase 2 drew after all.
const uint kOcclusionRejectedWord = 75u;  // + 0: phase 1, + 1: phase 2
const uint kOcclusionReadmittedWord = 77u;

// c0..c2: clip space; viewport: pixels; margin_px: how far the rasterizer's vertex may sit from
// ours (the cull's snap_px); pyramid_base: where this pyramid starts in the buffer.
bool occluded_by_pyramid(vec4 c0, vec4 c1, vec4 c2, vec2 viewport, float margin_px, float eps, uint pyramid_base) {
    bool judgeable = all(bvec3(inside_depth_range(c0, eps), inside_depth_range(c1, eps), inside_depth_range(c2, eps)));
    vec2 s0 = to_pixels(c0, viewport), s1 = to_pixels(c1, viewport), s2 = to_pixels(c2, viewport);
    // The pixels whose centres the widened rectangle can hold (one more on each side for safety).
    ivec2 size = ivec2(viewport);
    ivec2 lo = clamp(ivec2(floor(min(s0, min(s1, s2)) - margin_px)) - 1, ivec2(0), size - 1);
    ivec2 hi = clamp(ivec2(floor(max(s0, max(s1, s2)) + margin_px)) + 1, ivec2(0), size - 1);
    // Nearest depth of the triangle: depth is interpolated linearly in screen space, so no
    // fragment is nearer (larger, reversed Z) than the largest vertex depth. A relative margin
    // covers the rasterizer's own rounding of z / w.
    float nearest = max(c0.z / c0.w, max(c1.z / c1.w, c2.z / c2.w));
    nearest = nearest * (1.0 + 1.0 / 4096.0) + 1e-7;
    // The level where the rectangle spans at most 2x2 texels (texel = pixel >> (level + 1)): a
    // run of d + 1 pixels lies in at most two texels of 2^(level+1) pixels once 2^(level+1) >= d + 1,
    // the first such level being findMSB(d) (0 for d = 0).
    uvec2 depth_size = uvec2(size);
    ivec2 d = hi - lo;
    uint level = min(uint(max(findMSB(max(d.x, d.y)), 0)), pyramid_level_count(depth_size) - 1u);
    ivec2 t0 = lo >> (level + 1u), t1 = hi >> (level + 1u);
    uvec2 level_size = pyramid_level_size(depth_size, level);
    uint offset = pyramid_base + pyramid_level_offset(depth_size, level);
    float farthest = PYRAMID_BUFFER[offset + uint(t0.y) * level_size.x + uint(t0.x)];
    farthest = min(farthest, PYRAMID_BUFFER[offset + uint(t0.y) * level_size.x + uint(t1.x)]);
    farthest = min(farthest, PYRAMID_BUFFER[offset + uint(t1.y) * level_size.x + uint(t0.x)]);
    farthest = min(farthest, PYRAMID_BUFFER[offset + uint(t1.y) * level_size.x + uint(t1.x)]);
    return all(bvec2(judgeable, nearest < farthest));
}

#endif
