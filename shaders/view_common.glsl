// Debug views (lane-id, first-last-lane, active-lanes): what one invocation measures about its
// subgroup, and how that becomes a colour. Shared by every stage's view shader.
//
// The stage under view calls lane_record() and passes the record on, flat, to the pixels; the
// colour comes from view_colour(). Exactly one of these is defined per SPIR-V variant
// (shaders/variants.cmake):
//   VIEW_LANE_ID     gl_SubgroupInvocationID                               (basic)
//   VIEW_FIRST_LAST  first / last active lane, subgroupBallotFindLSB / MSB  (basic + ballot)
//   VIEW_ACTIVE      active lanes, subgroupBallotBitCount(subgroupBallot(true))  (basic + ballot)
//   none of them     no subgroup operation at all: the record says "no lane data" and the pixels
//                    are hatched. This is the variant a stage without subgroup support runs.
// The C++ side (src/passes/debug_view_pass.*) loads a variant with subgroup operations only for a
// stage whose subgroup support the plan confirmed.
#ifndef VIEW_COMMON_GLSL
#define VIEW_COMMON_GLSL

#if defined(VIEW_LANE_ID) || defined(VIEW_FIRST_LAST) || defined(VIEW_ACTIVE)
#extension GL_KHR_shader_subgroup_basic : require
#endif
#if defined(VIEW_FIRST_LAST) || defined(VIEW_ACTIVE)
#extension GL_KHR_shader_subgroup_ballot : require
#endif

// record.z: which view the record is for. Mirrors ViewRecordKind in src/passes/debug_view_pass.h.
const uint kRecordNone = 0u;
const uint kRecordLaneId = 1u;
const uint kRecordFirstLast = 2u;
const uint kRecordActive = 3u;

// first-last-lane marks (record.x), bit 0 first active lane, bit 1 last active lane.
const uint kMarkFirst = 1u;
const uint kMarkLast = 2u;

// The view's constant colours, uploaded once by DebugViewPass (std140). All colours are RGBA8
// packed as 0xAABBGGRR holding sRGB-encoded bytes, exactly what lands in the colour target.
layout(set = 0, binding = VIEW_PARAMS_BINDING, std140) uniform ViewParams {
    uvec4 palette[32];  // lane colours 0..127: palette[lane / 4][lane % 4]
    uvec4 marks;        // x first lane, y last lane, z the only active lane (first and last), w hatch
    uvec4 ramp;         // active-lanes ramp at fraction 0, 0.5 and 1; w unused
    vec4 dim;           // x: opacity of the black drawn over unmarked first-last-lane pixels
} view;

// The legend names the subgroup sizes the stage under view ran at (add_view_legend), not the
// device-wide subgroupSize: a stage may run at any size from the device's minimum to its maximum,
// and at more than one in a draw. Each subgroup ORs its gl_SubgroupSize into GpuCounters::view_sizes
// (src/render/frame.h), the frame's counters, bound one after the view's colours.
#if defined(VIEW_LANE_ID) || defined(VIEW_FIRST_LAST) || defined(VIEW_ACTIVE)
const uint kViewSizesWord = 48u;
// active-lanes: the subgroups of the stage under view and their launched lanes (GpuCounters::
// view_subgroups, view_lanes); lanes / subgroups is the stage's mean occupancy (--atlas, report).
const uint kViewSubgroupsWord = 49u;
const uint kViewLanesWord = 50u;
layout(set = 0, binding = VIEW_PARAMS_BINDING + 1, std430) buffer ViewCounters { uint view_counters[]; };

void count_view_size() {
#if defined(VIEW_STAGE_FRAGMENT)
    // A helper invocation's atomics have no effect: it must not be the lane that counts.
    if (gl_HelperInvocation) return;
#endif
    // One atomic per subgroup. Sizes are powers of two, so the OR keeps one bit per size that ran,
    // and it is idempotent: where divergence (the helpers' return) splits a subgroup and each part
    // elects a lane, the parts OR the same size, and the word is right either way.
    if (subgroupElect()) atomicOr(view_counters[kViewSizesWord], gl_SubgroupSize);
}
#endif

vec3 packed_rgb(uint rgba) { return unpackUnorm4x8(rgba).rgb; }

vec3 lane_colour(uint lane) { return packed_rgb(view.palette[(lane >> 2) & 31u][lane & 3u]); }

// Piecewise-linear ramp through three stops; exactly the top stop at fraction 1.
vec3 active_ramp(float fraction) {
    vec3 lo = packed_rgb(view.ramp.x), mid = packed_rgb(view.ramp.y), hi = packed_rgb(view.ramp.z);
    return fraction < 0.5 ? mix(lo, mid, fraction * 2.0) : mix(mid, hi, fraction * 2.0 - 1.0);
}

// What this invocation measures about its subgroup:
//   x  lane id, or first/last marks, or active-lane count (per the variant)
//   y  gl_SubgroupSize; 0 means "no lane data" (the variant without subgroup operations)
//   z  kRecord* kind
//   w  active-lanes only: active lanes that are not fragment helper invocations (= x elsewhere)
// Call it from uniform control flow at the top of main(), before any early return: then
// subgroupBallot(true) sees every invocation the implementation launched in this subgroup, which
// is exactly the occupancy the view is meant to show (a ballot after a branch would only see the
// lanes that took the branch).
uvec4 lane_record() {
#if defined(VIEW_LANE_ID)
    count_view_size();
    return uvec4(gl_SubgroupInvocationID, gl_SubgroupSize, kRecordLaneId, 0u);
#elif defined(VIEW_FIRST_LAST)
    // Ballots are uvec4 (128 lanes), so FindLSB/FindMSB are right at any subgroup size.
    uvec4 lanes = subgroupBallot(true);
    uint lane = gl_SubgroupInvocationID;
    uint mark = (lane == subgroupBallotFindLSB(lanes) ? kMarkFirst : 0u) |
                (lane == subgroupBallotFindMSB(lanes) ? kMarkLast : 0u);
    count_view_size();  // after the ballot, which must see every launched lane
    return uvec4(mark, gl_SubgroupSize, kRecordFirstLast, 0u);
#elif defined(VIEW_ACTIVE)
    uint launched = subgroupBallotBitCount(subgroupBallot(true));
#if defined(VIEW_STAGE_FRAGMENT)
    // Helper invocations (quad members that cover no sample, run for derivatives) are active for
    // subgroup operations: they occupy lanes but write nothing. Count them apart so the view can
    // show the waste.
    uint useful = subgroupBallotBitCount(subgroupBallot(!gl_HelperInvocation));
#else
    uint useful = launched;
#endif
    count_view_size();
    // One lane per subgroup adds the subgroup and its launched lanes (the same ballot as the
    // colour, helpers included). A helper invocation's atomics have no effect, so in fragment the
    // lowest lane that is not a helper adds; a subgroup of helpers only (it shades no pixel) goes
    // uncounted. Elsewhere every active lane is a real invocation and subgroupElect() picks one.
#if defined(VIEW_STAGE_FRAGMENT)
    bool adds = gl_SubgroupInvocationID == subgroupBallotFindLSB(subgroupBallot(!gl_HelperInvocation));
#else
    bool adds = subgroupElect();
#endif
    if (adds) {
        atomicAdd(view_counters[kViewSubgroupsWord], 1u);
        atomicAdd(view_counters[kViewLanesWord], launched);
    }
    return uvec4(launched, gl_SubgroupSize, kRecordActive, useful);
#else
    return uvec4(0u, 0u, kRecordNone, 0u);
#endif
}

// Diagonal stripes, 6 pixels wide: the "no subgroup support in this stage" marking.
bool hatch_stripe(ivec2 pixel) { return ((pixel.x + pixel.y) / 6) % 2 == 0; }

// The colour of a record at a pixel, premultiplied alpha for the "over" blend (or the same
// arithmetic in the compute view): alpha 1 replaces the scene's pixel, alpha 0 keeps it.
vec4 view_colour(uvec4 record, ivec2 pixel) {
    if (record.y == 0u || record.z == kRecordNone)  // no lane data: hatch, never a made-up lane
        return hatch_stripe(pixel) ? vec4(packed_rgb(view.marks.w), 1.0) : vec4(0.0);
    if (record.z == kRecordLaneId) return vec4(lane_colour(record.x), 1.0);
    if (record.z == kRecordFirstLast) {
        if (record.x == (kMarkFirst | kMarkLast)) return vec4(packed_rgb(view.marks.z), 1.0);
        if (record.x == kMarkFirst) return vec4(packed_rgb(view.marks.x), 1.0);
        if (record.x == kMarkLast) return vec4(packed_rgb(view.marks.y), 1.0);
        return vec4(0.0, 0.0, 0.0, view.dim.x);  // dims the scene under it
    }
    // Active lanes over the subgroup size. Where helpers took lanes, stripes alternate between
    // the fraction with helpers and the fraction without them.
    float size = float(record.y);
    bool helper_stripe = record.w < record.x && ((pixel.x - pixel.y) & 2) != 0;
    return vec4(active_ramp(float(helper_stripe ? record.w : record.x) / size), 1.0);
}

#endif
