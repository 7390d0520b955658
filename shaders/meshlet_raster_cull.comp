#version 460
// --raster compute on the meshlet path (docs/raster.md, "The meshlet path"): the task shader's
// meshlet culling in compute, for the compute rasterizer. One workgroup of 32 invocations per task
// chunk (or in occlusion phase 2 per 32 entries of the late list, dispatched from its header), one
// per meshlet: the task shader's own tests, counters and visible-list masks (cull_meshlet_chunk,
// meshlet_chunk_cull.glsl), so both keep the same meshlets. Then, in place of launching mesh
// workgroups, the kept meshlets' chunks of 64 triangles (one, or two past 64) are appended to the
// list raster.comp's MESHLET variants rasterize (meshlet_raster_list.glsl), a workgroup per chunk.
//
// The plan's cull variant, as the task shader's: its paths switched by USE_SUBGROUP
// (subgroup_switch.glsl), one SPIR-V for both, and its twin without subgroup operations:
//   subgroup  the task shader's subgroup mask; the list's slots by ballot: each lane's first
//             chunk is the chunks of the kept lanes below it (the exclusive bit counts of the
//             ballots "kept" and "two chunks"), after one atomic per subgroup for its total.
//   fallback  a shared-memory atomicAdd per kept meshlet, one global atomic per workgroup.
//   CULL_OFF  (specialization constant 0, meshlet_push.glsl: it keeps more meshlets) every
//             meshlet kept, listed as the fallback lists.
// The list's order differs between them (and from run to run); what is in it does not, and the
// words do not depend on the order (docs/raster.md, "The word").
#include "subgroup_switch.glsl"
#include "meshlet.glsl"
#include "meshlet_push.glsl"
#include "lod.glsl"
#include "cull_tests.glsl"
#define PYRAMID_BUFFER pyramid_texels
#include "occlusion.glsl"
#include "meshlet_raster_list.glsl"

layout(local_size_x = 32) in;  // kMeshletsPerTask

#include "meshlet_chunk_cull.glsl"

const uint kRasterChunk = 64u;  // raster.comp's workgroup: a lane per triangle

shared uint listed_chunks, first_listed;  // the fallback's

// The first of the `own` list entries of this invocation's kept meshlet (own: 0, 1 or 2).
uint first_chunk_subgroup(uint own) {
    // Control flow is uniform here, so every invocation of the subgroup votes (a 64-lane subgroup
    // holding these 32 has 32 inactive lanes, which the ballots skip). The lanes below this one
    // list one chunk per kept meshlet and one more per meshlet of two chunks: the exclusive bit
    // counts of the two ballots. subgroupElect picks the lowest active lane and
    // subgroupBroadcastFirst reads that same lane, so the one atomic's result reaches every lane.
    uvec4 one = subgroupBallot(own > 0u), two = subgroupBallot(own > 1u);
    uint before = subgroupBallotExclusiveBitCount(one) + subgroupBallotExclusiveBitCount(two);
    uint total = subgroupBallotBitCount(one) + subgroupBallotBitCount(two);
    uint base = 0u;
    if (subgroupElect() && total > 0u) base = atomicAdd(chunk_count, total);
    return subgroupBroadcastFirst(base) + before;
}

uint first_chunk_fallback(uint own, uint lane) {
    if (lane == 0u) listed_chunks = 0u;
    barrier();
    uint before = own > 0u ? atomicAdd(listed_chunks, own) : 0u;
    barrier();
    if (lane == 0u && listed_chunks > 0u) first_listed = atomicAdd(chunk_count, listed_chunks);
    barrier();
    return first_listed + before;
}

void main() {
    // Every invocation, uniform control flow (its barriers): no early return before it.
    MeshletVerdict verdict = cull_meshlet_chunk();
    uint lane = gl_LocalInvocationID.x;
    uint own = verdict.keep ? (meshlets[verdict.meshlet].triangle_count + kRasterChunk - 1u) / kRasterChunk : 0u;  // 1 or 2
    uint first;
    if (USE_SUBGROUP)  // a specialization constant: uniform
        first = first_chunk_subgroup(own);
    else
        first = first_chunk_fallback(own, lane);
    uint capacity = uint(chunks.length());  // every task chunk's meshlets' chunks: a draw keeps a meshlet once a frame
    for (uint k = 0u; k < own; ++k)
        if (first + k < capacity) chunks[first + k] = uvec2(verdict.entry, kRasterChunk * k);
}
