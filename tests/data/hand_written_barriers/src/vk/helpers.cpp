// The helpers' own folder: not counted (tools/hand_written_barriers.py).
void read_back(VkCommandBuffer cmd) { memory_barrier(cmd, kAll, kWrite, kCopy, kRead); }
