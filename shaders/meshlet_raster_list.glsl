// --raster compute on the meshlet path (docs/raster.md, "The meshlet path"): the list of the kept
// meshlets' chunks that raster.comp's MESHLET variants rasterize, a workgroup of 64 lanes per chunk
// and a lane per triangle. meshlet_raster_cull.comp appends a kept meshlet's chunks (one, or two
// past 64 triangles), meshlet_raster_args.comp folds the count into the indirect dispatches, and
// the host writes the rest of the header (MeshletRaster in src/passes/meshlet_raster.cpp). Occlusion's
// late phase appends to phase 1's chunks, so after the frame the list holds all of its chunks, which
// the classifying passes and --view raster rasterize again.
#ifndef MESHLET_RASTER_LIST_GLSL
#define MESHLET_RASTER_LIST_GLSL

#ifndef MESHLET_RASTER_LIST_BINDING
#define MESHLET_RASTER_LIST_BINDING 9  // raster.comp's chunk table's binding
#endif

layout(set = 0, binding = MESHLET_RASTER_LIST_BINDING, std430) buffer MeshletRasterList {
    uint dispatch_new[3];   // VkDispatchIndirectCommand: this phase's chunks, a workgroup each (rows of at most maxComputeWorkGroupCount[0])
    uint chunk_count;       // the chunks appended in this frame's phases (never past the capacity: a meshlet is kept once a frame)
    uint dispatch_all[3];   // the frame's chunks: the classifying passes and the view
    uint first_new;         // this phase's first chunk
    float list_snap_px;     // the triangle tests' tolerances (cull_tests.glsl), the mesh shader's push constants
    float list_frustum_eps;
    uint list_phase;        // occlusion phase: 2 counts the re-admitted triangles
    uint list_test_triangles;  // 0: --cull off (every triangle of a kept meshlet, as the mesh shader's under CULL_OFF)
    uvec2 chunks[];         // (visible-list entry, the chunk's first triangle in the meshlet: 0 or 64)
};

#endif
