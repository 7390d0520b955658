// The meshlet path's task chunks (docs/meshlets.md) and what a visible-list entry names: shared by
// meshlet.glsl and by shaders that only need an entry's draw and meshlet (forward.frag's
// meshlet_ids, which decodes the visibility id, visibility_id.glsl).
#ifndef MESHLET_CHUNKS_GLSL
#define MESHLET_CHUNKS_GLSL

// The first of the meshlet path's bindings: 16, after the graphics pipelines' own; a pipeline
// with more of its own moves them (visibility_shade.comp's: 17). with_meshlet_bindings() in
// meshlet_pass.cpp.
#ifndef MESHLET_BINDING
#define MESHLET_BINDING 16
#endif

const uint kMeshletsPerTask = 32u;

// One per task workgroup: draw, first meshlet, meshlets (<= 32), whether the normal cone applies.
layout(set = 0, binding = MESHLET_BINDING + 4, std430) readonly buffer TaskChunks { uvec4 task_chunks[]; };

// The draw, meshlet and level of detail of visible-list entry e (32 chunk + i).
struct ListedMeshlet {
    uint chunk;
    uint index;  // i: the meshlet's bit in the chunk's masks
    uint draw;
    uint meshlet;
    uint level;
};
ListedMeshlet listed_meshlet(uint e) {
    uint chunk = e / kMeshletsPerTask, i = e % kMeshletsPerTask;
    uvec4 c = task_chunks[chunk];  // draw, first meshlet, count, flags (level in bits 8 and up)
    return ListedMeshlet(chunk, i, c.x, c.y + i, c.w >> 8u);
}

#endif
