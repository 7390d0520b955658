#version 460
// Miss of the ray_trace pass: a shadow ray that misses reaches the sun (lit: raygen set its hit
// distance to "blocked" before the trace, and no closest-hit shader runs for shadow rays); a
// reflection ray sees the sky; a primary ray that misses (the forward path: a silhouette the raster
// still covered) finds nothing. It counts its own invocations here, where they happen: the
// statistics' identity rays == closest-hit + miss + blocked shadow rays then compares what the
// stages did with what raygen asked for, and fails when a stage misbehaves (a miss shader that
// does not mark the ray lit leaves the ray "blocked" and counted as a miss at once).
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
