#include "passes/occlusion_pass.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "render/overlay.h"

namespace {

constexpr uint32_t kTile = 64;        // depth pixels per single-pass workgroup, each axis
constexpr uint32_t kFallbackGroup = 16;  // the pyramid fallback's texels per workgroup, each axis
constexpr uint32_t kViewGroup = 8;       // pyramid_view.comp's local size, each axis

// pyramid.comp's push constants.
struct Push {
    uint32_t width, height, level, base;
};

constexpr uint32_t kDepthViewLevel = 0xffffffffu;  // pyramid_view.comp's kDepthLevel: the depth itself
struct PyramidViewPush {
    uint32_t width, height, level, base;
    float near_plane, far_plane;
};


}  // namespace

std::vector<PyramidLevel> pyramid_levels(VkExtent2D depth) {
    std::vector<PyramidLevel> levels;
    uint32_t offset = 0;
    for (uint32_t span = 2;; span *= 2) {
        PyramidLevel l{ceil_div(depth.width, span), ceil_div(depth.height, span), offset};
        levels.push_back(l);
        offset += l.width * l.height;
        if (l.width == 1 && l.height == 1) return levels;
    }
}

uint32_t pyramid_texels(VkExtent2D depth) {
    PyramidLevel last = pyramid_levels(depth).back();
    return last.offset + 1;
}

void OcclusionPass::create(const Context& ctx, VkExtent2D extent) {
    // The single pass needs full subgroups (its quads are Morton 2x2 blocks of a numbering by subgroup).
    // Both from one SPIR-V, or the fallback's twin without quad operations where no plan can pick
    // the subgroup path (shaders/subgroup_switch.glsl).
    bool possible = subgroup_path_possible(ctx, PassId::occlusion);
    std::string shader = possible ? "pyramid.comp.switch" : "pyramid.comp.no_subgroup";
    if (possible)
        subgroup = create_compute_pipeline(ctx, {.shader = shader, .full_subgroups = true,
                                                 .forced_subgroup_size = true, .use_subgroup = true});
    fallback = create_compute_pipeline(ctx, {.shader = shader});
    view = create_compute_pipeline(ctx, {.shader = "pyramid_view.comp.main"});
    uint32_t zero = 0;
    finished = create_buffer_with_data(ctx, &zero, sizeof(zero), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, "pyramid finished count");
    resize(ctx, extent);
}

void OcclusionPass::resize(const Context& ctx, VkExtent2D extent) {
    depth_extent = extent;
    previous_valid = false;
    pyramid = create_buffer(ctx, 2 * VkDeviceSize(pyramid_texels(extent)) * sizeof(float),
                            VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT, MemoryKind::device_local,
                            "depth pyramid");
}

void OcclusionPass::record(FrameContext& f) {
    Variant variant = f.plan[PassId::occlusion].variant;
    if ((variant != Variant::subgroup && variant != Variant::fallback) || f.occlusion_resting) {
        // Off or resting: whenever occlusion comes on again, its first phase 1 has no previous
        // pyramid (the one kept here is of an older frame and view), as on the first frame.
        previous_valid = false;
        return;
    }
    if (f.cull_frozen) return;  // nothing culls; the last pyramid stays (the depth-pyramid view shows it)
    begin_label(f.ctx, f.cmd, debug_label(PassId::occlusion, variant, "depth pyramid"));
    f.timer.begin(f.cmd, Timer::pyramid);
    build(f.cmd, f.graph(), variant, current);  // --raster compute: Res::depth is the depth of the visibility words
    f.timer.end(f.cmd, Timer::pyramid);
    end_label(f.ctx, f.cmd);
    // What the next frame's phase 1 reads: this pyramid, seen with this frame's view-projection.
    // (The renderer wrote this frame's uniforms to the mapped buffer before recording.)
    previous_view_proj = static_cast<const FrameUniforms*>(f.uniforms.mapped)->view_proj;
    previous_valid = true;
    current ^= 1u;
}

void OcclusionPass::provide(FrameUniforms& u, const Plan& plan) const {
    Variant variant = plan[PassId::occlusion].variant;
    if (variant != Variant::subgroup && variant != Variant::fallback) return;
    uint32_t texels = pyramid_texels(depth_extent);
    u.previous_view_proj = previous_view_proj;
    u.occlusion = {previous_valid ? 1u : 0u, (current ^ 1u) * texels, current * texels, 0u};
}

bool occlusion_culls(const Plan& plan) {
    Variant v = plan[PassId::occlusion].variant;
    return (v == Variant::subgroup || v == Variant::fallback) && plan[PassId::cull].variant != Variant::off;
}

bool occlusion_culls(const FrameContext& f) { return occlusion_culls(f.plan) && !f.occlusion_resting; }

bool occlusion_removes_little(const GpuCounters& c, Geometry geometry) {
    bool meshlet = geometry == Geometry::meshlet;
    double removed = meshlet ? c.occlusion_meshlets.rejected_phase2 : c.occlusion_triangles.rejected_phase2;
    double drawn = meshlet ? c.meshlets_visible : c.triangles_visible;
    return removed == 0 || removed < kOcclusionRestBelow * (removed + drawn);
}

std::string pyramid_view_label(VkExtent2D depth, uint32_t level) {
    std::vector<PyramidLevel> levels = pyramid_levels(depth);
    level = std::min<uint32_t>(level, uint32_t(levels.size()) - 1);
    return "pyramid level " + std::to_string(level) + " of " + std::to_string(levels.size()) + ", " +
           std::to_string(levels[level].width) + "x" + std::to_string(levels[level].height);
}

void OcclusionPass::record_view(FrameContext& f) {
    const bool depth_view = f.plan.view.mode == ViewMode::depth;  // the depth itself: needs no pyramid
    if (!depth_view && f.plan.view.mode != ViewMode::depth_pyramid) return;
    Variant variant = f.plan[PassId::occlusion].variant;
    if (!depth_view && variant != Variant::subgroup && variant != Variant::fallback) {
        if (f.overlay) f.overlay->label(8, 8, "depth-pyramid view: --occlusion off builds no pyramid");
        return;
    }
    begin_label(f.ctx, f.cmd, debug_label(f.plan.view));
    f.timer.begin(f.cmd, Timer::view);
    // One pipeline draws both views, so both bind the pyramid and the depth; each reads one.
    Image& depth = f.graph().image(Res::depth);
    f.graph().pass(f.cmd, {reads(Res::pyramid, kComputeStage, kStorageRead),
                           reads(Res::depth, kComputeStage, VK_ACCESS_2_SHADER_SAMPLED_READ_BIT, depth_read_layout(depth)),
                           writes(Res::color, kComputeStage, kStorageWrite, VK_IMAGE_LAYOUT_GENERAL)});
    vkCmdBindPipeline(f.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, view.handle());
    Descriptors()
        .storage_image(0, f.targets.color.view)
        .buffer(1, pyramid)
        .sampled_texels(2, depth.view, depth_read_layout(depth))
        .push(f.cmd, view);
    // The pyramid built last: record() flipped `current` after building it.
    uint32_t levels = uint32_t(pyramid_levels(depth_extent).size());
    uint32_t level = depth_view ? kDepthViewLevel : std::min(f.plan.view.level, levels - 1);
    const auto* u = static_cast<const FrameUniforms*>(f.uniforms.mapped);
    PyramidViewPush push{depth_extent.width, depth_extent.height, level, (current ^ 1u) * pyramid_texels(depth_extent),
                         u->projection.z, u->projection.w};
    push_constants(f.cmd, view, &push, sizeof(push));
    vkCmdDispatch(f.cmd, ceil_div(depth_extent.width, kViewGroup), ceil_div(depth_extent.height, kViewGroup), 1);
    f.timer.end(f.cmd, Timer::view);
    end_label(f.ctx, f.cmd);
    // As the mip view's labels: 1x text under 640 pixels across, where 2x would not fit.
    float scale = depth_extent.width >= 640 ? 2.0f : 1.0f;
    std::string label = depth_view ? "depth: near white, far black" : pyramid_view_label(depth_extent, level);
    if (f.overlay && f.view_legend) f.overlay->label(4, 4, label, rgba8(255, 255, 255), scale);
}

void OcclusionPass::build(VkCommandBuffer cmd, FrameGraph& g, Variant variant, uint32_t which) {
    if (variant == Variant::subgroup && !subgroup)
        throw std::runtime_error(std::string(pass_info(PassId::occlusion).label) +
                                 ": the subgroup variant was planned but the device cannot run it");
    // The depth sampled, in DEPTH_READ_ONLY_OPTIMAL: the light cull and forward's depth test then
    // read it unchanged; the pyramid and its finished count rewritten (the graph waits for their
    // last readers).
    Image& depth = g.image(Res::depth);
    const Use pyramid_write = writes(Res::pyramid, kComputeStage, kStorageReadWrite);
    g.pass(cmd, {reads(Res::depth, kComputeStage, VK_ACCESS_2_SHADER_SAMPLED_READ_BIT, depth_read_layout(depth)), pyramid_write});
    const Pipeline& pipeline = variant == Variant::subgroup ? subgroup : fallback;
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.handle());
    Descriptors d;
    d.sampled_texels(0, depth.view, depth_read_layout(depth));
    d.buffer(1, pyramid).buffer(2, finished);
    d.push(cmd, pipeline);
    Push push{depth.extent.width, depth.extent.height, 0, which * pyramid_texels(depth.extent)};
    if (variant == Variant::subgroup) {
        push_constants(cmd, pipeline, &push, sizeof(push));
        vkCmdDispatch(cmd, ceil_div(depth.extent.width, kTile), ceil_div(depth.extent.height, kTile), 1);
    } else {
        std::vector<PyramidLevel> levels = pyramid_levels(depth.extent);
        for (push.level = 0; push.level < levels.size(); ++push.level) {
            if (push.level > 0) g.pass(cmd, {pyramid_write});  // the level below is written
            push_constants(cmd, pipeline, &push, sizeof(push));
            const PyramidLevel& l = levels[push.level];
            vkCmdDispatch(cmd, ceil_div(l.width, kFallbackGroup), ceil_div(l.height, kFallbackGroup), 1);
        }
    }
}

std::vector<float> OcclusionPass::read(const Context& ctx, uint32_t which) const {
    std::vector<uint8_t> bytes = read_buffer(ctx, pyramid);
    size_t texels = pyramid_texels(depth_extent);
    std::vector<float> levels(texels);
    memcpy(levels.data(), bytes.data() + which * texels * sizeof(float), texels * sizeof(float));
    return levels;
}

void occlusion_report_counters(nlohmann::json& counters, const PassCounters& c) {
    // What passed every other test: rejected by the previous frame's pyramid (phase 1), re-tested
    // by phase 2 (phase 1's rejections), rejected by this frame's (phase 2: not drawn at all), and
    // phase 1's rejections drawn after all. The indexed path culls triangles; the meshlet path
    // culls meshlets, and its re-admitted triangles are those its re-admitted meshlets drew.
    bool culls = occlusion_culls(c.plan), meshlet = c.plan.geometry == Geometry::meshlet;
    auto value = [](bool counted, uint32_t v) { return counted ? nlohmann::json(v) : nlohmann::json(nullptr); };
    const OcclusionCounts& t = c.frame.occlusion_triangles;
    const OcclusionCounts& m = c.frame.occlusion_meshlets;
    counters["occlusion"] = {{"triangles_rejected_phase1", value(culls && !meshlet, t.rejected_phase1)},
                             {"triangles_tested_phase2", value(culls && !meshlet, t.tested_phase2)},
                             {"triangles_rejected_phase2", value(culls && !meshlet, t.rejected_phase2)},
                             {"triangles_readmitted_phase2", value(culls, t.readmitted_phase2)},
                             {"meshlets_rejected_phase1", value(culls && meshlet, m.rejected_phase1)},
                             {"meshlets_tested_phase2", value(culls && meshlet, m.tested_phase2)},
                             {"meshlets_rejected_phase2", value(culls && meshlet, m.rejected_phase2)},
                             {"meshlets_readmitted_phase2", value(culls && meshlet, m.readmitted_phase2)},
                             // `auto` rested this frame (its counters above are then 0).
                             {"resting", culls ? nlohmann::json(c.frame.occlusion_resting != 0) : nlohmann::json(nullptr)}};
}

std::string occlusion_hud_text(const PassCounters& c) {
    if (!occlusion_culls(c.plan)) return "";
    if (c.frame.occlusion_resting) return ", occlusion resting (it removed little)";
    bool meshlet = c.plan.geometry == Geometry::meshlet;
    const OcclusionCounts& o = meshlet ? c.frame.occlusion_meshlets : c.frame.occlusion_triangles;
    return std::string(meshlet ? ", occluded meshlets " : ", occluded ") + std::to_string(o.rejected_phase1) + " / " +
           std::to_string(o.rejected_phase2) + " (+" + std::to_string(o.readmitted_phase2) + ")";
}

void occlusion_frame_allocations(const AllocationQuery& q, std::vector<PlannedAllocation>& out) {
    out.push_back({"depth pyramid", 8ull * pyramid_texels({q.width, q.height}), AllocationKind::storage_buffer});
    out.push_back({"pyramid finished count", 4, AllocationKind::storage_buffer});
}

std::unique_ptr<PassUnit> create_occlusion_unit(const UnitSetup& s) { return make_unit<OcclusionPass>(s.ctx, s.extent); }
