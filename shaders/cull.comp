#version 460
// The cull pass (src/passes/cull_pass.cpp, docs/culling.md) in one dispatch: every triangle of
// every draw is tested (cull_tests.glsl), and the survivors are written in input order straight
// into their draw's range of the culled index buffer, whose indirect command gets its indexCount.
// One workgroup per chunk of one level of one draw (the host's chunk table): gl_WorkGroupSize.x
// invocations, each testing kTrianglesPerInvocation consecutive triangles (cull_tests.glsl). A
// partition's chain of dependent steps (ticket, look-back, publish) costs the same whatever its
// size, and only so many invocations run at once; with one triangle each, the pass was a long run
// of waves each waiting on that chain (docs/culling.md). Where a chunk's survivors go depends on
// how many the chunks before it in its level kept: a chained scan with decoupled look-back
// (Merrill and Garland 2016) finds that out, and the decoupled fallback (Smith, Levien and Owens
// 2025) makes it safe without a forward-progress guarantee between workgroups, which Vulkan does
// not give:
//
//   1. Take a ticket. Partitions (chunks) go out in the order workgroups start, so every
//      predecessor of a partition has started before it; gl_WorkGroupID promises no such thing.
//   2. Test the chunk's triangles, count the survivors and give each its slot (workgroup_scan.glsl
//      over the invocations' counts, then the survivors below each in its own run).
//   3. Publish the count (an AGGREGATE), look back over the predecessors' words until an
//      INCLUSIVE prefix or the level's first chunk, publish this chunk's INCLUSIVE prefix. A
//      predecessor that is still not ready after a bounded spin is counted here, from the input, by
//      testing its triangles again: no workgroup ever waits for another one to be scheduled.
//   4. Write the survivors at out_first + 3 (prefix + slot); the level's last chunk writes the
//      draw's indexCount and adds the level's survivors to triangles_visible.
//
// Both paths in one structure, switched by USE_SUBGROUP (subgroup_switch.glsl; built as
// cull.comp.switch and its twin cull.comp.no_subgroup, shaders/variants.cmake); they differ where
// subgroup operations replace shared memory:
//   subgroup   the workgroup scan is subgroupExclusiveAdd plus the subgroups' subgroupAdd sums;
//              the look-back reads a window of predecessors, one per lane of subgroup 0, and
//              sums it with one subgroupAdd per step.
//   fallback   the Hillis-Steele scan in shared memory; one lane looks back, one predecessor
//              at a time.
// Every survivor's slot is decided by counts alone, never by which atomic came first, so the output
// is the same on both paths, on every run and whichever partitions fell back.
//
// With occlusion phase 1 (docs/occlusion.md) it also tests each triangle against the previous
// frame's depth pyramid, and keeps for phase 2 (cull_late.comp, cull_merge.comp) what that needs:
// the ranks of the triangles only the pyramid rejected, compacted by the workgroup's scan to the
// start of the chunk's own stretch (their counts are scanned by cull_scan.comp, which makes them
// one list in input order), and the survivors' count and rank mask.
#extension GL_KHR_memory_scope_semantics : require  // atomicLoad, atomicStore
#include "subgroup_switch.glsl"

#include "common.glsl"
#include "cull_tests.glsl"
#include "lod.glsl"

// The workgroup size is a specialization constant (--cull-group-size; 64 by default): the scan
// and the look-back are correct for any size, including sizes that leave a partial subgroup.
layout(local_size_x_id = 0) in;

#include "workgroup_scan.glsl"

layout(set = 0, binding = 0) uniform Frame { FrameUniforms frame; };
#include "transform.glsl"
layout(set = 0, binding = 1, std430) readonly buffer Draws { DrawData draws[]; };
// Two vec4 per Vertex (32 B, src/scene/scene.h): the position is the first one's xyz. One 16-byte
// load per vertex instead of three 4-byte ones: the test's vertex fetches are gathers (every lane
// its own vertex), so it is the number of load instructions that costs.
layout(set = 0, binding = 2, std430) readonly buffer Vertices { vec4 vertex_data[]; };
layout(set = 0, binding = 3, std430) readonly buffer SourceIndices { uint source_indices[]; };
// (draw, level, first triangle of the level, the draw's first chunk): build_cull_chunks(). A level's
// chunks are consecutive, kChunkTriangles each, so its first is chunk - first / kChunkTriangles.
layout(set = 0, binding = 4, std430) readonly buffer Chunks { uvec4 chunks[]; };
// The look-back's state (CullPass::lookback), only ever accessed with atomics. A ticket counter
// that cycles through 0 .. 2 chunk_count - 1 (two dispatches), then one word per chunk:
//   bit 31      the parity of the dispatch that wrote it (ticket / chunk_count); a word of the
//               other parity is left from the dispatch before: NOT READY;
//   bit 30      1: INCLUSIVE (survivors of the level's chunks up to and including this one),
//               0: AGGREGATE (this chunk's survivors alone);
//   bits 0-29   the count: at most the level's triangles, and a storage buffer of indices holds
//               fewer than 2^30 triangles.
// Flag and count in one word, so one atomic load reads both as one chunk wrote them. Every chunk
// writes its own word in every dispatch, so when a dispatch ends every word has its parity, and
// the next dispatch, of the other parity, starts from words that all read NOT READY: no pass
// resets the state. The host fills every word with parity 1 once; the first dispatch has parity 0.
layout(set = 0, binding = 5, std430) coherent buffer Lookback {
    uint ticket;
    uint partition_state[];
} lookback;
layout(set = 0, binding = 6, std430) writeonly buffer CulledIndices { uint culled_indices[]; };
// VkDrawIndexedIndirectCommand[]: indexCount, instanceCount, firstIndex, vertexOffset, firstInstance.
layout(set = 0, binding = 7, std430) writeonly buffer Indirect { uint indirect[]; };
// GpuCounters (src/render/frame.h), as words.
layout(set = 0, binding = 8, std430) buffer Counters { uint counters[]; };
// The depth pyramids (occlusion_pass.h: two, frame.occlusion.y and .z say where); read only in
// occlusion phase 1 (push.occlusion_phase 1).
layout(set = 0, binding = 9, std430) readonly buffer Pyramid { float pyramid_texels[]; };
#define PYRAMID_BUFFER pyramid_texels
#include "occlusion.glsl"
// Occlusion phase 1 only (docs/occlusion.md), what phase 2 (cull_late.comp, cull_merge.comp) needs:
// - the triangles rejected as occluded, in input order, as the chunk's ranks at the start of its
//   own stretch (a word per triangle of the draw's range: out_first / 3 + first triangle + slot),
//   and their count;
// - the chunk's survivor count again (the merge's scan adds phase 2's to it) and its survivors as
//   a bit mask over the chunk's ranks (kDrawnWords words per chunk);
// - the late draw's indexCount, zeroed by the draw's first chunk (phase 2 counts into it).
layout(set = 0, binding = 10, std430) writeonly buffer Rejected { uint rejected_ranks[]; };
layout(set = 0, binding = 11, std430) writeonly buffer ChunkRejected { uint chunk_rejected[]; };
layout(set = 0, binding = 12, std430) writeonly buffer ChunkDrawn { uint chunk_drawn[]; };
layout(set = 0, binding = 13, std430) writeonly buffer DrawnMasks { uint drawn_masks[]; };
layout(set = 0, binding = 14, std430) writeonly buffer LateIndirect { uint late_indirect[]; };
// Beside each listed triangle (a word per three culled indices), its index in its draw's chosen
// level: the compute rasterizer names triangles so (raster.comp), whatever their place in a list.
layout(set = 0, binding = 15, std430) writeonly buffer SourceRanks { uint source_ranks[]; };
// Per draw, the chosen level as a command over the source indices (lod_select.comp's, which --cull
// off draws): the list whose places those indices are, which the visibility ids of the compute
// rasterizer name (render/frame.h, named_indices).
layout(set = 0, binding = 16, std430) writeonly buffer LevelCommands { uint level_commands[]; };
const uint kChunkTriangles = gl_WorkGroupSize.x * kTrianglesPerInvocation;
const uint kDrawnWords = (kChunkTriangles + 31u) / 32u;  // at most gl_WorkGroupSize.x
shared uint drawn_words[kDrawnWords];

layout(push_constant) uniform Push {
    uint chunk_count;
    float snap_px;
    float frustum_eps;
    float lod_max_error_px;  // --lod auto: 1 pixel; --lod off: 0 (level 0 always)
    // Occlusion culling (docs/occlusion.md): 0 none; 1 phase 1, against the previous frame's
    // pyramid with its view-projection (nothing rejected without one). Phase 2 is cull_late.comp.
    uint occlusion_phase;
    // Reads of a predecessor's word that may find it not ready before this workgroup counts the
    // predecessor itself: spin_limit + 1.
    uint spin_limit;
    // Test only (SGD_CULL_LOOKBACK=late@K, src/vk/fault_injection.h): K > 1 hands out the
    // partitions of each run of K tickets last first (partition_of()); 1 in every real run.
    uint late_group;
} push;

const uint kTrianglesVisibleWord = 0u;   // GpuCounters::triangles_visible
const uint kLookbackFallbacksWord = 83u; // GpuCounters::cull_lookback_fallbacks
const uint kParityBit = 0x80000000u;
const uint kInclusiveBit = 0x40000000u;
const uint kCountMask = 0x3FFFFFFFu;

uint load_state(uint chunk) {
    return atomicLoad(lookback.partition_state[chunk], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
}
void store_state(uint chunk, uint word) {
    atomicStore(lookback.partition_state[chunk], word, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
}

// The partition of the order-th ticket. In every real run the same number. Under the test knob,
// each run of late_group tickets gets its partitions last first, so a partition starts before
// its predecessors in the run: the schedule of a device without forward progress, on any device.
// (A bijection: the last run, shorter where late_group does not divide chunk_count, is reversed
// within its own length.)
uint partition_of(uint order) {
    uint run = max(push.late_group, 1u);
    uint run_first = order - order % run;
    uint run_last = min(run_first + run, push.chunk_count) - 1u;
    return run_last - (order - run_first);
}

vec3 vertex_position(uint index) {
    return vertex_data[index * 2u].xyz;
}

struct Verdict {
    uvec3 index;              // the triangle's vertex indices
    bool visible;             // drawn: in range and passes every test, occlusion included
    bool occlusion_rejected;  // passes every other test, but the pyramid rejects it (phase 1)
};

// Triangle `triangle` of the draw's level. One past the level's last triangle (the level's last
// chunk) is not visible; it reads the last triangle again (cached), so the code has no divergent
// branch at all and the caller's scan runs with the whole workgroup.
Verdict test_triangle(uint draw_id, uint level, uint triangle) {
    uint triangle_count = draws[draw_id].lod_index_count[level] / 3u;  // >= 1: the host skips empty levels
    bool in_range = triangle < triangle_count;
    uint first = draws[draw_id].lod_first_index[level] + 3u * min(triangle, triangle_count - 1u);
    Verdict v;
    v.index = uvec3(source_indices[first], source_indices[first + 1u], source_indices[first + 2u]);
    vec3 p0 = vertex_position(v.index.x);
    vec3 p1 = vertex_position(v.index.y);
    vec3 p2 = vertex_position(v.index.z);

    // The depth pass's vertex shader (scene.vert) computes exactly this (transform.glsl), so
    // the tests see the positions the rasterizer sees; their margins absorb any difference in
    // rounding between the two pipelines.
    mat4 model = draws[draw_id].model;
    vec4 world0 = object_to_world(model, p0);
    vec4 world1 = object_to_world(model, p1);
    vec4 world2 = object_to_world(model, p2);
    vec4 c0 = world_to_clip(world0);
    vec4 c1 = world_to_clip(world1);
    vec4 c2 = world_to_clip(world2);
    CullParams params = CullParams(vec2(frame.sizes.xy), push.snap_px, push.frustum_eps);
    uint result = classify_triangle(v.index, p0, p1, p2, c0, c1, c2, params);
    bool passes_others = all(bvec2(in_range, result == CULL_VISIBLE));

    // Occlusion phase 1: the previous frame's pyramid, seen with the previous view-projection. The
    // branch is uniform (push constant and frame uniforms) and the test straight-line code.
    bool occluded = false;
    if (all(bvec2(push.occlusion_phase == 1u, frame.occlusion.x != 0u))) {
        precise vec4 q0 = frame.previous_view_proj * world0;
        precise vec4 q1 = frame.previous_view_proj * world1;
        precise vec4 q2 = frame.previous_view_proj * world2;
        occluded = triangle_occluded(q0, q1, q2, vec2(frame.sizes.xy), push.snap_px, push.frustum_eps, frame.occlusion.y);
    }
    v.visible = all(bvec2(passes_others, !occluded));
    v.occlusion_rejected = all(bvec2(passes_others, occluded));
    return v;
}

// The invocation's run of the chunk: kTrianglesPerInvocation consecutive triangles from `first`,
// tested in turn. Bit t of each mask is triangle first + t. The loop's count is a constant, so
// the caller's control flow stays uniform.
struct RunVerdicts {
    uint visible;
    uint occlusion_rejected;
};
RunVerdicts test_run(uint draw_id, uint level, uint first) {
    RunVerdicts r = RunVerdicts(0u, 0u);
    for (uint t = 0u; t < kTrianglesPerInvocation; ++t) {
        Verdict v = test_triangle(draw_id, level, first + t);
        r.visible |= (v.visible ? 1u : 0u) << t;
        r.occlusion_rejected |= (v.occlusion_rejected ? 1u : 0u) << t;
    }
    return r;
}

// The fallback: how many triangles of `chunk` survive, counted by this workgroup from the input
// with the very test its own workgroup runs, so the count is the one that workgroup publishes.
// Uniform control flow required (the scan's barriers).
uint count_survivors(uint chunk, uint rank) {
    uvec4 entry = chunks[chunk];
    RunVerdicts r = test_run(entry.x, entry.y, entry.z + rank * kTrianglesPerInvocation);
    uint total;
    workgroup_exclusive_scan(bitCount(r.visible), total);
    return total;
}

// The look-back's progress, in shared memory so that the whole workgroup takes the same path.
shared uint lookback_next;    // the predecessor to read next
shared uint lookback_prefix;  // survivors of the predecessors after it, summed
shared bool lookback_done;    // lookback_prefix is the exclusive prefix

// One walk back from lookback_next: sums ready words until an INCLUSIVE one or the level's first
// chunk (done), or gives up on a predecessor still not ready after the spin (lookback_next says
// which). Only the look-back lanes run it; the rest of the workgroup waits at the next barrier.
//
// Subgroup 0 reads a window of predecessors at once, lane k of the window reading lookback_next - k;
// one subgroupAdd per step sums what the window found. k is the lane's rank among the active lanes
// (a ballot), not gl_SubgroupInvocationID, so the window is every active lane whatever the
// subgroup size and however full subgroup 0 is (a workgroup of 5 on 8 lanes, or of 1). Control flow
// is uniform in the subgroup throughout: every lane runs the loop, loads unconditionally (a lane
// past the level's first chunk reads that chunk's word again and counts nothing), and the loop's
// exits depend only on subgroup-wide results.
void walk_subgroup(uint level_first, uint parity) {
    if (gl_SubgroupID != 0u) return;
    uvec4 lanes = subgroupBallot(true);
    uint window = subgroupBallotBitCount(lanes);
    uint k = subgroupBallotExclusiveBitCount(lanes);
    uint next = lookback_next, prefix = lookback_prefix;
    bool done = false;
    for (uint spins = 0u;;) {
        bool in_level = k <= next - level_first;
        uint chunk = in_level ? next - k : level_first;
        uint word = load_state(chunk);
        bool ready = (word & kParityBit) == parity;
        bool ends = all(bvec3(in_level, ready, any(bvec2((word & kInclusiveBit) != 0u, chunk == level_first))));
        // The nearest predecessor not ready (gap) and the nearest that ends the walk (end); window: none.
        uint gap = subgroupMin(all(bvec2(in_level, !ready)) ? k : window);
        uint end = subgroupMin(ends ? k : window);
        if (end < gap) {
            prefix += subgroupAdd(k <= end ? word & kCountMask : 0u);
            done = true;
            break;
        }
        // Every word before the gap is a ready AGGREGATE (with no gap and no end the window lies
        // inside the level: the level's first chunk would have ended it).
        prefix += subgroupAdd(k < gap ? word & kCountMask : 0u);
        next -= min(gap, window);
        if (gap > 0u) spins = 0u;  // progress: a fresh spin for the next gap
        else if (spins++ == push.spin_limit) break;
    }
    if (subgroupElect()) {
        lookback_next = next;
        lookback_prefix = prefix;
        lookback_done = done;
    }
}

// The fallback: one lane, one predecessor at a time.
void walk_fallback(uint level_first, uint parity) {
    if (gl_LocalInvocationIndex != 0u) return;
    uint next = lookback_next, prefix = lookback_prefix;
    bool done = false;
    for (uint spins = 0u;;) {
        uint word = load_state(next);
        if ((word & kParityBit) == parity) {
            prefix += word & kCountMask;
            if (any(bvec2((word & kInclusiveBit) != 0u, next == level_first))) {
                done = true;
                break;
            }
            --next;
            spins = 0u;
        } else if (spins++ == push.spin_limit) {
            break;
        }
    }
    lookback_next = next;
    lookback_prefix = prefix;
    lookback_done = done;
}

void walk(uint level_first, uint parity) {
    if (USE_SUBGROUP) walk_subgroup(level_first, parity);
    else walk_fallback(level_first, parity);
}

// Survivors of the level's chunks before `part` (which is not the level's first). Uniform control
// flow required: every invocation runs the same loop, whose exits are read from shared memory
// after a barrier, so the barriers inside are reached by the whole workgroup.
uint exclusive_prefix(uint part, uint level_first, uint parity, uint rank) {
    if (gl_LocalInvocationIndex == 0u) {
        lookback_next = part - 1u;
        lookback_prefix = 0u;
    }
    for (;;) {
        barrier();  // the last update is visible, and every invocation has read the one before
        walk(level_first, parity);
        barrier();
        if (lookback_done) break;
        // Decoupled fallback: lookback_next did not publish within the spin (not scheduled yet,
        // or stalled). Count its survivors here instead of waiting for it.
        uint stuck = lookback_next;
        uint count = count_survivors(stuck, rank);
        barrier();  // every invocation has read lookback_next before it changes
        if (gl_LocalInvocationIndex == 0u) {
            atomicAdd(counters[kLookbackFallbacksWord], 1u);
            // Publish it on the stuck chunk's behalf, so later walks need not count it again; only
            // over a word of the last dispatch (the chunk's own word, same count or INCLUSIVE, wins).
            uint seen = load_state(stuck);
            if ((seen & kParityBit) != parity) atomicCompSwap(lookback.partition_state[stuck], seen, parity | count);
            lookback_prefix += count;
            lookback_done = stuck == level_first;
            lookback_next = stuck - 1u;
        }
        barrier();
        if (lookback_done) break;
    }
    return lookback_prefix;
}

shared uint shared_ticket;

void main() {
    // A 2D grid only because devices may limit a dimension to 65535 workgroups. The workgroups
    // past the chunk table leave before taking a ticket, so every dispatch hands out exactly
    // chunk_count tickets; whole workgroups leave here (and below), so the barriers and subgroup
    // operations never run with part of a workgroup gone.
    if (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x >= push.chunk_count) return;

    if (gl_LocalInvocationIndex == 0u) {
        uint ticket = atomicAdd(lookback.ticket, 1u);
        // The last ticket of an odd dispatch: every other workgroup of this dispatch holds a
        // smaller one, and the next dispatch waits for this one (a barrier), so the counter can
        // go back to 0 without a pass of its own.
        if (ticket == 2u * push.chunk_count - 1u) atomicExchange(lookback.ticket, 0u);
        shared_ticket = ticket;
    }
    barrier();
    uint ticket = shared_ticket;
    uint parity = ticket >= push.chunk_count ? kParityBit : 0u;
    uint part = partition_of(ticket % push.chunk_count);

    uvec4 entry = chunks[part];
    uint draw_id = entry.x;
    uint level = entry.y;
    uint level_first = part - entry.z / kChunkTriangles;
    bool phase1 = push.occlusion_phase == 1u;
    if (all(bvec3(phase1, part == entry.w, gl_LocalInvocationIndex == 0u))) late_indirect[draw_id * 5u] = 0u;
    // Chunks of the levels the draw does not use this frame keep nothing. The choice depends on
    // the draw alone, so the whole workgroup leaves together; no chunk of this level looks back
    // at this word, but it is written, with this dispatch's parity, like every other.
    LodView lod = lod_view(frame.view, frame.projection, frame.sizes.xy);
    if (level != choose_lod_level(draws[draw_id], lod, push.lod_max_error_px)) {
        if (gl_LocalInvocationIndex == 0u) {
            store_state(part, parity | kInclusiveBit);
            if (phase1) {
                chunk_rejected[part] = 0u;
                chunk_drawn[part] = 0u;
            }
        }
        return;
    }

    // Invocation of rank r tests the chunk's triangles r k .. r k + k - 1 (k = kTrianglesPerInvocation;
    // workgroup_scan.glsl: the scan counts in rank order, so with the survivors below each one in
    // its own run, slots follow triangle order).
    uint rank = scan_rank();
    uint first_rank = rank * kTrianglesPerInvocation;  // the run's first triangle, within the chunk
    RunVerdicts run = test_run(draw_id, level, entry.z + first_rank);

    // Control flow is uniform here: the only branches above are workgroup-uniform returns, and
    // test_run is straight-line code but for its loop of constant count (no early return, no && or
    // || that could short-circuit into a branch, loads clamped instead of skipped). So the active
    // invocations are all of the workgroup's, which is what the scan's barriers and subgroup
    // operations need.
    uint survivors;
    uint slot = workgroup_exclusive_scan(bitCount(run.visible), survivors);

    // Publish, look back, publish again. The level's first chunk knows its prefix (0) at once.
    bool level_start = part == level_first;
    if (gl_LocalInvocationIndex == 0u) store_state(part, parity | (level_start ? kInclusiveBit : 0u) | survivors);
    uint prefix = 0u;
    if (!level_start) {  // uniform: the same part in every invocation
        prefix = exclusive_prefix(part, level_first, parity, rank);
        if (gl_LocalInvocationIndex == 0u) store_state(part, parity | kInclusiveBit | (prefix + survivors));
    }

    // prefix + slot < the level's triangles <= level 0's, so the writes stay inside the draw's
    // range; the buffer bound is checked anyway: a write never leaves the buffer, whatever the
    // inputs. The survivors' indices are read again (test_triangle read them; cached).
    uint dst = draws[draw_id].out_first + 3u * (prefix + slot);
    uint level_indices = draws[draw_id].lod_first_index[level];
    for (uint t = 0u; t < kTrianglesPerInvocation; ++t) {
        if ((run.visible & (1u << t)) == 0u) continue;
        uint src = level_indices + 3u * (entry.z + first_rank + t);
        if (dst + 3u <= uint(culled_indices.length())) {
            culled_indices[dst] = source_indices[src];
            culled_indices[dst + 1u] = source_indices[src + 1u];
            culled_indices[dst + 2u] = source_indices[src + 2u];
            source_ranks[dst / 3u] = entry.z + first_rank + t;
        }
        dst += 3u;
    }

    if (phase1) {  // uniform (a push constant)
        // Phase 2's list: the ranks of the triangles only the pyramid rejected, compacted in rank
        // (input) order by the same scan, to the start of the chunk's stretch (a word per triangle).
        // A triangle's rank is its place in the chunk (first_rank + t).
        uint rejected_count;
        uint rejected_slot = workgroup_exclusive_scan(bitCount(run.occlusion_rejected), rejected_count);
        uint at = draws[draw_id].out_first / 3u + entry.z + rejected_slot;
        for (uint t = 0u; t < kTrianglesPerInvocation; ++t) {
            if ((run.occlusion_rejected & (1u << t)) == 0u) continue;
            if (at < uint(rejected_ranks.length())) rejected_ranks[at] = first_rank + t;
            ++at;
        }
        // The survivors as bits of their ranks: what the merge puts phase 2's additions between.
        // An invocation's run lies in one word (kTrianglesPerInvocation divides 32).
        if (rank < kDrawnWords) drawn_words[rank] = 0u;
        barrier();
        if (run.visible != 0u) atomicOr(drawn_words[first_rank / 32u], run.visible << (first_rank % 32u));
        barrier();
        if (rank < kDrawnWords) drawn_masks[part * kDrawnWords + rank] = drawn_words[rank];
        if (rank == 0u) {
            chunk_rejected[part] = rejected_count;
            chunk_drawn[part] = survivors;
            if (rejected_count != 0u) atomicAdd(counters[kOcclusionTrianglesWord + kOcclusionRejected1], rejected_count);
        }
    }
    if (gl_LocalInvocationIndex == 0u) {
        // The level's last chunk: the draw's indexCount, every dispatch (the level's chunks write
        // nothing past it; at most the draw's triangles, clamped so no input makes it more).
        uint kept = prefix + survivors;
        bool level_end = entry.z + kChunkTriangles >= draws[draw_id].lod_index_count[level] / 3u;
        if (level_end) indirect[draw_id * 5u] = 3u * min(kept, draws[draw_id].index_count / 3u);
        // The frame's counters (occlusion phase 2, cull_late.comp, adds its additions). One atomic
        // per draw for the total; per level, one per workgroup (lod.glsl): the level's first chunk
        // counts the draw, whether or not any of its triangles survive.
        if (all(bvec2(level_end, kept > 0u))) atomicAdd(counters[kTrianglesVisibleWord], kept);
        if (level_start) {
            atomicAdd(counters[kLodDrawsWord + level], 1u);
            level_commands[draw_id * 5u] = draws[draw_id].lod_index_count[level];
            level_commands[draw_id * 5u + 1u] = 1u;
            level_commands[draw_id * 5u + 2u] = draws[draw_id].lod_first_index[level];
            level_commands[draw_id * 5u + 3u] = 0u;
            level_commands[draw_id * 5u + 4u] = draw_id;
        }
        if (survivors > 0u) atomicAdd(counters[kLodTrianglesWord + level], survivors);
    }
}
