// The fuzz build compiles tinygltf from Debian's header into the fuzz target instead of linking
// libtinygltf.so, so that the parser code the loader calls is instrumented too: coverage guides
// the fuzzer through it and ASan sees its reads and writes.
// Without stb_image: the loader decodes images with libjpeg-turbo and libpng (image_decode.cpp),
// and CMake compiles every source of the target with tinygltf's stb-based image loader and writer
// left out, so nothing in it can hand a scene's bytes to stb_image (a link error would say so).
#if !defined(TINYGLTF_NO_STB_IMAGE) || !defined(TINYGLTF_NO_STB_IMAGE_WRITE)
#error "fuzz-scene is built without stb_image: see CMakeLists.txt"
#endif
#define TINYGLTF_IMPLEMENTATION
#include <tiny_gltf.h>
