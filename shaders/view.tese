#version 460
// Debug views, tessellation-evaluation stage. With all levels 1 the primitive generator emits one
// triangle whose three domain points are the patch corners (1,0,0), (0,1,0), (0,0,1). Each
// invocation copies its corner's position instead of interpolating, so gl_Position is bit-exact
// and the depth test EQUAL against the pre-pass holds. With a VIEW_* define the invocation
// measures its own lane; without one it passes the corner's record on (the tess-control view).
#define VIEW_PARAMS_BINDING 4
#include "view_common.glsl"

// With corners mapped u -> control point 0, v -> 1, w -> 2, `cw` (in Vulkan's upper-left domain
// origin) keeps the winding of the input triangle, so back faces are culled as in the pre-pass
// (the hatch tests in tests/gpu/test_debug_views.cpp see every front face drawn).
layout(triangles, equal_spacing, cw) in;
layout(location = 0) in uvec4 in_record[];
layout(location = 0) flat out uvec4 out_record;

void main() {
    vec3 t = gl_TessCoord;
    int corner = t.x >= t.y && t.x >= t.z ? 0 : (t.y >= t.z ? 1 : 2);
#if defined(VIEW_LANE_ID) || defined(VIEW_FIRST_LAST) || defined(VIEW_ACTIVE)
    out_record = lane_record();
#else
    out_record = in_record[corner];
#endif
    gl_Position = gl_in[corner].gl_Position;
}
