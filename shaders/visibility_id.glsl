// The visibility id: which triangle covers a pixel, in one 32-bit word (docs/visibility.md, "The
// visibility id"). The one place its bits are defined in GLSL; src/render/visibility_id.h is the
// C++ mirror. Written by the pre-pass (visibility.frag, the meshlet mesh shaders); read by the
// shading pass and by anything else that needs the triangle under a pixel.
//
//   bit 31        0 (reserved; occlusion's late draw writes no ids: ScenePass::record_ids)
//   indexed path  bits 30..P the draw (its indirect command's firstInstance), bits P-1..0 the
//                 primitive: the triangle's place in the list forward draws (indices firstIndex +
//                 3 primitive .. + 2; with occlusion the merged list). Under --raster compute the
//                 source triangle: its index in the draw's chosen level of detail, whichever list
//                 carried it (render/frame.h's named_indices says which list an id indexes).
//                 P = 31 - draw_bits, draw_bits = ceil(log2(draw count)): the split follows the
//                 scene, so the draw count alone (frame.tiles.w) decodes it.
//   meshlet path  bits 30..7 the visible-list entry e = 32 chunk + i (meshlet.glsl's
//                 listed_meshlet: the task chunk gives the draw and the meshlet), bits 6..0 the
//                 triangle's original index in its meshlet (< 124).
// 0xffffffff is "no triangle": the limits (visibility_id_error in C++) keep every id below it.
#ifndef VISIBILITY_ID_GLSL
#define VISIBILITY_ID_GLSL

const uint kVisibilityNone = 0xffffffffu;
const uint kVisibilityLateBit = 0x80000000u;
const uint kVisibilityMeshletTriangleBits = 7u;

// Bits of the draw field for `draw_count` draws (0 for one draw).
uint visibility_draw_bits(uint draw_count) { return draw_count <= 1u ? 0u : uint(findMSB(draw_count - 1u)) + 1u; }
uint visibility_primitive_bits(uint draw_count) { return 31u - visibility_draw_bits(draw_count); }

uint visibility_id_indexed(uint draw, uint primitive, bool late, uint draw_count) {
    return (late ? kVisibilityLateBit : 0u) | (draw << visibility_primitive_bits(draw_count)) | primitive;
}
uint visibility_id_draw(uint id, uint draw_count) { return (id & ~kVisibilityLateBit) >> visibility_primitive_bits(draw_count); }
uint visibility_id_primitive(uint id, uint draw_count) { return id & ((1u << visibility_primitive_bits(draw_count)) - 1u); }
bool visibility_id_late(uint id) { return (id & kVisibilityLateBit) != 0u; }

uint visibility_id_meshlet(uint entry, uint triangle, bool late) {
    return (late ? kVisibilityLateBit : 0u) | (entry << kVisibilityMeshletTriangleBits) | triangle;
}
uint visibility_id_entry(uint id) { return (id & ~kVisibilityLateBit) >> kVisibilityMeshletTriangleBits; }
uint visibility_id_meshlet_triangle(uint id) { return id & ((1u << kVisibilityMeshletTriangleBits) - 1u); }

#endif
