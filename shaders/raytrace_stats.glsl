// The ray statistics of the ray_trace pass, every frame it runs. Both variants count the same
// events; they differ only in how (the `subgroup` variant is USE_SUBGROUP). Where they are counted:
//   raygen, after each trace: its own invocations and the rays of each kind (the dense launch's,
//     which traces one listed ray, counts both before it: count_dense_raygen);
//   closest-hit (reflection rays, and the forward path's primary rays), miss (most of them shadow
//     rays that reach the sun), any-hit (the alpha test), intersection (the light spheres) and
//     callable (the reflected materials): in the stage, where they happen, so the rays raygen
//     asked for and the stages that ran for them are counted independently.
//   fallback: one atomicAdd per invocation and counter, into GpuCounters.
//   subgroup: one atomicAdd per subgroup: subgroupBallot of the event, subgroupBallotBitCount,
//             and the subgroupElect() lane adds the count, into one of kStatStripes copies of the
//             counters (below), which the pass folds into GpuCounters after its launches
//             (ray_stats_fold.comp). The elected lane of each stage's
//             subgroups also adds its gl_SubgroupSize (`lane_slots`) and ORs it into `sizes`: a
//             ray-tracing stage may run at any size from the device's minimum to its maximum, and
//             at more than one within a dispatch, so a stage's occupancy is invocations over
//             lane_slots, not over subgroups times the device's subgroupSize.
//
// Why the subgroup counts are exact in ray-tracing stages, where the rules differ from compute:
//  * Repacking. After traceRayEXT, executeCallableEXT and reportIntersectionEXT an invocation may
//    continue in a different subgroup, with other lanes, and the subgroup built-ins
//    (gl_SubgroupInvocationID, gl_SubgroupEqMask, ...) are Volatile in SPIR-V: they may change
//    across those calls. Every count here is one call of count_event(): its ballot, bit count,
//    elect and atomic run back to back, with no trace, callable or report between them, so they see
//    one and the same set of lanes, and the elected lane adds exactly the lanes of that ballot.
//    Each invocation is in exactly one subgroup at that moment, so it is counted exactly once.
//    Nothing keeps a subgroup value (a ballot, a lane id) across a call that may repack: each
//    count is computed afresh where it is made (raygen counts its shadow and reflection rays after
//    the primary trace, in whatever subgroup it is in by then).
//  * Partial subgroups. The ballot holds only the active lanes, whatever the subgroup size (4 to
//    128) and however few invocations the driver packed together (an any-hit for one ray).
//  * Helper lanes do not exist in these stages; every active lane is a real invocation.
//
// The stripes (subgroup variant). Every counter is one word, and every invocation of every stage
// of the frame adds to the same few words: the atomics on one address serialize where the memory
// system keeps that address (one L2 slice), however few of them the subgroups make. So the
// subgroup variant's elected lane adds into one of kStatStripes copies of the counters, 256 bytes
// apart, chosen by a hash of its own launch index; ray_stats_fold.comp adds the copies up into
// GpuCounters once the launches are done. Any choice of copy is exact: one lane adds the whole
// subgroup's count to one copy, and the fold sums every copy. The fallback cannot spread its
// atomics so cheaply: each invocation would pick its own copy, and the atomics of a subgroup
// would then go to up to a subgroup's worth of addresses, where one address lets the hardware
// (or the compiler) merge them into one; one copy per subgroup needs the subgroup to agree on
// it, which is what the elected lane is.
#ifndef RAYTRACE_STATS_GLSL
#define RAYTRACE_STATS_GLSL

// Word offsets in GpuCounters (src/render/frame.h): after the 16 words of the other passes.
const uint kStatRays = 0u;          // [3] primary, shadow, reflection rays traced
const uint kStatInvocations = 3u;   // [6] by stage: raygen, any-hit, closest-hit, miss, intersection, callable
const uint kStatSubgroups = 9u;     // [6] subgroup variant: atomics made per stage (one per subgroup)
const uint kStatAnyHitRejections = 15u;  // any-hit invocations that ignored the hit (alpha below the cutoff)
const uint kStatSphereHits = 16u;        // intersection invocations that reported a hit
const uint kStatShadowSkips = 17u;       // subgroup variant: subgroups that skipped the shadow-ray block
const uint kStageRaygen = 0u, kStageAnyHit = 1u, kStageClosestHit = 2u, kStageMiss = 3u, kStageIntersection = 4u,
           kStageCallable = 5u;

// The subgroup variant's counters, by stage, after the 18 words (and the meshlet pass's two):
const uint kStatLaneSlots = 20u;  // [6] gl_SubgroupSize summed over the stage's subgroups
const uint kStatSizes = 26u;      // [6] gl_SubgroupSize OR-ed (powers of two)

// Binding 9: with USE_SUBGROUP the stripes, kStatStripes copies of GpuCounters' words from 16 on
// (the words above), each kStatStripeWords apart (ray_trace_pass.h: kRayStatStripes,
// kRayStatStripeWords); without, GpuCounters itself, whose first 16 words are the other passes'.
const uint kStatStripes = 64u, kStatStripeWords = 64u, kStatCounterWords = 16u;
layout(set = 0, binding = 9, std430) buffer RayStats { uint words[]; } ray_stats;

#ifndef RT_VIEW

// The first word of the copy this invocation adds to: its launch index hashed (multiplicative,
// the top 6 bits), so the subgroups of neighbouring launch indices spread over the copies.
uint stat_stripe() {
    uint h = gl_LaunchIDEXT.x * 0x9E3779B1u ^ gl_LaunchIDEXT.y * 0x85EBCA77u;
    return (h >> 26) * kStatStripeWords;
}
void stat_add(uint word, uint n) {
    atomicAdd(ray_stats.words[(USE_SUBGROUP ? stat_stripe() : kStatCounterWords) + word], n);
}

// Counts the lanes for which `event` holds.
void count_event(uint counter, bool event) {
    if (USE_SUBGROUP) {
        uvec4 lanes = subgroupBallot(event);
        if (subgroupElect()) {
            uint n = subgroupBallotBitCount(lanes);
            if (n > 0u) stat_add(counter, n);
        }
    } else if (event) {
        stat_add(counter, 1u);
    }
}

// The elected lane's share of count_invocation (subgroup variant): the subgroup's n invocations
// and its size, into its stripe.
void add_subgroup(uint stage, uint n) {
    uint stripe = stat_stripe();
    atomicAdd(ray_stats.words[stripe + kStatInvocations + stage], n);
    atomicAdd(ray_stats.words[stripe + kStatSubgroups + stage], 1u);
    atomicAdd(ray_stats.words[stripe + kStatLaneSlots + stage], gl_SubgroupSize);
    atomicOr(ray_stats.words[stripe + kStatSizes + stage], gl_SubgroupSize);
}

// Counts this invocation of a stage (and, with subgroups, the subgroup's one atomic). Called first
// thing in each stage's main(), before the stage can trace, call or report anything.
void count_invocation(uint stage) {
    if (USE_SUBGROUP) {
        uint n = subgroupBallotBitCount(subgroupBallot(true));
        if (subgroupElect()) add_subgroup(stage, n);
    } else {
        stat_add(kStatInvocations + stage, 1u);
    }
}
#else
// The views' trace counts nothing: the statistics are the frame's.
void count_event(uint counter, bool event) {}
void count_invocation(uint stage) {}
#endif

// The dense launch's ray generation (RT_DENSE): its invocation and the one listed ray it traces,
// counted together, first thing, before the trace. The invocation traces exactly the ray its list
// entry names (raytrace.rgen: there is no path from here to the end that does not), so counting
// the ray before its trace counts what was traced.
//   subgroup: two ballots and one elected lane for both counts. The lists hold the shadow entries
//     first and the reflection entries after them, so a subgroup is of one kind but at the
//     lists' boundary, and one ray counter takes its atomic (two at the boundary): per subgroup,
//     the invocations' atomics and one ray atomic, where the fallback makes two per invocation.
//     Before the trace the subgroup is the one the launch made (the invocations of neighbouring
//     launch indices, in launch order: neighbouring rays of one 8x8 tile, ray_lists.comp), every
//     lane still active: no subgroup operation is left after the trace, so no lane that returns
//     from its traversal early waits at a ballot for the lanes still traversing, and nothing
//     depends on how the implementation repacks the invocations after traceRayEXT. The ballot
//     holds the active lanes only: the launch's last subgroup, partly filled when the lists'
//     total is not a multiple of the subgroup size, counts the lanes it has, at any size.
void count_dense_raygen(bool shadow_entry) {
#ifndef RT_VIEW
    if (USE_SUBGROUP) {
        uvec4 lanes = subgroupBallot(true), shadow_lanes = subgroupBallot(shadow_entry);
        if (subgroupElect()) {
            uint n = subgroupBallotBitCount(lanes), shadows = subgroupBallotBitCount(shadow_lanes);
            add_subgroup(kStageRaygen, n);
            if (shadows > 0u) stat_add(kStatRays + kRayShadow, shadows);
            if (shadows < n) stat_add(kStatRays + kRayReflection, n - shadows);
        }
    } else {
        stat_add(kStatInvocations + kStageRaygen, 1u);
        stat_add(kStatRays + (shadow_entry ? kRayShadow : kRayReflection), 1u);
    }
#endif
}

#endif
