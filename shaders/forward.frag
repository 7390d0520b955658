#version 460
// Forward shading. Depth test EQUAL against the pre-pass: each visible pixel is shaded once.
#include "shading.glsl"
#include "box_filter.glsl"
#ifdef QUAD_MIP
#include "quad_mip.glsl"
#endif

layout(location = 0) in vec3 in_world_position;
layout(location = 1) in vec3 in_normal;
layout(location = 2) in vec2 in_uv;
layout(location = 3) flat in uint in_draw;

layout(location = 0) out vec4 out_color;

vec3 shade() {
    DrawData draw = draws[in_draw];
    vec4 texel = texture(base_color_textures, vec3(in_uv, float(draw.texture_layer)));
#ifdef QUAD_MIP
    // The last use of the quad's helper invocations (implicit LOD): they end here (quad_mip.glsl).
    if (quad_mip_helper_done()) return vec3(0.0);
#endif
    vec3 albedo = srgb_decode(texel.rgb) * draw.base_color.rgb;
    vec3 normal = normalize(in_normal);
    if (!gl_FrontFacing) normal = -normal;
    vec3 color = ambient_and_sun(albedo, normal);
    color += shade_point_lights(uvec2(gl_FragCoord.xy), albedo, in_world_position, normal);
    return color;
}

void main() {
    // Written as k / 255 exactly (box_filter.glsl): the 8-bit target then stores k on any device, and
    // the quad mip sums that same k. (Measured on NVIDIA: with the unquantized colour, 1% of texels'
    // channels came out one step off, the target's conversion not being round() of the shader's.)
    out_color = vec4(unorm8(finish_colour(shade()))) / 255.0;
#ifdef QUAD_MIP
    // At the end of main, after shade()'s branches and loop have rejoined (a rule with
    // MaximallyReconvergesKHR: the *_full_quads variant). Where a driver had not rejoined them, the
    // ballot there would see fewer real lanes: the quad goes to the edge list, still exact.
    write_quad_mip(out_color);
#endif
}
