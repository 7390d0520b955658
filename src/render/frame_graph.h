// A small frame graph: before its commands, each pass says which of the frame's named images and
// buffers it reads and writes, in which pipeline stages, with which accesses (and, for an image,
// in which layout). The graph keeps what the earlier passes did to each resource and records the
// barriers and layout transitions the pass needs, merged into one vkCmdPipelineBarrier2 per pass
// boundary. Passes run in the order they are recorded (immediate mode: no reordering, no aliasing).
//
// The derivation is plain data (SyncState, advance(), derive_batch()): the unit tests hold it to
// Khronos' synchronization examples without a device.
#pragma once

#include <array>
#include <initializer_list>
#include <span>
#include <vector>

#include "vk/resources.h"

// The resources the frame's passes share, by name. A pass asks for "the depth", not for the image
// a particular pre-pass wrote: the renderer binds the name to the image of this frame's path
// (Renderer::bind_frame_resources).
enum class Res : uint32_t {
    depth,            // the depth the passes after the pre-pass read (the pre-pass's, or --raster compute's)
    prepass_depth,    // the hardware pre-pass's depth attachment (the views test against it or redraw it)
    hdr,              // the shaded HDR frame
    color,            // the 8-bit frame: resolve, then the views and the overlay over it
    mip,              // the half-resolution mip of hdr
    ray_traced,       // the ray tracer's shadow and reflection words
    visibility,       // --shading visibility: the visibility ids
    counters,         // GpuCounters, zeroed at the frame's start
    light_lists,      // the light cull's tile lists
    exposure,         // the exposure pass's ExposureState
    mip_edges,        // the quad mip's edge list (forward appends, the fix-up reads)
    mip_stamps,       // the fix-up's per-texel stamps (the mip pass's own)
    mip_dispatch,     // the fix-up's indirect dispatch (the mip pass's own)
    counters_readback,  // this frame slot's host copy of the counters
    // What the scene passes draw: the cull's lists and indirect commands (phase 1's, the late draw's,
    // merged; each draw's chosen level), the source ranks beside them and the ids pass's draw count.
    draw_lists,
    cull_state,       // the cull's own: look-back state, occlusion's rejected list, its scans and masks, the merge's dispatches
    pyramid,          // occlusion's depth pyramids and their finished count
    meshlet_lists,    // the meshlet path's visible list, occlusion phase 2's list and the capture
    ray_structures,     // the ray tracer's BLASes and TLAS (the light BLAS and the TLAS rebuilt each frame)
    ray_scratch,        // their builds' scratch
    light_aabbs,        // the lights' boxes the light BLAS is built from
    ray_lists,          // the dense launch's lists and its indirect command
    ray_primary_hits,   // the forward path's primary hits, before its dense launch
    ray_stat_stripes,   // the subgroup variant's statistics, striped, before they are folded into the counters
    // --raster compute (docs/raster.md): the words (raster.comp's and raster_hw.frag's atomicMax, the
    // split reads them), the hardware list with the late draw's command, the tile bins (their
    // dispatch, then the entries), the late phase's dispatches (raster_late_args.comp) and, on the
    // meshlet path, the kept meshlets' chunks with their dispatches (MeshletRaster::list).
    raster_words,
    raster_list,
    tile_bins,
    raster_dispatches,
    meshlet_chunks,
    test_work,  // tests only: the extra work's image (RendererConfig::test_extra_work)
    window_image,  // the window's colour in the swapchain's byte order and size (Presenter)
    count
};
constexpr size_t kResourceCount = size_t(Res::count);
const char* resource_name(Res r);

// One resource's use by a pass: the stages and accesses of its commands, and for an image the
// layout they need. discard: the old contents are not needed (the pass writes every texel).
struct Use {
    Res res;
    VkPipelineStageFlags2 stage = VK_PIPELINE_STAGE_2_NONE;
    VkAccessFlags2 access = VK_ACCESS_2_NONE;
    VkImageLayout layout = VK_IMAGE_LAYOUT_UNDEFINED;  // images only
    bool discard = false;
};

// Every access bit that writes memory.
constexpr VkAccessFlags2 kWriteAccess =
    VK_ACCESS_2_SHADER_WRITE_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT | VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT |
    VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT | VK_ACCESS_2_TRANSFER_WRITE_BIT | VK_ACCESS_2_HOST_WRITE_BIT |
    VK_ACCESS_2_MEMORY_WRITE_BIT | VK_ACCESS_2_ACCELERATION_STRUCTURE_WRITE_BIT_KHR;

// What the passes recorded so far did to one resource.
struct SyncState {
    VkImageLayout layout = VK_IMAGE_LAYOUT_UNDEFINED;
    // The last write (or layout transition: then the stages that first saw it, and no access).
    VkPipelineStageFlags2 write_stages = VK_PIPELINE_STAGE_2_NONE;
    VkAccessFlags2 write_access = VK_ACCESS_2_NONE;
    // The stages that read it since, which a later write must wait for (write-after-read).
    VkPipelineStageFlags2 read_stages = VK_PIPELINE_STAGE_2_NONE;
    // The (stages, accesses) the last write has been made visible to: a read they cover needs no barrier.
    struct Visible {
        VkPipelineStageFlags2 stage;
        VkAccessFlags2 access;
    };
    std::vector<Visible> visible;
};

// The dependency one use needs before it. No barrier where src_stage is NONE and the layout stays.
struct Dependency {
    VkPipelineStageFlags2 src_stage = VK_PIPELINE_STAGE_2_NONE;
    VkAccessFlags2 src_access = VK_ACCESS_2_NONE;
    VkPipelineStageFlags2 dst_stage = VK_PIPELINE_STAGE_2_NONE;
    VkAccessFlags2 dst_access = VK_ACCESS_2_NONE;
    VkImageLayout old_layout = VK_IMAGE_LAYOUT_UNDEFINED, new_layout = VK_IMAGE_LAYOUT_UNDEFINED;
    bool layout_change = false;
    bool needed() const { return layout_change || src_stage != VK_PIPELINE_STAGE_2_NONE; }
};

// The dependency `use` needs after `state`, and `state` moved past the use.
//  - read-after-write: the write's stages and accesses to the reader's, unless an earlier barrier
//    already made the write visible to them;
//  - write-after-read: every read since the last write to the writer, an execution dependency
//    only (each read waited for that write, so the chain orders it too);
//  - write-after-write (no read between): the last write's stages and accesses to the writer's;
//  - read-after-read: nothing;
//  - an image in another layout (or discarded): a transition, which waits as a write does.
Dependency advance(SyncState& state, const Use& use, bool image);

// One pass boundary's barriers: every buffer dependency (and every image one without a layout
// change) merged into one global memory barrier, and one image barrier per layout transition.
struct ImageTransition {
    Res res;
    Dependency dependency;
};
struct BarrierBatch {
    Dependency memory;  // src_stage NONE: no memory barrier
    std::vector<ImageTransition> images;
    bool empty() const { return memory.src_stage == VK_PIPELINE_STAGE_2_NONE && images.empty(); }
};

// The barriers a pass with `uses` needs after `states` (indexed by Res), and the states moved past
// it. Uses of one resource in one pass are one use (their stages and accesses together; they must
// agree on the layout). is_image: which resources are images.
BarrierBatch derive_batch(std::array<SyncState, kResourceCount>& states, std::span<const Use> uses,
                          const std::array<bool, kResourceCount>& is_image);

// Shorthands for declaring uses.
inline Use reads(Res r, VkPipelineStageFlags2 stage, VkAccessFlags2 access, VkImageLayout layout = VK_IMAGE_LAYOUT_UNDEFINED) {
    return {r, stage, access, layout, false};
}
inline Use writes(Res r, VkPipelineStageFlags2 stage, VkAccessFlags2 access, VkImageLayout layout = VK_IMAGE_LAYOUT_UNDEFINED,
                 bool discard = false) {
    return {r, stage, access, layout, discard};
}

// The frame's named resources and their states. Lives as long as the renderer: a resource's state
// carries over to the next frame (recorded in order on one queue), so a frame's first use waits for
// the last frame's.
//
// Every pass of the frame declares its uses; what records its own barriers with transition() and
// memory_barrier() runs outside any frame (one-shots at load, probes: tools/hand_written_barriers.py
// lists them). An image keeps its layout and last use in its Image fields, which transition() reads
// and writes; the graph writes them after each use too, and where it finds them changed it takes
// the change as a write. One-shots recorded after the frames on their queue (the renderer's
// readbacks, the window's copy to the swapchain) go through the same graph.
class FrameGraph {
public:
    // Names this frame's images and buffers (a new image or buffer under a name starts afresh).
    void bind(Res r, Image& image);
    void bind(Res r, const Buffer& buffer);
    void unbind(Res r);
    bool bound(Res r) const { return slots_[size_t(r)].image || slots_[size_t(r)].buffer; }
    Image& image(Res r) const;
    const Buffer& buffer(Res r) const;

    // Records the barriers the next commands need to make `uses` safe, as one vkCmdPipelineBarrier2
    // (none where nothing is needed). Every use must name a bound resource.
    void pass(VkCommandBuffer cmd, std::initializer_list<Use> uses);
    void pass(VkCommandBuffer cmd, std::span<const Use> uses);
    // A pass that records its own barriers used these buffers (before the next pass): nothing is
    // recorded, and the next use of each waits for it. (Such a pass's images need no word: its
    // transition() calls leave their trace in the Image.)
    void hand_written(std::initializer_list<Use> uses);
    // The same without recording: the batch `uses` would record now (and the states moved past it).
    BarrierBatch derive(std::span<const Use> uses);
    // Barrier calls recorded so far (tests).
    uint32_t barriers_recorded() const { return barriers_recorded_; }

private:
    struct Slot {
        Image* image = nullptr;
        const Buffer* buffer = nullptr;
        VkImage image_handle = VK_NULL_HANDLE;
        VkBuffer buffer_handle = VK_NULL_HANDLE;
        // What the graph last wrote into the image's fields: anything else came from transition().
        VkImageLayout written_layout = VK_IMAGE_LAYOUT_UNDEFINED;
        VkPipelineStageFlags2 written_stage = VK_PIPELINE_STAGE_2_NONE;
        VkAccessFlags2 written_access = VK_ACCESS_2_NONE;
    };
    bool point(Res r, Image* image, const Buffer* buffer);
    void import_foreign_use(Res r);
    std::array<Slot, kResourceCount> slots_{};
    std::array<SyncState, kResourceCount> states_{};
    uint32_t barriers_recorded_ = 0;
};
