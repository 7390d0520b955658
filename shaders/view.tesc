#version 460
// Debug views, tessellation-control stage. A pass-through patch of the scene's triangle (3 control
// points, all tessellation levels 1, so the evaluator emits the triangle itself). Each invocation
// computes one output control point; with a VIEW_* define it also measures its own lane and that
// record replaces the one from the vertex shader; without one it passes the incoming record on.
#define VIEW_PARAMS_BINDING 4
#include "view_common.glsl"

layout(vertices = 3) out;
layout(location = 0) in uvec4 in_record[];
layout(location = 0) out uvec4 out_record[];

void main() {
#if defined(VIEW_LANE_ID) || defined(VIEW_FIRST_LAST) || defined(VIEW_ACTIVE)
    uvec4 record = lane_record();
#else
    uvec4 record = in_record[gl_InvocationID];
#endif
    gl_out[gl_InvocationID].gl_Position = gl_in[gl_InvocationID].gl_Position;
    out_record[gl_InvocationID] = record;
    if (gl_InvocationID == 0) {
        gl_TessLevelOuter[0] = 1.0;
        gl_TessLevelOuter[1] = 1.0;
        gl_TessLevelOuter[2] = 1.0;
        gl_TessLevelInner[0] = 1.0;
    }
}
