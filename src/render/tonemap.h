// The CPU side of the resolve pass's display transform (shaders/tonemap.glsl): --mip-dump writes
// the HDR mip through it, with the exposure the frame was resolved with. No Vulkan.
#pragma once

#include <cstdint>
#include <vector>

float half_to_float(uint16_t h);
// RGBA16F bytes as read back (8 a texel) -> 4 floats a texel.
std::vector<float> halves_to_floats(const std::vector<uint8_t>& bytes);
// Khronos PBR Neutral, then sRGB encoding and 8 bits (alpha 255): tonemap.glsl's display().
std::vector<uint8_t> tonemap_rgba8(const std::vector<float>& rgba, float exposure);
