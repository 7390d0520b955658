#version 460
// The depth-pyramid view (--view depth-pyramid, docs/occlusion.md): one level of the pyramid over
// the whole frame. Pixel p shows the level's texel p >> (level + 1), the texel whose footprint
// holds it, so each texel is a 2^(level+1)-pixel block. Grey is distance on a log scale: white at
// the near plane, black at the far plane (and where nothing was drawn). It rises with the stored
// depth (reversed Z: larger is nearer), so a texel of the next level is as dark as the darkest of
// the 2x2 below it: the farthest depth.
// The depth view (--view depth, docs/debug-views.md) is the same picture of the depth itself
// (push.level kDepthLevel): the depth the passes after the pre-pass read (Res::depth), at full
// resolution, each pixel its own texel. It needs no pyramid (--occlusion off shows it too).
#extension GL_EXT_samplerless_texture_functions : require
layout(local_size_x = 8, local_size_y = 8) in;

layout(set = 0, binding = 0, rgba8) uniform writeonly image2D color_image;
layout(set = 0, binding = 1, std430) readonly buffer Pyramid { float pyramid_texels[]; };
layout(set = 0, binding = 2) uniform texture2D depth_image;  // DEPTH_READ_ONLY_OPTIMAL

const uint kDepthLevel = 0xffffffffu;  // push.level of the depth view (kDepthViewLevel in occlusion_pass.cpp)

#include "pyramid.glsl"

layout(push_constant) uniform Push {
    uvec2 depth_size;  // the frame's
    uint level;
    uint base;         // where the pyramid starts in the buffer (texels)
    float near_plane;
    float far_plane;
} push;

void main() {
    uvec2 pixel = gl_GlobalInvocationID.xy;
    if (any(greaterThanEqual(pixel, push.depth_size))) return;
    float depth;
    if (push.level == kDepthLevel) {  // uniform: a push constant
        depth = texelFetch(depth_image, ivec2(pixel), 0).r;
    } else {
        uvec2 size = pyramid_level_size(push.depth_size, push.level);
        uvec2 texel = min(pixel >> (push.level + 1u), size - 1u);
        depth = pyramid_texels[push.base + pyramid_level_offset(push.depth_size, push.level) + texel.y * size.x + texel.x];
    }
    // Reversed Z: depth d at view distance z = near far / (d (far - near) + near).
    float n = push.near_plane, f = push.far_plane;
    float z = n * f / (clamp(depth, 0.0, 1.0) * (f - n) + n);
    float grey = 1.0 - clamp(log(z / n) / log(f / n), 0.0, 1.0);
    imageStore(color_image, ivec2(pixel), vec4(vec3(grey), 1.0));
}
