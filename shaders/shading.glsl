// Forward shading of one pixel: base colour texture, a dim sun, ambient, and point lights.
#ifndef SHADING_GLSL
#define SHADING_GLSL

#include "scene_bindings.glsl"
#include "light_list.glsl"

// Binding 4: the per-tile light lists written by light_cull.comp (layout in light_list.glsl).
// Always bound; read only when frame.tiles.z (the list capacity) is not 0.
layout(set = 0, binding = 4, std430) readonly buffer LightLists { uint light_list_data[]; };

vec3 point_light(PointLight light, vec3 albedo, vec3 position, vec3 normal) {
    vec3 to_light = light.position_radius.xyz - position;
    float distance = length(to_light);
    float radius = light.position_radius.w;
    if (distance >= radius) return vec3(0.0);
    float n_dot_l = max(dot(normal, to_light / max(distance, 1e-6)), 0.0);
    return albedo * light.color.rgb * (n_dot_l * light_falloff(distance, radius));
}

// Sum of the point lights at a pixel. With lists (frame.tiles.z = capacity > 0) only the lights of
// the pixel's tile; else every light (--light-cull off). frame.tiles.z is uniform for the draw, so
// the branch costs no divergence. Lights left out of a tile's list are farther than their radius
// from every pixel of the tile, where light_falloff is exactly 0: both paths give the same sum up
// to float rounding of the summation.
vec3 shade_point_lights(uvec2 pixel, vec3 albedo, vec3 position, vec3 normal) {
    vec3 color = vec3(0.0);
    uint capacity = frame.tiles.z;
    if (capacity == 0) {
        uint light_count = frame.sizes.z;
        for (uint i = 0; i < light_count; ++i)
            color += point_light(lights[i], albedo, position, normal);
        return color;
    }
    uint tile_count = frame.tiles.x * frame.tiles.y;
    uint tile = light_tile_of_pixel(pixel, frame.tiles.x);
    uint count = min(light_list_data[light_list_count_offset(tile)], capacity);  // overflow: first `capacity` only
    for (uint i = 0; i < count; ++i) {
        uint light = light_list_data[light_list_entry_offset(tile, i, tile_count, capacity)];
        color += point_light(lights[light], albedo, position, normal);
    }
    return color;
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
