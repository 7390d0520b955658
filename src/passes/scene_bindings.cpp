#include "passes/scene_bindings.h"

#include "passes/pass_unit.h"

namespace {

// Binding 3 is free (it held the single texture array before the scene's textures moved to set 1,
// scene_textures.glsl): the numbers after it stay those of every shader that includes these.
const LayoutDesc kSceneLayout = {
    {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, kNoBinding},
    VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0, true};

// The forward pipelines: the scene's bindings, 4 the light lists (scene_bindings.glsl), then with
// the quad mip 5 the mip as a storage image and 6 the edge list (quad_mip.glsl), then the
// counters (the light loop's trips in the instrumented frame, shading.glsl): 5, or 7 with the quad
// mip, and last the ray-traced shadows and reflections (R32UI storage image, shading.glsl): 6, or
// 8. Push constant: flags (shading.glsl). Every binding a layout has is pushed (GPU-assisted
// validation reads them all).
LayoutDesc forward_layout(bool quad_mip) {
    LayoutDesc layout = kSceneLayout;
    layout.bindings.push_back(VK_DESCRIPTOR_TYPE_STORAGE_BUFFER);
    if (quad_mip) {
        layout.bindings.push_back(VK_DESCRIPTOR_TYPE_STORAGE_IMAGE);
        layout.bindings.push_back(VK_DESCRIPTOR_TYPE_STORAGE_BUFFER);
    }
    layout.bindings.push_back(VK_DESCRIPTOR_TYPE_STORAGE_BUFFER);
    layout.bindings.push_back(VK_DESCRIPTOR_TYPE_STORAGE_IMAGE);
    layout.push_constant_bytes = sizeof(uint32_t);
    return layout;
}

}  // namespace

LayoutDesc scene_layout() { return kSceneLayout; }

std::string forward_fragment_shader(const Context& ctx, bool mip, bool loop) {
    bool quad_mip = forward_missing(ctx.subgroup, ctx.features, PassId::mip).empty();  // --mip forward
    bool light_loop = subgroup_path_possible(ctx, PassId::light_loop);
    if ((mip && !quad_mip) || (loop && !light_loop)) return "";
    std::string shader = mip ? (loop ? "forward.frag.quad_mip_light_loop" : "forward.frag.quad_mip")
                             : (loop ? "forward.frag.light_loop" : "forward.frag.plain");
    return mip && ctx.features.quad_control_enabled ? shader + "_full_quads" : shader;
}

GraphicsDesc forward_pipeline_desc(bool quad_mip) {
    GraphicsDesc fwd;
    fwd.color_formats = {kHdrFormat};  // linear HDR; the resolve pass tonemaps it
    fwd.depth_format = kDepthFormat;
    fwd.depth_compare = VK_COMPARE_OP_EQUAL;  // shade exactly the pre-pass's surviving fragment
    fwd.depth_write = false;
    fwd.layout = forward_layout(quad_mip);
    return fwd;
}

Descriptors scene_descriptors(const FrameContext& f) {
    Descriptors d;
    d.buffer(0, f.uniforms, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER)
        .buffer(1, f.scene.draws)
        .buffer(2, f.lights)
        .textures(f.scene.texture_set);
    return d;
}
