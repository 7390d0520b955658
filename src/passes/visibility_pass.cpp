#include "passes/visibility_pass.h"
#include "passes/meshlet_pass.h"  // the meshlet data
#include "passes/scene_pass.h"    // shading_push_flags
#include "passes/debug_view_pass.h"  // add_swatch_legend

namespace {

// The pipelines' layouts are their shaders' (shader_layout): shading.glsl's bindings as forward has
// them without the quad mip, then visibility_shade.comp's from 7 on; bind_frame writes them all.
// The meshlet variants (VISIBILITY_MESHLET) also read the meshlet path's bindings: its meshlets,
// their vertices and triangles, from 17 on (visibility_shade.comp's MESHLET_BINDING, after the views').
constexpr uint32_t kMeshletBinding = 17;

// [quad-swap derivatives][view]: lane-id, first-last-lane, active-lanes (shaders/variants.cmake).
const char* const kViewShaders[2][3] = {
    {"visibility_shade.comp.analytic_view_lane_id", "visibility_shade.comp.analytic_view_first_last",
     "visibility_shade.comp.analytic_view_active"},
    {"visibility_shade.comp.quads_view_lane_id", "visibility_shade.comp.quads_view_first_last",
     "visibility_shade.comp.quads_view_active"}};

// Which of kViewShaders' views a plan's view is, or -1.
int view_index(ViewMode mode) {
    return mode == ViewMode::lane_id ? 0 : mode == ViewMode::first_last_lane ? 1 : mode == ViewMode::active_lanes ? 2 : -1;
}

// [quad-swap derivatives][subgroup light loop][writes the quad mip] (shaders/variants.cmake); the
// meshlet path's names here and of the views end in "_meshlet".
const char* const kShadeShaders[2][2][2] = {
    {{"visibility_shade.comp.analytic", "visibility_shade.comp.analytic_mip"},
     {"visibility_shade.comp.analytic_light_loop", "visibility_shade.comp.analytic_light_loop_mip"}},
    {{"visibility_shade.comp.quads", "visibility_shade.comp.quads_mip"},
     {"visibility_shade.comp.quads_light_loop", "visibility_shade.comp.quads_light_loop_mip"}}};

}  // namespace

void VisibilityPass::create(const Context& ctx) {
    // The derivatives' quad broadcasts and the mip's quad swaps need the same: quad operations in
    // compute on lanes numbered by subgroup, which full subgroups make dense.
    bool quads = visibility_derivatives_missing(ctx.subgroup, ctx.features).empty();
    bool loop = missing_support(ctx.subgroup, {Stage::compute, pass_info(PassId::light_loop).ops}).empty();
    // The waterfall, over an array of descriptors (no .layers SPIR-V of it: with layers nothing to walk).
    bool walk = missing_support(ctx.subgroup, {Stage::compute, bit(Op::basic) | bit(Op::ballot)}).empty() &&
                ctx.features.descriptor_indexing;
    // Each geometry path by its own needs: a device with mesh shaders but no geometryShader shades
    // the meshlet path with visibility though the indexed pre-pass cannot name its triangles.
    for (bool meshlet : {false, true}) {
        if (!(meshlet ? meshlet_missing(ctx.features) : visibility_missing(ctx.features, Geometry::indexed)).empty()) continue;
        const std::string suffix = meshlet ? "_meshlet" : "";
        for (bool quad_derivatives : {false, true})
            for (bool light_loop : {false, true})
                for (bool mip : {false, true})
                    for (bool waterfall : {false, true}) {
                        if (((quad_derivatives || mip) && !quads) || (light_loop && !loop) || (waterfall && !walk)) continue;
                        // Compiled on first use (Pipeline::handle): a run uses one or two of the 32.
                        shade[meshlet][quad_derivatives][light_loop][mip][waterfall] = create_compute_pipeline(
                            ctx, {.shader = std::string(kShadeShaders[quad_derivatives][light_loop][mip]) + (waterfall ? "_waterfall" : "") + suffix,
                                  .full_subgroups = quad_derivatives || mip});
                    }
        for (bool quad_derivatives : {false, true})
            if (walk && (!quad_derivatives || quads))
                material_views[meshlet][quad_derivatives] = create_compute_pipeline(
                    ctx, {.shader = std::string(quad_derivatives ? "visibility_shade.comp.quads" : "visibility_shade.comp.analytic") +
                                    "_view_materials_waterfall" + suffix,
                          .full_subgroups = quad_derivatives});
        for (bool quad_derivatives : {false, true})
            for (int view = 0; view < 3; ++view)
                if (!quad_derivatives || quads)
                    views[meshlet][quad_derivatives][view] = create_compute_pipeline(
                        ctx, {.shader = kViewShaders[quad_derivatives][view] + suffix, .full_subgroups = quad_derivatives});
    }
}

bool VisibilityPass::draws_view(const Plan& plan) const {
    return plan.view.shading_pass && views[plan.geometry == Geometry::meshlet][0][0];
}

// What every dispatch of the pass binds, after making its images ready: the scene, lights, ray-traced
// image, drawn triangles, the visibility image (read with texelFetch: an R32G32_UINT storage image
// would need shaderStorageImageExtendedFormats) and the HDR target (every pixel written, the clear
// colour where no triangle is).
Descriptors VisibilityPass::bind_frame(FrameContext& f, const Pipeline& pipeline, std::initializer_list<Use> more) {
    // The ray_trace pass's image: its contents unused unless it ran this frame.
    std::vector<Use> uses = {
        reads(Res::visibility, kComputeStage, VK_ACCESS_2_SHADER_SAMPLED_READ_BIT, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL),
        writes(Res::hdr, kComputeStage, kStorageWrite, VK_IMAGE_LAYOUT_GENERAL, true),
        {Res::ray_traced, kComputeStage, kStorageRead, VK_IMAGE_LAYOUT_GENERAL, !f.ray_traced},
        writes(Res::counters, kComputeStage, kStorageReadWrite),
        reads(Res::draw_lists, kComputeStage, kStorageRead)};  // the list the ids name
    if (f.light_lists) uses.push_back(reads(Res::light_lists, kComputeStage, kStorageRead));
    if (f.plan.geometry == Geometry::meshlet && f.meshlets) uses.push_back(reads(Res::meshlet_lists, kComputeStage, kStorageRead));
    uses.insert(uses.end(), more);
    f.graph().pass(f.cmd, uses);
    vkCmdBindPipeline(f.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.handle());
    Descriptors d;
    d.buffer(0, f.uniforms, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER)
        .buffer(1, f.scene.draws)
        .buffer(2, f.lights)
        .textures(f.scene.texture_set)
        // Without lists (light cull off) any buffer stands in: shading.glsl reads it only with lists.
        .buffer(4, f.light_lists ? *f.light_lists : f.lights)
        .buffer(5, f.counters)
        .storage_image(6, f.targets.ray_traced.view)
        .buffer(7, f.scene.vertices)
        .buffer(8, named_indices(f))  // the list the visibility ids name
        .buffer(9, named_indirect(f))
        .buffer(10, f.scene.vertex_materials)  // tangents, TEXCOORD_1 (visibility_surface.glsl)
        .sampled_texels(11, f.targets.visibility.view, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL)
        .storage_image(12, f.targets.hdr.view)
        .storage_image(13, f.targets.mip.view);  // the mip variants' target
    if (f.plan.geometry == Geometry::meshlet && f.meshlets) f.meshlets->push_bindings(f, d, kMeshletBinding);
    return d;
}

void VisibilityPass::dispatch(FrameContext& f, const Pipeline& pipeline, Descriptors& d, bool counted) {
    d.push(f.cmd, pipeline);
    // shading.glsl's flags, as forward pushes them, and 8: write the derivatives (tests only).
    uint32_t flags = shading_push_flags(f) | (f.test_derivatives ? 8u : 0u);
    if (!counted) flags &= ~1u;  // a view's re-run: the frame's counts are the shading pass's (shading.glsl kForwardInstrument)
    push_constants(f.cmd, pipeline, &flags, sizeof(flags));
    vkCmdDispatch(f.cmd, ceil_div(f.targets.extent.width, kQuadTileWidth), ceil_div(f.targets.extent.height, kQuadTileHeight), 1);
}

void VisibilityPass::record(FrameContext& f) {
    const ShadingPlan& plan = f.plan.shading;
    const auto& variants = shade[f.plan.geometry == Geometry::meshlet];
    // The planner chose these by the same capabilities create() made the pipelines by.
    bool quad_derivatives = plan.derivatives == Variant::subgroup;
    bool mip = plan.quad_mip;
    bool loop = plan.light_loop == Variant::subgroup && variants[quad_derivatives][1][mip][0];
    bool waterfall = plan.materials == Variant::subgroup && variants[quad_derivatives][loop][mip][1];
    const Pipeline& pipeline = variants[quad_derivatives][loop][mip][waterfall];
    std::string label = std::string(quad_derivatives ? "quad-swap derivatives" : "analytic derivatives") +
                        (waterfall ? ", material waterfall" : ", materials nonuniform");
    begin_label(f.ctx, f.cmd, debug_label(Timer::shade, mip ? label + ", " + std::string(pass_info(PassId::mip).hosted_label) : label));
    f.timer.begin(f.cmd, Timer::shade);
    // With the mip, every texel is written (one store per quad, and every quad inside the frame is whole).
    Descriptors d = mip ? bind_frame(f, pipeline, {writes(Res::mip, kComputeStage, kStorageWrite, VK_IMAGE_LAYOUT_GENERAL, true)})
                        : bind_frame(f, pipeline);
    dispatch(f, pipeline, d);
    f.timer.end(f.cmd, Timer::shade);
    end_label(f.ctx, f.cmd);
}

bool VisibilityPass::record_view(FrameContext& f, const Buffer& params) {
    if (!draws_view(f.plan) || !f.targets.visibility.image) return false;
    bool quad_derivatives = f.plan.shading.derivatives == Variant::subgroup;
    const Pipeline& pipeline = views[f.plan.geometry == Geometry::meshlet][quad_derivatives][view_index(f.plan.view.mode)];
    // Each invocation reads and writes only its own pixel of the 8-bit frame.
    Descriptors d = bind_frame(f, pipeline, {writes(Res::color, kComputeStage, kStorageReadWrite, VK_IMAGE_LAYOUT_GENERAL)});
    d.buffer(14, params, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER).buffer(15, f.counters).storage_image(16, f.targets.color.view);
    dispatch(f, pipeline, d);
    return true;
}

void VisibilityPass::record_material_view(FrameContext& f) {
    if (f.plan.view.mode != ViewMode::materials) return;
    const bool quad_derivatives = f.plan.shading.derivatives == Variant::subgroup;
    const Pipeline& pipeline = material_views[f.plan.geometry == Geometry::meshlet][quad_derivatives];
    if (f.plan.view.variant != Variant::subgroup || !pipeline.layout || !f.targets.visibility.image) {
        if (f.overlay) f.overlay->label(8, 8, "materials view: " + f.plan.view.reason);
        return;
    }
    begin_label(f.ctx, f.cmd, debug_label(f.plan.view));
    f.timer.begin(f.cmd, Timer::view);
    // Each invocation writes only its own pixel of the 8-bit frame (the resolve's, before it).
    Descriptors d = bind_frame(f, pipeline, {writes(Res::color, kComputeStage, kStorageReadWrite, VK_IMAGE_LAYOUT_GENERAL)});
    d.storage_image(16, f.targets.color.view);
    dispatch(f, pipeline, d, false);
    f.timer.end(f.cmd, Timer::view);
    end_label(f.ctx, f.cmd);
    if (!f.overlay || !f.view_legend) return;
    std::vector<Swatch> walked;
    for (size_t i = 0; i < kMaterialWalkColours.size(); ++i)
        walked.push_back({kMaterialWalkColours[i], std::to_string(i + 1) + (i + 1 == kMaterialWalkColours.size() ? "+" : "")});
    add_swatch_legend(*f.overlay, f.targets.extent, "materials | distinct materials each subgroup's waterfall walked", walked);
}
