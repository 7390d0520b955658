#include "run/image_io.h"

#include <filesystem>
#include <stdexcept>

#include <stb/stb_image_write.h>

void write_png(const std::string& path, uint32_t width, uint32_t height, const std::vector<uint8_t>& rgba) {
    std::vector<uint8_t> opaque = rgba;
    for (size_t i = 3; i < opaque.size(); i += 4) opaque[i] = 255;
    std::filesystem::path parent = std::filesystem::path(path).parent_path();
    std::error_code ignored;
    if (!parent.empty()) std::filesystem::create_directories(parent, ignored);
    if (!stbi_write_png(path.c_str(), int(width), int(height), 4, opaque.data(), int(width * 4)))
        throw std::runtime_error("cannot write PNG " + path + " (is the folder writable?)");
}
