// The material of a surface point, one function for forward (forward.frag), the visibility shading
// pass (visibility_shade.comp) and ray-traced hits (raytrace.rcall): glTF metallic-roughness as far
// as it is implemented (docs/scenes.md, "Textures" and "Materials"): the base colour and the
// emission (emissiveFactor x KHR_materials_emissive_strength x the emissive texture). Every texture
// is sampled with the caller's uv derivatives, which choose the mip level and the anisotropic
// footprint: forward passes its fragment quad's, the shading pass its own (quad broadcasts or
// analytic), a ray hit zero (level 0: a ray has no screen-space footprint). One function, so the
// three paths cannot drift apart.
#ifndef MATERIAL_GLSL
#define MATERIAL_GLSL

#include "common.glsl"
#include "scene_textures.glsl"

struct SurfaceMaterial {
    vec4 base_color;  // linear (the sRGB textures decode), alpha times the factor's
    vec3 emissive;    // linear radiance added after lighting
};

SurfaceMaterial evaluate_material(DrawData draw, vec2 uv, vec2 uv_dx, vec2 uv_dy) {
    SurfaceMaterial m;
    // Entry 0 is one white texel: an untextured slot gives its factor alone.
    m.base_color = scene_texture_grad(draw.base_color_texture, uv, uv_dx, uv_dy) * draw.base_color;
    m.emissive = draw.emissive.rgb * scene_texture_grad(draw.emissive_texture, uv, uv_dx, uv_dy).rgb;
    return m;
}

#endif
