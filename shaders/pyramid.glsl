// The depth pyramid's layout (docs/occlusion.md), shared by the shaders that build it
// (pyramid.comp) and those that read it. Mirrored on the CPU by pyramid_levels()
// (src/passes/occlusion_pass.h).
//
// Level 0 is half the depth buffer rounded up, each level half the one below rounded up, down to
// 1x1: level k of a W x H depth buffer is ceil(W / 2^(k+1)) x ceil(H / 2^(k+1)), and its texel
// (x, y) covers the depth pixels [x, x+1) * 2^(k+1) (by y likewise), clipped to the buffer. Rounding
// up is what makes odd sizes safe: the last texel of an odd row covers the last pixel too, alone,
// so every pixel lies under exactly one texel of every level. Each texel holds the FARTHEST depth
// under it, which in reversed Z is the minimum: a box whose nearest depth is farther still is
// behind everything the texel covers.
//
// All levels lie one after another in one float buffer, level 0 first, rows tightly packed: a
// buffer rather than a mipped image, so that the task shader and the compute cull read it with
// plain loads and the single-pass build needs no image per level.
#ifndef PYRAMID_GLSL
#define PYRAMID_GLSL

uvec2 pyramid_level_size(uvec2 depth_size, uint level) {
    uint span = 2u << level;  // depth pixels per texel along each axis
    return (depth_size + span - 1u) / span;
}

// The number of levels: the first one that is 1x1, plus one.
uint pyramid_level_count(uvec2 depth_size) {
    uint levels = 1u;
    while (any(greaterThan(pyramid_level_size(depth_size, levels - 1u), uvec2(1u)))) ++levels;
    return levels;
}

// Where level `level` starts in the buffer, in texels.
uint pyramid_level_offset(uvec2 depth_size, uint level) {
    uint offset = 0u;
    for (uint k = 0u; k < level; ++k) {
        uvec2 size = pyramid_level_size(depth_size, k);
        offset += size.x * size.y;
    }
    return offset;
}

#endif
