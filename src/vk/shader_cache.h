// Mesa 22.3's on-disk shader cache is keyed without LP_NATIVE_VECTOR_WIDTH: lavapipe reuses a
// shader compiled for one vector width at another (the device then reports 4 lanes while running
// 8-lane code, or aborts with "corrupted size vs. prev_size"). The demo, and every in-process test
// that creates a Context, gives each width its own cache folder before the Vulkan instance exists.
#pragma once

#include <string>

// The folder MESA_SHADER_CACHE_DIR should name for these environment values (null = unset), or ""
// to leave Mesa's settings alone: when no width is set (or it is not a number), or when the user
// chose a cache folder or disabled the cache. The folder is `<cache home>/mesa_shader_cache_lp<width>`,
// the cache home being $XDG_CACHE_HOME, else $HOME/.cache, else the system temp folder.
std::string lavapipe_shader_cache_dir(const char* vector_width, const char* cache_dir, const char* glsl_cache_dir,
                                      const char* cache_disable, const char* glsl_cache_disable,
                                      const char* xdg_cache_home, const char* home);

// Applies the above to this process's environment (setenv MESA_SHADER_CACHE_DIR) and returns the
// folder set, or "". Call before vkCreateInstance; create_context() does (through create_instance).
std::string isolate_lavapipe_shader_cache();
