// An environment variable set for the life of a scope (then restored): the test switches of
// src/vk/fault_injection.h, and lavapipe's LP_NUM_THREADS, for this process and the demos it runs.
#pragma once

#include <cstdlib>
#include <optional>
#include <string>

struct ScopedEnv {
    std::string name;
    std::optional<std::string> previous;
    ScopedEnv(std::string n, const std::string& value) : name(std::move(n)) {
        if (const char* old = getenv(name.c_str())) previous = old;
        setenv(name.c_str(), value.c_str(), 1);
    }
    ~ScopedEnv() { previous ? (void)setenv(name.c_str(), previous->c_str(), 1) : (void)unsetenv(name.c_str()); }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;
};

// Lavapipe compiling without LLVM's optimization passes, for tests that check what shaders do over
// many small renders rather than how fast (the GPU-AV sweep, the view atlas): compiling dominates
// them, and a cold compile takes about 60% of the optimized one's time. The shaders go into a cache
// folder of their own beside the width's (tests/shared_shader_cache.cpp), so no unoptimized shader
// is ever read by another test.
struct UnoptimizedShaders {
    ScopedEnv no_llvm_passes{"GALLIVM_PERF", "nopt"};
    std::optional<ScopedEnv> own_cache;
    explicit UnoptimizedShaders(const std::string& folder) {
        if (const char* width_cache = getenv("MESA_SHADER_CACHE_DIR")) own_cache.emplace("MESA_SHADER_CACHE_DIR", std::string(width_cache) + "/" + folder);
    }
};
