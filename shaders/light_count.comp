#version 460
// The light-count view: a heat map of lights per tile over the dimmed scene, one invocation per
// pixel, in place on the final colour image. The legend (same ramp, with numbers) is drawn by
// the overlay: src/passes/light_cull_pass.cpp, light_count_legend().
#include "common.glsl"
#include "light_list.glsl"

layout(local_size_x = 8, local_size_y = 8) in;

layout(set = 0, binding = 0) uniform Frame { FrameUniforms frame; };
layout(set = 0, binding = 1, std430) readonly buffer LightLists { uint light_list_data[]; };
layout(set = 0, binding = 2, rgba8) uniform image2D color_image;  // holds sRGB-encoded values

// Heat ramp on a log scale, t = log2(count + 1) / log2(capacity + 1): 0 lights is no tint, then
// blue, cyan, green, yellow, red at the capacity. Over the capacity (overflow): magenta.
// heat_color() in src/passes/light_cull_pass.cpp is the same function for the legend.
vec3 heat_color(float t) {
    const vec3 stops[5] = vec3[](vec3(0.10, 0.20, 1.00), vec3(0.00, 0.85, 1.00), vec3(0.10, 0.90, 0.20),
                                 vec3(1.00, 0.90, 0.00), vec3(1.00, 0.15, 0.05));
    float x = clamp(t, 0.0, 1.0) * 4.0;
    uint i = min(uint(x), 3u);
    return mix(stops[i], stops[i + 1], x - float(i));
}

void main() {
    uvec2 pixel = gl_GlobalInvocationID.xy;
    if (pixel.x >= frame.sizes.x || pixel.y >= frame.sizes.y) return;
    uint capacity = frame.tiles.z;
    uint count = light_list_data[light_list_count_offset(light_tile_of_pixel(pixel, frame.tiles.x))];
    vec3 scene = imageLoad(color_image, ivec2(pixel)).rgb;
    vec3 color = scene * 0.35;  // dimmed scene underneath, still readable
    if (count > 0) {
        vec3 heat = count > capacity ? vec3(1.0, 0.0, 1.0)
                                     : heat_color(log2(float(count) + 1.0) / log2(float(capacity) + 1.0));
        color = mix(color, heat, 0.6);
    }
    // Faint tile grid, so single tiles can be told apart.
    uvec2 in_tile = pixel % kLightTileSize;
    if (in_tile.x == 0 || in_tile.y == 0) color *= 0.75;
    imageStore(color_image, ivec2(pixel), vec4(color, 1.0));
}
