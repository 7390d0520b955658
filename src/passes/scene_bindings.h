// The scene's bindings (shaders/scene_bindings.glsl) and forward's pipeline state: shared by the
// indexed path's scene passes (scene_pass.h) and the meshlet path's (meshlet_pass.h).
#pragma once

#include <string>

#include "render/frame.h"

// Tests only: what forward writes instead of its colour (the visibility path's oracles): which
// triangle it drew (forward.frag.ids) or its quad's uv derivatives (forward.frag.derivatives).
enum class ForwardTestOutput { colour, ids, derivatives };

// Pushes bindings 0..3 of shaders/scene_bindings.glsl.
Descriptors scene_descriptors(const FrameContext& f);
// forward.frag's SPIR-V for [quad mip][subgroup light loop], or "" where the device cannot run it.
std::string forward_fragment_shader(const Context& ctx, bool quad_mip, bool light_loop);
// Forward's pipeline state (targets, EQUAL depth) without its shaders, whose layout it takes.
GraphicsDesc forward_pipeline_desc();
