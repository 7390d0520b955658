// A fixture for tools/hand_written_barriers.py (Tools.HandWrittenBarrierWithoutAReasonFails): one
// barrier that says why, one that does not. A call in a comment, memory_barrier(...), is no call.
void with_reason(VkCommandBuffer cmd) {
    // Hand-written: a probe outside the frame, on buffers of its own.
    memory_barrier(cmd, kCopy, kWrite, kCopy, kRead);
}

void without_reason(VkCommandBuffer cmd, Image& image) {
    // The copy reads it.
    transition(cmd, image, kTransferSrc, kCopy, kRead);
}
