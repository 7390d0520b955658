// The scene-to-clip vertex transform: the one definition every shader that rasterizes the scene
// (scene.vert for the pre-pass and forward, the debug views, the mesh shaders, raster.comp and its
// hardware list's raster_hw.vert), tests what a rasterizer will see (the cull pass) or rebuilds
// what it saw (triangle_surface.glsl) calls.
// `precise` (SPIR-V NoContraction: no fused multiply-add, no reassociation) pins each rounding, so
// on one device every caller gets the same clip position, bit for bit, from the same vertex: the
// forward pass's depth EQUAL test holds against the pre-pass, the compute rasterizer covers the
// pixels the hardware covers, and the visibility path's and the ray tracer's surfaces are the
// rasterized ones. The includer has declared `frame` (common.glsl's FrameUniforms) before this.
#ifndef TRANSFORM_GLSL
#define TRANSFORM_GLSL

// Object space -> world space.
vec4 object_to_world(mat4 model, vec3 position) {
    precise vec4 world = model * vec4(position, 1.0);
    return world;
}

// World space -> clip space.
vec4 world_to_clip(vec4 world) {
    precise vec4 clip = frame.view_proj * world;
    return clip;
}

#endif
