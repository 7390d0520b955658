// A triangle as the rasterizer saw it, and the surface at a pixel of it: the vertex shader's
// transforms (transform.glsl, as scene.vert and the mesh shaders have them: the same clip positions the
// rasterizer had) and the perspective-correct barycentrics of a pixel centre. No bindings (the
// includer has declared scene_bindings.glsl's frame): the visibility path names the triangle from
// its visibility image (visibility_surface.glsl), the ray tracer's forward path from a primary ray's
// hit (raytrace.rgen); both then take the same surface from it, bit for bit.
#ifndef TRIANGLE_SURFACE_GLSL
#define TRIANGLE_SURFACE_GLSL

#include "transform.glsl"

struct Triangle {
    uint draw;
    vec4 clip[3];
    vec3 world[3];
    vec3 normal[3];
    vec2 uv[3];
#ifdef VISIBILITY_SURFACE_MATERIAL
    vec4 tangent[3];  // the shading pass's material (visibility_surface.glsl): world, w the sign
    vec2 uv1[3];
#endif
    mat3 to_weights;  // inverse of the clip-space (x, y, w) columns: perspective-correct weights
};

// Vertex i of t: an object-space position, normal and uv of `draw`, transformed as the vertex
// shader transforms them.
void place_vertex(inout Triangle t, uint i, DrawData draw, vec3 position, vec3 normal, vec2 uv) {
    vec4 world = object_to_world(draw.model, position);
    t.clip[i] = world_to_clip(world);
    t.world[i] = world.xyz;
    t.normal[i] = mat3(draw.normal_matrix) * normal;
    t.uv[i] = uv;
}

// After the three vertices: a point of the triangle with perspective-correct barycentrics b has
// clip position sum b_i c_i; it projects to the pixel p (NDC) iff (x, y, w) of that sum is
// w (p, 1). So b is proportional to M^-1 (p, 1), M the matrix of the vertices' (x, y, w) columns,
// and sums to 1.
void finish_triangle(inout Triangle t) { t.to_weights = inverse(mat3(t.clip[0].xyw, t.clip[1].xyw, t.clip[2].xyw)); }

// Perspective-correct barycentrics of the pixel centre `pixel` (may lie outside the triangle: a
// fragment quad's helper lanes extrapolate the same way).
vec3 weights_at(Triangle t, vec2 pixel) {
    vec2 ndc = (pixel + 0.5) / vec2(frame.sizes.xy) * 2.0 - 1.0;
    vec3 k = t.to_weights * vec3(ndc, 1.0);
    return k / (k.x + k.y + k.z);
}

vec2 uv_at(Triangle t, vec3 b) { return b.x * t.uv[0] + b.y * t.uv[1] + b.z * t.uv[2]; }

// The surface point and shading normal at barycentrics b, as the rasterizer interpolates them for
// forward.frag; the plane's normal (world space, oriented by the vertex order).
vec3 world_at(Triangle t, vec3 b) { return b.x * t.world[0] + b.y * t.world[1] + b.z * t.world[2]; }
vec3 normal_at(Triangle t, vec3 b) { return normalize(b.x * t.normal[0] + b.y * t.normal[1] + b.z * t.normal[2]); }
vec3 face_normal(Triangle t) { return normalize(cross(t.world[1] - t.world[0], t.world[2] - t.world[0])); }

#endif
