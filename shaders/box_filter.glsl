// The 2x2 box filter of 8-bit UNORM colours, in integers. Every writer of the mip (the quad mip in
// forward.frag, the edge fix-up and the fallback downsample) rounds through these two functions,
// so their texels are bit-identical, not just close (docs/quad-mip.md, "Exact at every texel").
#ifndef BOX_FILTER_GLSL
#define BOX_FILTER_GLSL

// The 8-bit value a UNORM8 target stores for v (Vulkan: round to nearest, exact for k / 255).
uvec4 unorm8(vec4 v) { return uvec4(round(clamp(v, 0.0, 1.0) * 255.0)); }

// Texel of the sum of four 8-bit pixels: sum / 4 rounded half up, as k / 255, which a UNORM8
// store turns back into exactly k.
vec4 box_filter(uvec4 sum) { return vec4((sum + 2u) >> 2u) / 255.0; }

#endif
