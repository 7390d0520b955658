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

