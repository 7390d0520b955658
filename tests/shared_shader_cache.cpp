// One Mesa shader cache per lavapipe width for the whole suite, shared by every GPU test process and
// every demo it starts.
//
// Without it, each test process would compile every pipeline with LLVM from scratch: the product
// gives each width a cache under $XDG_CACHE_HOME (src/vk/shader_cache.cpp), and the harness points
// XDG_CACHE_HOME at an empty folder per process so that no tuning file leaks into a test. A cold
// compile is about three quarters of a small render's time on lavapipe (docs/testing.md, "Time").
// The cache changes no result: Mesa keys it by the SPIR-V and pipeline state, and the folder is per
// width because Mesa's key leaves LP_NATIVE_VECTOR_WIDTH out. A variable set by hand wins.
//
// And lavapipe compiles without LLVM's optimization passes (GALLIVM_PERF=nopt), unless set by hand:
// the suite checks what shaders compute, on small images, and compiling is most of its time on a
// clean machine. Seven of the heaviest drawing tests at 8 lanes took 296 s cold against 368 s
// optimized, and 98 s warm against 93 (docs/testing.md, "Time"). Every test compiles the same way,
// so the one cache per width serves them all.
#include <cstdlib>
#include <filesystem>
#include <string>

namespace {

const bool g_shared_shader_cache = [] {
    setenv("GALLIVM_PERF", "nopt", 0);
    const char* width = getenv("LP_NATIVE_VECTOR_WIDTH");
    if (!width || getenv("MESA_SHADER_CACHE_DIR") || getenv("MESA_SHADER_CACHE_DISABLE")) return false;
    std::filesystem::path dir = std::filesystem::path(SGD_TEST_SHADER_CACHE) / (std::string("lp") + width);
    std::error_code ignored;
    std::filesystem::create_directories(dir, ignored);
    setenv("MESA_SHADER_CACHE_DIR", dir.c_str(), 1);
    return true;
}();

}  // namespace
