// EXT_meshopt_compression through meshoptimizer's decoders, KHR_draco_mesh_compression through
// libdraco. See mesh_decode.h and docs/scenes.md.
#include "mesh_decode.h"

#include <draco/compression/decode.h>
#include <draco/mesh/mesh.h>
#include <meshoptimizer.h>

namespace {

std::string text(uint64_t value) { return std::to_string(value); }

}  // namespace

std::string decode_meshopt(const MeshoptStream& s, const uint8_t* data, size_t size, std::vector<uint8_t>& out) {
    out.clear();
    bool attributes = s.mode == "ATTRIBUTES", triangles = s.mode == "TRIANGLES", indices = s.mode == "INDICES";
    if (!attributes && !triangles && !indices)
        return "unknown mode '" + s.mode + "'";
    // meshoptimizer asserts these (and reads or writes out of bounds where asserts are off).
    if (attributes && (s.stride == 0 || s.stride > 256 || s.stride % 4 != 0))
        return "byteStride " + text(s.stride) + " is not a multiple of 4 in 4..256 (ATTRIBUTES)";
    if (!attributes && s.stride != 2 && s.stride != 4)
        return "byteStride " + text(s.stride) + " is not 2 or 4 (" + s.mode + ")";
    if (triangles && s.count % 3 != 0)
        return "count " + text(s.count) + " is not a multiple of 3 (TRIANGLES)";
    bool octahedral = s.filter == "OCTAHEDRAL", quaternion = s.filter == "QUATERNION",
         exponential = s.filter == "EXPONENTIAL";
    if (s.filter != "NONE" && !octahedral && !quaternion && !exponential)
        return "unknown filter '" + s.filter + "'";
    if (s.filter != "NONE" && !attributes)
        return "filter " + s.filter + " on a " + s.mode + " stream";
    if ((octahedral && s.stride != 4 && s.stride != 8) || (quaternion && s.stride != 8))
        return "byteStride " + text(s.stride) + " does not fit filter " + s.filter;
    if (s.count > kMaxMeshoptBytes / s.stride)
        return "count " + text(s.count) + " x byteStride " + text(s.stride) + " is over 1 GiB";
    // No stream can hold more than this: a vertex stream spends at least 2 bits on 16 bytes (a
    // group of zero deltas), an index stream at least a byte per triangle or index. Checked
    // before allocating, so a few hostile bytes can't claim gigabytes.
    uint64_t bytes = s.count * s.stride;
    if (bytes > 64 * uint64_t(size) + 4096)
        return "count " + text(s.count) + " cannot come from " + text(size) + " compressed bytes";
    out.resize(bytes);
    int result = attributes  ? meshopt_decodeVertexBuffer(out.data(), s.count, s.stride, data, size)
                 : triangles ? meshopt_decodeIndexBuffer(out.data(), s.count, s.stride, data, size)
                             : meshopt_decodeIndexSequence(out.data(), s.count, s.stride, data, size);
    if (result != 0) {
        out.clear();
        return "corrupt or truncated stream (meshoptimizer error " + std::to_string(result) + ")";
    }
    if (octahedral)
        meshopt_decodeFilterOct(out.data(), s.count, s.stride);
    else if (quaternion)
        meshopt_decodeFilterQuat(out.data(), s.count, s.stride);
    else if (exponential)
        meshopt_decodeFilterExp(out.data(), s.count, s.stride);
    return {};
}

std::string decode_draco(const uint8_t* data, size_t size, DracoMesh& mesh) {
    draco::DecoderBuffer buffer;
    buffer.Init(reinterpret_cast<const char*>(data), size);
    auto type = draco::Decoder::GetEncodedGeometryType(&buffer);
    if (!type.ok())
        return "libdraco: " + type.status().error_msg_string();
    if (type.value() != draco::TRIANGULAR_MESH)
        return "not a Draco triangle mesh (a point cloud?)";
    draco::Decoder decoder;
    auto decoded = decoder.DecodeMeshFromBuffer(&buffer);
    if (!decoded.ok())
        return "libdraco: " + decoded.status().error_msg_string();
    const draco::Mesh& m = *decoded.value();
    mesh.points = m.num_points();
    if (mesh.points > kMaxDracoPoints || m.num_faces() > kMaxDracoFaces)
        return text(mesh.points) + " points and " + text(m.num_faces()) + " faces are too many";
    mesh.indices.resize(size_t(m.num_faces()) * 3);
    for (draco::FaceIndex f(0); f < m.num_faces(); ++f)
        for (int k = 0; k < 3; ++k) {
            uint32_t index = m.face(f)[k].value();
            if (index >= mesh.points)
                return "face " + text(f.value()) + " names point " + text(index) + " of " + text(mesh.points);
            mesh.indices[size_t(f.value()) * 3 + k] = index;
        }
    for (DracoAttribute& attribute : mesh.attributes) {
        const draco::PointAttribute* source = attribute.unique_id < 0 ? nullptr : m.GetAttributeByUniqueId(attribute.unique_id);
        if (!source)
            return "no attribute with id " + std::to_string(attribute.unique_id);
        if (source->num_components() != attribute.components)
            return "attribute " + std::to_string(attribute.unique_id) + " has " + std::to_string(source->num_components()) +
                   " components, its accessor " + std::to_string(attribute.components);
        if (!source->is_mapping_identity() && source->indices_map_size() < mesh.points)
            return "attribute " + std::to_string(attribute.unique_id) + " maps fewer points than the mesh has";
        attribute.values.resize(mesh.points * attribute.components);
        for (uint32_t p = 0; p < mesh.points; ++p) {
            draco::AttributeValueIndex value = source->mapped_index(draco::PointIndex(p));
            if (value.value() >= source->size() ||
                !source->ConvertValue<float>(value, int8_t(attribute.components), &attribute.values[size_t(p) * attribute.components]))
                return "attribute " + std::to_string(attribute.unique_id) + " has no value for point " + text(p);
        }
    }
    return {};
}
