#pragma once

#include <cstdint>
#include <string>
#include <vector>

// Writes tightly packed RGBA8 as PNG (alpha forced opaque); throws std::runtime_error on failure.
void write_png(const std::string& path, uint32_t width, uint32_t height, const std::vector<uint8_t>& rgba);
