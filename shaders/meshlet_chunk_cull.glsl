// The meshlet path's meshlet culling (docs/meshlets.md), one invocation per meshlet, 32 meshlets of
// one task chunk per workgroup (or in occlusion phase 2, 32 entries of the late list): shared by the
// task shader (meshlet_cull.task), which then launches a mesh workgroup per kept meshlet, and under
// --raster compute by meshlet_raster_cull.comp, which then lists the kept meshlets for the compute
// rasterizer (docs/raster.md, "The meshlet path"). The same tests, counters and visible-list masks
// in both, so both keep the same meshlets.
// Needs meshlet.glsl, meshlet_push.glsl, lod.glsl, cull_tests.glsl and occlusion.glsl
// (PYRAMID_BUFFER pyramid_texels) before it.
//
// Occlusion (push.occlusion_phase): phase 1 also tests each meshlet against the previous frame's
// pyramid, seen with the previous view-projection, and records the meshlets it rejects only for
// that in the chunk's mask; phase 2 (after the pyramid of phase 1's depth) runs over the list of
// those (meshlet_late_list.comp), 32 entries per workgroup whatever their chunks, tests them
// against this frame's pyramid and keeps the re-admitted.
//
// The paths (USE_SUBGROUP, subgroup_switch.glsl): subgroupOr gathers each subgroup's kept bits,
// one shared atomic per subgroup merges them, and ballots count them for the counters, one atomic
// per subgroup (gather_subgroup); or one shared atomicOr per kept meshlet (gather_fallback). The
// task shader's debug views (VIEW_PAYLOAD) take the fallback alone, so that their modules hold no
// subgroup operation of the cull's (view_plain is the hatch of a task stage without any). CULL_OFF
// (meshlet_push.glsl: a variant of its own, not a path, it keeps more meshlets): every meshlet is
// kept (no test), gathered as the fallback gathers. The mask is the same on both paths.
#ifndef MESHLET_CHUNK_CULL_GLSL
#define MESHLET_CHUNK_CULL_GLSL

#include "subgroup_switch.glsl"

shared uint kept_mask;      // bit i: the workgroup's meshlet i is kept
shared uint rejected_mask;  // bit i: occlusion phase 1 rejected it (it passed every other test)
shared uint tested_count;   // the fallback's count of the meshlets tested

// Whether the previous (phase 1) or this frame's (phase 2) pyramid hides meshlet m of a draw: its
// axis-aligned box (object space), whose clip-space corners are the centre's image plus or minus
// each half extent times its column of view_proj * model (box_occluded in occlusion.glsl). The
// box, not the sphere's cube: a meshlet of a wall or of the street is flat, and the cube around
// its sphere stands out of the wall by the radius, in front of what hides it.
bool meshlet_occluded(Meshlet m, mat4 model, mat4 view_proj, uint pyramid_base) {
    mat4 mvp = view_proj * model;
    vec4 centre = mvp * vec4(m.box_centre.xyz, 1.0);
    vec3 h = m.box_half.xyz;
    return box_occluded(centre, h.x * mvp[0], h.y * mvp[1], h.z * mvp[2], vec2(frame.sizes.xy), push.snap_px,
                        push.frustum_eps, pyramid_base);
}

// Adds tested, kept and (phase 1) occlusion-rejected meshlets to the counters: by one invocation
// per subgroup (its subgroup's totals) or per workgroup (the workgroup's). Phase 2's meshlets were
// counted in by phase 1; its per-level counts are added per re-admitted meshlet (a late
// workgroup's entries may lie in several levels), phase 1's here.
void count_meshlets(bool late, uint tested, uint kept, uint rejected_phase1, uint level) {
    atomicAdd(counters[kCounterMeshletsVisible], kept);
    if (late) {
        atomicAdd(counters[kOcclusionMeshletsWord + kOcclusionTested], tested);
        atomicAdd(counters[kOcclusionMeshletsWord + kOcclusionReadmitted], kept);
        atomicAdd(counters[kOcclusionMeshletsWord + kOcclusionRejected2], tested - kept);
    } else {
        atomicAdd(counters[kCounterMeshletsIn], tested);
        if (kept > 0u) atomicAdd(counters[kLodMeshletsWord + level], kept);  // per level (lod.glsl)
        if (rejected_phase1 > 0u) atomicAdd(counters[kOcclusionMeshletsWord + kOcclusionRejected1], rejected_phase1);
    }
}

// Gathers the verdicts of the workgroup's invocations (bit i: invocation i's meshlet) into
// kept_mask and rejected_mask and, where `counts`, adds the workgroup's totals to the counters.
// Both end with a barrier, after which the masks are whole.
void gather_subgroup(uint lane, bool in_range, bool keep, bool rejected, bool late, bool counts, uint level) {
    // Why this is correct at any subgroup size (4, 8, 16, 32, 64 ...) and with a workgroup that is
    // not a multiple of it: control flow is uniform up to here (no branch but uniform ones: the
    // caller's on the specialization constant, a push constant, frame uniforms), so the active
    // invocations of each subgroup are all of its invocations in this workgroup; subgroupOr and
    // the ballots take only those. Each subgroup ORs its lanes' bits (a lane's bit is its own
    // gl_LocalInvocationID.x, not its lane number) and its elected lane adds them with one shared
    // atomic; subgroups own disjoint bits, so the OR of all of them is the whole mask. The
    // counters: one atomic per subgroup, each adding its subgroup's totals.
    uint bits = subgroupOr(keep ? 1u << lane : 0u);
    uint rejected_bits = subgroupOr(rejected ? 1u << lane : 0u);
    uint kept_here = subgroupBallotBitCount(subgroupBallot(keep));
    uint tested_here = subgroupBallotBitCount(subgroupBallot(in_range));
    if (subgroupElect()) {
        atomicOr(kept_mask, bits);
        atomicOr(rejected_mask, rejected_bits);
        if (counts) count_meshlets(late, tested_here, kept_here, bitCount(rejected_bits), level);
    }
    barrier();
}

// One shared atomic per tested, kept or rejected meshlet, the counter atomics by invocation 0.
void gather_fallback(uint lane, bool in_range, bool keep, bool rejected, bool late, bool counts, uint level) {
    if (in_range) atomicAdd(tested_count, 1u);
    if (keep) atomicOr(kept_mask, 1u << lane);
    if (rejected) atomicOr(rejected_mask, 1u << lane);
    barrier();
    if (all(bvec2(lane == 0u, counts))) count_meshlets(late, tested_count, bitCount(kept_mask), bitCount(rejected_mask), level);
}

// What an invocation's meshlet came to.
struct MeshletVerdict {
    uint entry;    // the visible-list entry it tested (32 chunk + i)
    uint meshlet;  // its index in meshlets[]
    bool keep;     // kept: drawn (rasterized) in this phase
    uint mask;     // the workgroup's kept meshlets, bit i for its invocation i: the same in every invocation
};

// Tests the invocation's meshlet, gathers the workgroup's verdicts, counts them and records the
// chunk's masks in the visible list. Reached by every invocation of the workgroup in uniform
// control flow (it has barriers), with no early return before it: workgroups past the chunk table
// or the late list (a 2D grid's last row) and lanes past a chunk's meshlets keep nothing instead.
MeshletVerdict cull_meshlet_chunk() {
    uint workgroup = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint lane = gl_LocalInvocationID.x;
    bool late = push.occlusion_phase == 2u;  // uniform: a push constant
    // The visible-list entry (32 chunk + i) this invocation tests: meshlet `lane` of chunk
    // `workgroup`, or in phase 2 entry 32 workgroup + lane of the late list.
    uint late_index = workgroup * kMeshletsPerTask + lane;
    uint late_count = late_header.w;
    bool listed = late ? late_index < late_count : workgroup < push.chunk_count;
    uint e = late ? late_entries[min(late_index, max(late_count, 1u) - 1u)] : min(workgroup, push.chunk_count - 1u) * kMeshletsPerTask + lane;
    ListedMeshlet lm = listed_meshlet(min(e, push.chunk_count * kMeshletsPerTask - 1u));
    uvec4 entry = task_chunks[lm.chunk];  // draw, first meshlet, count, flags
    if (lane == 0u) {
        kept_mask = 0u;
        rejected_mask = 0u;
        tested_count = 0u;
    }
    barrier();  // cleared before any invocation adds its bit
    // Chunks of the levels the draw does not use this frame (the same choice as the compute
    // cull's, lod.glsl) test and keep nothing; they still record their empty stretch below.
    LodView lod = lod_view(frame.view, frame.projection, frame.sizes.xy);
    bool chosen = lm.level == choose_lod_level(draws[lm.draw], lod, push.lod_max_error_px);
    bool in_range = all(bvec3(listed, chosen, lm.index < entry.z));
    uint meshlet_id = entry.y + min(lm.index, entry.z - 1u);  // lanes past the end re-read the last (cached)
    mat4 model = draws[lm.draw].model;
    bool culled = false;  // phase 2's meshlets passed these tests in phase 1, with the same view
    if (all(bvec2(!late, !CULL_OFF))) culled = meshlet_culled(meshlets[meshlet_id], model, (entry.w & 1u) != 0u, push.snap_px);
    bool passes_others = all(bvec2(in_range, !culled));
    // Occlusion: uniform branches (push constant, frame uniforms) around straight-line code.
    bool occluded = false;
    if (all(bvec2(push.occlusion_phase == 1u, frame.occlusion.x != 0u)))
        occluded = meshlet_occluded(meshlets[meshlet_id], model, frame.previous_view_proj, frame.occlusion.y);
    if (late) occluded = meshlet_occluded(meshlets[meshlet_id], model, frame.view_proj, frame.occlusion.z);
    bool keep = all(bvec2(passes_others, !occluded));
    bool rejected = all(bvec2(passes_others, occluded));

    // The kept meshlets as a mask: bit i for the workgroup's meshlet i, which invocation i tested.
    // Slots come from the mask alone (survivors of lower bits), so a list made from it holds the
    // kept meshlets in input order in every variant, whichever invocations share a subgroup.
    bool counts = (push.flags & 2u) == 0u;  // 2: a redraw of depth for a debug view, which counts nothing
#ifndef VIEW_PAYLOAD  // (the views: the fallback alone, above)
    if (USE_SUBGROUP)
        gather_subgroup(lane, in_range, keep, rejected, late, counts, lm.level);
    else
#endif
        gather_fallback(lane, in_range, keep, rejected, late, counts, lm.level);
    uint mask = kept_mask;
    // Phase 2's per-level meshlet counts: one atomic per re-admitted meshlet (few).
    if (all(bvec3(late, keep, counts))) atomicAdd(counters[kLodMeshletsWord + lm.level], 1u);
    // The per-level draw count: the first chunk of the draw's chosen level counts the draw, once.
    if (all(bvec4(lane == 0u, !late, all(bvec2(listed, chosen)), all(bvec2((entry.w & 2u) != 0u, counts)))))
        atomicAdd(counters[kLodDrawsWord + lm.level], 1u);  // kTaskChunkFirstOfLevel
#ifndef VIEW_PAYLOAD  // the views' mesh shaders record no list either
    // The visible list: each chunk's workgroup writes the chunk's masks into its entry 32 c (no
    // atomic race orders anything: the masks are by meshlet); phase 2 adds its re-admitted
    // meshlets' bits to their chunks' chunk_late, one atomic each. (Flag 2: a redraw of depth for a
    // debug view, which records nothing.)
    bool record_list = all(bvec2(counts, listed));
    if (all(bvec3(lane == 0u, !late, record_list))) {
        visible.entries[workgroup * kMeshletsPerTask].chunk_kept = mask;
        visible.entries[workgroup * kMeshletsPerTask].chunk_late = 0u;
        visible.entries[workgroup * kMeshletsPerTask].chunk_rejected = rejected_mask;
    }
    if (all(bvec3(late, keep, record_list))) atomicOr(visible.entries[lm.chunk * kMeshletsPerTask].chunk_late, 1u << lm.index);
#endif
    return MeshletVerdict(e, meshlet_id, keep, mask);
}

#endif
