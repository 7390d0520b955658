#include "passes/debug_view_pass.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>

#include "passes/scene_pass.h"
#include "passes/meshlet_pass.h"
#include "passes/subgroup_tally.h"
#include "scene/lod.h"

namespace {

// ViewParams of shaders/view_common.glsl (std140: uvec4 arrays are tightly packed here).
struct ViewParams {
    uint32_t palette[kLanePaletteSize];
    uint32_t marks[4];  // first, last, only, hatch
    uint32_t ramp[4];
    float dim[4];
};
static_assert(sizeof(ViewParams) == 128 * 4 + 48);

constexpr uint32_t kGraphicsParamsBinding = kViewGraphicsCountersBinding - 1;  // after the scene's bindings 0..3
constexpr uint32_t kComputeParamsBinding = kViewComputeCountersBinding - 1;    // after the colour image
constexpr uint32_t kGraphicsCountersBinding = kViewGraphicsCountersBinding;
constexpr uint32_t kComputeCountersBinding = kViewComputeCountersBinding;

const char* kind_suffix(ViewKind kind) {
    switch (kind) {
        case ViewKind::lane_id: return "lane_id";
        case ViewKind::first_last: return "first_last";
        case ViewKind::active: return "active";
        default: return "plain";
    }
}

ViewKind view_kind(ViewMode mode) {
    switch (mode) {
        case ViewMode::lane_id: return ViewKind::lane_id;
        case ViewMode::first_last_lane: return ViewKind::first_last;
        case ViewMode::active_lanes: return ViewKind::active;
        default: return ViewKind::plain;
    }
}

// Positions that pass through tessellation or a geometry shader reach the rasterizer by another
// path in some drivers (lavapipe: its own viewport transform and clipping), so their depth can
// differ from the pre-pass's in the last bit and a depth test EQUAL against the pre-pass would
// drop random pixels. These views draw their own depth first, through the same stages.
bool redraws_depth(Stage stage) {
    return stage == Stage::tess_control || stage == Stage::tess_eval || stage == Stage::geometry;
}

// The shader of `stage` in a view of `under_view`: that stage runs `variant`, the others plain.
std::pair<VkShaderStageFlagBits, std::string> view_shader(Stage stage, Stage under_view, const std::string& variant) {
    const StageInfo& info = stage_info(stage);
    return {VkShaderStageFlagBits(info.vk_stage), std::string(info.shader) + "." + (stage == under_view ? variant : "plain")};
}

bool tessellates(Stage stage) { return stage == Stage::tess_control || stage == Stage::tess_eval; }

// The pre-raster shaders of a view in `stage` (the stage table names each stage's shader).
PipelineShaders pre_raster_shaders(Stage stage, const std::string& variant) {
    PipelineShaders shaders = {view_shader(Stage::vertex, stage, variant)};
    if (tessellates(stage)) {
        shaders.push_back(view_shader(Stage::tess_control, stage, variant));
        shaders.push_back(view_shader(Stage::tess_eval, stage, variant));
    }
    if (stage == Stage::geometry) shaders.push_back(view_shader(Stage::geometry, stage, variant));
    return shaders;
}

// The pipeline stage a shader stage runs in.
VkPipelineStageFlags2 pipeline_stage(VkShaderStageFlagBits stage) {
    switch (stage) {
        case VK_SHADER_STAGE_VERTEX_BIT: return VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT;
        case VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT: return VK_PIPELINE_STAGE_2_TESSELLATION_CONTROL_SHADER_BIT;
        case VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT: return VK_PIPELINE_STAGE_2_TESSELLATION_EVALUATION_SHADER_BIT;
        case VK_SHADER_STAGE_GEOMETRY_BIT: return VK_PIPELINE_STAGE_2_GEOMETRY_SHADER_BIT;
        case VK_SHADER_STAGE_FRAGMENT_BIT: return VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT;
        case VK_SHADER_STAGE_COMPUTE_BIT: return VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
        default: throw std::logic_error("a debug view's own pipelines have no such stage");
    }
}

bool stage_available(const DeviceFeatures& features, Stage stage) {
    const StageInfo& info = stage_info(stage);
    return !info.missing_feature || info.missing_feature(features).empty();
}

uint32_t pack(double r, double g, double b) {
    auto byte = [](double v) { return uint8_t(std::lround(std::clamp(v, 0.0, 1.0) * 255.0)); };
    return rgba8(byte(r), byte(g), byte(b));
}

uint32_t lerp_colour(uint32_t a, uint32_t b, float t) {
    uint32_t out = 0xff000000u;
    for (int shift = 0; shift < 24; shift += 8) {
        float ca = float((a >> shift) & 0xff), cb = float((b >> shift) & 0xff);
        out |= uint32_t(std::lround(ca + (cb - ca) * t)) << shift;
    }
    return out;
}

// A view's own depth, cleared: the old contents are not needed.
const Use kDepthRedraw = writes(Res::prepass_depth, kDepthTestStages,
                                VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT | VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
                                VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL, true);
// The cull's lists, which the views that redraw the scene draw.
const Use kDrawListsRead = reads(Res::draw_lists, kDrawListStages, kDrawListReads);
// Drawn over the finished frame.
const Use kColorOver = writes(Res::color, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                              VK_ACCESS_2_COLOR_ATTACHMENT_READ_BIT | VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT,
                              VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL);

// Replaces the pre-pass depth (nothing after the view reads it) with a view's own: a depth-only
// pass cleared to 0, the far plane of reversed Z. The caller draws, then ends rendering.
void begin_depth_redraw(FrameContext& f) {
    f.graph().pass(f.cmd, {kDepthRedraw, kDrawListsRead});
    VkRenderingAttachmentInfo depth = depth_attachment(f.targets.depth, VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
                                                       VK_ATTACHMENT_LOAD_OP_CLEAR, VK_ATTACHMENT_STORE_OP_STORE);
    begin_rendering(f.cmd, f.targets.extent, nullptr, &depth);
}

// The sizes the legend names: those the view's stage ran at in the last frame that drew it, or
// before one has (the first frame), every size the device may run the stage at.
uint32_t legend_sizes(const FrameContext& f) {
    return f.view_sizes ? f.view_sizes : sizes_in_range(f.ctx.subgroup.min_size, f.ctx.subgroup.max_size);
}

}  // namespace

// Hues step by the golden ratio (137.5 degrees), so neighbouring lanes, and any few lanes in a
// row, get clearly different colours; each block of 32 lanes has its own saturation and value, so
// all 128 colours stay distinct (tests decode lane ids from exact pixel values).
uint32_t lane_colour(uint32_t lane) {
    static constexpr double kBands[4][2] = {{0.85, 1.0}, {0.45, 1.0}, {1.0, 0.62}, {0.55, 0.72}};
    double hue = std::fmod(lane * 0.6180339887498949, 1.0) * 6.0;
    double s = kBands[(lane / 32) % 4][0], v = kBands[(lane / 32) % 4][1];
    int sector = int(hue) % 6;
    double f = hue - std::floor(hue);
    double p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f));
    switch (sector) {
        case 0: return pack(v, t, p);
        case 1: return pack(q, v, p);
        case 2: return pack(p, v, t);
        case 3: return pack(p, q, v);
        case 4: return pack(t, p, v);
        default: return pack(v, p, q);
    }
}

uint32_t active_ramp_colour(float fraction) {
    fraction = std::clamp(fraction, 0.0f, 1.0f);
    return fraction < 0.5f ? lerp_colour(kActiveRamp[0], kActiveRamp[1], fraction * 2.0f)
                           : lerp_colour(kActiveRamp[1], kActiveRamp[2], fraction * 2.0f - 1.0f);
}

std::vector<PipelineShaders> view_pipelines(Stage stage, ViewKind kind) {
    std::string k = kind_suffix(kind);
    if (stage == Stage::compute) return {{view_shader(Stage::compute, stage, k)}};
    std::vector<PipelineShaders> pipelines;
    if (redraws_depth(stage)) pipelines.push_back(pre_raster_shaders(stage, "plain"));
    PipelineShaders view = pre_raster_shaders(stage, k);
    view.push_back(view_shader(Stage::fragment, stage, k));
    pipelines.push_back(view);
    return pipelines;
}

VkPipelineStageFlags2 view_counter_stages(Stage stage, ViewKind kind) {
    // The meshlet path's task and mesh shaders count into the counters in every variant (its own
    // counts, and the view's), in the view's pipeline and in the depth redraw before it.
    if (stage == Stage::task || stage == Stage::mesh)
        return VK_PIPELINE_STAGE_2_TASK_SHADER_BIT_EXT | VK_PIPELINE_STAGE_2_MESH_SHADER_BIT_EXT;
    // Every ray-tracing stage counts its rays (raytrace_stats.glsl), the stage under view its lanes too.
    if (bit(stage) & kRayTracingStages) return VK_PIPELINE_STAGE_2_RAY_TRACING_SHADER_BIT_KHR;
    // Here only a stage that runs a view variant counts (view_common.glsl); a plain pass-through
    // binds the counters but never touches them.
    VkPipelineStageFlags2 stages = VK_PIPELINE_STAGE_2_NONE;
    for (const PipelineShaders& pipeline : view_pipelines(stage, kind))
        for (const auto& [shader_stage, shader] : pipeline)
            if (!shader.ends_with(".plain")) stages |= pipeline_stage(shader_stage);
    return stages;
}

CounterBarrier view_counter_barrier(const DeviceFeatures& features, Stage stage, ViewKind kind) {
    VkPipelineStageFlags2 counting = view_counter_stages(stage, kind);
    if (!counting) return {};
    return {counter_stages(features), counting};
}

void DebugViewPass::create(const Context& ctx) {
    ViewParams params{};
    for (uint32_t i = 0; i < kLanePaletteSize; ++i) params.palette[i] = lane_colour(i);
    params.marks[0] = kFirstLaneColour;
    params.marks[1] = kLastLaneColour;
    params.marks[2] = kOnlyLaneColour;
    params.marks[3] = kHatchColour;
    for (size_t i = 0; i < kActiveRamp.size(); ++i) params.ramp[i] = kActiveRamp[i];
    params.dim[0] = kFirstLastDim;
    params_ = create_buffer_with_data(ctx, &params, sizeof(params), VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, "view params");
}

const Pipeline& DebugViewPass::pipeline(const Context& ctx, Stage stage, ViewKind kind) {
    Pipeline& p = pipelines_[size_t(stage)][size_t(kind)];
    if (p) return p;
    if (stage == Stage::compute) {
        ComputeDesc d;
        d.shader = view_pipelines(stage, kind).back().front().second;
        p = create_compute_pipeline(ctx, d);
        return p;
    }
    // The stage under view runs variant k; every other stage runs its plain pass-through.
    GraphicsDesc d;
    d.shaders = view_pipelines(stage, kind).back();
    if (tessellates(stage)) d.patch_control_points = 3;
    d.color_formats = {kColorFormat};
    d.depth_format = kDepthFormat;
    d.depth_compare = VK_COMPARE_OP_EQUAL;  // exactly the pixels the pre-pass kept, as the forward pass
    d.depth_write = false;
    d.vertex_attributes = 1;  // position only
    d.blend = true;           // premultiplied "over": opaque views replace, first-last-lane dims
    p = create_graphics_pipeline(ctx, d);
    return p;
}

const Pipeline& DebugViewPass::depth_pipeline(const Context& ctx, Stage stage) {
    Pipeline& p = depth_pipelines_[size_t(stage)];
    if (p) return p;
    GraphicsDesc d;
    d.shaders = view_pipelines(stage, ViewKind::plain).front();  // positions are copied, never computed: any variant agrees
    if (tessellates(stage)) d.patch_control_points = 3;
    d.depth_format = kDepthFormat;
    d.depth_compare = VK_COMPARE_OP_GREATER;  // reversed Z, as the pre-pass
    d.vertex_attributes = 1;
    p = create_graphics_pipeline(ctx, d);
    return p;
}

void DebugViewPass::record(FrameContext& f, bool legend) {
    const ViewPlan& plan = f.plan.view;
    if (plan.mode == ViewMode::lod) return record_lod(f, legend);
    if (plan.mode == ViewMode::overdraw) return record_overdraw(f, legend);
    if (!is_subgroup_view(plan.mode)) return;
    bool supported = plan.variant == Variant::subgroup;
    ViewKind kind = supported ? view_kind(plan.mode) : ViewKind::plain;
    // Without the tessellation or geometry feature that stage cannot draw at all: the hatch goes
    // through the vertex pass-through instead. A ray-tracing stage's view traces the frame's launch
    // (unit_view), supported or not: without subgroups there its invocations mark the pixels they
    // served with "no lane data" under the hatch (RayTracePass::record_stage_view); only a device
    // that cannot trace draws that hatch through the vertex pass-through (there is no rasterized
    // pass-through in those stages).
    bool ray_stage = (kRayTracingStages & bit(plan.stage)) != 0;
    Stage stage = stage_available(f.ctx.features, plan.stage) && !ray_stage ? plan.stage : Stage::vertex;

    begin_label(f.ctx, f.cmd, debug_label(plan));
    f.timer.begin(f.cmd, Timer::view);
    // The frame's counters: its earlier writers (the clear, the compute passes, forward's counts,
    // the meshlet path, the ray tracer; to the graph the renderer's pass over them in every stage,
    // b.src) finish before the stages this view's pipelines count in. Those stages come from the
    // pipelines themselves (view_counter_stages), so a stage a view draws in cannot be missing here
    // (a fixed list once missed vertex, tessellation and geometry); ViewBarrier.* holds them to the SPIR-V.
    Stage drawn = ray_stage && supported ? plan.stage : stage;
    if (CounterBarrier b = view_counter_barrier(f.ctx.features, drawn, kind); b.dst)
        f.graph().pass(f.cmd, {writes(Res::counters, b.dst, kStorageReadWrite)});
    // The ray tracer draws its stages' views; under --shading visibility the shading pass draws compute's.
    if ((ray_stage || (stage == Stage::compute && supported)) && unit_view && unit_view(f, params_)) {
        f.timer.end(f.cmd, Timer::view);
        end_label(f.ctx, f.cmd);
        if (legend && f.overlay) add_view_legend(*f.overlay, f.targets.extent, plan, legend_sizes(f));
        return;
    }
    if (stage == Stage::task || stage == Stage::mesh) {
        // The meshlet path's own task and mesh shaders draw these views (MeshletPass::record_view).
        if (!f.meshlets) throw std::runtime_error("the task and mesh views need the meshlet path");
        // Over an indexed frame, their depth first (as the tessellation and geometry views do): a
        // driver may rasterize mesh-pipeline positions to other depths in the last bit.
        if (f.plan.geometry == Geometry::indexed) {
            begin_depth_redraw(f);
            f.meshlets->record_depth(f, false);
            vkCmdEndRendering(f.cmd);
        }
        begin_view_rendering(f);
        f.meshlets->record_view(f, stage, kind_suffix(kind), params_);
        vkCmdEndRendering(f.cmd);
    } else {
        const Pipeline& p = pipeline(f.ctx, stage, kind);
        if (redraws_depth(stage)) record_depth(f, depth_pipeline(f.ctx, stage));
        if (stage == Stage::compute)
            record_compute(f, p);
        else
            record_graphics(f, p);
    }
    f.timer.end(f.cmd, Timer::view);
    end_label(f.ctx, f.cmd);

    if (legend && f.overlay) add_view_legend(*f.overlay, f.targets.extent, plan, legend_sizes(f));
}

// Push descriptors update incrementally: bindings 4 and 5 here, draw_scene pushes the scene's 0..3.
void DebugViewPass::push_view_bindings(FrameContext& f, const Pipeline& p) {
    Descriptors()
        .buffer(kGraphicsParamsBinding, params_, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER)
        .buffer(kGraphicsCountersBinding, f.counters)
        .push(f.cmd, p);
}

// Replaces the pre-pass depth (nothing after the view reads it) with the view's own.
void DebugViewPass::record_depth(FrameContext& f, const Pipeline& p) {
    begin_depth_redraw(f);
    push_view_bindings(f, p);
    draw_scene(f, p);
    vkCmdEndRendering(f.cmd);
}

void DebugViewPass::record_graphics(FrameContext& f, const Pipeline& p) {
    begin_view_rendering(f);
    push_view_bindings(f, p);
    draw_scene(f, p);
    vkCmdEndRendering(f.cmd);
}

// Over the shaded frame, depth EQUAL against the pre-pass's (read only).
void DebugViewPass::begin_view_rendering(FrameContext& f) {
    f.graph().pass(f.cmd, {reads(Res::prepass_depth, kDepthTestStages, VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT,
                                 VK_IMAGE_LAYOUT_DEPTH_READ_ONLY_OPTIMAL),
                           kColorOver, kDrawListsRead});
    VkRenderingAttachmentInfo color = color_attachment(f.targets.color, VK_ATTACHMENT_LOAD_OP_LOAD);  // over the shaded frame
    VkRenderingAttachmentInfo depth = depth_attachment(f.targets.depth, VK_IMAGE_LAYOUT_DEPTH_READ_ONLY_OPTIMAL,
                                                       VK_ATTACHMENT_LOAD_OP_LOAD, VK_ATTACHMENT_STORE_OP_NONE);
    begin_rendering(f.cmd, f.targets.extent, &color, &depth);
}

void DebugViewPass::record_compute(FrameContext& f, const Pipeline& p) {
    // Each invocation reads and writes only its own pixel.
    f.graph().pass(f.cmd, {writes(Res::color, kComputeStage, kStorageReadWrite, VK_IMAGE_LAYOUT_GENERAL)});
    vkCmdBindPipeline(f.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p.handle());
    Descriptors()
        .storage_image(0, f.targets.color.view)
        .buffer(kComputeParamsBinding, params_, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER)
        .buffer(kComputeCountersBinding, f.counters)
        .push(f.cmd, p);
    uint32_t groups_x = (f.targets.extent.width + kViewWorkgroup - 1) / kViewWorkgroup;
    uint32_t groups_y = (f.targets.extent.height + kViewWorkgroup - 1) / kViewWorkgroup;
    vkCmdDispatch(f.cmd, groups_x, groups_y, 1);
}

// The lod view's push constants (shaders/lod_view.vert).
struct LodViewPush {
    uint32_t colours[kMaxLodLevels];
    float lod_max_error_px;
};

// The lod and overdraw views' pipeline: lod_view.vert and .frag over the scene's bindings.
static GraphicsDesc lod_view_desc() {
    GraphicsDesc d;
    d.shaders = {{VK_SHADER_STAGE_VERTEX_BIT, "lod_view.vert.main"}, {VK_SHADER_STAGE_FRAGMENT_BIT, "lod_view.frag.main"}};
    d.color_formats = {kColorFormat};
    d.vertex_attributes = 2;  // position and uv (the alpha test)
    return d;
}

// Draws every draw at the level of detail the rule picks (lod_view.vert), in its level's colour
// (kLodColours) or, `colour` not 0, all in that colour. The caller has begun rendering.
void DebugViewPass::draw_chosen_levels(FrameContext& f, const Pipeline& pipeline, uint32_t colour) {
    if (!lod_indirect_.buffer) {
        // Every level of every draw: draw d's level l is firstInstance d * kMaxLodLevels + l, which
        // the vertex shader splits back (it draws only the level the rule picks).
        std::vector<VkDrawIndexedIndirectCommand> commands;
        for (uint32_t d = 0; d < f.scene.cpu_draws.size(); ++d) {
            const GpuDraw& draw = f.scene.cpu_draws[d];
            for (uint32_t l = 0; l < std::max(1u, draw.lod_count); ++l)
                commands.push_back({draw.lod_index_count[l], 1, draw.lod_first_index[l], 0, d * kMaxLodLevels + l});
        }
        lod_commands_ = uint32_t(commands.size());
        lod_indirect_ = create_buffer_with_data(f.ctx, commands.data(), std::max<size_t>(4, commands.size() * sizeof(commands[0])),
                                                VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT, "lod view indirect");
        if (f.ctx.features.draw_indirect_count)
            lod_count_ = create_buffer_with_data(f.ctx, &lod_commands_, sizeof(lod_commands_), VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT,
                                                 "lod view count");
    }
    vkCmdBindPipeline(f.cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline.handle());
    scene_descriptors(f).push(f.cmd, pipeline);
    LodViewPush push{};
    if (colour) std::fill(std::begin(push.colours), std::end(push.colours), colour);
    else std::copy(kLodColours.begin(), kLodColours.end(), push.colours);
    push.lod_max_error_px = f.plan.lod ? kLodMaxErrorPixels : 0.0f;
    push_constants(f.cmd, pipeline, &push, sizeof(push));
    VkDeviceSize offset = 0;
    vkCmdBindVertexBuffers(f.cmd, 0, 1, &f.scene.vertices.buffer, &offset);
    vkCmdBindIndexBuffer(f.cmd, f.scene.indices.buffer, 0, VK_INDEX_TYPE_UINT32);
    const uint32_t stride = sizeof(VkDrawIndexedIndirectCommand);
    const uint32_t per_call = f.ctx.features.multi_draw_indirect ? std::max(1u, f.ctx.properties.limits.maxDrawIndirectCount) : 1u;
    for (uint32_t first = 0; first < lod_commands_; first += per_call) {
        uint32_t count = std::min(per_call, lod_commands_ - first);
        if (f.drew_with_count)  // as draw_scene: a count of its own after a counted draw
            vkCmdDrawIndexedIndirectCount(f.cmd, lod_indirect_.buffer, VkDeviceSize(first) * stride, lod_count_.buffer, 0, count, stride);
        else
            vkCmdDrawIndexedIndirect(f.cmd, lod_indirect_.buffer, VkDeviceSize(first) * stride, count, stride);
    }
}

void DebugViewPass::record_lod(FrameContext& f, bool legend) {
    if (!lod_pipeline_) {
        GraphicsDesc d = lod_view_desc();
        d.depth_format = kDepthFormat;
        d.depth_compare = VK_COMPARE_OP_GREATER;  // reversed Z, as the pre-pass, into the view's own depth
        lod_pipeline_ = create_graphics_pipeline(f.ctx, d);
    }
    begin_label(f.ctx, f.cmd, "view lod");
    f.timer.begin(f.cmd, Timer::view);
    // Its own depth, cleared (nothing after the view reads the pre-pass's), over the shaded frame:
    // the chosen levels' nearest surfaces, whichever geometry path drew the frame.
    f.graph().pass(f.cmd, {kDepthRedraw, kColorOver});
    VkRenderingAttachmentInfo color = color_attachment(f.targets.color, VK_ATTACHMENT_LOAD_OP_LOAD);
    VkRenderingAttachmentInfo depth = depth_attachment(f.targets.depth, VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
                                                       VK_ATTACHMENT_LOAD_OP_CLEAR, VK_ATTACHMENT_STORE_OP_STORE);
    begin_rendering(f.cmd, f.targets.extent, &color, &depth);
    draw_chosen_levels(f, lod_pipeline_, 0);
    vkCmdEndRendering(f.cmd);
    f.timer.end(f.cmd, Timer::view);
    end_label(f.ctx, f.cmd);
    if (legend && f.overlay) add_lod_legend(*f.overlay, f.targets.extent, f.plan.lod);
}

// The lod view's fragments without its depth test, each adding kOverdrawStep to a cleared frame:
// how many front faces of the chosen levels lie over each pixel, the fragments a forward pass
// without the depth pre-pass (and its EQUAL test) would shade there.
void DebugViewPass::record_overdraw(FrameContext& f, bool legend) {
    if (!overdraw_pipeline_) {
        GraphicsDesc d = lod_view_desc();
        d.depth_write = false;  // no depth attachment: every fragment counts
        d.blend = true;         // premultiplied "over" with alpha 0: the step adds
        overdraw_pipeline_ = create_graphics_pipeline(f.ctx, d);
    }
    begin_label(f.ctx, f.cmd, "view overdraw");
    f.timer.begin(f.cmd, Timer::view);
    // The frame cleared (the old contents are not needed), then read and written by the blend.
    f.graph().pass(f.cmd, {writes(Res::color, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                                  VK_ACCESS_2_COLOR_ATTACHMENT_READ_BIT | VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT,
                                  VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, true)});
    VkRenderingAttachmentInfo color = color_attachment(f.targets.color, VK_ATTACHMENT_LOAD_OP_CLEAR, {{0.0f, 0.0f, 0.0f, 1.0f}});
    begin_rendering(f.cmd, f.targets.extent, &color, nullptr);
    draw_chosen_levels(f, overdraw_pipeline_, kOverdrawStep);
    vkCmdEndRendering(f.cmd);
    f.timer.end(f.cmd, Timer::view);
    end_label(f.ctx, f.cmd);
    if (legend && f.overlay) add_overdraw_legend(*f.overlay, f.targets.extent);
}

void add_swatch_legend(Overlay& o, VkExtent2D extent, const std::string& title, const std::vector<Swatch>& swatches) {
    // The subgroup views' layout (add_view_legend): the same text size at one frame size.
    const float pad = 4.0f, scale = extent.height >= kLegendDoubleSizeHeight ? 2.0f : 1.0f;
    const float row = Overlay::text_height("0", scale) + 4 * scale + 2, swatch = 6.0f * scale;
    o.label(pad, pad, title, rgba8(255, 255, 255), scale);
    float x = pad, y = pad + row;
    for (const Swatch& s : swatches) {
        o.rect(x, y, swatch, swatch, s.colour);
        o.label(x + swatch + 1, y - 2 * scale, s.text, rgba8(255, 255, 255), scale);
        x += swatch + Overlay::text_width(s.text, scale) + 8 * scale;
    }
}

void add_lod_legend(Overlay& o, VkExtent2D extent, bool lod_auto) {
    std::vector<Swatch> levels;
    for (uint32_t l = 0; l < kMaxLodLevels; ++l) levels.push_back({kLodColours[l], std::to_string(l)});
    add_swatch_legend(o, extent, std::string("lod | level per draw | --lod ") + (lod_auto ? "auto" : "off"), levels);
}

void add_overdraw_legend(Overlay& o, VkExtent2D extent) {
    std::vector<Swatch> counts;
    for (uint32_t n = 1; n <= kOverdrawCountable + 1; n *= 2) {
        auto channel = [&](int shift) { return uint8_t(std::min(255u, n * ((kOverdrawStep >> shift) & 0xff))); };
        counts.push_back({rgba8(channel(0), channel(8), channel(16)), std::to_string(n)});
    }
    add_swatch_legend(o, extent, "overdraw | fragments per pixel, no depth test", counts);
}

std::optional<SubgroupTally> measured_subgroups(const GpuCounters& c, const Plan& plan, Stage stage) {
    if (bit(stage) & kRayTracingStages) {
        // RayStats keep the six stages in the Stage enum's order, raygen first.
        uint32_t i = uint32_t(stage) - uint32_t(Stage::raygen);
        if (plan[PassId::ray_trace].variant != Variant::subgroup || c.rays.subgroups[i] == 0) return std::nullopt;
        return SubgroupTally{c.rays.subgroups[i], c.rays.invocations[i], c.ray_lane_slots[i], c.ray_sizes[i]};
    }
    const ViewPlan& view = plan.view;
    if (view.mode != ViewMode::active_lanes || view.variant != Variant::subgroup || view.stage != stage ||
        c.view_subgroups == 0)
        return std::nullopt;
    // The view counts no lane slots; where a single size ran they are subgroups x that size.
    bool one_size = std::has_single_bit(c.view_sizes);
    return SubgroupTally{c.view_subgroups, c.view_lanes, one_size ? uint64_t(c.view_subgroups) * c.view_sizes : 0,
                         c.view_sizes};
}

// Splits `text` at spaces into lines at most `width` pixels wide at `scale` (a longer word keeps a
// line of its own).
static std::vector<std::string> wrap_legend(const std::string& text, float width, float scale) {
    std::vector<std::string> lines;
    std::string line;
    for (size_t start = 0; start < text.size();) {
        size_t end = std::min(text.find(' ', start), text.size());
        std::string word = text.substr(start, end - start);
        std::string longer = line.empty() ? word : line + " " + word;
        if (!line.empty() && Overlay::text_width(longer, scale) > width) {
            lines.push_back(line);
            line = word;
        } else {
            line = longer;
        }
        start = end + 1;
    }
    if (!line.empty()) lines.push_back(line);
    return lines;
}

std::string view_legend_title(const ViewPlan& plan, uint32_t sizes) {
    std::string title = std::string(view_mode_name(plan.mode)) + " | " + std::string(stage_name(plan.stage)) + " | " +
                        sizes_text(sizes);
    if (plan.shading_pass)
        title += " | visibility shade: 2x2 quads, " + std::to_string(kQuadTileWidth) + "x" + std::to_string(kQuadTileHeight) + " groups";
    else if (plan.stage == Stage::compute)
        title += " | " + std::to_string(kViewWorkgroup) + "x" + std::to_string(kViewWorkgroup) + " groups";
    return title;
}

uint32_t legend_lanes(uint32_t sizes) { return sizes ? std::min(std::bit_floor(sizes), kLanePaletteSize) : 0; }

void add_view_legend(Overlay& o, VkExtent2D extent, const ViewPlan& plan, uint32_t sizes) {
    const float pad = 4.0f;
    std::string mode(view_mode_name(plan.mode)), stage(stage_name(plan.stage));
    // The text size follows from the frame's size alone, so every stage's and view's legend has
    // the same size at one frame size (side by side on a sheet they match); text that does not fit
    // the width wraps. (Choosing the size by whether this legend's own text fits made short titles,
    // vertex or task, double-size and long ones, tess-control or a ray-tracing reason, small.)
    const float scale = extent.height >= kLegendDoubleSizeHeight ? 2.0f : 1.0f;
    const float row = Overlay::text_height("0", scale) + 4 * scale + 2;
    const float text_room = float(extent.width) - 4 * pad;
    float y = pad;
    auto lines = [&](const std::string& text, uint32_t colour) {
        for (const std::string& line : wrap_legend(text, text_room, scale)) {
            o.label(pad, y, line, colour, scale);
            y += row;
        }
    };

    if (plan.variant != Variant::subgroup) {
        lines("no subgroup support in " + stage + " for " + mode, kHatchColour);
        lines(plan.reason, rgba8(255, 255, 255));
        return;
    }

    lines(view_legend_title(plan, sizes), rgba8(255, 255, 255));

    const float swatch = 6.0f * scale;
    auto key = [&](float x, uint32_t colour, const std::string& text) {
        o.rect(x, y, swatch, swatch, colour);
        o.label(x + swatch + 1, y - 2 * scale, text, rgba8(255, 255, 255), scale);
        return x + swatch + Overlay::text_width(text, scale) + 8 * scale;
    };

    if (plan.mode == ViewMode::lane_id) {
        // One swatch per lane of the largest subgroup that ran, the first and last lane numbered.
        uint32_t lanes = std::max(legend_lanes(sizes), 1u);
        float w = std::clamp(std::floor((float(extent.width) - 2 * pad) / float(lanes)), 2.0f, 8.0f * scale);
        o.rect(pad - 1, y - 1, w * float(lanes) + 2, swatch + 2, rgba8(0, 0, 0, 200));
        for (uint32_t lane = 0; lane < lanes; ++lane) o.rect(pad + w * float(lane), y, w, swatch, lane_colour(lane));
        o.label(pad, y + swatch + 1, "0", rgba8(255, 255, 255), scale);
        std::string last = std::to_string(lanes - 1);
        o.label(pad + w * float(lanes) - Overlay::text_width(last, scale) - 4 * scale, y + swatch + 1, last,
                rgba8(255, 255, 255), scale);
    } else if (plan.mode == ViewMode::first_last_lane) {
        float x = key(pad, kFirstLaneColour, "first");
        x = key(x, kLastLaneColour, "last");
        key(x, kOnlyLaneColour, "only lane");
    } else {
        // The ramp from 0 to 1 of active lanes over the subgroup size.
        const int steps = 32;
        float w = 3.0f * scale;
        o.rect(pad - 1, y - 1, w * steps + 2, swatch + 2, rgba8(0, 0, 0, 200));
        for (int i = 0; i < steps; ++i)
            o.rect(pad + w * float(i), y, w, swatch, active_ramp_colour(float(i) / float(steps - 1)));
        o.label(pad, y + swatch + 1, "0", rgba8(255, 255, 255), scale);
        o.label(pad + w * steps - Overlay::text_width("1", scale) - 4 * scale, y + swatch + 1, "1",
                rgba8(255, 255, 255), scale);
        if (plan.stage == Stage::fragment) {
            y += swatch + 1 + row;  // under the ramp and its numbers
            lines("striped: with / without helper lanes", rgba8(255, 255, 255));
        }
    }
}
