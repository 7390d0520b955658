// --cull-dump: the triangles the last frame drew after culling, as text, for tests and for
// anyone checking the cull pass against their own reference.
//
//   # subgroup-demo cull dump 1: the triangles the last frame drew
//   size WIDTH HEIGHT
//   view_proj M00 M01 ... M33          (16 floats, column-major like glm and GLSL)
//   draws N
//   draw D COUNT                       (N blocks, D = 0..N-1; COUNT triangles follow)
//   I0 I1 I2                           (absolute vertex indices, in the order drawn)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <glm/glm.hpp>

struct CullDump {
    uint32_t width = 0, height = 0;
    glm::mat4 view_proj{1.0f};
    std::vector<std::vector<uint32_t>> draws;  // per draw, 3 indices per triangle
};

void write_cull_dump(const std::string& path, const CullDump& dump);
// Throws std::runtime_error on a missing or malformed file.
CullDump read_cull_dump(const std::string& path);
