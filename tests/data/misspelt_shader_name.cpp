// Fixture of Build.MisspeltShaderNameFailsTheBuild (tests/CMakeLists.txt): a shader name that
// shaders/variants.cmake does not build. Never compiled.
const char* shader = "cull.comp.subgroupp";
