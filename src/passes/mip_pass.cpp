#include "passes/mip_pass.h"

#include <cmath>

namespace {

constexpr uint32_t kGroupSize = 8;  // local_size_x/y of both shaders

uint32_t groups(uint32_t n) { return (n + kGroupSize - 1) / kGroupSize; }

float label_scale(VkExtent2D extent) { return extent.width >= 640 ? 2.0f : 1.0f; }
constexpr float kLabelMargin = 4.0f;

const LayoutDesc kTwoImages = {{VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE},
                               VK_SHADER_STAGE_COMPUTE_BIT, 0};

}  // namespace

void MipPass::create(const Context& ctx) {
    downsample = create_compute_pipeline(ctx, {"mip_downsample.comp.main", kTwoImages});
    LayoutDesc view_layout = kTwoImages;
    view_layout.push_constant_bytes = sizeof(int32_t);
    view = create_compute_pipeline(ctx, {"mip_view.comp.main", view_layout});
}

void MipPass::record_downsample(FrameContext& f) {
    begin_label(f.ctx, f.cmd, "mip fallback: 2x2 downsample");
    f.timer.begin(f.cmd, Timer::mip);
    transition(f.cmd, f.targets.color, VK_IMAGE_LAYOUT_GENERAL, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
               VK_ACCESS_2_SHADER_STORAGE_READ_BIT);
    transition(f.cmd, f.targets.mip, VK_IMAGE_LAYOUT_GENERAL, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
               VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT, true);  // every texel is rewritten
    vkCmdBindPipeline(f.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, downsample.pipeline);
    Descriptors descriptors;
    descriptors.storage_image(0, f.targets.color.view).storage_image(1, f.targets.mip.view);
    descriptors.push(f.cmd, downsample);
    vkCmdDispatch(f.cmd, groups(f.targets.mip.extent.width), groups(f.targets.mip.extent.height), 1);
    f.timer.end(f.cmd, Timer::mip);
    end_label(f.ctx, f.cmd);
}

uint32_t MipPass::label_rows(VkExtent2D extent) {
    float scale = label_scale(extent);
    return uint32_t(std::ceil(kLabelMargin + Overlay::text_height("mip", scale) + 4.0f * scale)) + 1;
}

void MipPass::record_view(FrameContext& f, Overlay& overlay) {
    begin_label(f.ctx, f.cmd, "view: mip");
    f.timer.begin(f.cmd, Timer::view);
    transition(f.cmd, f.targets.mip, VK_IMAGE_LAYOUT_GENERAL, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
               VK_ACCESS_2_SHADER_STORAGE_READ_BIT);
    transition(f.cmd, f.targets.color, VK_IMAGE_LAYOUT_GENERAL, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
               VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    vkCmdBindPipeline(f.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, view.pipeline);
    Descriptors descriptors;
    descriptors.storage_image(0, f.targets.color.view).storage_image(1, f.targets.mip.view);
    descriptors.push(f.cmd, view);
    int32_t split_x = int32_t(f.targets.extent.width / 2);
    vkCmdPushConstants(f.cmd, view.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(split_x), &split_x);
    vkCmdDispatch(f.cmd, groups(f.targets.extent.width - uint32_t(split_x)), groups(f.targets.extent.height), 1);
    f.timer.end(f.cmd, Timer::view);
    float scale = label_scale(f.targets.extent);
    overlay.label(kLabelMargin, kLabelMargin, "frame", rgba8(255, 255, 255), scale);
    std::string mip = std::string("mip x2 ") + (f.plan[PassId::mip].variant == Variant::subgroup ? "quad" : "fallback");
    overlay.label(float(split_x) + 2.0f + kLabelMargin, kLabelMargin, mip, rgba8(255, 204, 26), scale);
    end_label(f.ctx, f.cmd);
}
