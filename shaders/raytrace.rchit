#version 460
// Closest hit of the ray_trace pass, for both hit groups: the scene's triangles and the lights'
// procedural spheres (gl_HitKindEXT tells them apart).
//   primary ray:    the hit's draw and triangle, from which raygen rebuilds the
//                   surface (the forward path only: on the visibility path raygen knows the surface);
//   reflection ray: the reflected surface lit by the sun (unshadowed) and the sky ambient with the
//                   shading passes' BRDF (brdf.glsl), plus its emission, its material evaluated by
//                   the callable shader (material.glsl: every map, each slot on its own TEXCOORD
//                   and transform); a light's sphere glows in its colour.
#include "raytrace.glsl"
#include "brdf.glsl"

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
    // Reflection: the hit's TEXCOORD_0, TEXCOORD_1, normal and tangent from the triangle's vertices
    // and barycentrics, the material from the callable shader (index 0), then the sun and the sky.
    DrawData draw = draws[gl_InstanceCustomIndexEXT];
    uvec3 v = triangle_vertices(draw, gl_PrimitiveID);
    vec3 b = vec3(1.0 - barycentrics.x - barycentrics.y, barycentrics);
    mat3 model = mat3(draw.model);
    vec3 object_normal = vertex_normal(v.x) * b.x + vertex_normal(v.y) * b.y + vertex_normal(v.z) * b.z;
    vec3 normal = normalize(mat3(draw.normal_matrix) * object_normal);
    if (dot(normal, gl_WorldRayDirectionEXT) > 0.0) normal = -normal;  // towards the ray's origin, as forward's
    material.draw = gl_InstanceCustomIndexEXT;
    material.normal = normal;
    material.uv0 = hit_uv(v, barycentrics);
    material.uv1 = vertex_uv1(v.x) * b.x + vertex_uv1(v.y) * b.y + vertex_uv1(v.z) * b.z;
    material.tangent = vec4(0.0);
    if (draw.normal_texture != 0u) {
        // The tangent as the rasterizer interpolates scene.vert's; where the mesh has none, the
        // triangle's own frame: a hit has no screen derivatives, but its triangle's two edges and
        // their uv deltas (the normal slot's set, through its transform) span the same plane, and
        // material.glsl's cotangent frame divides out their orientation.
        vec4 tangent = vertex_tangent(v.x) * b.x + vertex_tangent(v.y) * b.y + vertex_tangent(v.z) * b.z;
        if (tangent.w != 0.0) {
            material.tangent = vec4(model * tangent.xyz, tangent.w < 0.0 ? -1.0 : 1.0);
        } else {
            vec2 uv[3];
            for (uint i = 0u; i < 3u; ++i) uv[i] = slot_set(draw, kSlotNormal) == 1u ? vertex_uv1(v[i]) : vertex_uv(v[i]);
            mat2 linear = slot_linear(draw, kSlotNormal);
            vec3 p0 = model * vertex_position(v.x);
            mat3 frame = cotangent_frame(normal, model * vertex_position(v.y) - p0, model * vertex_position(v.z) - p0,
                                         linear * (uv[1] - uv[0]), linear * (uv[2] - uv[0]));
            // The frame's bitangent as TANGENT's sign: the side of cross(n, t) it lies on.
            if (dot(frame[0], frame[0]) > 0.0)
                material.tangent = vec4(frame[0], dot(cross(normal, frame[0]), frame[1]) < 0.0 ? -1.0 : 1.0);
        }
    }
    material.record = 0u;
    executeCallableEXT(0, 0);
#if defined(RT_VIEW) && !defined(VIEW_HERE)
    if (material.record != 0u) payload.record = material.record;
#endif
    // Forward's ambient_and_sun with the sun unshadowed, seen from the ray's origin.
    Brdf brdf = make_brdf(material.base_color, material.metallic, material.roughness, -gl_WorldRayDirectionEXT);
    payload.color = ambient_and_sun(brdf, material.normal, material.occlusion, 1.0) + material.emissive;
}
