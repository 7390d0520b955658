#version 460
// Debug views in the ray-tracing stages: colours each pixel's lane record, which the views' trace
// wrote into the traced image (shaders/raytrace.rgen, RT_VIEW), over the shaded frame, as the other
// stages' views do. Pixels whose ray no invocation of the stage served (record 0) are dimmed. Where
// the stage under view has no subgroups (lane_data 0) its invocations wrote "no lane data" records
// (view_none), and every pixel is hatched, the unsupported marking, over the scene where the stage
// served the pixel's ray and over the dimmed scene where it did not.
#define VIEW_PARAMS_BINDING 2
#include "view_common.glsl"

layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, rgba8) uniform image2D color;
layout(set = 0, binding = 1, r32ui) uniform readonly uimage2D records;
layout(push_constant) uniform ViewPush { uint lane_data; } push;  // 0: the stage has no subgroups (RayTracePass)

const float kUnservedKeep = 0.3;  // what an unserved pixel keeps of the scene

void main() {
    ivec2 pixel = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(pixel, imageSize(color)))) return;
    uint p = imageLoad(records, pixel).r;
    vec4 scene = imageLoad(color, pixel);
    if (p == 0u) {
        vec4 hatch = push.lane_data == 0u ? view_colour(uvec4(0u, 0u, kRecordNone, 0u), pixel) : vec4(0.0);
        imageStore(color, pixel, vec4(hatch.rgb + scene.rgb * kUnservedKeep * (1.0 - hatch.a), 1.0));
        return;
    }
    uvec4 record = uvec4(p & 255u, (p >> 8) & 255u, (p >> 16) & 3u, (p >> 18) & 255u);
    vec4 view_pixel = view_colour(record, pixel);
    imageStore(color, pixel, vec4(view_pixel.rgb + scene.rgb * (1.0 - view_pixel.a), 1.0));
}
