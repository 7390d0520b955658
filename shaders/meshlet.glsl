// The meshlet path (--geometry meshlet, docs/meshlets.md): what its task and mesh shaders share.
// Bindings 16 and up of set 0, after whatever the pipeline's other bindings are (the scene's 0..3,
// forward's light lists, mip and counters, the views' parameters): src/passes/meshlet_pass.cpp.
#ifndef MESHLET_GLSL
#define MESHLET_GLSL

#include "scene_bindings.glsl"
#include "meshlet_chunks.glsl"  // the task chunks (binding MESHLET_BINDING + 4), listed_meshlet()
#include "visibility_id.glsl"
#include "transform.glsl"

// Meshlet limits (src/scene/meshlets.h): vertices and triangles per meshlet; each mesh or task
// workgroup is 32 invocations (one per meshlet in the task shader; the mesh shader's lanes take
// vertices v, v + 32 and triangles t, t + 32, ...).
const uint kMeshletVertices = 64u;
const uint kMeshletTriangles = 124u;
const uint kMeshletRounds = 4u;        // ceil(124 / 32): triangle rounds per mesh-shader lane

struct Meshlet {
    vec4 sphere;           // object space centre, radius
    vec4 cone;             // normal cone axis, cutoff (meshoptimizer)
    vec4 sizes;            // object space: smallest triangle area, largest perimeter
    vec4 box_centre;       // object space axis-aligned box around the vertices: centre
    vec4 box_half;         // and half extents
    uint vertex_offset;    // into positions / attributes
    uint triangle_offset;  // into triangles
    uint vertex_count;
    uint triangle_count;
};

// What the depth pre-pass records for forward. Entry 32 c + i is meshlet i of task chunk c (so
// its draw and meshlet follow from the chunk table); its mask says which of the meshlet's
// triangles survived (bit t: meshlet triangle t), written by the meshlet's mesh workgroup when
// the meshlet is kept. Entry 32 c also holds chunk c's masks of meshlets (bit i: meshlet i),
// written by the chunk's task workgroup in the pre-pass: kept, and (occlusion phase 1) rejected by
// the previous frame's pyramid; phase 2's task shaders add the re-admitted to chunk_late. Forward
// draws chunk by chunk the meshlets of chunk_kept | chunk_late in bit order: input order.
struct VisibleMeshlet {
    uint chunk_kept;
    uint chunk_late;
    uint chunk_rejected;
    uint pad;
    uvec4 mask;
};
// The first of these bindings: MESHLET_BINDING (meshlet_chunks.glsl: 16 unless a pipeline moves it).
layout(set = 0, binding = MESHLET_BINDING, std430) readonly buffer Meshlets { Meshlet meshlets[]; };
layout(set = 0, binding = MESHLET_BINDING + 1, std430) readonly buffer Positions { float positions[]; };    // 3 per meshlet vertex
// The rest of each meshlet vertex: normal (3), uv (2), tangent (4: xyz, w the sign; 0: none), TEXCOORD_1 (2).
const uint kMeshletAttributes = 11u;
layout(set = 0, binding = MESHLET_BINDING + 2, std430) readonly buffer Attributes { float attributes[]; };
layout(set = 0, binding = MESHLET_BINDING + 3, std430) readonly buffer Triangles { uint triangles[]; };     // i0 | i1 << 8 | i2 << 16
// The frame's visible list: 32 entries per task chunk, in the chunk table's order, so it is the
// same on every run and in every variant (no atomic hands out entries). Forward launches one task
// workgroup per chunk, which draws that chunk's chunk_kept entries.
layout(set = 0, binding = MESHLET_BINDING + 5, std430) buffer VisibleList { VisibleMeshlet entries[]; } visible;
// GpuCounters (src/render/frame.h), as words.
layout(set = 0, binding = MESHLET_BINDING + 6, std430) buffer Counters { uint counters[]; };
const uint kCounterTrianglesVisible = 0u;
const uint kCounterMeshletsIn = 34u;
const uint kCounterMeshletsVisible = 35u;
// Tests and --cull-dump: for visible entry e, slot s of its mesh output holds meshlet triangle
// capture[e * 128 + s] (the primitive order the compaction produced).
layout(set = 0, binding = MESHLET_BINDING + 7, std430) writeonly buffer Capture { uint capture[]; };
// Occlusion (docs/occlusion.md): the depth pyramids (occlusion_pass.h; frame.occlusion says where),
// and occlusion phase 2's list: phase 1's rejected meshlets as visible-list entries, in input
// order, after the indirect command that launches one task workgroup per 32 of them
// (meshlet_late_list.comp writes both).
layout(set = 0, binding = MESHLET_BINDING + 8, std430) readonly buffer Pyramid { float pyramid_texels[]; };
layout(set = 0, binding = MESHLET_BINDING + 9, std430) readonly buffer LateList {
    uvec4 late_header;  // x, y, z: task workgroups (VkDrawMeshTasksIndirectCommandEXT); w: entries
    uint late_entries[];
};

vec3 meshlet_position(uint vertex) {
    uint base = vertex * 3u;
    return vec3(positions[base], positions[base + 1u], positions[base + 2u]);
}

// The task shader's meshlet test: src/scene/meshlets.cpp (cull_meshlet) is its CPU mirror and says
// why it is conservative. Straight-line code: no branch, so callers stay in uniform control flow.
const float kMeshletFrustumEps = 2.0 / 16384.0;
bool meshlet_culled(Meshlet m, mat4 model, bool cone, float snap_px) {
    vec3 centre = (model * vec4(m.sphere.xyz, 1.0)).xyz;
    float scale = max(length(model[0].xyz), max(length(model[1].xyz), length(model[2].xyz)));
    float radius = m.sphere.w * scale;
    mat4 t = transpose(frame.view_proj);
    vec4 c = vec4(centre, 1.0);
    float w_reach = abs(dot(t[3], c)) + length(t[3].xyz) * radius;
    float margin = -kMeshletFrustumEps * w_reach;
    vec4 p0 = t[3] + t[0], p1 = t[3] - t[0], p2 = t[3] + t[1], p3 = t[3] - t[1], p4 = t[2], p5 = t[3] - t[2];
    vec3 reach_a = vec3(length(p0.xyz), length(p1.xyz), length(p2.xyz)) * radius;
    vec3 reach_b = vec3(length(p3.xyz), length(p4.xyz), length(p5.xyz)) * radius;
    bvec3 out_a = lessThan(vec3(dot(p0, c), dot(p1, c), dot(p2, c)) + reach_a, vec3(margin));
    bvec3 out_b = lessThan(vec3(dot(p3, c), dot(p4, c), dot(p5, c)) + reach_b, vec3(margin));
    bool frustum = any(bvec2(any(out_a), any(out_b)));

    // The cone test only where every triangle's projected area beats the cull pass's snapping
    // margin (bounds explained in cull_meshlet), with the sphere clear of the near and far planes.
    float near_side = dot(p5, c) - reach_b.z;
    float far_side = dot(p4, c) - reach_b.y;
    float w_min = dot(t[3], c) - length(t[3].xyz) * radius;
    bool in_depth_range = all(bvec3(w_min > 0.0, near_side > -margin, far_side > -margin));
    vec3 axis = normalize(mat3(model) * m.cone.xyz);
    vec3 d = centre - frame.camera_position.xyz;
    float dist = length(d);
    bool facing_away = dot(d, axis) >= m.cone.w * dist + radius;
    float angle = acos(clamp(dot(d, axis) / dist, -1.0, 1.0)) + asin(min(1.0, radius / dist)) + asin(min(1.0, m.cone.w));
    float delta = cos(min(angle, 3.14159265));
    float d_min = dist - radius, d_max = dist + radius;
    vec2 f = abs(0.5 * frame.projection.xy * vec2(frame.sizes.xy));
    float f_min = min(f.x, f.y), f_max = max(f.x, f.y);
    float area = m.sizes.x * scale * scale, perimeter = m.sizes.y * scale;
    float area2_px = 2.0 * f_min * f_min * area * delta * d_min / (d_max * d_max * d_max);
    float snap_margin = 2.0 * snap_px * 1.41422 * perimeter * f_max * (1.0 + d_max / max(w_min, 1e-30)) / max(w_min, 1e-30) +
                        8.0 * snap_px * snap_px;
    bool sizes_ok = all(bvec3(d_min > 0.0, delta > 0.0, area2_px > 1.01 * snap_margin));
    bool backface = all(bvec4(cone, in_depth_range, m.cone.w < 1.0, all(bvec2(facing_away, sizes_ok))));
    return any(bvec2(frustum, backface));
}

// Clip position of a meshlet vertex: scene.vert's transform (transform.glsl), so the
// meshlet path's depth equals the indexed path's and forward's EQUAL test holds between passes.
vec4 meshlet_clip(vec3 p, mat4 model) {
    return world_to_clip(object_to_world(model, p));
}

#endif
