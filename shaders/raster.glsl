// The visibility word (--raster compute, docs/raster.md): one 64-bit word per pixel, the depth's
// bits high and (visibility id + 1) low, written with atomicMax by the compute rasterizer
// (raster.comp) and by the hardware rasterizer's fragment shader (raster_hw.frag) alike, so the
// two merge without ordering.
//  - Reversed Z: the nearer fragment has the larger depth; a non-negative float's bits order as
//    the float does, so the max of the words keeps the nearest.
//  - Equal depths: the larger id wins. The hardware pre-pass (GREATER_OR_EQUAL, draws in draw
//    order, primitives in order, the late draw last) keeps the last fragment drawn, which is the
//    one with the largest (late, draw, primitive): the same rule.
//  - Depths outside [0, 1] are clamped to it in the word (raster_depth_bits).
//  - The clear is 0: low word 0 is "no triangle" (ids go up to 0xfffffffe, so id + 1 is never 0).
#ifndef RASTER_GLSL
#define RASTER_GLSL

#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require

// The depth enters as its float's bits clamped to [0, 1] in integers: a negative value (-0 and
// -epsilon included: the sign bit set) would sort above 1.0, and beat every nearer surface; one
// past 1 (or +NaN, +inf) is 1. A float clamp would keep -0's sign bit and pass NaN on.
uint raster_depth_bits(float depth) {
    uint bits = floatBitsToUint(depth);
    return (bits & 0x80000000u) != 0u ? 0u : min(bits, 0x3f800000u);
}
uint64_t raster_word(float depth, uint id) { return (uint64_t(raster_depth_bits(depth)) << 32) | uint64_t(id + 1u); }
// The word's id (kVisibilityNone where nothing covered the pixel) and depth (0, the far plane, there).
uint raster_word_id(uint64_t word) { return uint(word & 0xffffffffUL) - 1u; }
float raster_word_depth(uint64_t word) { return uintBitsToFloat(uint(word >> 32)); }

// GpuCounters (render/frame.h), counted in the instrumented frame: the triangles each rasterizer
// took (words 85, 86: compute, hardware), the covered pixels, and those whose triangle the hardware drew.
const uint kRasterTrianglesWord = 85u;
const uint kRasterPixelsCoveredWord = 87u;
const uint kRasterPixelsHardwareWord = 88u;
// Words 91-93: the compute rasterizer's triangles per path (per lane, split, tile bin), counted
// where it sorts them; words 94-96: the pixels whose final word each path wrote.
const uint kRasterPathTrianglesWord = 91u;
const uint kRasterPathPixelsWord = 94u;

#endif
