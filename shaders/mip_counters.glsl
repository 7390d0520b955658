// The frame's report counters (GpuCounters in src/render/frame.h), as the quad mip's fix-up writes them.
#ifndef MIP_COUNTERS_GLSL
#define MIP_COUNTERS_GLSL
#define MIP_COUNTERS(binding_)                                                                   \
    layout(set = 0, binding = binding_, std430) buffer Counters {                               \
        uint triangles_visible, light_list_entries, light_list_overflow, light_atomics;         \
        uint mip_edge_appends;    /* texels the forward pass appended (repeats included) */     \
        uint mip_edge_overflow;   /* appends past the list's capacity (then: whole-mip fix-up) */ \
        uint mip_edge_duplicates; /* appends of a texel already appended this frame */          \
    } counters
#endif
