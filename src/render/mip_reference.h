#pragma once
// The half-resolution mip's definition on the CPU (shaders/box_filter.glsl): texel (x, y) is the
// 2x2 box filter of frame pixels (2x..2x+1, 2y..2y+1), (a + b) + (c + d) in fp32 with a, b the top
// row, times 1/4, rounded to the nearest half float (ties to even). Every GPU writer of the mip
// must give exactly this, bit for bit; --mip-dump checks the mip it writes against it, on the same
// frame, and the tests use it as their oracle.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

// The nearest half-float value to v >= 0, ties to even (the CPU's own rounding, not the shader's).
float nearest_half(float v);

// Texel (x, y) of the mip of an RGBA frame (4 floats a pixel, `width` pixels a row), channel c.
float box_filter_texel(const std::vector<float>& frame, uint32_t width, uint32_t x, uint32_t y, int c);

struct MipCheck {
    uint64_t texels = 0;      // texels compared: floor(W/2) x floor(H/2)
    uint64_t mismatched = 0;  // texels with a channel that is not the box filter, bit for bit
    uint32_t first_x = 0, first_y = 0;  // the first such texel (row by row), when mismatched > 0
    // Texels where the mip differs from the compute fallback's mip of the same frame, byte for byte;
    // none where nothing was compared (the mip is the fallback's own).
    std::optional<uint64_t> fallback_mismatched;
};

// Compares `mip` (floor(width/2) x floor(height/2) RGBA floats) with the box filter of `frame`.
MipCheck check_mip(const std::vector<float>& frame, uint32_t width, uint32_t height, const std::vector<float>& mip);

// Texels (`texel_bytes` each) in which two images differ; images of different sizes differ in
// every texel of the larger one.
uint64_t differing_texels(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b, size_t texel_bytes);
