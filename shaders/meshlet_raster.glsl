// raster.comp's MESHLET variants (--geometry meshlet --raster compute, docs/raster.md, "The meshlet
// path"): where the triangles come from. A chunk is 64 triangles of a kept meshlet (the list
// meshlet_raster_cull.comp wrote), a lane per triangle; a triangle is named by (visible-list entry,
// index in the meshlet), the pair set_up and the tile bins carry in place of (draw, primitive).
// Its vertices are the meshlet's, transformed with the mesh shader's expression (meshlet_clip,
// `precise`), so the clip positions are its hardware pre-pass's; its id is the one that pre-pass
// names it by, visibility_id_meshlet(entry, triangle), without the late bit (the shading pass reads
// the same ids). The mesh shader's triangle tests (cull_tests.glsl) decide which triangles are
// visible, and the counters count them as it does.
#ifndef MESHLET_RASTER_GLSL
#define MESHLET_RASTER_GLSL

#include "subgroup_switch.glsl"  // count_visible_triangles's paths
#include "meshlet.glsl"  // 0 the frame, 1 the draws (scene_bindings.glsl), 16.. the meshlet path's
#include "cull_tests.glsl"
#include "lod.glsl"      // the per-level counters' words
#define PYRAMID_BUFFER pyramid_texels
#include "occlusion.glsl"  // the occlusion counters' words
#include "meshlet_raster_list.glsl"  // 9: the kept meshlets' chunks

uvec3 meshlet_triangle(Meshlet m, uint t) {
    uint packed = triangles[m.triangle_offset + t];
    return uvec3(packed & 0xffu, (packed >> 8u) & 0xffu, (packed >> 16u) & 0xffu);
}

uint meshlet_triangle_count(uint entry) { return meshlets[listed_meshlet(entry).meshlet].triangle_count; }

// Triangle t of the meshlet of visible-list entry `entry`: its clip positions and id; returns its draw.
uint fetch_triangle(uint entry, uint t, out vec4 clip[3], out uint id) {
    ListedMeshlet lm = listed_meshlet(entry);
    Meshlet m = meshlets[lm.meshlet];
    uvec3 i = meshlet_triangle(m, t);
    mat4 model = draws[lm.draw].model;
    for (uint k = 0u; k < 3u; ++k) clip[k] = meshlet_clip(meshlet_position(m.vertex_offset + i[k]), model);
    id = visibility_id_meshlet(entry, t, false);
    return lm.draw;
}

// The mesh shader's test of the triangle (classify_triangle, as meshlet_cull.mesh calls it: local
// indices stand in for the scene's), so that the compute rasterizer takes the triangles its
// hardware pre-pass draws.
bool meshlet_triangle_visible(uint entry, uint t) {
    if (list_test_triangles == 0u) return true;
    ListedMeshlet lm = listed_meshlet(entry);
    Meshlet m = meshlets[lm.meshlet];
    uvec3 i = meshlet_triangle(m, t);
    mat4 model = draws[lm.draw].model;
    vec3 p[3];
    vec4 c[3];
    for (uint k = 0u; k < 3u; ++k) {
        p[k] = meshlet_position(m.vertex_offset + i[k]);
        c[k] = meshlet_clip(p[k], model);
    }
    CullParams params = CullParams(vec2(frame.sizes.xy), list_snap_px, list_frustum_eps);
    return classify_triangle(i, p[0], p[1], p[2], c[0], c[1], c[2], params) == CULL_VISIBLE;
}

shared uint visible_here;  // the fallback's count

// The mesh shader's counters of the visible triangles (all of one meshlet: one level), in the
// rasterizing dispatch only (not its classifying reruns). Reached by every lane of the workgroup
// in uniform control flow: the subgroup path's ballot sees them all, the fallback's barriers too.
void count_visible_triangles(bool visible, uint entry, bool counting) {
    uint level = listed_meshlet(entry).level;
    bool late = list_phase == 2u;
    uint n;
    bool adds;  // the one lane of the subgroup (or workgroup) that adds its count
    if (USE_SUBGROUP) {
        n = subgroupBallotBitCount(subgroupBallot(visible));  // one atomic per subgroup
        adds = subgroupElect();
    } else {
        if (gl_LocalInvocationIndex == 0u) visible_here = 0u;
        barrier();
        if (visible) atomicAdd(visible_here, 1u);  // shared atomics, one global atomic per workgroup
        barrier();
        n = visible_here;
        adds = gl_LocalInvocationIndex == 0u;
    }
    if (adds && counting && n > 0u) {
        atomicAdd(counters[kCounterTrianglesVisible], n);
        atomicAdd(counters[kLodTrianglesWord + level], n);
        if (late) atomicAdd(counters[kOcclusionTrianglesWord + kOcclusionReadmitted], n);
    }
}

#endif
