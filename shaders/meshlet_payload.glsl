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

#include "meshlet_push.glsl"

#endif
