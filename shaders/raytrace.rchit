#version 460
// Closest hit of the ray_trace pass, for both hit groups: the scene's triangles and the lights'
// procedural spheres (gl_HitKindEXT tells them apart).
//   primary ray:    the hit's draw and triangle, from which raygen rebuilds the
//                   surface (the forward path only: on the visibility path raygen knows the surface);
//   reflection ray: the reflected surface lit by the sun (unshadowed) and the sky ambient, plus its
//                   emission, its material evaluated by the callable shader (material.glsl); a
//                   light's sphere glows in its colour.
#include "raytrace.glsl"

layout(location = 0) rayPayloadInEXT RayPayload payload;
layout(location = 0) callableDataEXT MaterialCall material;
hitAttributeEXT vec2 barycentrics;

void main() {
#if defined(RT_VIEW) && defined(VIEW_HERE)
    payload.record = pack_record(lane_record());
#endif
    count_invocation(kStageClosestHit);  // before the callable: see raytrace_stats.glsl
    payload.t = gl_HitTEXT;
#if defined(RT_VIEW) && !defined(VIEW_HERE)
    // The intersection view's record comes with a light's hit, in its attributes.
    if (gl_HitKindEXT == kHitKindLight && record_from_attribute(barycentrics.x) != 0u)
        payload.record = record_from_attribute(barycentrics.x);
#endif
    // (Shadow rays never come here: they skip the closest-hit shader, raytrace.rgen.)
    if (gl_HitKindEXT == kHitKindLight) {  // a light's sphere (only reflection rays see them)
        payload.color = lights[gl_PrimitiveID].color.rgb * 0.5;
        return;
    }
    if (payload.kind == kRayPrimary) {  // raygen rebuilds the surface from the triangle (ray_origin.glsl)
        payload.primitive = gl_PrimitiveID;
        payload.draw = gl_InstanceCustomIndexEXT;
        return;
    }
    DrawData draw = draws[gl_InstanceCustomIndexEXT];
    uvec3 v = triangle_vertices(draw, gl_PrimitiveID);
    vec3 b = vec3(1.0 - barycentrics.x - barycentrics.y, barycentrics);
    vec3 object_normal = vertex_normal(v.x) * b.x + vertex_normal(v.y) * b.y + vertex_normal(v.z) * b.z;
    vec3 normal = normalize(mat3(draw.normal_matrix) * object_normal);
    // Reflection: the material from the callable shader (index 0), then the sun and the sky.
    material.draw = gl_InstanceCustomIndexEXT;
    material.uv = hit_uv(v, barycentrics);
    material.record = 0u;
    executeCallableEXT(0, 0);
#if defined(RT_VIEW) && !defined(VIEW_HERE)
    if (material.record != 0u) payload.record = material.record;
#endif
    if (dot(normal, gl_WorldRayDirectionEXT) > 0.0) normal = -normal;
    float n_dot_l = max(dot(normal, frame.sun_direction.xyz), 0.0);
    float sky = 0.5 + 0.5 * normal.y;
    payload.color = material.albedo * (frame.ambient.rgb * sky + frame.sun_color.rgb * n_dot_l) + material.emissive;
}
