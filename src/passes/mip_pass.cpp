#include "passes/mip_pass.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include <nlohmann/json.hpp>


namespace {

constexpr uint32_t kMipGroupSize = 8;  // local_size_x/y of both shaders

float label_scale(VkExtent2D extent) { return extent.width >= 640 ? 2.0f : 1.0f; }
constexpr float kLabelMargin = 4.0f;

constexpr VkDeviceSize kEdgeHeaderBytes = 16;  // count, capacity, 2 reserved (quad_mip.glsl)

struct ViewPush {
    int32_t split_x;
    uint32_t measured;  // mip_view.comp: apply the exposure pass's exposure
};

struct FixupPush {
    uint32_t stamp, mip_width, texel_count;
};

}  // namespace

void MipPass::create(const Context& ctx, VkExtent2D extent) {
    // Each layout as its shader declares it (bindings and push constants, read from the SPIR-V).
    auto pipeline = [&](const char* shader) { return create_compute_pipeline(ctx, {shader}); };
    downsample = pipeline("mip_downsample.comp.main");
    fixup_args = pipeline("mip_fixup_args.comp.main");
    fixup = pipeline("mip_fixup.comp.main");
    view = pipeline("mip_view.comp.main");
    fixup_dispatch = create_buffer(ctx, sizeof(VkDispatchIndirectCommand),
                                   VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT,
                                   MemoryKind::device_local, "mip fix-up dispatch");
    resize(ctx, extent);
}

void MipPass::resize(const Context& ctx, VkExtent2D extent) {
    mip_extent = {std::max(1u, extent.width / 2), std::max(1u, extent.height / 2)};  // as create_frame_targets
    uint32_t texels = mip_extent.width * mip_extent.height;
    // Each real pixel belongs to one quad, and a quad is appended at most once: at most 4 entries per
    // texel, so this never overflows unless the device's storage buffer range caps it (then the
    // fix-up redoes the whole mip: still exact, just slower). SGD_MIP_EDGE_CAPACITY (tests) lowers it.
    uint64_t range_cap = (uint64_t(ctx.properties.limits.maxStorageBufferRange) - kEdgeHeaderBytes) / 4;
    edge_capacity = uint32_t(std::min<uint64_t>(uint64_t(texels) * 4, range_cap));
    if (const char* cap = std::getenv("SGD_MIP_EDGE_CAPACITY")) edge_capacity = uint32_t(std::strtoul(cap, nullptr, 10));
    edges = create_buffer(ctx, kEdgeHeaderBytes + VkDeviceSize(std::max(1u, edge_capacity)) * 4,
                          VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryKind::device_local,
                          "mip edge list");
    stamps = create_buffer(ctx, VkDeviceSize(texels) * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                           MemoryKind::device_local, "mip fix-up stamps");
    stamps_cleared = false;
}

void MipPass::record_fixup(FrameContext& f) {
    begin_label(f.ctx, f.cmd, debug_label(PassId::mip, Variant::forward, "edge fix-up"));
    f.timer.begin(f.cmd, Timer::mip_fixup);
    FrameGraph& g = f.graph();
    g.bind(Res::mip_stamps, stamps);
    g.bind(Res::mip_dispatch, fixup_dispatch);
    if (!stamps_cleared) {  // once per buffer: stamps are compared, never reset (mip_fixup.comp)
        g.pass(f.cmd, {writes(Res::mip_stamps, kTransferStage, VK_ACCESS_2_TRANSFER_WRITE_BIT)});
        vkCmdFillBuffer(f.cmd, stamps.buffer, 0, VK_WHOLE_SIZE, 0);
        stamps_cleared = true;
        stamp = 0;
    }
    if (++stamp == 0) ++stamp;  // 0 is "never fixed"; wraps after 2^32 frames
    uint32_t texels = mip_extent.width * mip_extent.height;

    // The edge list the forward shader appended to -> the fix-up's dispatch and the counters.
    g.pass(f.cmd, {reads(Res::mip_edges, kComputeStage, kStorageRead), writes(Res::mip_dispatch, kComputeStage, kStorageWrite),
                   writes(Res::counters, kComputeStage, kStorageReadWrite)});
    vkCmdBindPipeline(f.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, fixup_args.handle());
    Descriptors args;
    args.buffer(0, edges).buffer(1, fixup_dispatch).buffer(2, f.counters);
    args.push(f.cmd, fixup_args);
    push_constants(f.cmd, fixup_args, &texels, sizeof(texels));
    vkCmdDispatch(f.cmd, 1, 1, 1);

    // The finished HDR frame read, the mip's edge texels rewritten (it keeps the texels the quads
    // stored: no discard).
    g.pass(f.cmd, {reads(Res::mip_dispatch, VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT, VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT),
                   reads(Res::hdr, kComputeStage, kStorageRead, VK_IMAGE_LAYOUT_GENERAL),
                   writes(Res::mip, kComputeStage, kStorageWrite, VK_IMAGE_LAYOUT_GENERAL),
                   reads(Res::mip_edges, kComputeStage, kStorageRead), writes(Res::mip_stamps, kComputeStage, kStorageReadWrite),
                   writes(Res::counters, kComputeStage, kStorageReadWrite)});
    vkCmdBindPipeline(f.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, fixup.handle());
    Descriptors d;
    d.storage_image(0, f.targets.hdr.view)
        .storage_image(1, f.targets.mip.view)
        .buffer(2, edges)
        .buffer(3, stamps)
        .buffer(4, f.counters);
    d.push(f.cmd, fixup);
    FixupPush push{stamp, mip_extent.width, texels};
    push_constants(f.cmd, fixup, &push, sizeof(push));
    vkCmdDispatchIndirect(f.cmd, fixup_dispatch.buffer, 0);
    f.timer.end(f.cmd, Timer::mip_fixup);
    end_label(f.ctx, f.cmd);
}

void MipPass::record_downsample(FrameContext& f) {
    begin_label(f.ctx, f.cmd, debug_label(PassId::mip, Variant::fallback, "2x2 downsample"));
    f.timer.begin(f.cmd, Timer::mip);
    // Every texel of the mip is rewritten.
    f.graph().pass(f.cmd, {reads(Res::hdr, kComputeStage, kStorageRead, VK_IMAGE_LAYOUT_GENERAL),
                           writes(Res::mip, kComputeStage, kStorageWrite, VK_IMAGE_LAYOUT_GENERAL, true)});
    dispatch_downsample(f.cmd, f.targets.hdr, f.targets.mip);
    f.timer.end(f.cmd, Timer::mip);
    end_label(f.ctx, f.cmd);
}

void MipPass::dispatch_downsample(VkCommandBuffer cmd, const Image& hdr, const Image& mip) const {
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, downsample.handle());
    Descriptors descriptors;
    descriptors.storage_image(0, hdr.view).storage_image(1, mip.view);
    descriptors.push(cmd, downsample);
    vkCmdDispatch(cmd, ceil_div(mip.extent.width, kMipGroupSize), ceil_div(mip.extent.height, kMipGroupSize), 1);
}

void mip_report_counters(nlohmann::json& counters, const PassCounters& c) {
    // Appends to the edge list (a texel on several triangles' edges is appended by each), and the
    // distinct texels among them (what the fix-up recomputes).
    counters["mip_edge_appends"] = c.frame.mip_edge_appends;
    counters["mip_edge_texels"] = c.frame.mip_edge_appends - c.frame.mip_edge_duplicates;
    counters["mip_edge_overflow"] = c.frame.mip_edge_overflow;
    counters["mip_edge_duplicates"] = c.frame.mip_edge_duplicates;
}

void mip_frame_allocations(const AllocationQuery& q, std::vector<PlannedAllocation>& out) {
    const uint64_t texels = std::max<uint64_t>(1, q.width / 2) * std::max<uint64_t>(1, q.height / 2);
    // The edge list holds up to 4 entries per texel, clamped by the renderer to the device's storage
    // buffer range (so checked as a plain buffer).
    out.push_back({"mip edge list", 16 + 16 * texels, AllocationKind::buffer});
    out.push_back({"mip fix-up stamps", 4 * texels, AllocationKind::storage_buffer});
    out.push_back({"mip fix-up dispatch", 12, AllocationKind::buffer});
}

uint32_t MipPass::label_rows(VkExtent2D extent) {
    float scale = label_scale(extent);
    return uint32_t(std::ceil(kLabelMargin + Overlay::text_height("mip", scale) + 4.0f * scale)) + 1;
}

void MipPass::record_view(FrameContext& f) {
    if (f.plan.view.mode != ViewMode::mip || f.plan[PassId::mip].variant == Variant::off || !f.overlay) return;
    Overlay& overlay = *f.overlay;
    begin_label(f.ctx, f.cmd, debug_label(f.plan.view));
    f.timer.begin(f.cmd, Timer::view);
    f.graph().pass(f.cmd, {reads(Res::mip, kComputeStage, kStorageRead, VK_IMAGE_LAYOUT_GENERAL),
                           writes(Res::color, kComputeStage, kStorageReadWrite, VK_IMAGE_LAYOUT_GENERAL),
                           reads(Res::exposure, kComputeStage, kStorageRead)});
    vkCmdBindPipeline(f.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, view.handle());
    Descriptors descriptors;
    descriptors.storage_image(0, f.targets.color.view).storage_image(1, f.targets.mip.view).buffer(2, *f.exposure_state);
    descriptors.push(f.cmd, view);
    int32_t split_x = int32_t(f.targets.extent.width / 2);
    Variant exposure = f.plan[PassId::exposure].variant;
    ViewPush push{split_x, exposure == Variant::subgroup || exposure == Variant::fallback ? 1u : 0u};
    push_constants(f.cmd, view, &push, sizeof(push));
    vkCmdDispatch(f.cmd, ceil_div(f.targets.extent.width - uint32_t(split_x), kMipGroupSize),
                  ceil_div(f.targets.extent.height, kMipGroupSize), 1);
    f.timer.end(f.cmd, Timer::view);
    float scale = label_scale(f.targets.extent);
    overlay.label(kLabelMargin, kLabelMargin, "frame", rgba8(255, 255, 255), scale);
    Variant variant = f.plan[PassId::mip].variant;
    std::string mip = std::string("mip x2 ") + (variant == Variant::subgroup ? "resolve" : variant == Variant::forward ? "forward" : "fallback");
    overlay.label(float(split_x) + 2.0f + kLabelMargin, kLabelMargin, mip, rgba8(255, 204, 26), scale);
    end_label(f.ctx, f.cmd);
}

std::unique_ptr<PassUnit> create_mip_unit(const UnitSetup& s) { return make_unit<MipPass>(s.ctx, s.extent); }
