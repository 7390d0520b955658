#version 460
// Overlay quads in pixels, pulled from a storage buffer (no vertex input state).
struct OverlayVertex {
    vec2 position;
    uint rgba;
    uint unused;
};
layout(set = 0, binding = 0, std430) readonly buffer Vertices { OverlayVertex vertices[]; };
layout(push_constant) uniform Push { vec2 viewport; };
layout(location = 0) out vec4 out_color;

void main() {
    OverlayVertex v = vertices[gl_VertexIndex];
    gl_Position = vec4(v.position / viewport * 2.0 - 1.0, 0.0, 1.0);
    vec4 c = unpackUnorm4x8(v.rgba);
    out_color = vec4(c.rgb * c.a, c.a);  // premultiplied for the "over" blend
}
