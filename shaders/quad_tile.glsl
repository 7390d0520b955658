// The compute passes that work on 2x2-pixel quads (visibility_shade.comp, resolve.comp): a
// workgroup of 128 invocations covers a 16x8-pixel tile, 8x4 quads (src/render/frame.h,
// kQuadTileWidth/Height).
//
// In a fragment shader the rasterizer puts a 2x2 block in the lanes of one quad; here the shader
// does. Vulkan defines a quad in every stage as subgroup lanes 4q..4q+3 (the quad index is
// lane & 3), so a pass that uses quad operations numbers its invocations by subgroup,
//     lane = gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID,
// and invocation `lane` takes pixel (lane & 1, (lane >> 1) & 1) of quad lane >> 2: quad index
// x + 2y, the order the operations define (0 top left, 1 top right, 2 bottom left, 3 bottom right).
// That numbering is 0..127, each once, only with every subgroup full: those pipelines require full
// subgroups, which 128 invocations allow at every subgroup size up to 128; and a quad never spans two
// subgroups because sizes are powers of two of at least 4 on any device with quad operations.
// A pass without quad operations may number by gl_LocalInvocationIndex: any bijection serves.
#ifndef QUAD_TILE_GLSL
#define QUAD_TILE_GLSL

const uvec2 kQuadTile = uvec2(16u, 8u);  // pixels per workgroup

// The pixel of invocation `lane` (0..127) of this workgroup, in the layout above.
uvec2 quad_tile_pixel(uint lane) {
    uint quad = lane >> 2u;
    uvec2 quad_origin = 2u * uvec2(quad % (kQuadTile.x / 2u), quad / (kQuadTile.x / 2u));
    return gl_WorkGroupID.xy * kQuadTile + quad_origin + uvec2(lane & 1u, (lane >> 1u) & 1u);
}

#endif
