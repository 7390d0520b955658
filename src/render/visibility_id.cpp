#include "render/visibility_id.h"

#include <algorithm>

#include "scene/scene.h"

std::string visibility_id_error(const Scene& scene) {
    uint32_t draws = uint32_t(scene.instances.size());
    uint64_t largest = 0;  // triangles of the largest draw, over its levels of detail
    for (const MeshInstance& instance : scene.instances) {
        const Mesh& mesh = scene.meshes[instance.mesh];
        largest = std::max<uint64_t>(largest, mesh.index_count / 3);
        for (uint32_t level = 0; level < mesh.lod_count && level < kMaxLodLevels; ++level)
            largest = std::max<uint64_t>(largest, mesh.lods[level].index_count / 3);
    }
    if (largest <= visibility_max_primitives(draws)) return "";
    return "--shading visibility: the scene has " + std::to_string(draws) + " draws (" +
           std::to_string(visibility_draw_bits(draws)) + " bits of the 32-bit visibility id) and a draw of " +
           std::to_string(largest) + " triangles, more than the " + std::to_string(visibility_max_primitives(draws)) +
           " the remaining " + std::to_string(visibility_primitive_bits(draws)) +
           " bits name (docs/visibility.md); use --shading forward or a smaller --instances";
}

std::string visibility_meshlet_id_error(uint64_t task_chunks) {
    if (task_chunks * 32 <= kVisibilityMaxMeshletEntries) return "";
    return "--shading visibility: the scene has " + std::to_string(task_chunks) +
           " meshlet task chunks, more than the 2^19 the 32-bit visibility id names on the meshlet path "
           "(docs/visibility.md); use --shading forward or a smaller --instances";
}
