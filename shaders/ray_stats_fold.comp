#version 460
// The ray_trace pass's subgroup variant counts into stripes (raytrace_stats.glsl: kStatStripes
// copies of GpuCounters' ray words, each counter of a subgroup added to one copy by its elected
// lane); this adds the copies up into GpuCounters once the pass's launches are done. One
// invocation per word: the counts are summed, the subgroup sizes (a mask of powers of two) OR-ed.
// Exact whichever copy each subgroup chose: every copy is read.
layout(local_size_x = 32) in;

layout(set = 0, binding = 0, std430) readonly buffer Stripes { uint stripe_words[]; };
layout(set = 0, binding = 1, std430) buffer Counters { uint counter_words[]; };  // GpuCounters

const uint kStatStripes = 64u, kStatStripeWords = 64u;  // raytrace_stats.glsl's
const uint kFirstRayWord = 16u;                         // GpuCounters::rays
const uint kMeshletWord = 18u;  // GpuCounters::meshlets_in and meshlets_visible lie between the ray words: the meshlet pass's
const uint kSizesWord = 26u;    // raytrace_stats.glsl's kStatSizes: OR-ed, the words below it added

void main() {
    uint word = gl_LocalInvocationID.x;
    if (word == kMeshletWord || word == kMeshletWord + 1u) return;
    uint total = 0u;
    for (uint s = 0u; s < kStatStripes; ++s) {
        uint v = stripe_words[s * kStatStripeWords + word];
        total = word >= kSizesWord ? total | v : total + v;
    }
    if (word >= kSizesWord) atomicOr(counter_words[kFirstRayWord + word], total);
    else atomicAdd(counter_words[kFirstRayWord + word], total);
}
