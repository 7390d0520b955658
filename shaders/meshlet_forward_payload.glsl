// The task payload of the meshlet path's drawing pipelines (meshlet_forward.task -> .mesh): mesh
// workgroup k draws the chunk's meshlet of the k-th set bit of `mask`, visible-list entry
// first_entry + that bit.
#ifndef MESHLET_FORWARD_PAYLOAD_GLSL
#define MESHLET_FORWARD_PAYLOAD_GLSL

struct ForwardPayload {
    uint first_entry;  // 32 chunk
    uint mask;         // the chunk's meshlets to draw: kept by the pre-pass or re-admitted by occlusion phase 2
};
taskPayloadSharedEXT ForwardPayload forward_payload;

// The bit of the k-th set bit of mask (k < bitCount(mask)): the lowest bit after clearing k lower ones.
uint nth_set_bit(uint mask, uint k) {
    for (uint i = 0u; i < k; ++i) mask &= mask - 1u;
    return uint(findLSB(mask));
}

#endif
