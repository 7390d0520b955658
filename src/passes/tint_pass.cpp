#include "passes/tint_pass.h"

namespace {
const LayoutDesc kLayout = {{VK_DESCRIPTOR_TYPE_STORAGE_IMAGE}, VK_SHADER_STAGE_COMPUTE_BIT, 0};
}

void TintPass::create(const Context& ctx) {
    if (subgroup_path_possible(ctx, PassId::tint)) subgroup_ = create_compute_pipeline(ctx, {"tint.comp.subgroup", kLayout});
    fallback_ = create_compute_pipeline(ctx, {"tint.comp.fallback", kLayout});
}

void TintPass::record(FrameContext& f) {
    Variant variant = f.plan[PassId::tint].variant;
    if (variant != Variant::subgroup && variant != Variant::fallback) return;
    const Pipeline& p = variant == Variant::subgroup ? subgroup_ : fallback_;
    begin_label(f.ctx, f.cmd, variant == Variant::subgroup ? "tint (subgroup)" : "tint (fallback)");
    f.timer.begin(f.cmd, Timer::tint);
    transition(f.cmd, f.targets.color, VK_IMAGE_LAYOUT_GENERAL, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
               VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    vkCmdBindPipeline(f.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p.pipeline);
    Descriptors().storage_image(0, f.targets.color.view).push(f.cmd, p);
    vkCmdDispatch(f.cmd, (f.targets.extent.width + 7) / 8, (f.targets.extent.height + 7) / 8, 1);
    f.timer.end(f.cmd, Timer::tint);
    end_label(f.ctx, f.cmd);
}
