// The scene's textures (set 1, Context::texture_set_layout in src/vk/context.cpp): one runtime array
// of combined image samplers, written once per scene (src/render/gpu_scene.cpp). Entry 0 is one
// white texel (untextured materials); entry i + 1 is the scene's texture i at its own size with its
// full mip chain, R8G8B8A8_SRGB for colour (the sampler decodes and filters in linear light, so no
// shader decodes sRGB), trilinear and anisotropic where the device offers it, repeating.
//
// Indices come from per-draw data, which differs between the lanes of a subgroup (several draws
// of one multi-draw, several triangles in the compute shading pass), so every access is
// nonuniformEXT: the driver makes it correct for any mix of indices (a scalarizing loop where the
// hardware needs one).
#ifndef SCENE_TEXTURES_GLSL
#define SCENE_TEXTURES_GLSL

#extension GL_EXT_nonuniform_qualifier : require

layout(set = 1, binding = 0) uniform sampler2D scene_textures[];

// Level 0 only: the alpha test of masked materials, the same texels in the pre-pass and for rays.
vec4 scene_texture_lod0(uint index, vec2 uv) { return textureLod(scene_textures[nonuniformEXT(index)], uv, 0.0); }
// Explicit derivatives (the compute shading pass: no implicit ones there).
vec4 scene_texture_grad(uint index, vec2 uv, vec2 uv_dx, vec2 uv_dy) {
    return textureGrad(scene_textures[nonuniformEXT(index)], uv, uv_dx, uv_dy);
}
// A level of detail chosen by the caller (ray hits have no screen-space footprint).
vec4 scene_texture_level(uint index, vec2 uv, float lod) { return textureLod(scene_textures[nonuniformEXT(index)], uv, lod); }

#endif
