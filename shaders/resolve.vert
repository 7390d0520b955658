#version 460
// The resolve pass's full-screen triangle: (-1,-1), (3,-1), (-1,3) covers the viewport, so every
// pixel is a real fragment and every quad inside the frame is four real pixels.
void main() {
    vec2 p = vec2(float((gl_VertexIndex << 1) & 2), float(gl_VertexIndex & 2));
    gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}
