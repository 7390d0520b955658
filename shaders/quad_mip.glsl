// Half-resolution mip written by the forward fragment shader while it shades (docs/quad-mip.md).
// Included by forward.frag when QUAD_MIP is defined; the pipeline binds the mip at binding 5 and
// the edge list at binding 6.
//
// The four fragment invocations of a quad shade the 2x2 pixel block (2x, 2y)..(2x+1, 2y+1): the
// rasteriser forms quads at even framebuffer coordinates (Vulkan's derivative groups), and the
// quad's invocations are subgroup lanes 4q..4q+3 (quad index = gl_SubgroupInvocationID & 3), at any
// subgroup size. So a quad whose four pixels are all real fragments of one triangle holds exactly
// the four pixels of mip texel (x, y): two quad swaps add them up and one lane stores the texel.
// Every other texel that has geometry (a quad with helpers: along a silhouette, or split between
// triangles) goes to the edge list, and a compute pass recomputes exactly those texels from the
// finished frame (mip_fixup.comp). With box_filter.glsl's (a + b) + (c + d) everywhere, the mip is
// bit-identical to the fallback's box filter on every texel.
//
// MIP_X_* defines build experiment-only variants (shaders/variants.cmake, "experiments"; selected
// with SGD_MIP_EXPERIMENT, docs/quad-mip.md "Where the cost came from"). The shipped variants
// define none of them.
#ifndef QUAD_MIP_GLSL
#define QUAD_MIP_GLSL

#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_quad : require
#extension GL_EXT_terminate_invocation : require

#include "box_filter.glsl"

// Image stores are side effects: without this, a fragment that the EQUAL depth test rejects
// after the shader ran would already have stored or appended. With early tests a rejected fragment
// never runs as a real invocation, so only the surviving (visible) fragment of a pixel counts as
// real. (A rejected fragment may still run as a helper of its quad; helpers never store.)
#ifndef MIP_X_NO_EARLY_TESTS
layout(early_fragment_tests) in;
#endif

layout(set = 0, binding = 5, rgba16f) uniform writeonly image2D mip_image;
// Texels to recompute from the finished frame, packed x | y << 16. `count` is reset to 0 and
// `capacity` written before the forward pass (ScenePass::record_forward); the count may exceed the
// capacity (then nothing past it is written, and the fix-up redoes the whole mip).
layout(set = 0, binding = 6, std430) buffer MipEdges {
    uint count;
    uint capacity;
    uint reserved[2];
    uint texels[];
} mip_edges;

// Called by shade() right after its texture sample, the last instruction that needs the quad's
// helper invocations (the implicit LOD differences the quad). Past it a helper's work is wasted:
// its colour is never a pixel of the frame, and write_quad_mip() never reads a helper's values (it
// learns the real lanes from a ballot and only exchanges within quads whose four lanes are real).
// Returns true for a helper: shade() returns at once, skipping the light loop; the helper stays
// active and votes false in the ballot. (MIP_X_TERMINATE_HELPERS ends it with OpTerminateInvocation
// instead: just as correct, since nothing reads it, but measured slower on NVIDIA, where the
// terminated helper appears to keep running; docs/quad-mip.md.)
bool quad_mip_helper_done() {
#if defined(MIP_X_KEEP_HELPERS) || defined(MIP_X_NOTHING)
    return false;
#elif defined(MIP_X_TERMINATE_HELPERS)
    if (gl_HelperInvocation) terminateInvocation;
    return false;
#else
    return gl_HelperInvocation;
#endif
}

#if defined(MIP_X_NOTHING)  // experiment: no mip at all, only the declarations (and MIP_X_STORE_NEVER)

void write_quad_mip(vec4 colour) {
#ifdef MIP_X_STORE_NEVER
    if (gl_FragCoord.x < -1.0) imageStore(mip_image, ivec2(0), colour);  // a side effect that never runs
#endif
}

#elif !defined(MIP_X_OLD)

// colour: what this invocation writes to the HDR target (linear, half_exact).
void write_quad_mip(vec4 colour) {
    uint lane = gl_SubgroupInvocationID;
    uint quad_index = lane & 3u;
    // Which lanes of this quad are real fragments: a helper votes false (and where it was
    // terminated, MIP_X_TERMINATE_HELPERS, it is not active and has no vote). The quad's four bits lie in one
    // 32-bit word of the ballot (4 divides 32): word lane / 32, bits from (lane & 28).
    uvec4 real = subgroupBallot(!gl_HelperInvocation);
    uint quad_real = (real[lane >> 5u] >> (lane & 28u)) & 0xFu;

    // Odd frame sizes: the mip is floor(W/2) x floor(H/2), so the last column (row) of an odd-sized
    // frame belongs to no texel; its quads address texel W/2, outside the image.
    ivec2 texel = ivec2(gl_FragCoord.xy) >> 1;
    bool inside = all(lessThan(texel, imageSize(mip_image)));

    if (quad_real == 0xFu) {
        // One triangle's visible fragments fill the 2x2 block: the frame's four pixels are these
        // four colours (half_exact: the RGBA16F target stores them unchanged), and their box filter
        // is the texel. All four lanes saw the same ballot, so all four are in this branch and
        // every swap reads an active lane. The order is box_filter.glsl's: the horizontal swap
        // gives a + b in the top lanes and c + d in the bottom ones, the vertical swap brings
        // c + d to the top-left lane, which stores (a + b) + (c + d).
#ifndef MIP_X_NO_SWAPS
        precise vec4 row = colour + subgroupQuadSwapHorizontal(colour);
        vec4 other_row = subgroupQuadSwapVertical(row);
#else
        vec4 row = colour, other_row = colour;
#endif
#ifndef MIP_X_NO_STORE
        if (quad_index == 0u && inside) imageStore(mip_image, texel, mip_texel_of_rows(row, other_row));
#else
        if (row.x < -1.0) imageStore(mip_image, texel, other_row);  // never: keeps the swaps alive
#endif
        return;
    }

#ifndef MIP_X_NO_APPEND
    // A quad with helpers: a silhouette (the other pixels are background) or a block split between
    // triangles (the other pixels are another triangle's quad, or behind the visible surface). This
    // quad's real pixels are not the whole texel; append it for the fix-up, once per quad: its lowest
    // real lane. A texel split between k triangles is appended by k quads; the fix-up skips and
    // counts the repeats. Subgroup append, as the light lists do: one atomic per subgroup.
    if (inside && quad_index == uint(findLSB(quad_real))) {
        // Within this branch the active lanes are exactly the appenders (all real: a helper is never
        // the lowest real lane). Ballot, elect and broadcast-first all see that same active set,
        // whichever way the device splits divergent lanes, so each lane gets its own slot.
        uvec4 appenders = subgroupBallot(true);
        uint base = 0u;
        if (subgroupElect()) base = atomicAdd(mip_edges.count, subgroupBallotBitCount(appenders));
        uint slot = subgroupBroadcastFirst(base) + subgroupBallotExclusiveBitCount(appenders);
        if (slot < mip_edges.capacity) mip_edges.texels[slot] = uint(texel.x) | (uint(texel.y) << 16u);
    }
#endif
}

#else  // MIP_X_OLD: the earlier shader (every quad stores its real pixels' average), for timing

void write_quad_mip(vec4 colour) {
    vec3 stored = round(clamp(colour.rgb, 0.0, 1.0) * 255.0) / 255.0;
    uint quad_index = gl_SubgroupInvocationID & 3u;
    vec4 sum = gl_HelperInvocation ? vec4(0.0) : vec4(stored, float(1u << quad_index));
#ifndef MIP_X_NO_SWAPS
    sum += subgroupQuadSwapHorizontal(sum);
    sum += subgroupQuadSwapVertical(sum);
#else
    sum.a = float(1u << quad_index);
#endif
    uint real_lanes = uint(sum.a);
#ifdef MIP_X_STORE_HIGHEST
    uint storer = uint(findMSB(real_lanes));
#else
    uint storer = uint(findLSB(real_lanes));
#endif
    if (gl_HelperInvocation || quad_index != storer) return;
    float covered = float(bitCount(real_lanes));
    ivec2 texel = ivec2(gl_FragCoord.xy) >> 1;
    if (any(greaterThanEqual(texel, imageSize(mip_image)))) return;
    vec4 value = vec4(sum.rgb / covered, covered * 0.25);
#if defined(MIP_X_NO_STORE)
    if (value.a > 2.0) imageStore(mip_image, texel, value);  // never: keeps the swaps alive
#elif defined(MIP_X_BUFFER_STORE)
    uint index = uint(texel.y) * uint(imageSize(mip_image).x) + uint(texel.x);
    if (index < mip_edges.capacity) mip_edges.texels[index] = packUnorm4x8(value);
#else
    imageStore(mip_image, texel, value);
#endif
}

#endif  // MIP_X_OLD

#endif
