// Shared declarations of the scene's shaders.
#ifndef COMMON_GLSL
#define COMMON_GLSL

// DrawData, PointLight, FrameUniforms and the constants C++ reads too: one definition for both.
#include "../src/scene/gpu_layout.h"

// Finite-radius point light falloff: smooth, and exactly 0 at and beyond the radius, so a light
// list that omits a light outside its radius changes nothing in the image.
float light_falloff(float distance, float radius) {
    float x = clamp(distance / radius, 0.0, 1.0);
    float f = 1.0 - x * x;
    return f * f / (1.0 + distance * distance);
}

vec3 srgb_encode(vec3 linear) {
    vec3 lo = linear * 12.92;
    vec3 hi = 1.055 * pow(linear, vec3(1.0 / 2.4)) - 0.055;
    return mix(lo, hi, step(vec3(0.0031308), linear));
}

vec3 srgb_decode(vec3 encoded) {
    vec3 lo = encoded / 12.92;
    vec3 hi = pow((encoded + 0.055) / 1.055, vec3(2.4));
    return mix(lo, hi, step(vec3(0.04045), encoded));
}

#endif
