#version 460
// Miss of the ray_trace pass: a shadow ray that misses reaches the sun (lit: raygen set its hit
// distance to "blocked" before the trace, and no closest-hit shader runs for shadow rays); a
// reflection ray sees the sky; a primary ray that misses (the forward path: a silhouette the raster
// still covered) finds nothing. Its invocations are counted in raygen after each trace (one miss
// per ray that missed), not here: most of them are the shadow rays that reach the sun, where the
// count would be the shader's only other work (raytrace_stats.glsl).
#include "raytrace.glsl"

layout(location = 0) rayPayloadInEXT RayPayload payload;

void main() {
#if defined(RT_VIEW) && defined(VIEW_HERE)
    payload.record = pack_record(lane_record());
#endif
    payload.t = -1.0;
    if (payload.kind == kRayReflection) payload.color = sky_radiance(gl_WorldRayDirectionEXT);
}
