// Decoding compressed geometry from bytes nobody vetted: EXT_meshopt_compression streams
// (meshoptimizer) and KHR_draco_mesh_compression meshes (libdraco).
//
// Both functions check every count, stride and size they are given before calling the library,
// and return why a stream is refused instead of throwing: the loader turns that into a SceneError
// (exit 3) naming the buffer view or primitive.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

// The EXT_meshopt_compression object of one buffer view (count, byteStride, mode, filter).
struct MeshoptStream {
    uint64_t count = 0;
    uint64_t stride = 0;
    std::string mode;             // ATTRIBUTES, TRIANGLES or INDICES
    std::string filter = "NONE";  // NONE, OCTAHEDRAL, QUATERNION or EXPONENTIAL
};

// The most bytes one stream may decode to (the loader's per-accessor limit).
constexpr uint64_t kMaxMeshoptBytes = 1ull << 30;

// Decodes `size` compressed bytes into out (count * stride bytes). Returns "" or why not.
std::string decode_meshopt(const MeshoptStream& stream, const uint8_t* data, size_t size, std::vector<uint8_t>& out);

struct DracoAttribute {
    int unique_id = -1;  // as named in the glTF extension's "attributes"
    int components = 0;  // what the glTF accessor says; the decoded attribute must agree
    std::vector<float> values;  // components per point, converted (and dequantized) to float
};

struct DracoMesh {
    uint64_t points = 0;
    std::vector<uint32_t> indices;  // a triangle list, each < points
    std::vector<DracoAttribute> attributes;
};

// The most points and faces a Draco mesh may have here (the loader's vertex and index limits).
constexpr uint64_t kMaxDracoPoints = 1ull << 25;
constexpr uint64_t kMaxDracoFaces = 1ull << 26;

// Decodes a Draco mesh and reads the attributes listed in `mesh.attributes` (unique_id and
// components filled in by the caller) as floats. Returns "" or why not.
std::string decode_draco(const uint8_t* data, size_t size, DracoMesh& mesh);
