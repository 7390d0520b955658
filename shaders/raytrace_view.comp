#version 460
// Debug views in the ray-tracing stages: colours each pixel's lane record, which the views' trace
// wrote into the traced image (shaders/raytrace.rgen, RT_VIEW), over the shaded frame, as the other
// stages' views do. Pixels whose ray no invocation of the stage served (record 0) are dimmed.
#define VIEW_PARAMS_BINDING 2
#include "view_common.glsl"

layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, rgba8) uniform image2D color;
layout(set = 0, binding = 1, r32ui) uniform readonly uimage2D records;

const float kUnservedKeep = 0.3;  // what an unserved pixel keeps of the scene

void main() {
    ivec2 pixel = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(pixel, imageSize(color)))) return;
    uint p = imageLoad(records, pixel).r;
    vec4 scene = imageLoad(color, pixel);
    if (p == 0u) {
        imageStore(color, pixel, vec4(scene.rgb * kUnservedKeep, 1.0));
        return;
    }
    uvec4 record = uvec4(p & 255u, (p >> 8) & 255u, (p >> 16) & 3u, (p >> 18) & 255u);
    vec4 view_pixel = view_colour(record, pixel);
    imageStore(color, pixel, vec4(view_pixel.rgb + scene.rgb * (1.0 - view_pixel.a), 1.0));
}
