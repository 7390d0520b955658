#version 460
// Debug views, geometry stage: a pass-through geometry shader, one invocation per triangle.
// With a VIEW_* define the invocation measures its lane and the whole triangle shows it; without
// one the vertex shader's records pass through.
#define VIEW_PARAMS_BINDING 4
#include "view_common.glsl"

layout(triangles) in;
layout(triangle_strip, max_vertices = 3) out;
layout(location = 0) in uvec4 in_record[];
layout(location = 0) flat out uvec4 out_record;

void main() {
#if defined(VIEW_LANE_ID) || defined(VIEW_FIRST_LAST) || defined(VIEW_ACTIVE)
    uvec4 record = lane_record();  // before the loop: uniform control flow for the ballot
#endif
    for (int i = 0; i < 3; ++i) {
#if defined(VIEW_LANE_ID) || defined(VIEW_FIRST_LAST) || defined(VIEW_ACTIVE)
        out_record = record;
#else
        out_record = in_record[i];
#endif
        gl_Position = gl_in[i].gl_Position;
        EmitVertex();
    }
    EndPrimitive();
}
