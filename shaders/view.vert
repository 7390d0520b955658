#version 460
// Debug views, vertex stage: each vertex invocation measures its own lane (lane_record) and the
// record travels flat to the pixels, so a triangle shows its provoking (first) vertex's lane.
// Without a VIEW_* define this is the pass-through vertex shader of the other stages' views and
// of the hatch: record "no lane data".
//
// gl_Position is computed exactly like scene.vert (transform.glsl), so the view's
// draws pass the depth test EQUAL against the pre-pass on exactly the pixels the scene covers.
#define VIEW_PARAMS_BINDING 4
#include "scene_bindings.glsl"
#include "view_common.glsl"
#include "transform.glsl"

layout(location = 0) in vec3 in_position;
layout(location = 0) flat out uvec4 out_record;

void main() {
    out_record = lane_record();
    DrawData draw = draws[gl_InstanceIndex];  // firstInstance of each indirect command is its draw index
    gl_Position = world_to_clip(object_to_world(draw.model, in_position));
}
