// A test oracle (tests/oracles/, built into the test binaries only).
// CPU reference of light culling: the same conservative test as shaders/light_cull.comp (tile depth
// bounds from the depth buffer, the tile frustum's view-space box, sphere vs box), written again
// from the maths in double precision. The tests compare the GPU's lists against it as sets.
#pragma once

#include <cstdint>
#include <vector>

#include "render/gpu_types.h"

struct ReferenceTile {
    bool has_geometry = false;          // some pixel of the tile has depth > 0 (not background)
    std::vector<uint32_t> lights;       // lights that touch the tile's box, ascending
    // Lights within `tolerance` of the box's surface (|distance - radius| < tolerance): float
    // rounding on the GPU may put them on either side, so a test accepts them in or out.
    std::vector<uint32_t> borderline;
};

struct ReferenceLists {
    std::vector<ReferenceTile> tiles;  // row-major, tiles_x * tiles_y
    uint64_t pairs = 0;                // sum of lights.size(): entries plus overflow, if nothing were borderline
    uint64_t borderline_pairs = 0;
};

// depth: width * height reversed-Z values (0 = background) as read back from the pre-pass.
// tolerance: in view-space distance units (the scene's), see ReferenceTile::borderline.
ReferenceLists reference_light_lists(const FrameUniforms& frame, const std::vector<GpuLight>& lights,
                                     const std::vector<float>& depth, uint32_t tile_size, double tolerance);
