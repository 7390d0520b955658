#include "passes/resolve_pass.h"

#include "passes/pass_unit.h"

namespace {

struct ResolvePush {  // resolve.frag's push constants (resolve.comp adds the frame's extent)
    uint32_t measured;  // 1: apply the exposure pass's exposure, 0: the fixed one
    uint32_t mip_width, mip_height;
    uint32_t width, height;
};

ResolvePush resolve_push(const FrameContext& f) {
    Variant exposure = f.plan[PassId::exposure].variant;
    return {(exposure == Variant::subgroup || exposure == Variant::fallback) ? 1u : 0u, f.targets.mip.extent.width,
            f.targets.mip.extent.height, f.targets.extent.width, f.targets.extent.height};
}

}  // namespace

void ResolvePass::create(const Context& ctx) {
    GraphicsDesc d;
    d.color_formats = {kColorFormat};
    d.vertex_attributes = 0;  // the full-screen triangle comes from gl_VertexIndex
    d.cull_mode = VK_CULL_MODE_NONE;
    d.depth_write = false;
    // Each layout as the shaders declare it (read from the SPIR-V): 0 the HDR frame, 1 the exposure
    // state, (mip) 2 the mip, (compute) 2 the 8-bit frame; push: ResolvePush.
    d.shaders = {{VK_SHADER_STAGE_VERTEX_BIT, "resolve.vert.main"}, {VK_SHADER_STAGE_FRAGMENT_BIT, "resolve.frag.plain"}};
    plain = create_graphics_pipeline(ctx, d);
    if (subgroup_path_possible(ctx, PassId::mip)) {
        d.shaders[1].second = "resolve.frag.mip";
        mip = create_graphics_pipeline(ctx, d);
    }
    compute = create_compute_pipeline(ctx, {"resolve.comp.plain"});
}

namespace {

// What both forms do first, in the stage that reads the HDR frame (fragment or compute): the label
// and timer, and the uses: the HDR frame read, the exposure the previous frame's exposure pass
// wrote, the mip written (every texel: one store per quad, all quads inside the frame are full),
// and the 8-bit frame written whole.
void begin_resolve(FrameContext& f, bool write_mip, VkPipelineStageFlags2 stage, Use color) {
    begin_label(f.ctx, f.cmd, debug_label(Timer::resolve, write_mip ? pass_info(PassId::mip).hosted_label : ""));
    f.timer.begin(f.cmd, Timer::resolve);
    Use uses[] = {reads(Res::hdr, stage, kStorageRead, VK_IMAGE_LAYOUT_GENERAL), reads(Res::exposure, stage, kStorageRead), color,
                  writes(Res::mip, stage, kStorageWrite, VK_IMAGE_LAYOUT_GENERAL, true)};
    f.graph().pass(f.cmd, std::span<const Use>(uses, write_mip ? 4 : 3));
}

void end_resolve(FrameContext& f) {
    f.timer.end(f.cmd, Timer::resolve);
    end_label(f.ctx, f.cmd);
}

}  // namespace

void ResolvePass::record(FrameContext& f) {
    bool write_mip = f.plan[PassId::mip].variant == Variant::subgroup && mip;
    ResolvePush push = resolve_push(f);
    begin_resolve(f, write_mip, kFragmentStage,
                  writes(Res::color, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT, VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT,
                         VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, true));
    VkRenderingAttachmentInfo color = color_attachment(f.targets.color, VK_ATTACHMENT_LOAD_OP_DONT_CARE);
    begin_rendering(f.cmd, f.targets.extent, &color, nullptr);
    const Pipeline& pipeline = write_mip ? mip : plain;
    vkCmdBindPipeline(f.cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline.handle());
    Descriptors d;
    d.storage_image(0, f.targets.hdr.view).buffer(1, *f.exposure_state);
    if (write_mip) d.storage_image(2, f.targets.mip.view);
    d.push(f.cmd, pipeline);
    push_constants(f.cmd, pipeline, &push, sizeof(push));
    vkCmdDraw(f.cmd, 3, 1, 0, 0);
    vkCmdEndRendering(f.cmd);
    end_resolve(f);
}

void ResolvePass::record_compute(FrameContext& f) {
    ResolvePush push = resolve_push(f);
    begin_resolve(f, false, kComputeStage, writes(Res::color, kComputeStage, kStorageWrite, VK_IMAGE_LAYOUT_GENERAL, true));
    vkCmdBindPipeline(f.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, compute.handle());
    Descriptors d;
    d.storage_image(0, f.targets.hdr.view).buffer(1, *f.exposure_state).storage_image(2, f.targets.color.view);
    d.push(f.cmd, compute);
    push_constants(f.cmd, compute, &push, sizeof(push));
    vkCmdDispatch(f.cmd, ceil_div(f.targets.extent.width, kQuadTileWidth), ceil_div(f.targets.extent.height, kQuadTileHeight), 1);
    end_resolve(f);
}
