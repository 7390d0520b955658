#include "render/frame_graph.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace {

constexpr std::array<const char*, kResourceCount> kResourceNames = {
    "depth",      "pre-pass depth", "hdr",      "color",      "mip",       "ray traced", "visibility",
    "counters",   "light lists", "exposure", "mip edges", "mip stamps", "mip dispatch", "counters readback",
    "draw lists", "cull state", "pyramid", "meshlet lists",
    "ray structures", "ray scratch", "light aabbs", "ray lists", "ray primary hits", "ray stat stripes",
    "raster words", "raster list", "tile bins", "raster dispatches", "meshlet chunks", "test work", "window image"};

// Whether earlier barriers made the last write visible to `access` in every stage of `stage`.
bool visible_to(const std::vector<SyncState::Visible>& visible, VkPipelineStageFlags2 stage, VkAccessFlags2 access) {
    VkPipelineStageFlags2 seen = VK_PIPELINE_STAGE_2_NONE;
    for (const SyncState::Visible& v : visible)
        if ((v.access & access) == access) seen |= v.stage;
    return (seen & stage) == stage;
}

}  // namespace

const char* resource_name(Res r) { return kResourceNames[size_t(r)]; }

Dependency advance(SyncState& state, const Use& use, bool image) {
    Dependency d;
    d.dst_stage = use.stage;
    d.dst_access = use.access;
    const bool writes = (use.access & kWriteAccess) != 0;
    d.layout_change = image && (use.discard || use.layout != state.layout);
    if (image) {
        d.old_layout = use.discard ? VK_IMAGE_LAYOUT_UNDEFINED : state.layout;
        d.new_layout = use.layout;
    }
    if (writes || d.layout_change) {
        // Write-after-read: an execution dependency on every read since the last write (each read
        // came after a barrier from that write, so the chain orders the write too). Else
        // write-after-write: a memory dependency on the last write. A transition is a write of its own.
        if (state.read_stages != VK_PIPELINE_STAGE_2_NONE) {
            d.src_stage = state.read_stages;
        } else {
            d.src_stage = state.write_stages;
            d.src_access = state.write_access;
        }
        state.layout = image ? use.layout : state.layout;
        state.read_stages = VK_PIPELINE_STAGE_2_NONE;
        state.visible.clear();
        if (writes) {
            state.write_stages = use.stage;
            state.write_access = use.access & kWriteAccess;
        } else {
            // A transition before a read: what follows chains on the stages it was made visible to.
            state.write_stages = use.stage;
            state.write_access = VK_ACCESS_2_NONE;
            state.read_stages = use.stage;
            state.visible.push_back({use.stage, use.access});
        }
        return d;
    }
    // Read-after-write, unless an earlier barrier already made the write visible to this read.
    state.read_stages |= use.stage;
    if (state.write_stages == VK_PIPELINE_STAGE_2_NONE) return d;
    if (visible_to(state.visible, use.stage, use.access)) return d;
    d.src_stage = state.write_stages;
    d.src_access = state.write_access;
    state.visible.push_back({use.stage, use.access});
    return d;
}

BarrierBatch derive_batch(std::array<SyncState, kResourceCount>& states, std::span<const Use> uses,
                          const std::array<bool, kResourceCount>& is_image) {
    // One use per resource: a pass's commands run together, so its uses of one resource are one.
    std::vector<Use> merged;
    for (const Use& use : uses) {
        auto same = std::find_if(merged.begin(), merged.end(), [&](const Use& m) { return m.res == use.res; });
        if (same == merged.end()) {
            merged.push_back(use);
            continue;
        }
        if (is_image[size_t(use.res)] && same->layout != use.layout)
            throw std::logic_error(std::string("frame graph: one pass uses ") + resource_name(use.res) + " in two layouts");
        same->stage |= use.stage;
        same->access |= use.access;
        same->discard = same->discard || use.discard;
    }
    BarrierBatch batch;
    for (const Use& use : merged) {
        bool image = is_image[size_t(use.res)];
        Dependency d = advance(states[size_t(use.res)], use, image);
        if (!d.needed()) continue;
        if (image && d.layout_change) {
            batch.images.push_back({use.res, d});
            continue;
        }
        batch.memory.src_stage |= d.src_stage;
        batch.memory.src_access |= d.src_access;
        batch.memory.dst_stage |= d.dst_stage;
        batch.memory.dst_access |= d.dst_access;
    }
    return batch;
}

// Points slot r at an image or at a buffer, clearing the other kind's fields (the written_* fields
// stay); true where the handle is not the one the slot held.
bool FrameGraph::point(Res r, Image* image, const Buffer* buffer) {
    Slot& s = slots_[size_t(r)];
    VkImage image_handle = image ? image->image : VK_NULL_HANDLE;
    VkBuffer buffer_handle = buffer ? buffer->buffer : VK_NULL_HANDLE;
    bool fresh = image ? s.image_handle != image_handle : s.buffer_handle != buffer_handle;
    s.image = image;
    s.buffer = buffer;
    s.image_handle = image_handle;
    s.buffer_handle = buffer_handle;
    return fresh;
}

void FrameGraph::bind(Res r, Image& image) {
    if (point(r, &image, nullptr)) import_foreign_use(r);
}

void FrameGraph::bind(Res r, const Buffer& buffer) {
    if (point(r, nullptr, &buffer)) states_[size_t(r)] = SyncState{};  // a new buffer: whatever made it waited for the device
}

void FrameGraph::unbind(Res r) {
    slots_[size_t(r)] = Slot{};
    states_[size_t(r)] = SyncState{};
}

Image& FrameGraph::image(Res r) const {
    if (!slots_[size_t(r)].image) throw std::logic_error(std::string("frame graph: no image bound as ") + resource_name(r));
    return *slots_[size_t(r)].image;
}

const Buffer& FrameGraph::buffer(Res r) const {
    if (!slots_[size_t(r)].buffer) throw std::logic_error(std::string("frame graph: no buffer bound as ") + resource_name(r));
    return *slots_[size_t(r)].buffer;
}

// The image's fields hold another use than the graph's last (transition() by a pass that records
// its own barriers, a readback): that use is the last write, seen by nobody yet.
void FrameGraph::import_foreign_use(Res r) {
    Slot& s = slots_[size_t(r)];
    SyncState& state = states_[size_t(r)];
    state = SyncState{};
    state.layout = s.image->layout;
    state.write_stages = s.image->last_stage;
    state.write_access = s.image->last_access;
    s.written_layout = s.image->layout;
    s.written_stage = s.image->last_stage;
    s.written_access = s.image->last_access;
}

BarrierBatch FrameGraph::derive(std::span<const Use> uses) {
    std::array<bool, kResourceCount> is_image{};
    for (const Use& use : uses) {
        Slot& s = slots_[size_t(use.res)];
        if (!s.image && !s.buffer) throw std::logic_error(std::string("frame graph: nothing bound as ") + resource_name(use.res));
        is_image[size_t(use.res)] = s.image != nullptr;
        if (s.image && (s.image->layout != s.written_layout || s.image->last_stage != s.written_stage ||
                        s.image->last_access != s.written_access))
            import_foreign_use(use.res);
    }
    BarrierBatch batch = derive_batch(states_, uses, is_image);
    // What transition() waits for next: everything since the last barrier.
    for (const Use& use : uses) {
        Slot& s = slots_[size_t(use.res)];
        if (!s.image) continue;
        const SyncState& state = states_[size_t(use.res)];
        s.image->layout = s.written_layout = state.layout;
        s.image->last_stage = s.written_stage = state.write_stages | state.read_stages;
        s.image->last_access = s.written_access = state.write_access;
    }
    return batch;
}

void FrameGraph::hand_written(std::initializer_list<Use> uses) {
    for (const Use& use : uses) {
        if (!slots_[size_t(use.res)].buffer)
            throw std::logic_error(std::string("frame graph: hand_written() takes buffers, not ") + resource_name(use.res));
        SyncState& state = states_[size_t(use.res)];
        if (use.access & kWriteAccess) {
            state = SyncState{};
            state.write_stages = use.stage;
            state.write_access = use.access & kWriteAccess;
        } else {
            state.read_stages |= use.stage;
        }
    }
}

void FrameGraph::pass(VkCommandBuffer cmd, std::initializer_list<Use> uses) {
    pass(cmd, std::span<const Use>(uses.begin(), uses.size()));
}

void FrameGraph::pass(VkCommandBuffer cmd, std::span<const Use> uses) {
    BarrierBatch batch = derive(uses);
    if (batch.empty()) return;
    VkMemoryBarrier2 memory{VK_STRUCTURE_TYPE_MEMORY_BARRIER_2};
    memory.srcStageMask = batch.memory.src_stage;
    memory.srcAccessMask = batch.memory.src_access;
    memory.dstStageMask = batch.memory.dst_stage;
    memory.dstAccessMask = batch.memory.dst_access;
    std::vector<VkImageMemoryBarrier2> images;
    for (const ImageTransition& t : batch.images) {
        const Image& image = *slots_[size_t(t.res)].image;
        const Dependency& d = t.dependency;
        VkImageAspectFlags aspect = image.format == VK_FORMAT_D32_SFLOAT ? VK_IMAGE_ASPECT_DEPTH_BIT : VK_IMAGE_ASPECT_COLOR_BIT;
        images.push_back(image_memory_barrier(image.image, aspect, d.old_layout, d.new_layout, d.src_stage, d.src_access,
                                              d.dst_stage, d.dst_access));
    }
    VkDependencyInfo dep{VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
    dep.memoryBarrierCount = batch.memory.src_stage != VK_PIPELINE_STAGE_2_NONE ? 1 : 0;
    dep.pMemoryBarriers = &memory;
    dep.imageMemoryBarrierCount = uint32_t(images.size());
    dep.pImageMemoryBarriers = images.data();
    vkCmdPipelineBarrier2(cmd, &dep);
    ++barriers_recorded_;
}
