#version 460
// Miss of the ray_trace pass: a shadow ray that misses reaches the sun (lit); a reflection ray
// sees the sky; a primary ray that misses (a silhouette the raster still covered) finds nothing.
#include "raytrace.glsl"

layout(location = 0) rayPayloadInEXT RayPayload payload;

void main() {
#if defined(RT_VIEW) && defined(VIEW_HERE)
    payload.record = pack_record(lane_record());
#endif
    count_invocation(kStageMiss);
    payload.t = -1.0;
    if (payload.kind == kRayReflection) payload.color = sky_radiance(gl_WorldRayDirectionEXT);
}
