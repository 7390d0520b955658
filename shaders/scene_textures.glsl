// The scene's textures (set 1, Context::texture_set_layout in src/vk/context.cpp), written once per
// scene (src/render/gpu_scene.cpp). Entry 0 is one white texel (untextured materials); entry i + 1
// is the scene's texture i with its full mip chain, R8G8B8A8_SRGB for colour (the sampler decodes
// and filters in linear light, so no shader decodes sRGB), trilinear and anisotropic where the
// device offers it, repeating. `colour`: whether the slot is a colour one (base colour, emissive:
// sRGB in glTF) or data (metallic-roughness, normal, occlusion: linear).
//
// With descriptor indexing: one runtime array of combined image samplers, each texture at its own
// size. Indices come from per-draw data, which differs between the lanes of a subgroup (several
// draws of one multi-draw, several triangles in the compute shading pass), so every access is
// nonuniformEXT: the driver makes it correct for any mix of indices (a scalarizing loop where the
// hardware needs one). `colour` is not needed: each texture's own format decodes it.
//
// SCENE_TEXTURE_LAYERS (every *.layers SPIR-V: devices without descriptor indexing, such as the
// Mesa 22.3 lavapipe, docs/materials.md): every texture is a layer of one array texture at one
// size, so the index is the layer, a texture coordinate like uv: any mix of indices across lanes is
// an ordinary sample, and no descriptor is indexed at all. Two views of that one image: sRGB for the
// colour slots, UNORM for the data slots (glTF fixes each slot's encoding, and the loader gives a
// texture used both ways one entry per encoding).
#ifndef SCENE_TEXTURES_GLSL
#define SCENE_TEXTURES_GLSL

#ifdef SCENE_TEXTURE_LAYERS

layout(set = 1, binding = 0) uniform sampler2DArray scene_colour_layers;
layout(set = 1, binding = 1) uniform sampler2DArray scene_data_layers;

vec4 scene_texture_lod0(uint index, bool colour, vec2 uv) {
    return colour ? textureLod(scene_colour_layers, vec3(uv, float(index)), 0.0)
                  : textureLod(scene_data_layers, vec3(uv, float(index)), 0.0);
}
vec4 scene_texture_grad(uint index, bool colour, vec2 uv, vec2 uv_dx, vec2 uv_dy) {
    return colour ? textureGrad(scene_colour_layers, vec3(uv, float(index)), uv_dx, uv_dy)
                  : textureGrad(scene_data_layers, vec3(uv, float(index)), uv_dx, uv_dy);
}

#else

#extension GL_EXT_nonuniform_qualifier : require

layout(set = 1, binding = 0) uniform sampler2D scene_textures[];

// Level 0 only: the alpha test of masked materials, the same texels in the pre-pass and for rays.
vec4 scene_texture_lod0(uint index, bool colour, vec2 uv) { return textureLod(scene_textures[nonuniformEXT(index)], uv, 0.0); }
// Explicit derivatives (the compute shading pass: no implicit ones there).
vec4 scene_texture_grad(uint index, bool colour, vec2 uv, vec2 uv_dx, vec2 uv_dy) {
    return textureGrad(scene_textures[nonuniformEXT(index)], uv, uv_dx, uv_dy);
}

#endif

#endif
