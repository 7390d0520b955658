#include "gpu/light_frame.h"

#include <memory>

const Context& test_context() {
    static std::unique_ptr<Context> ctx = [] {
        auto c = std::make_unique<Context>();
        ContextOptions options;
        options.validate = true;
        create_context(*c, options);
        return c;
    }();
    return *ctx;
}

RendererConfig planned_config(const Context& ctx, const PlanRequest& request, VkExtent2D extent, uint32_t lights) {
    RendererConfig config;
    config.extent = extent;
    config.lights = lights;
    config.plan = make_plan(ctx.subgroup, ctx.features, request);
    return config;
}

const Scene& default_scene() {
    static Scene scene = load_scene(SGD_DEFAULT_SCENE);
    return scene;
}

LightFrame render_light_frame(const LightFrameRequest& request) {
    const Context& ctx = test_context();
    const Scene& scene = request.scene ? *request.scene : default_scene();
    PlanRequest plan_request;
    plan_request[PassId::light_cull] = request.light_cull;
    plan_request[PassId::light_loop] = request.light_loop;
    plan_request.view = request.view;
    RendererConfig config;
    config.extent = request.extent;
    config.lights = request.lights;
    config.plan = make_plan(ctx.subgroup, ctx.features, plan_request);
    config.light_loop_split_tiles = request.split_tiles;
    Renderer renderer(ctx, scene, config);

    VkCommandBuffer cmd = begin_one_shot(ctx);
    renderer.record(cmd, 0, request.frame_index, renderer.default_view(), request.instrument);
    end_one_shot(ctx, cmd);

    LightFrame f;
    f.plan = config.plan;
    f.uniforms = renderer.frame_uniforms(request.frame_index, renderer.default_view());
    for (const PointLight& l : animate_lights(request.lights, request.frame_index, renderer.bounds_min(), renderer.bounds_max()))
        f.lights.push_back({glm::vec4(l.position, l.radius), glm::vec4(l.color, 0.0f)});
    f.depth = renderer.read_depth();
    f.layout = renderer.unit<LightCullPass>(PassId::light_cull).layout();
    if (f.uniforms.tiles.z != 0) {
        f.words = renderer.unit<LightCullPass>(PassId::light_cull).read_lists(ctx);
        f.tiles = decode_light_lists(f.words, f.layout);
    }
    f.counters = renderer.read_counters();
    f.color = renderer.read_color();
    return f;
}

double borderline_tolerance(const FrameUniforms& uniforms) { return 1e-5 * uniforms.projection.w; }

ReferenceLists reference_for(const LightFrame& frame) {
    return reference_light_lists(frame.uniforms, frame.lights, frame.depth, kTileSize,
                                 borderline_tolerance(frame.uniforms));
}
