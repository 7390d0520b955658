// The shader-cache folder per lavapipe vector width (src/vk/shader_cache.cpp): Mesa 22.3 keys its
// cache without LP_NATIVE_VECTOR_WIDTH, so the demo gives each width a folder of its own, unless the
// user chose a folder or disabled the cache.
#include "vk/shader_cache.h"

#include <gtest/gtest.h>

#include <cstdlib>

TEST(ShaderCache, EachWidthGetsItsOwnFolderUnderTheCacheHome) {
    EXPECT_EQ(lavapipe_shader_cache_dir("128", nullptr, nullptr, nullptr, nullptr, "/x/cache", "/home/u"),
              "/x/cache/mesa_shader_cache_lp128");
    EXPECT_EQ(lavapipe_shader_cache_dir("512", nullptr, nullptr, nullptr, nullptr, nullptr, "/home/u"),
              "/home/u/.cache/mesa_shader_cache_lp512");
    // A relative XDG_CACHE_HOME is invalid by the XDG spec: ignored, as Mesa does.
    EXPECT_EQ(lavapipe_shader_cache_dir("256", nullptr, nullptr, nullptr, nullptr, "rel", "/home/u"),
              "/home/u/.cache/mesa_shader_cache_lp256");
    EXPECT_NE(lavapipe_shader_cache_dir("128", nullptr, nullptr, nullptr, nullptr, "/c", nullptr),
              lavapipe_shader_cache_dir("256", nullptr, nullptr, nullptr, nullptr, "/c", nullptr));
}

TEST(ShaderCache, LeavesMesaAloneWithoutAWidthOrWhenTheUserChose) {
    EXPECT_EQ(lavapipe_shader_cache_dir(nullptr, nullptr, nullptr, nullptr, nullptr, "/c", "/h"), "");
    EXPECT_EQ(lavapipe_shader_cache_dir("", nullptr, nullptr, nullptr, nullptr, "/c", "/h"), "");
    EXPECT_EQ(lavapipe_shader_cache_dir("../x", nullptr, nullptr, nullptr, nullptr, "/c", "/h"), "");
    EXPECT_EQ(lavapipe_shader_cache_dir("128", "/mine", nullptr, nullptr, nullptr, "/c", "/h"), "");
    EXPECT_EQ(lavapipe_shader_cache_dir("128", "", nullptr, nullptr, nullptr, "/c", "/h"), "");
    EXPECT_EQ(lavapipe_shader_cache_dir("128", nullptr, "/old", nullptr, nullptr, "/c", "/h"), "");
    EXPECT_EQ(lavapipe_shader_cache_dir("128", nullptr, nullptr, "1", nullptr, "/c", "/h"), "");
    EXPECT_EQ(lavapipe_shader_cache_dir("128", nullptr, nullptr, nullptr, "true", "/c", "/h"), "");
}

TEST(ShaderCache, IsolateSetsTheEnvironmentOnlyWhenNeeded) {
    unsetenv("MESA_SHADER_CACHE_DIR");
    unsetenv("MESA_GLSL_CACHE_DIR");
    unsetenv("MESA_SHADER_CACHE_DISABLE");
    unsetenv("MESA_GLSL_CACHE_DISABLE");
    setenv("XDG_CACHE_HOME", "/tmp/sgd-xdg", 1);
    unsetenv("LP_NATIVE_VECTOR_WIDTH");
    EXPECT_EQ(isolate_lavapipe_shader_cache(), "");
    EXPECT_EQ(getenv("MESA_SHADER_CACHE_DIR"), nullptr);
    setenv("LP_NATIVE_VECTOR_WIDTH", "256", 1);
    EXPECT_EQ(isolate_lavapipe_shader_cache(), "/tmp/sgd-xdg/mesa_shader_cache_lp256");
    ASSERT_NE(getenv("MESA_SHADER_CACHE_DIR"), nullptr);
    EXPECT_STREQ(getenv("MESA_SHADER_CACHE_DIR"), "/tmp/sgd-xdg/mesa_shader_cache_lp256");
    // Now set (by us or by the user): a later call, at another width, keeps it.
    setenv("LP_NATIVE_VECTOR_WIDTH", "128", 1);
    EXPECT_EQ(isolate_lavapipe_shader_cache(), "");
    EXPECT_STREQ(getenv("MESA_SHADER_CACHE_DIR"), "/tmp/sgd-xdg/mesa_shader_cache_lp256");
    unsetenv("MESA_SHADER_CACHE_DIR");
    unsetenv("LP_NATIVE_VECTOR_WIDTH");
    unsetenv("XDG_CACHE_HOME");
}
