#include "passes/visibility_pass.h"
#include "passes/meshlet_pass.h"  // with_meshlet_bindings, the meshlet data
#include "passes/scene_pass.h"    // shading_push_flags

namespace {

// shading.glsl's bindings as forward has them without the quad mip (0-3 the scene, 4 the light
// lists, 5 the loop counters, 6 the ray-traced image), then visibility_shade.comp's: 7 vertices, 8
// the drawn indices, 9 and 10 the pre-pass's and the late draw's indirect commands, 11 the
// visibility image, 12 the HDR target, (mip variants) 13 the half-resolution mip; the meshlet
// variants then 16 and up, the meshlet path's (with_meshlet_bindings: the meshlets, their vertices
// and triangles). Push constant: shading.glsl's flags.
const LayoutDesc kShadeLayout = {
    {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
     VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
     VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
     VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE,
     VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE},
    VK_SHADER_STAGE_COMPUTE_BIT, sizeof(uint32_t)};

// [quad-swap derivatives][subgroup light loop][writes the quad mip] (shaders/variants.cmake); the
// meshlet path's names end in "_meshlet".
const char* const kShadeShaders[2][2][2] = {
    {{"visibility_shade.comp.analytic", "visibility_shade.comp.analytic_mip"},
     {"visibility_shade.comp.analytic_light_loop", "visibility_shade.comp.analytic_light_loop_mip"}},
    {{"visibility_shade.comp.quads", "visibility_shade.comp.quads_mip"},
     {"visibility_shade.comp.quads_light_loop", "visibility_shade.comp.quads_light_loop_mip"}}};

}  // namespace

void VisibilityPass::create(const Context& ctx) {
    // The derivatives' quad broadcasts and the mip's quad swaps need the same: quad operations in
    // compute on lanes numbered by subgroup, which full subgroups make dense.
    quads = visibility_derivatives_missing(ctx.subgroup, ctx.features).empty();
    bool loop = missing_support(ctx.subgroup, {Stage::compute, pass_info(PassId::light_loop).ops}).empty();
    for (bool meshlet : {false, true}) {
        if (!(meshlet ? meshlet_missing(ctx.features) : visibility_missing(ctx.features, Geometry::indexed)).empty()) continue;
        LayoutDesc layout = meshlet ? with_meshlet_bindings(kShadeLayout) : kShadeLayout;
        layout.stages = VK_SHADER_STAGE_COMPUTE_BIT;
        for (bool quad_derivatives : {false, true})
            for (bool light_loop : {false, true})
                for (bool mip : {false, true}) {
                    if (((quad_derivatives || mip) && !quads) || (light_loop && !loop)) continue;
                    std::string shader = std::string(kShadeShaders[quad_derivatives][light_loop][mip]) + (meshlet ? "_meshlet" : "");
                    // Compiled on first use (Pipeline::handle): a run uses one or two of the sixteen.
                    shade[meshlet][quad_derivatives][light_loop][mip] = create_compute_pipeline(
                        ctx, {.shader = shader, .layout = layout, .full_subgroups = quad_derivatives || mip});
                }
    }
}

bool VisibilityPass::writes_mip(const Plan& plan) const { return quads && plan[PassId::mip].variant == Variant::subgroup; }

void VisibilityPass::record(FrameContext& f) {
    const ShadingPlan& plan = f.plan.shading;
    const bool meshlet = f.plan.geometry == Geometry::meshlet && f.meshlets;
    const auto& variants = shade[meshlet];
    bool quad_derivatives = plan.derivatives == Variant::subgroup && quads;
    bool mip = writes_mip(f.plan);
    bool loop = plan.light_loop == Variant::subgroup && variants[quad_derivatives][1][mip];
    const Pipeline& pipeline = variants[quad_derivatives][loop][mip];
    std::string label = quad_derivatives ? "quad-swap derivatives" : "analytic derivatives";
    begin_label(f.ctx, f.cmd, debug_label(Timer::shade, mip ? label + ", " + std::string(pass_info(PassId::mip).hosted_label) : label));
    f.timer.begin(f.cmd, Timer::shade);
    // Read with texelFetch (a sampled image: an R32G32_UINT storage image would need
    // shaderStorageImageExtendedFormats).
    transition(f.cmd, f.targets.visibility, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
               VK_ACCESS_2_SHADER_SAMPLED_READ_BIT);
    // Every pixel is written (the clear colour where no triangle is): the old contents go.
    transition(f.cmd, f.targets.hdr, VK_IMAGE_LAYOUT_GENERAL, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
               VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT, true);
    // The ray_trace pass's image (its contents unused unless it ran this frame).
    transition(f.cmd, f.targets.ray_traced, VK_IMAGE_LAYOUT_GENERAL, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
               VK_ACCESS_2_SHADER_STORAGE_READ_BIT, !f.ray_traced);
    vkCmdBindPipeline(f.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.handle());
    const Buffer& indirect = f.draw_indirect ? *f.draw_indirect : f.scene.indirect_all;
    Descriptors d;
    d.buffer(0, f.uniforms, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER)
        .buffer(1, f.scene.draws)
        .buffer(2, f.lights)
        .sampled_image(3, f.scene.textures.view, f.scene.sampler)
        // Without lists (light cull off) any buffer stands in: shading.glsl reads it only with lists.
        .buffer(4, f.light_lists ? *f.light_lists : f.lights)
        .buffer(5, f.counters)
        .storage_image(6, f.targets.ray_traced.view)
        .buffer(7, f.scene.vertices)
        .buffer(8, f.draw_indices ? *f.draw_indices : f.scene.indices)
        .buffer(9, indirect)
        .buffer(10, f.late_indirect ? *f.late_indirect : indirect)
        .sampled_texels(11, f.targets.visibility.view, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL)
        .storage_image(12, f.targets.hdr.view);
    // shading.glsl's flags, as forward pushes them, and 8: write the derivatives (tests only).
    uint32_t flags = shading_push_flags(f) | (f.test_derivatives ? 8u : 0u);
    if (mip) {
        // Every texel is written (one store per quad, and every quad inside the frame is whole).
        transition(f.cmd, f.targets.mip, VK_IMAGE_LAYOUT_GENERAL, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                   VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT, true);
        d.storage_image(13, f.targets.mip.view);
    }
    if (meshlet) f.meshlets->push_bindings(f, d);
    d.push(f.cmd, pipeline);
    vkCmdPushConstants(f.cmd, pipeline.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(flags), &flags);
    vkCmdDispatch(f.cmd, ceil_div(f.targets.extent.width, kQuadTileWidth), ceil_div(f.targets.extent.height, kQuadTileHeight), 1);
    f.timer.end(f.cmd, Timer::shade);
    end_label(f.ctx, f.cmd);
}
