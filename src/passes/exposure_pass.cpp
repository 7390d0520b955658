#include "passes/exposure_pass.h"

#include <cstring>

#include "render/exposure_reference.h"

namespace {

constexpr uint32_t kExposureGroupSize = 16;  // exposure_reduce.comp's local size, both axes

struct AdaptPush {
    uint32_t texels, frame_index;
};

}  // namespace

ExposureState initial_exposure_state() {
    ExposureState initial{};
    initial.exposure = exposure::kFixed;
    initial.applied = exposure::kFixed;
    return initial;
}

void ExposurePass::create(const Context& ctx) {
    // One SPIR-V for both paths, or the fallback's twin without subgroup operations where no plan
    // can pick the subgroup path (shaders/subgroup_switch.glsl).
    bool possible = subgroup_path_possible(ctx, PassId::exposure);
    std::string shader = possible ? "exposure_reduce.comp.switch" : "exposure_reduce.comp.no_subgroup";
    if (possible)
        reduce[0] = create_compute_pipeline(ctx, {.shader = shader, .forced_subgroup_size = true, .use_subgroup = true});
    reduce[1] = create_compute_pipeline(ctx, {.shader = shader, .forced_subgroup_size = true});
    adapt = create_compute_pipeline(ctx, {"exposure_adapt.comp.main"});
    ExposureState initial = initial_exposure_state();
    state = create_buffer_with_data(ctx, &initial, sizeof(initial),
                                    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT, "exposure state");
}

void ExposurePass::record(FrameContext& f) {
    Variant variant = f.plan[PassId::exposure].variant;
    if (variant != Variant::subgroup && variant != Variant::fallback) return;
    const Pipeline& pipeline = reduce[variant == Variant::subgroup ? 0 : 1];
    begin_label(f.ctx, f.cmd, debug_label(PassId::exposure, variant));
    f.timer.begin(f.cmd, Timer::exposure);
    // The sums cleared (this frame's resolve read the state, the previous frame's adapt wrote it),
    // the mip's luminance summed into them, then the exposure adapted from the sums.
    FrameGraph& g = f.graph();
    g.bind(Res::exposure, state);
    g.pass(f.cmd, {writes(Res::exposure, kTransferStage, VK_ACCESS_2_TRANSFER_WRITE_BIT)});
    vkCmdFillBuffer(f.cmd, state.buffer, 0, 8, 0);  // sum_lo, sum_hi
    g.pass(f.cmd, {reads(Res::mip, kComputeStage, kStorageRead, VK_IMAGE_LAYOUT_GENERAL),
                   writes(Res::exposure, kComputeStage, kStorageReadWrite)});

    vkCmdBindPipeline(f.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.handle());
    Descriptors d;
    d.storage_image(0, f.targets.mip.view).buffer(1, state);
    d.push(f.cmd, pipeline);
    VkExtent2D mip = f.targets.mip.extent;
    vkCmdDispatch(f.cmd, ceil_div(mip.width, kExposureGroupSize), ceil_div(mip.height, kExposureGroupSize), 1);

    g.pass(f.cmd, {writes(Res::exposure, kComputeStage, kStorageReadWrite)});
    vkCmdBindPipeline(f.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, adapt.handle());
    Descriptors a;
    a.buffer(0, state);
    a.push(f.cmd, adapt);
    AdaptPush push{mip.width * mip.height, f.frame_index};
    push_constants(f.cmd, adapt, &push, sizeof(push));
    vkCmdDispatch(f.cmd, 1, 1, 1);
    f.timer.end(f.cmd, Timer::exposure);
    end_label(f.ctx, f.cmd);
}

ExposureState ExposurePass::read_state(const Context& ctx) const { return read_buffer_as<ExposureState>(ctx, state); }

std::unique_ptr<PassUnit> create_exposure_unit(const UnitSetup& s) { return make_unit<ExposurePass>(s.ctx); }
