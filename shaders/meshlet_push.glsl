// The push constants of the meshlet path's culling: its task and mesh shaders (meshlet_payload.glsl)
// and, under --raster compute, the compute shader that culls the meshlets in their place
// (meshlet_raster_cull.comp). MeshletPush in src/passes/meshlet_pass.h.
#ifndef MESHLET_PUSH_GLSL
#define MESHLET_PUSH_GLSL

layout(push_constant) uniform MeshletPush {
    uint chunk_count;   // task workgroups with work (the rest of the 2D grid's last row keep nothing)
    float snap_px;      // the cull pass's tolerances (cull_tests.glsl)
    float frustum_eps;
    uint flags;         // 1: write the capture buffer (tests, --cull-dump); 2: a depth redraw for a view (records nothing)
    float lod_max_error_px;  // --lod auto: 1 pixel; --lod off: 0 (level 0 always), lod.glsl
    // Occlusion culling (docs/occlusion.md): 0 none; 1 phase 1, the chunk table against the previous
    // frame's pyramid; 2 phase 2, phase 1's rejected list against this frame's.
    uint occlusion_phase;
} push;

// --cull off: every meshlet and triangle kept, untested, gathered as the fallback gathers; set by
// the `off` pipelines (specialization constant 0), whose modules are the switch or twin of the
// other two variants'. Not a subgroup path: it keeps more, so its outputs differ.
layout(constant_id = 0) const bool CULL_OFF = false;

#endif
