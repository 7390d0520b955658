// glTF 2.0's metallic-roughness BRDF under the frame's sun and sky: the shading passes (shading.glsl:
// forward, the visibility shading pass) and the ray-traced reflections' closest-hit shader
// (raytrace.rchit), which lights a reflected surface with the same functions. The includer has
// included scene_bindings.glsl (frame).
#ifndef BRDF_GLSL
#define BRDF_GLSL

// glTF 2.0's metallic-roughness BRDF (the specification's appendix B, as the Khronos
// glTF-Sample-Viewer evaluates it): Lambert diffuse of the base colour's dielectric part, and
// GGX / height-correlated Smith / Schlick specular with F0 = mix(0.04, base colour, metallic). All
// of it times pi, so a rough dielectric's diffuse term is albedo x n.l, the light units of the
// lights and the sun.
struct Brdf {
    vec3 diffuse;    // base colour x (1 - metallic)
    vec3 f0;         // reflectance at normal incidence
    float alpha;     // roughness squared (at least 0.002: a mirror's highlight stays finite)
    float roughness;
    vec3 view;       // towards the eye, unit
};

Brdf make_brdf(vec3 base_color, float metallic, float roughness, vec3 view) {
    Brdf b;
    b.diffuse = base_color * (1.0 - metallic);
    b.f0 = mix(vec3(0.04), base_color, metallic);
    b.roughness = clamp(roughness, 0.0, 1.0);
    b.alpha = max(b.roughness * b.roughness, 0.002);
    b.view = view;
    return b;
}

// Light reflected towards the view per unit incoming light from direction l, times n.l.
vec3 brdf_lit(Brdf b, vec3 n, vec3 l) {
    float n_dot_l = dot(n, l);
    if (n_dot_l <= 0.0) return vec3(0.0);
    float n_dot_v = max(dot(n, b.view), 1e-4);
    vec3 h = normalize(l + b.view);
    float n_dot_h = max(dot(n, h), 0.0), v_dot_h = max(dot(b.view, h), 0.0);
    vec3 fresnel = b.f0 + (1.0 - b.f0) * pow(1.0 - v_dot_h, 5.0);
    float a2 = b.alpha * b.alpha;
    float d = n_dot_h * n_dot_h * (a2 - 1.0) + 1.0;
    float distribution = a2 / (d * d);  // GGX x pi
    float visibility = 0.5 / (n_dot_l * sqrt(n_dot_v * n_dot_v * (1.0 - a2) + a2) + n_dot_v * sqrt(n_dot_l * n_dot_l * (1.0 - a2) + a2));
    return n_dot_l * ((1.0 - fresnel) * b.diffuse + fresnel * (distribution * visibility));
}

// The sky's light reflected towards the view: diffuse, and specular through Karis' analytic fit of
// the split-sum environment BRDF ("Physically Based Shading on Mobile", 2014).
vec3 brdf_ambient(Brdf b, vec3 n) {
    float n_dot_v = max(dot(n, b.view), 0.0);
    vec4 r = b.roughness * vec4(-1.0, -0.0275, -0.572, 0.022) + vec4(1.0, 0.0425, 1.04, -0.04);
    float a004 = min(r.x * r.x, exp2(-9.28 * n_dot_v)) * r.x + r.y;
    vec2 scale_bias = vec2(-1.04, 1.04) * a004 + r.zw;
    return b.diffuse + b.f0 * scale_bias.x + scale_bias.y;
}

// sun_visibility: 1, or 0 where a ray-traced shadow ray found the sun blocked (ray_traced_light).
// occlusion: the material's, on the ambient light only (glTF).
vec3 ambient_and_sun(Brdf brdf, vec3 normal, float occlusion, float sun_visibility) {
    float sky = 0.5 + 0.5 * normal.y;  // hemisphere ambient
    return frame.ambient.rgb * (sky * occlusion) * brdf_ambient(brdf, normal) +
           frame.sun_color.rgb * sun_visibility * brdf_lit(brdf, normal, frame.sun_direction.xyz);
}

#endif
