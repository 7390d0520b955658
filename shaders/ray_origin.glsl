// Where the ray_trace pass's secondary rays leave a surface (docs/ray-tracing.md, "Where a ray
// starts"). Ray generation calls this on both shading paths with the pixel's triangle in world
// space and its barycentrics: the visibility path's from the visibility image (the raster's
// perspective-correct weights), the forward path's from its primary ray's hit. So both paths start
// the same shadow and reflection rays from the same surface, by the same arithmetic.
//
// Two corrections, one for each way a ray can meet its own surface:
//  * The shadow terminator (Hanika, "Hacking the Shadow Terminator", Ray Tracing Gems II ch. 4).
//    The vertex normals describe a smooth surface, the triangles only approximate it. Where the
//    smooth normal faces the sun but the flat triangle leans away (near the terminator of a coarse
//    sphere), a ray from the flat triangle towards the sun passes under the neighbouring facets
//    and the pixel shadows itself, in facet-shaped blotches. smooth_surface_point() moves the
//    origin out onto the curved surface the normals describe: each vertex's tangent plane is
//    evaluated at the point, and the barycentric mean of the three projections is the point on
//    that surface. Only convex corners move it (min(0, ...)): on concave or flat geometry the
//    point stays where it is.
//  * Floating-point error of the point itself (Wächter and Binder, "A Fast and Robust Method for
//    Avoiding Self-Intersection", Ray Tracing Gems ch. 6). The point's error grows with its
//    coordinates' magnitude, so offset_ray() moves it a fixed number of units in the last place
//    (ULPs) per coordinate along the geometric normal: the same relative step at any scene scale,
//    where a world-space epsilon is too large for a tiny scene and too small for a huge one. Near
//    zero, where a coordinate's ULPs shrink towards denormals while its error does not (it is the
//    error of the larger coordinates it was computed from), a constant step takes over. Their
//    constants assume a scene of unit size; here the band and the constant step are relative to
//    the triangle's own coordinates (its largest magnitude), so a scene scaled by 1000 or by 0.001
//    moves its origins by the same fraction of itself and shadows exactly the same pixels (the
//    test CoarseSphereShadowsOnlyWhereTheMeshBlocksTheSun).
#ifndef RAY_ORIGIN_GLSL
#define RAY_ORIGIN_GLSL

// Wächter and Binder's constants (their listing): a coordinate moves by kIntScale x n ULPs (256
// ULPs of a unit coordinate: 3e-5), and inside the band kOriginBand x magnitude around zero by
// kFloatScale x magnitude x n instead (magnitude: the triangle's largest coordinate; theirs is 1).
const float kOriginBand = 1.0 / 32.0, kFloatScale = 1.0 / 65536.0, kIntScale = 256.0;

vec3 offset_ray(vec3 p, vec3 n, float magnitude) {
    ivec3 step_ulps = ivec3(kIntScale * n);
    // The integer step moves away from zero for positive coordinates, towards it for negative ones:
    // along +n either way (floats are sign-magnitude).
    vec3 p_ulps = intBitsToFloat(floatBitsToInt(p) + mix(step_ulps, -step_ulps, lessThan(p, vec3(0.0))));
    vec3 p_near = p + kFloatScale * magnitude * n;
    return mix(p_ulps, p_near, lessThan(abs(p), vec3(kOriginBand * magnitude)));
}

// The point on the smooth surface the vertex normals describe (Hanika): p the point of the flat
// triangle at barycentrics b, corner[i] its vertices, normal[i] their unit normals (world space).
vec3 smooth_surface_point(vec3 p, vec3 corner[3], vec3 normal[3], vec3 b) {
    vec3 lift = vec3(0.0);
    for (int i = 0; i < 3; ++i) lift -= b[i] * min(0.0, dot(p - corner[i], normal[i])) * normal[i];
    return p + lift;
}

// The triangle's geometric normal in world space, on the side its vertex normals describe as the
// outside. The winding of a mirrored instance (negative determinant) turns in world space, so the
// cross product of its world edges points inwards: the determinant's sign turns it back, and a
// mirrored mesh gets the same outward normal as its unmirrored twin. mirrored: det(model) < 0.
vec3 outward_face_normal(vec3 corner[3], bool mirrored) {
    vec3 n = normalize(cross(corner[1] - corner[0], corner[2] - corner[0]));
    return mirrored ? -n : n;
}

struct RayStart {
    vec3 position;     // the flat triangle's point (what the raster shades)
    vec3 normal;       // the interpolated shading normal (unit)
    vec3 geometric;    // the outward face normal (outward_face_normal)
    vec3 shadow;       // the shadow ray's origin: on the smooth surface, offset outwards
    vec3 reflection;   // the reflection ray's origin: offset to the viewer's side of the triangle
};

// The surface of a pixel and where its rays start: corner[] and normal[] the triangle in world
// space (normals as the vertex shader transforms them, not yet unit), b the pixel's barycentrics,
// camera the eye's position, lod_offset how far the drawn level of detail
// may lie below the full-detail surface the rays meet (world units, 0 at level 0).
RayStart ray_start(vec3 corner[3], vec3 normal[3], vec3 b, bool mirrored, vec3 camera, float lod_offset) {
    RayStart s;
    vec3 unit[3] = vec3[3](normalize(normal[0]), normalize(normal[1]), normalize(normal[2]));
    s.position = b.x * corner[0] + b.y * corner[1] + b.z * corner[2];
    s.normal = normalize(b.x * normal[0] + b.y * normal[1] + b.z * normal[2]);
    s.geometric = outward_face_normal(corner, mirrored);
    // The shadow ray leaves the outside of the surface: the face normal on the shading normal's
    // side (a triangle seen from behind, or wound against its normals, still offsets outwards).
    vec3 outside = dot(s.geometric, s.normal) < 0.0 ? -s.geometric : s.geometric;
    vec3 largest = max(abs(corner[0]), max(abs(corner[1]), abs(corner[2])));
    float magnitude = max(max(largest.x, largest.y), max(largest.z, 1e-30));
    s.shadow = offset_ray(smooth_surface_point(s.position, corner, unit, b) + outside * lod_offset, outside, magnitude);
    // The reflection ray leaves on the side the camera sees (it mirrors the view about the normal).
    vec3 seen = dot(s.geometric, s.position - camera) > 0.0 ? -s.geometric : s.geometric;
    s.reflection = offset_ray(s.position + seen * lod_offset, seen, magnitude);
    return s;
}

#endif
