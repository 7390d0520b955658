// Descriptor set 0 of the scene's graphics pipelines (depth, forward, debug-view draws).
// Pushed with VK_KHR_push_descriptor; the numbers match ScenePass in src/passes/scene_pass.cpp.
#ifndef SCENE_BINDINGS_GLSL
#define SCENE_BINDINGS_GLSL

#include "common.glsl"

layout(set = 0, binding = 0) uniform Frame { FrameUniforms frame; };
layout(set = 0, binding = 1, std430) readonly buffer Draws { DrawData draws[]; };
layout(set = 0, binding = 2, std430) readonly buffer Lights { PointLight lights[]; };
// binding 3 free; the textures are set 1, declared by what samples them (material.glsl includes
// scene_textures.glsl), so that a shader without a texture carries no descriptor array of them
// binding 4: per-tile light lists (light_list.glsl), binding 5: half-resolution mip (forward.frag)

#endif
