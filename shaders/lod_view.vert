#version 460
// The lod debug view (--view lod, docs/lod.md): every draw in the colour of the level of detail
// the GPU chose for it. It draws every level of every draw (one indirect command per draw and
// level, firstInstance = draw * kMaxLodLevels + level, src/passes/debug_view_pass.cpp) and runs
// the level rule the cull pass and the task shaders run (lod.glsl): a level the draw did not
// choose puts all its vertices outside the clip volume, so only the chosen level rasterizes. The
// rule's inputs are the draw's alone, so every vertex of a draw agrees.
//
// gl_Position as scene.vert (transform.glsl), depth through the view's own cleared depth buffer: the
// view shows the chosen levels' geometry, whichever geometry path drew the frame.
#include "scene_bindings.glsl"
#include "lod.glsl"
#include "transform.glsl"

layout(location = 0) in vec3 in_position;
layout(location = 2) in vec2 in_uv;
layout(location = 0) flat out uint out_level;
layout(location = 1) flat out uint out_draw;
layout(location = 2) out vec2 out_uv;

layout(push_constant) uniform LodViewPush {
    uint colours[kMaxLodLevels];  // per level, RGBA8 sRGB-encoded (kLodColours in debug_view_pass.h)
    float lod_max_error_px;   // --lod auto: 1 pixel; --lod off: 0 (level 0 always)
} push;

void main() {
    // Clamped as in scene.vert: lanes past a draw's end may load with a garbage instance index.
    uint draw_index = min(uint(gl_InstanceIndex) / kMaxLodLevels, frame.tiles.w - 1u);
    uint level = uint(gl_InstanceIndex) % kMaxLodLevels;
    DrawData draw = draws[draw_index];
    uint chosen = choose_lod_level(draw, lod_view(frame.view, frame.projection, frame.sizes.xy), push.lod_max_error_px);
    vec4 clip = world_to_clip(object_to_world(draw.model, in_position));
    // x > w: the whole triangle lies outside the clip volume and is discarded before rasterization.
    gl_Position = level == chosen ? clip : vec4(2.0, 0.0, 0.5, 1.0);
    out_level = level;
    out_draw = draw_index;
    out_uv = in_uv;
}
