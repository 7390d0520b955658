// Forward shading of one pixel: base colour texture, a dim sun, ambient, and point lights.
#ifndef SHADING_GLSL
#define SHADING_GLSL

#include "scene_bindings.glsl"

vec3 point_light(PointLight light, vec3 albedo, vec3 position, vec3 normal) {
    vec3 to_light = light.position_radius.xyz - position;
    float distance = length(to_light);
    float radius = light.position_radius.w;
    if (distance >= radius) return vec3(0.0);
    float n_dot_l = max(dot(normal, to_light / max(distance, 1e-6)), 0.0);
    return albedo * light.color.rgb * (n_dot_l * light_falloff(distance, radius));
}

vec3 ambient_and_sun(vec3 albedo, vec3 normal) {
    float n_dot_l = max(dot(normal, frame.sun_direction.xyz), 0.0);
    float sky = 0.5 + 0.5 * normal.y;  // hemisphere ambient
    return albedo * (frame.ambient.rgb * sky + frame.sun_color.rgb * n_dot_l);
}

// Linear HDR to the stored 8-bit value: exposure-free Reinhard on luminance, then sRGB encoding.
vec4 finish_colour(vec3 hdr) {
    float lum = dot(hdr, vec3(0.2126, 0.7152, 0.0722));
    vec3 mapped = hdr / (1.0 + lum);
    return vec4(srgb_encode(clamp(mapped, 0.0, 1.0)), 1.0);
}

#endif
