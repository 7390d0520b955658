// The task payload of the meshlet path's culling pipelines (meshlet_cull.task -> meshlet_cull.mesh).
#ifndef MESHLET_PAYLOAD_GLSL
#define MESHLET_PAYLOAD_GLSL

struct TaskPayload {
    // The kept meshlets as visible-list entries (32 chunk + i, listed_meshlet() in meshlet.glsl),
    // compacted: mesh workgroup k draws entries[k]. (Occlusion phase 2's workgroups take phase 1's
    // rejected list, whose meshlets may belong to several draws.)
    uint entries[kMeshletsPerTask];
#ifdef VIEW_PAYLOAD
    uvec4 records[kMeshletsPerTask];    // task-stage views: the lane record of the invocation that kept it
#endif
};
taskPayloadSharedEXT TaskPayload payload;

// The culling pipelines' push constants (MeshletPush in src/passes/meshlet_pass.cpp).
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

#endif
