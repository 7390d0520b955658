// The task payload of the meshlet path's culling pipelines (meshlet_cull.task -> meshlet_cull.mesh).
#ifndef MESHLET_PAYLOAD_GLSL
#define MESHLET_PAYLOAD_GLSL

struct TaskPayload {
    uint draw;                          // every meshlet of a task workgroup belongs to one draw
    uint first_entry;                   // the visible-list entries reserved for them: first_entry + i
    uint level;                         // their level of detail (the per-level counters, lod.glsl)
    uint meshlets[kMeshletsPerTask];    // the kept meshlets, compacted: mesh workgroup i draws meshlets[i]
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
    uint flags;         // 1: write the capture buffer (tests, --cull-dump)
    float lod_max_error_px;  // --lod auto: 1 pixel; --lod off: 0 (level 0 always), lod.glsl
} push;

#endif
