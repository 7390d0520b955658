// The fuzz build compiles tinygltf and stb_image from Debian's headers into the fuzz target
// instead of linking libtinygltf.so / libstb.so, so that the parser code the loader calls is
// instrumented too: coverage guides the fuzzer through it and ASan sees its reads and writes.
// (tiny_gltf.h includes stb_image.h and stb_image_write.h itself.)
#define TINYGLTF_IMPLEMENTATION
#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <tiny_gltf.h>
