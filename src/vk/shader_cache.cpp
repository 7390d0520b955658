#include "vk/shader_cache.h"

#include <cstdlib>
#include <filesystem>

std::string lavapipe_shader_cache_dir(const char* vector_width, const char* cache_dir, const char* glsl_cache_dir,
                                      const char* cache_disable, const char* glsl_cache_disable,
                                      const char* xdg_cache_home, const char* home) {
    if (!vector_width || !*vector_width) return "";
    for (const char* c = vector_width; *c; ++c)
        if (*c < '0' || *c > '9') return "";
    // The user's own choice wins (MESA_GLSL_* are Mesa's older names for the same settings).
    if (cache_dir || glsl_cache_dir || cache_disable || glsl_cache_disable) return "";
    std::filesystem::path base;
    if (xdg_cache_home && xdg_cache_home[0] == '/')
        base = xdg_cache_home;
    else if (home && home[0] == '/')
        base = std::filesystem::path(home) / ".cache";
    else
        base = std::filesystem::temp_directory_path();
    return (base / ("mesa_shader_cache_lp" + std::string(vector_width))).string();
}

std::string isolate_lavapipe_shader_cache() {
    // LP_NATIVE_VECTOR_WIDTH and MESA_SHADER_CACHE_DIR are read by Mesa's llvmpipe/lavapipe only
    // (MESA_SHADER_CACHE_DIR by Mesa's drivers, none of which but lavapipe looks at the width), so
    // setting the folder when the width is set changes nothing for any other Vulkan driver.
    std::string dir = lavapipe_shader_cache_dir(getenv("LP_NATIVE_VECTOR_WIDTH"), getenv("MESA_SHADER_CACHE_DIR"),
                                                getenv("MESA_GLSL_CACHE_DIR"), getenv("MESA_SHADER_CACHE_DISABLE"),
                                                getenv("MESA_GLSL_CACHE_DISABLE"), getenv("XDG_CACHE_HOME"),
                                                getenv("HOME"));
    if (!dir.empty()) setenv("MESA_SHADER_CACHE_DIR", dir.c_str(), 1);
    return dir;
}
