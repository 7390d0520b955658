#version 460
#ifdef VIEW_PER_PRIMITIVE
// The meshlet path's views (task and mesh stages): the record is a per-primitive output of the
// mesh shader (meshlet_cull.mesh), flat per primitive rather than the provoking vertex's.
#extension GL_EXT_mesh_shader : require
#endif
// Debug views, fragment stage and colouring. With a VIEW_* define (the fragment-stage view) this
// shader measures its own lane: the pixels show how the rasterizer packs fragments, quads and
// helper invocations into subgroups, exactly as in the forward pass (same depth test EQUAL, so
// only visible fragments run). Without one it colours the record the earlier stage measured.
#define VIEW_PARAMS_BINDING 4
#define VIEW_STAGE_FRAGMENT 1
#include "view_common.glsl"

#ifdef VIEW_PER_PRIMITIVE
layout(location = 0) perprimitiveEXT flat in uvec4 in_record;
#else
layout(location = 0) flat in uvec4 in_record;
#endif
layout(location = 0) out vec4 out_color;

void main() {
#if defined(VIEW_LANE_ID) || defined(VIEW_FIRST_LAST) || defined(VIEW_ACTIVE)
    uvec4 record = lane_record();
#else
    uvec4 record = in_record;
#endif
    out_color = view_colour(record, ivec2(gl_FragCoord.xy));
}
