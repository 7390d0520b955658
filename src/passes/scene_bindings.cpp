#include "passes/scene_bindings.h"

#include "passes/pass_unit.h"

std::string forward_fragment_shader(const Context& ctx, bool mip, bool loop) {
    bool quad_mip = forward_missing(ctx.subgroup, ctx.features, PassId::mip).empty();  // --mip forward
    bool light_loop = subgroup_path_possible(ctx, PassId::light_loop);
    if ((mip && !quad_mip) || (loop && !light_loop)) return "";
    std::string shader = mip ? (loop ? "forward.frag.quad_mip_light_loop" : "forward.frag.quad_mip")
                             : (loop ? "forward.frag.light_loop" : "forward.frag.plain");
    return mip && ctx.features.quad_control_enabled ? shader + "_full_quads" : shader;
}

GraphicsDesc forward_pipeline_desc() {
    GraphicsDesc fwd;
    fwd.color_formats = {kHdrFormat};  // linear HDR; the resolve pass tonemaps it
    fwd.depth_format = kDepthFormat;
    fwd.depth_compare = VK_COMPARE_OP_EQUAL;  // shade exactly the pre-pass's surviving fragment
    fwd.depth_write = false;
    return fwd;  // (its layout: the shaders' own)
}

Descriptors scene_descriptors(const FrameContext& f) {
    Descriptors d;
    d.buffer(0, f.uniforms, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER)
        .buffer(1, f.scene.draws)
        .buffer(2, f.lights)
        .textures(f.scene.texture_set);
    return d;
}
