#include "passes/scene_pass.h"
#include "passes/pass_unit.h"

#include <nlohmann/json.hpp>

#include "passes/meshlet_pass.h"
#include "passes/occlusion_pass.h"
#include "render/visibility_id.h"

#include <cstdio>
#include <cstdlib>

namespace {

// The forward pass's clear, linear HDR: 2^-8 x (1, 1.25, 1.75), values a half float holds exactly.
// The shading-time quad mip starts from the same colour, so texels that no quad touches (four
// background pixels) already hold their box filter ((a + a) + (a + a)) / 4 = a, exactly.
constexpr VkClearColorValue kClearColor = {{0.00390625f, 0.0048828125f, 0.0068359375f, 1.0f}};

// The pre-pass's depth, tested and written (reversed Z, GREATER).
const Use kDepthWrite = writes(Res::prepass_depth, kDepthTestStages,
                               VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT | VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
                               VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL);
constexpr VkAccessFlags2 kColorWriteRead = VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_2_COLOR_ATTACHMENT_READ_BIT;

// EXPERIMENT ONLY (docs/quad-mip.md "Where the cost came from"): SGD_MIP_EXPERIMENT=NAME
// swaps the quad mip's shader for forward.frag.mipx_NAME (shaders/variants.cmake) and counts the
// forward pass's fragment shader invocations (pipeline statistics), printed when the renderer ends.
const char* mip_experiment() { return std::getenv("SGD_MIP_EXPERIMENT"); }

}  // namespace


uint32_t shading_push_flags(const FrameContext& f) {
    return (f.instrument ? 1u : 0u) | (f.light_loop_split_tiles ? 2u : 0u) | (f.ray_traced ? 4u : 0u);
}

void ScenePass::create(const Context& ctx, bool alpha_masked, ForwardTestOutput test_output) {
    GraphicsDesc d;
    d.shaders = {{VK_SHADER_STAGE_VERTEX_BIT, "scene.vert.depth"}};  // each layout its shaders'
    d.depth_format = kDepthFormat;
    d.depth_compare = VK_COMPARE_OP_GREATER;  // reversed Z
    d.vertex_attributes = 1;                  // position only
    if (alpha_masked) {
        // alphaMode MASK materials: the pre-pass discards their holes (depth_alpha.frag). Forward's
        // vertex shader (the same positions, bit for bit: scene.vert) gives it the uv and draw.
        d.shaders = {{VK_SHADER_STAGE_VERTEX_BIT, "scene.vert.forward"}, {VK_SHADER_STAGE_FRAGMENT_BIT, "depth_alpha.frag.main"}};
        d.vertex_attributes = 5;
    }
    depth = create_graphics_pipeline(ctx, d);

    if (visibility_missing(ctx.features, Geometry::indexed).empty()) {
        // Forward's vertex shader gives the fragment shader the draw (and the uv for the alpha test).
        GraphicsDesc v = d;
        v.shaders = {{VK_SHADER_STAGE_VERTEX_BIT, "scene.vert.forward"},
                     {VK_SHADER_STAGE_FRAGMENT_BIT, alpha_masked ? "visibility.frag.alpha" : "visibility.frag.plain"}};
        v.vertex_attributes = 5;
        v.color_formats = {kVisibilityFormat};
        // Of the fragments at a pixel's final depth the last drawn keeps its id, as forward's EQUAL
        // test keeps the last one's colour (visibility.frag). The depth written is the same as GREATER's.
        v.depth_compare = VK_COMPARE_OP_GREATER_OR_EQUAL;
        visibility = create_graphics_pipeline(ctx, v);
        // After occlusion's two phases (record_ids): the merged list over the final depth, as forward.
        v.depth_compare = VK_COMPARE_OP_EQUAL;
        v.depth_write = false;
        visibility_merged = create_graphics_pipeline(ctx, v);
    }
    // (forward.frag.ids reads gl_PrimitiveID: the Geometry capability.)
    if (test_output == ForwardTestOutput::derivatives || (test_output == ForwardTestOutput::ids && ctx.features.geometry)) {
        GraphicsDesc test = forward_pipeline_desc();
        test.shaders = {{VK_SHADER_STAGE_VERTEX_BIT, "scene.vert.forward"},
                        {VK_SHADER_STAGE_FRAGMENT_BIT, test_output == ForwardTestOutput::ids ? "forward.frag.ids" : "forward.frag.derivatives"}};
        test.vertex_attributes = 5;
        forward_test = create_graphics_pipeline(ctx, test);
    }

    for (int mip = 0; mip < 2; ++mip)
        for (int loop = 0; loop < 2; ++loop) {
            std::string shader = forward_fragment_shader(ctx, mip, loop);
            if (shader.empty()) continue;
            if (const char* experiment = mip_experiment(); experiment && mip) {
                if (loop) continue;  // the experiments' shaders have the per-lane loop
                std::string name = experiment;  // NAME.core: the variant without the quad-control execution modes
                bool full_quads = ctx.features.quad_control_enabled;
                if (name.ends_with(".core")) name.resize(name.size() - 5), full_quads = false;
                shader = "forward.frag.mipx_" + name + (full_quads ? "_full_quads" : "");
            }
            GraphicsDesc fwd = forward_pipeline_desc();
            fwd.shaders = {{VK_SHADER_STAGE_VERTEX_BIT, "scene.vert.forward"}, {VK_SHADER_STAGE_FRAGMENT_BIT, shader}};
            fwd.vertex_attributes = 5;
            forward[mip][loop] = create_graphics_pipeline(ctx, fwd);
        }
    if (mip_experiment() && ctx.features.pipeline_statistics) {
        VkQueryPoolCreateInfo info{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
        info.queryType = VK_QUERY_TYPE_PIPELINE_STATISTICS;
        info.queryCount = 1;
        info.pipelineStatistics = VK_QUERY_PIPELINE_STATISTIC_FRAGMENT_SHADER_INVOCATIONS_BIT;
        VK_CHECK(vkCreateQueryPool(ctx.device, &info, nullptr, &statistics));
        device = ctx.device;
    }
}

ScenePass::~ScenePass() {
    if (!statistics) return;
    uint64_t invocations = 0;  // the last recorded frame's (the renderer waited for the device)
    if (vkGetQueryPoolResults(device, statistics, 0, 1, sizeof(invocations), &invocations, sizeof(invocations),
                              VK_QUERY_RESULT_64_BIT) == VK_SUCCESS)
        fprintf(stderr, "experiment %s: forward fragment shader invocations %llu\n", mip_experiment(),
                (unsigned long long)invocations);
    vkDestroyQueryPool(device, statistics, nullptr);
}

void draw_scene(FrameContext& f, const Pipeline& pipeline) {
    Descriptors descriptors = scene_descriptors(f);
    draw_scene(f, pipeline, descriptors);
}

void draw_scene(FrameContext& f, const Pipeline& pipeline, Descriptors& descriptors, const Buffer* draw_count) {
    vkCmdBindPipeline(f.cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline.handle());
    descriptors.push(f.cmd, pipeline);
    // Binding 1 (tangents, TEXCOORD_1) is read by scene.vert.forward; the depth-only shader ignores it.
    VkBuffer buffers[2] = {f.scene.vertices.buffer, f.scene.vertex_materials.buffer};
    VkDeviceSize offsets[2] = {0, 0};
    vkCmdBindVertexBuffers(f.cmd, 0, 2, buffers, offsets);
    const Buffer& indices = f.draw_indices ? *f.draw_indices : f.scene.indices;
    const Buffer& indirect = f.draw_indirect ? *f.draw_indirect : f.scene.indirect_all;
    if (!draw_count && f.drew_with_count) draw_count = &f.scene.all_draws_count;  // FrameContext::drew_with_count
    vkCmdBindIndexBuffer(f.cmd, indices.buffer, 0, VK_INDEX_TYPE_UINT32);
    const uint32_t stride = sizeof(VkDrawIndexedIndirectCommand);
    if (f.ctx.features.multi_draw_indirect) {
        // maxDrawIndirectCount bounds one call; split if the scene has more draws than that.
        uint32_t max_per_call = std::max(1u, f.ctx.properties.limits.maxDrawIndirectCount);
        for (uint32_t first = 0; first < f.scene.draw_count; first += max_per_call) {
            uint32_t count = std::min(max_per_call, f.scene.draw_count - first);
            // With a count from the GPU (every draw or none), each call draws the lesser of the two.
            if (draw_count)
                vkCmdDrawIndexedIndirectCount(f.cmd, indirect.buffer, VkDeviceSize(first) * stride, draw_count->buffer, 0, count, stride);
            else
                vkCmdDrawIndexedIndirect(f.cmd, indirect.buffer, VkDeviceSize(first) * stride, count, stride);
        }
    } else {
        for (uint32_t i = 0; i < f.scene.draw_count; ++i)
            if (draw_count)
                vkCmdDrawIndexedIndirectCount(f.cmd, indirect.buffer, VkDeviceSize(i) * stride, draw_count->buffer, 0, 1, stride);
            else
                vkCmdDrawIndexedIndirect(f.cmd, indirect.buffer, VkDeviceSize(i) * stride, 1, stride);
    }
}

void ScenePass::record_depth(FrameContext& f, bool late) {
    // The late draw (occlusion phase 2) is timed by the renderer with the phase-2 cull.
    if (!late) begin_label(f.ctx, f.cmd, debug_label(Timer::depth));
    if (!late) f.timer.begin(f.cmd, Timer::depth);
    // Reversed Z: cleared to 0, the far plane.
    VkRenderingAttachmentInfo depth_target = depth_attachment(f.targets.depth, VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
                                                              late ? VK_ATTACHMENT_LOAD_OP_LOAD : VK_ATTACHMENT_LOAD_OP_CLEAR,
                                                              VK_ATTACHMENT_STORE_OP_STORE);
    // The meshlet path culls here (its task and mesh shaders: occlusion phase 1 in the pre-pass,
    // phase 2 in the late draw) and records the list forward draws. With culling frozen it draws
    // the last list as forward will.
    MeshletPass* meshlets = f.plan.geometry == Geometry::meshlet ? f.meshlets : nullptr;
    if (meshlets && !late && !f.cull_frozen) meshlets->record_reset(f);
    // --shading visibility: the pre-pass also writes which triangle covers each pixel, and clears it
    // to "none" first (on the meshlet path with its own pipelines, MeshletPass). Where occlusion's
    // two phases run, the late draw writes depth only, and record_ids writes the ids once the depth
    // is final; on the indexed path phase 1 writes them too, and record_ids runs only where phase 2
    // re-admitted something (ids_gated).
    bool ids = f.plan.shading.shading == Shading::visibility && (meshlets || visibility) && f.targets.visibility.image &&
               (!f.ids_after_late_draw || (!late && ids_gated(f)));
    // The depth written (cleared first, or by the late draw kept: the pyramid pass read it), the ids
    // where this draw writes them, the cull's lists; the meshlet path's task shaders read the pyramid
    // (previous frame's in phase 1, this frame's in the late draw).
    Use depth_use = kDepthWrite;
    depth_use.discard = !late;
    std::vector<Use> uses = {depth_use, reads(Res::draw_lists, kDrawListStages, kDrawListReads)};
    if (ids) uses.push_back(writes(Res::visibility, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT, kColorWriteRead,
                                   VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, !late));
    if (meshlets) {
        // Its task and mesh shaders cull here: the visible list written (phase 2's list read as the
        // late draw's indirect command), the counters counted into.
        uses.push_back(writes(Res::meshlet_lists, kMeshletStages | VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT,
                              VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT | kStorageReadWrite));
        uses.push_back(writes(Res::counters, kMeshletStages | kFragmentStage, kStorageReadWrite));
        if (f.pyramid && occlusion_culls(f)) uses.push_back(reads(Res::pyramid, kMeshletStages, kStorageRead));
    }
    f.graph().pass(f.cmd, uses);
    VkRenderingAttachmentInfo id_target{};
    if (ids) {
        VkClearColorValue none{};
        none.uint32[0] = kVisibilityNone;
        id_target = color_attachment(f.targets.visibility, late ? VK_ATTACHMENT_LOAD_OP_LOAD : VK_ATTACHMENT_LOAD_OP_CLEAR, none);
    }
    begin_rendering(f.cmd, f.targets.extent, ids ? &id_target : nullptr, &depth_target);
    if (meshlets && f.cull_frozen) {
        meshlets->record_frozen_depth(f, ids);
    } else if (meshlets) {
        late ? meshlets->record_late_depth(f, ids) : meshlets->record_depth(f, true, ids);
    } else if (ids) {
        draw_scene(f, visibility);
    } else {
        draw_scene(f, depth);
    }
    vkCmdEndRendering(f.cmd);
    if (!late) f.timer.end(f.cmd, Timer::depth);
    if (!late) end_label(f.ctx, f.cmd);
}

// Occlusion's late draw adds triangles after phase 1's, out of input order (and, on the indexed path,
// in the order of an atomic): had they written ids, they would win every tie of equal depth that
// forward gives to the later triangle in input order, and ties among them would change from run to
// run. So both phases draw depth only, and then the list forward draws (phase 1's survivors and the
// additions, merged in input order) writes the ids over the final depth: the indexed path with an
// EQUAL test, as forward itself; the meshlet path with the frozen-culling draw of its visible list
// (forward's task and mesh shaders, in bit order; GREATER_OR_EQUAL over a final depth passes
// exactly the fragments at it). Of equal depths the last in input order keeps the pixel, as in
// forward, in every run (docs/visibility.md, "Ties").
void ScenePass::record_ids(FrameContext& f) {
    // Gated (the indexed path, with drawIndirectCount): phase 1's ids are kept (LOAD) and the merged
    // list draws only in frames whose phase 2 re-admitted something (the count cull_late.comp
    // wrote); in the others phase 1's list is the merged list, and its ids (GREATER_OR_EQUAL in input
    // order) are the ones this pass would write. Where it draws, every covered pixel's final depth
    // is some merged triangle's fragment, which EQUAL passes: each is written again.
    const bool gated = ids_gated(f);
    // The final depth tested (its attachment stored), the ids written (kept where gated), the merged
    // list and the count cull_late.comp wrote.
    std::vector<Use> uses = {kDepthWrite, reads(Res::draw_lists, kDrawListStages, kDrawListReads),
                             writes(Res::visibility, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT, kColorWriteRead,
                                    VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, !gated)};
    if (f.plan.geometry == Geometry::meshlet && f.meshlets) uses.push_back(reads(Res::meshlet_lists, kMeshletStages, kStorageRead));
    f.graph().pass(f.cmd, uses);
    VkClearColorValue none{};
    none.uint32[0] = kVisibilityNone;
    VkRenderingAttachmentInfo id_target =
        color_attachment(f.targets.visibility, gated ? VK_ATTACHMENT_LOAD_OP_LOAD : VK_ATTACHMENT_LOAD_OP_CLEAR, none);
    VkRenderingAttachmentInfo depth_target = depth_attachment(f.targets.depth, VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
                                                              VK_ATTACHMENT_LOAD_OP_LOAD, VK_ATTACHMENT_STORE_OP_STORE);
    begin_rendering(f.cmd, f.targets.extent, &id_target, &depth_target);
    if (f.plan.geometry == Geometry::meshlet && f.meshlets) {
        f.meshlets->record_frozen_depth(f, true);
    } else {
        Descriptors descriptors = scene_descriptors(f);
        draw_scene(f, visibility_merged, descriptors, gated ? f.ids_draw_count : nullptr);
        f.drew_with_count = f.drew_with_count || gated;
    }
    vkCmdEndRendering(f.cmd);
}

bool ids_gated(const FrameContext& f) {
    return f.ids_after_late_draw && f.plan.geometry == Geometry::indexed && f.ctx.features.draw_indirect_count;
}

void ScenePass::record_forward(FrameContext& f) {
    begin_label(f.ctx, f.cmd, debug_label(Timer::forward));
    f.timer.begin(f.cmd, Timer::forward);
    bool quad_mip = f.plan[PassId::mip].variant == Variant::forward && forward[1][0] && f.mip_edges;
    bool light_loop = f.plan[PassId::light_loop].variant == Variant::subgroup && forward[quad_mip][1];
    const Pipeline& pipeline = forward_test ? forward_test : forward[quad_mip][light_loop];
    FrameGraph& g = f.graph();
    if (quad_mip) {
        // Texels that no quad touches are never stored by the shader: start from the clear. And an
        // empty edge list with its capacity (the previous frame's fix-up read it). Timed with the
        // forward pass, as part of what the in-shader mip costs.
        g.pass(f.cmd, {writes(Res::mip, kTransferStage, VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, true),
                       writes(Res::mip_edges, kTransferStage, VK_ACCESS_2_TRANSFER_WRITE_BIT)});
        VkImageSubresourceRange range{VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
        vkCmdClearColorImage(f.cmd, f.targets.mip.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &kClearColor, 1, &range);
        vkCmdFillBuffer(f.cmd, f.mip_edges->buffer, 0, 4, 0);                         // count
        vkCmdFillBuffer(f.cmd, f.mip_edges->buffer, 4, 4, f.mip_edge_capacity);  // capacity
    }
    // The pre-pass's depth tested EQUAL (read only), the HDR frame written whole, the ray_trace pass's image (its
    // contents unused unless it ran this frame), the light lists, the counters (the light loop's
    // trips), and with the quad mip the mip and its edge list.
    std::vector<Use> uses = {
        reads(Res::prepass_depth, kDepthTestStages, VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT,
              VK_IMAGE_LAYOUT_DEPTH_READ_ONLY_OPTIMAL),
        reads(Res::draw_lists, kDrawListStages, kDrawListReads),
        writes(Res::hdr, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
               VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_2_COLOR_ATTACHMENT_READ_BIT, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, true),
        {Res::ray_traced, kFragmentStage, kStorageRead, VK_IMAGE_LAYOUT_GENERAL, !f.ray_traced},
        writes(Res::counters, VK_PIPELINE_STAGE_2_PRE_RASTERIZATION_SHADERS_BIT | kFragmentStage, kStorageReadWrite)};
    if (f.light_lists) uses.push_back(reads(Res::light_lists, kFragmentStage, kStorageRead));
    if (f.plan.geometry == Geometry::meshlet && f.meshlets) uses.push_back(reads(Res::meshlet_lists, kMeshletStages, kStorageRead));
    if (quad_mip) {
        uses.push_back(writes(Res::mip, kFragmentStage, kStorageWrite, VK_IMAGE_LAYOUT_GENERAL));
        uses.push_back(writes(Res::mip_edges, kFragmentStage, kStorageReadWrite));
    }
    g.pass(f.cmd, uses);
    if (statistics) vkCmdResetQueryPool(f.cmd, statistics, 0, 1);
    VkRenderingAttachmentInfo color = color_attachment(f.targets.hdr, VK_ATTACHMENT_LOAD_OP_CLEAR, kClearColor);
    VkRenderingAttachmentInfo depth_target = depth_attachment(
        f.targets.depth, VK_IMAGE_LAYOUT_DEPTH_READ_ONLY_OPTIMAL, VK_ATTACHMENT_LOAD_OP_LOAD, VK_ATTACHMENT_STORE_OP_NONE);
    begin_rendering(f.cmd, f.targets.extent, &color, &depth_target);
    // Binding 4: the tile light lists; without them (light cull off) any storage buffer stands in,
    // since shade_point_lights() reads binding 4 only when frame.tiles.z (capacity) is not 0.
    Descriptors descriptors = scene_descriptors(f);
    descriptors.buffer(4, f.light_lists ? *f.light_lists : f.lights);
    if (statistics) vkCmdBeginQuery(f.cmd, statistics, 0, 0);
    if (quad_mip) descriptors.storage_image(5, f.targets.mip.view).buffer(6, *f.mip_edges);
    descriptors.buffer(quad_mip ? 7 : 5, f.counters);  // the light loop's trips (instrumented frame)
    // The ray-traced image: read only with flag 4 (the pass ran this frame); else bound unread.
    descriptors.storage_image(quad_mip ? 8 : 6, f.targets.ray_traced.view);
    uint32_t flags = shading_push_flags(f);
    if (f.plan.geometry == Geometry::meshlet && f.meshlets) {
        f.meshlets->record_forward(f, descriptors, flags, quad_mip, light_loop);
    } else {
        push_constants(f.cmd, pipeline, &flags, sizeof(flags));
        draw_scene(f, pipeline, descriptors);
    }
    if (statistics) vkCmdEndQuery(f.cmd, statistics, 0);
    vkCmdEndRendering(f.cmd);
    f.timer.end(f.cmd, Timer::forward);
    end_label(f.ctx, f.cmd);
}

namespace {

// The light loop is how forward shading walks the tile lists: there is no "no loop".
class NoUnitWork : public PassUnit {
public:
    void record(FrameContext&) override {}
};

// The light loop's trips in the instrumented frame (docs/light-lists.md): per lane for both
// variants; per subgroup only where the subgroup loop ran (the fallback uses no subgroup operation).
nlohmann::json light_loop_json(const Plan& plan, const GpuCounters& c) {
    bool subgroup = plan[PassId::light_loop].variant == Variant::subgroup;
    auto per = [](uint64_t a, uint64_t b) { return b ? nlohmann::json(double(a) / double(b)) : nlohmann::json(nullptr); };
    nlohmann::json j = {{"variant", variant_name(plan[PassId::light_loop].variant)},
                        {"lanes", c.loop_lanes},
                        {"lane_trips", c.loop_lane_trips},
                        {"trips_per_lane", per(c.loop_lane_trips, c.loop_lanes)}};
    if (!subgroup) {
        for (const char* k : {"subgroups", "subgroup_trips", "max_lane_trips", "tiles_spanned"}) j[k] = nullptr;
        return j;
    }
    j["subgroups"] = c.loop_subgroups;
    j["subgroup_trips"] = c.loop_subgroup_trips;
    j["max_lane_trips"] = c.loop_max_lane_trips;
    j["trips_per_subgroup"] = per(c.loop_subgroup_trips, c.loop_subgroups);
    j["max_lane_trips_per_subgroup"] = per(c.loop_max_lane_trips, c.loop_subgroups);
    j["tiles_spanned"] = {c.loop_tiles_spanned[0], c.loop_tiles_spanned[1], c.loop_tiles_spanned[2], c.loop_tiles_spanned[3]};
    return j;
}

}  // namespace

void light_loop_report_counters(nlohmann::json& counters, const PassCounters& c) {
    counters["light_loop_iterations"] = light_loop_json(c.plan, c.instrumented);
}

std::unique_ptr<PassUnit> create_light_loop_unit(const UnitSetup&) { return std::make_unique<NoUnitWork>(); }
