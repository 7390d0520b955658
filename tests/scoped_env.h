// An environment variable set for the life of a scope (then unset): the test switches of
// src/vk/fault_injection.h, and lavapipe's LP_NUM_THREADS, for this process and the demos it runs.
#pragma once

#include <cstdlib>
#include <string>

struct ScopedEnv {
    std::string name;
    ScopedEnv(std::string n, const std::string& value) : name(std::move(n)) { setenv(name.c_str(), value.c_str(), 1); }
    ~ScopedEnv() { unsetenv(name.c_str()); }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;
};
