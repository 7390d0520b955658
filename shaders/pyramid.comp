#version 460
// The depth pyramid (docs/occlusion.md): every level of the reversed-Z depth buffer, each texel
// the minimum (the farthest depth) of the 2x2 texels under it. Layout: pyramid.glsl.
//
// Subgroup path (USE_SUBGROUP): one dispatch, after AMD FidelityFX SPD. Each workgroup of 256 reduces a
// 64x64-pixel tile through levels 0..5 (32x32 texels down to 1); the 2x2 step of every level is
// two quad swaps (subgroupQuadSwapHorizontal/Vertical) and a min. The last workgroup to finish,
// found with one atomic counter, reduces the levels past 5 alone.
// Fallback: one dispatch per level (push.level says which), one invocation per texel (16x16 per
// workgroup), the min of its 2x2 texels (level 0: pixels) below. min is exact, so both give the
// same bits.
#extension GL_EXT_samplerless_texture_functions : require
#extension GL_KHR_memory_scope_semantics : require

#include "pyramid.glsl"
#include "subgroup_switch.glsl"

layout(local_size_x = 256) in;

layout(set = 0, binding = 0) uniform texture2D depth_image;  // DEPTH_READ_ONLY_OPTIMAL
// coherent: the subgroup variant's last workgroup reads levels that other workgroups wrote in
// this same dispatch (see finish_tail()); plain loads could come from a non-coherent cache.
layout(set = 0, binding = 1, std430) coherent buffer Pyramid { float texels[]; } pyramid;
// The subgroup variant's count of finished workgroups; the last one puts it back to 0.
layout(set = 0, binding = 2, std430) coherent buffer Finished { uint workgroups; } finished;

layout(push_constant) uniform Push {
    uvec2 depth_size;
    uint level;  // fallback: the level this dispatch writes
    uint base;   // where this pyramid starts in the buffer (texels): two alternate, occlusion_pass.h
} push;

// Nothing is farther than this: the identity of min, what a pixel outside the buffer counts as. A
// texel lying wholly outside gets it too, and is never stored (nor read by a stored texel: every
// stored texel's footprint starts inside).
#define kNothing uintBitsToFloat(0x7f800000u)  // +infinity

// The farthest depth of the (up to) 2x2 depth pixels under level-0 texel t.
float level0_texel(ivec2 t) {
    ivec2 size = ivec2(push.depth_size);
    float d = kNothing;
    for (int j = 0; j < 2; ++j)
        for (int i = 0; i < 2; ++i) {
            ivec2 p = t * 2 + ivec2(i, j);
            if (all(lessThan(p, size))) d = min(d, texelFetch(depth_image, p, 0).r);
        }
    return d;
}

void store(uint level, ivec2 t, float d) {
    uvec2 depth_size = push.depth_size;
    uvec2 size = pyramid_level_size(depth_size, level);
    if (level < pyramid_level_count(depth_size) && all(lessThan(uvec2(t), size)))
        pyramid.texels[push.base + pyramid_level_offset(depth_size, level) + uint(t.y) * size.x + uint(t.x)] = d;
}

// Texel t of `level` (> 0) from the stored level below: the min of its 2x2, those inside.
float texel_from_below(uint level, ivec2 t) {
    uvec2 below = pyramid_level_size(push.depth_size, level - 1u);
    uint offset = push.base + pyramid_level_offset(push.depth_size, level - 1u);
    float d = kNothing;
    for (int j = 0; j < 2; ++j)
        for (int i = 0; i < 2; ++i) {
            uvec2 s = uvec2(t * 2 + ivec2(i, j));
            if (all(lessThan(s, below))) d = min(d, pyramid.texels[offset + s.y * below.x + s.x]);
        }
    return d;
}

// Two 16x16 planes of a level's texels between steps (ping-pong: a step reads one, writes the other).
shared float plane[2][256];
shared bool last_workgroup;

// Morton order: index bits 0, 2, 4, 6 are x, bits 1, 3, 5, 7 are y. Four consecutive indices 4q..4q+3
// are the 2x2 block (2x, 2y)..(2x+1, 2y+1) of a Morton grid, sixteen are a 4x4 block, and so on.
ivec2 morton(uint i) {
    uint x = i & 0x55u, y = (i >> 1u) & 0x55u;
    x = (x | (x >> 1u)) & 0x33u;
    x = (x | (x >> 2u)) & 0x0Fu;
    y = (y | (y >> 1u)) & 0x33u;
    y = (y | (y >> 2u)) & 0x0Fu;
    return ivec2(x, y);
}

// The farthest of a quad's four values, in all four lanes. In compute a quad is four subgroup
// lanes 4q..4q+3 (GL_KHR_shader_subgroup_quad: quad index = lane & 3), which `me` below puts on
// one 2x2 texel block; the horizontal swap pairs lanes 0-1 and 2-3 (x neighbours), the vertical
// one 0-2 and 1-3 (y neighbours). Every caller has its whole quad active (see main()).
float quad_min(float d) {
    d = min(d, subgroupQuadSwapHorizontal(d));
    return min(d, subgroupQuadSwapVertical(d));
}

// A workgroup barrier that also orders this workgroup's buffer (and shared) accesses at `scope`:
// every invocation's accesses before it happen before every invocation's accesses after it, and
// at device scope a later atomic of one invocation carries all of them to another workgroup (see
// main()). GLSL's barrier() orders shared memory only, and memoryBarrierBuffer() is a fence of
// the calling invocation alone: neither orders one invocation's buffer stores before another
// invocation's atomic.
#define BUFFER_BARRIER(scope) \
    controlBarrier(gl_ScopeWorkgroup, scope, gl_StorageSemanticsBuffer | gl_StorageSemanticsShared, gl_SemanticsAcquireRelease)

// Levels 6 and on, by the last workgroup: every other workgroup's levels 0..5 are in the buffer.
// Each level is a loop over its texels (at 4K, level 6 is 30x17); a barrier between levels orders
// one level's stores before the next level's loads, which other invocations of this workgroup make.
void finish_tail(uint me) {
    uint levels = pyramid_level_count(push.depth_size);
    for (uint level = 6u; level < levels; ++level) {
        uvec2 size = pyramid_level_size(push.depth_size, level);
        for (uint t = me; t < size.x * size.y; t += 256u) {
            ivec2 texel = ivec2(t % size.x, t / size.x);
            store(level, texel, texel_from_below(level, texel));
        }
        BUFFER_BARRIER(gl_ScopeWorkgroup);
    }
}

// The subgroup path: this workgroup's tile, levels 0..5, and the tail if it finishes last.
void build_tile() {
    // This invocation's place in the workgroup, from its subgroup: lane 4q..4q+3 of a subgroup are
    // a quad, and `me` = 4q'..4q'+3 for them, so a quad's lanes get one Morton 2x2 block. That needs
    // every subgroup full (the pipeline requires it: 256 is a multiple of every subgroup size up to
    // 128, and then gl_SubgroupID * gl_SubgroupSize + lane numbers the workgroup 0..255), and 4 to
    // divide the subgroup size, which Vulkan guarantees for every device with quad operations.
    uint me = gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID;
    ivec2 p = morton(me);                              // 16x16
    ivec2 tile0 = ivec2(gl_WorkGroupID.xy) * 32;       // this tile's first level-0 texel

    // Levels 0 and 1: this invocation makes the level-0 texels p + 16 * (i, j) of its tile, one in
    // each 16x16 quadrant, from the depth pixels; its quad holds each quadrant's 2x2 block of them,
    // so one quad_min per quadrant gives the level-1 texel p / 2 + 8 * (i, j). Every lane of the
    // quad has all four; lane q stores quadrant q's, so each level-1 texel is stored once.
    float level1[4];
    for (int q = 0; q < 4; ++q) {
        ivec2 t = p + 16 * ivec2(q & 1, q >> 1);
        float d = level0_texel(tile0 + t);
        store(0u, tile0 + t, d);
        level1[q] = quad_min(d);
    }
    uint mine = me & 3u;
    ivec2 t1 = p / 2 + 8 * ivec2(mine & 1u, mine >> 1u);
    float d1 = level1[mine];
    store(1u, tile0 / 2 + t1, d1);
    plane[0][t1.y * 16 + t1.x] = d1;
    barrier();  // every level-1 texel of the tile is in plane 0

    // Levels 2..5: level `level - 1` is a side x side grid in plane[src]; the first side * side
    // invocations load it in Morton order (quad = 2x2 block), the quad's min is the texel below,
    // and lane 0 of the quad stores it. The branch keeps whole quads (side * side is a multiple of
    // 4), so each quad_min has its four lanes. Between levels the values go through shared memory:
    // a level's next 2x2 blocks are held by four different quads, which may be different subgroups.
    uint src = 0u;
    for (uint level = 2u; level <= 5u; ++level, src ^= 1u) {
        uint side = 32u >> (level - 1u);  // of the level below, in this tile
        if (me < side * side) {
            ivec2 s = morton(me);
            float d = quad_min(plane[src][s.y * int(side) + s.x]);
            if ((me & 3u) == 0u) {
                ivec2 t = s / 2;
                store(level, (tile0 >> level) + t, d);  // tile0 >> level: the tile's first texel there
                plane[src ^ 1u][t.y * int(side / 2u) + t.x] = d;
            }
        }
        barrier();
    }

    // The last workgroup (SPD's pattern, with the ordering the Vulkan memory model asks for).
    // All 256 invocations stored texels, but only invocation 0 counts the workgroup as finished,
    // so every invocation's stores must happen before that one atomic. The barrier below does it:
    // a control barrier whose semantics cover buffer memory at device scope, acquire-release, is
    // in each invocation a release of its own stores and in invocation 0 an acquire of all of
    // them, and it is a release fence before invocation 0's atomic. The workgroup whose atomic
    // reads the last count reads the end of the chain of increments that each of those released
    // into; the barrier after its atomic is the matching acquire (for all its invocations, which
    // then load the other workgroups' level 5), so every workgroup's stores happen before its
    // loads, and the coherent buffer serves them from memory that holds them.
    uint groups = gl_NumWorkGroups.x * gl_NumWorkGroups.y;
    BUFFER_BARRIER(gl_ScopeDevice);
    if (me == 0u) last_workgroup = atomicAdd(finished.workgroups, 1u) == groups - 1u;
    BUFFER_BARRIER(gl_ScopeDevice);
    if (!last_workgroup) return;  // uniform: every invocation reads the same shared value
    finish_tail(me);
    if (me == 0u) finished.workgroups = 0u;  // for the next frame's dispatch (ordered by its barrier)
}

// The fallback: texel t of level push.level, for t in this workgroup's 16x16 block.
void build_level_texel() {
    ivec2 t = ivec2(gl_WorkGroupID.xy) * 16 + ivec2(gl_LocalInvocationIndex % 16u, gl_LocalInvocationIndex / 16u);
    if (any(greaterThanEqual(uvec2(t), pyramid_level_size(push.depth_size, push.level)))) return;
    store(push.level, t, push.level == 0u ? level0_texel(t) : texel_from_below(push.level, t));
}

void main() {
    if (USE_SUBGROUP)
        build_tile();
    else
        build_level_texel();
}
