#version 460
// The quad mip's edge fix-up, step 2 (docs/quad-mip.md): recomputes the texels that the forward
// pass appended to the edge list (quads with helpers: silhouettes, blocks split between triangles)
// as the box filter of the finished HDR frame, summed (a + b) + (c + d) as every mip writer does.
// Dispatched indirectly from mip_fixup_args.comp; if the list overflowed, every texel instead.
layout(local_size_x = 64) in;

layout(set = 0, binding = 0, rgba16f) uniform readonly image2D color_image;
layout(set = 0, binding = 1, rgba16f) uniform writeonly image2D mip_image;
layout(set = 0, binding = 2, std430) readonly buffer MipEdges {
    uint count;
    uint capacity;
    uint reserved[2];
    uint texels[];
} mip_edges;
// One word per mip texel: the `stamp` of the last frame that fixed it. Only ever compared for
// equality with this frame's stamp, so it never needs clearing (zeroed once when created).
layout(set = 0, binding = 3, std430) buffer Stamps { uint stamps[]; };
#include "mip_counters.glsl"
MIP_COUNTERS(4);
layout(push_constant) uniform Push {
    uint stamp;       // distinct per recorded frame, never 0
    uint mip_width;
    uint texel_count;
};

#include "mip_texel.glsl"

shared uint group_duplicates;

void main() {
    if (gl_LocalInvocationIndex == 0u) group_duplicates = 0u;
    barrier();
    bool whole_mip = mip_edges.count > mip_edges.capacity;
    uint items = whole_mip ? texel_count : mip_edges.count;
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    uint duplicates = 0u;
    for (uint i = gl_GlobalInvocationID.x; i < items; i += stride) {
        ivec2 texel;
        if (whole_mip) {
            texel = ivec2(i % mip_width, i / mip_width);
        } else {
            uint packed = mip_edges.texels[i];
            texel = ivec2(packed & 0xFFFFu, packed >> 16u);
            // A texel split between k triangles was appended by each of their quads. The first
            // entry to swap in this frame's stamp writes it; the others would write the same value
            // (no harm, but a write-write race): they skip and are counted.
            if (atomicExchange(stamps[uint(texel.y) * mip_width + uint(texel.x)], stamp) == stamp) {
                ++duplicates;
                continue;
            }
        }
        imageStore(mip_image, texel, box_filter_of_frame(texel));
    }
    // No subgroup operations here: the fix-up belongs to the mip pass, whose subgroup path is the
    // fragment stage's; a shared counter makes it one global atomic per workgroup.
    if (duplicates > 0u) atomicAdd(group_duplicates, duplicates);
    barrier();
    if (gl_LocalInvocationIndex == 0u && group_duplicates > 0u) atomicAdd(counters.mip_edge_duplicates, group_duplicates);
}
