#include "render/renderer.h"

#include "passes/mip_pass.h"
#include "passes/occlusion_pass.h"
#include "render/visibility_id.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <iterator>

void create_frame_targets(const Context& ctx, VkExtent2D extent, FrameTargets& t) {
    t.extent = extent;
    t.hdr = create_image(ctx, extent, kHdrFormat,
                         VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
                             VK_IMAGE_USAGE_TRANSFER_DST_BIT,
                         "hdr");
    t.color = create_image(ctx, extent, kColorFormat,
                           VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_SAMPLED_BIT |
                               VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
                           "color");
    t.depth = create_image(ctx, extent, kDepthFormat,
                           VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT |
                               VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                           "depth");
    VkExtent2D half{std::max(1u, extent.width / 2), std::max(1u, extent.height / 2)};
    t.mip = create_image(ctx, half, kHdrFormat,
                         VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
                             VK_IMAGE_USAGE_TRANSFER_DST_BIT,
                         "half-resolution mip");
    // (TRANSFER_DST: the ray-tracing stages' views on the dense launch clear it, RayTracePass::trace_dense_view.)
    t.ray_traced = create_image(ctx, extent, VK_FORMAT_R32_UINT,
                                VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
                                "ray traced");
    t.visibility = Image{};  // Renderer::make_visibility_target, at this size, where the plan needs it
    t.raster_words = Buffer{};
    t.raster_depth = Image{};
}

void Renderer::make_visibility_target() {
    // --raster compute: its words, the depth taken from them and the hardware list.
    if (config_.plan.raster.raster == Raster::compute && !targets_.raster_words.buffer) {
        create_raster_targets(ctx_, targets_);
        raster_pass_.make_list(ctx_, cpu_scene_);
    }
    // On the meshlet path: its meshlets culled in compute, their chunks listed for the rasterizer.
    if (config_.plan.raster.raster == Raster::compute && config_.plan.geometry == Geometry::meshlet && meshlets_)
        raster_pass_.make_meshlet(ctx_, *meshlets_, scene_.alpha_masked);
    if (config_.plan.shading.shading != Shading::visibility || targets_.visibility.image) return;
    // (Storage: --raster compute's split writes it.)
    targets_.visibility = create_image(ctx_, targets_.extent, kVisibilityFormat,
                                       VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT |
                                           VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                                       "visibility");
}

VkPipelineStageFlags2 counter_stages(const DeviceFeatures& features) {
    // The meshlet path's task and mesh shaders count too, and so does the ray tracer; their stages
    // exist only with the feature.
    VkPipelineStageFlags2 stages = VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT | VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT |
                                   VK_PIPELINE_STAGE_2_PRE_RASTERIZATION_SHADERS_BIT | VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT;
    if (features.mesh_shader) stages |= VK_PIPELINE_STAGE_2_TASK_SHADER_BIT_EXT | VK_PIPELINE_STAGE_2_MESH_SHADER_BIT_EXT;
    if (features.ray_tracing) stages |= VK_PIPELINE_STAGE_2_RAY_TRACING_SHADER_BIT_KHR;
    return stages;
}

Renderer::Renderer(const Context& ctx, const Scene& scene, const RendererConfig& config)
    : ctx_(ctx), cpu_scene_(scene), config_(config) {
    const auto started = std::chrono::steady_clock::now();
    upload_scene(ctx, scene, scene_);
    bounds_min_ = scene.bounds_min;
    bounds_max_ = scene.bounds_max;
    default_camera_ = camera_for(config.camera, bounds_min_, bounds_max_, scene.grid);
    create_frame_targets(ctx, config.extent, targets_);
    for (FrameSlot& slot : slots_) {
        slot.uniforms = create_buffer(ctx, sizeof(FrameUniforms), VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT,
                                      MemoryKind::host_upload, "frame uniforms");
        slot.lights = create_buffer(ctx, std::max<VkDeviceSize>(1, config.lights) * sizeof(GpuLight),
                                    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, MemoryKind::host_upload, "lights");
        slot.timer = std::make_unique<GpuTimer>(ctx);
        slot.counters_readback = create_buffer(ctx, sizeof(GpuCounters), VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                               MemoryKind::host_readback, "frame counters readback");
    }
    counters_ = create_buffer(ctx, sizeof(GpuCounters),
                              VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                                  VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                              MemoryKind::device_local, "counters");
    UnitSetup setup{ctx, scene_, config.extent, config.cull_group_size, config.lights};
    for (const PassInfo& pass : kPasses) units_[size_t(pass.id)] = pass.create(setup);
    scene_pass_.create(ctx, scene_.alpha_masked, config.test_forward_output);
    visibility_pass_.create(ctx);
    raster_pass_.create(ctx, scene_.alpha_masked);
    resolve_pass_.create(ctx);
    view_pass_.create(ctx);
    view_pass_.unit_view = [this](FrameContext& f, const Buffer& params) {
        for (const auto& unit : units_)
            if (unit->record_stage_view(f, params)) return true;
        return visibility_pass_.record_view(f, params);  // the compute views under --shading visibility
    };
    set_plan(config.plan);
    overlay_.create(ctx, kFramesInFlight);
    if (config.test_extra_work) {
        test_work_ = create_compute_pipeline(ctx, {"probe.comp.main"});
        test_work_target_ = create_image(ctx, {kTestWorkSize, kTestWorkSize}, VK_FORMAT_R32_SFLOAT, VK_IMAGE_USAGE_STORAGE_BIT,
                                         "test extra work");
    }
    ++alive_;  // last: a constructor that throws leaves no renderer (and runs no destructor)
    ++built_;
    seconds_building_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

Renderer::~Renderer() {
    --alive_;
    if (!device_abandoned()) vkDeviceWaitIdle(ctx_.device);  // a hung GPU may never go idle
}

void Renderer::set_plan(const Plan& plan) {
    if (plan.view.mode != config_.plan.view.mode || plan.view.stage != config_.plan.view.stage) view_sizes_ = 0;
    config_.plan = plan;
    // The task and mesh debug views are drawn by the meshlet path's shaders, whatever the geometry.
    if (draws_meshlets(plan, ctx_.features.mesh_shader) && !meshlets_) {
        if (!ctx_.features.mesh_shader)
            throw UnsupportedRequest("--geometry meshlet: " + meshlet_missing(ctx_.features) + "; use --geometry indexed");
        auto meshlets = std::make_unique<MeshletPass>();
        meshlets->create(ctx_, cpu_scene_, scene_, config_.capture_meshlets, config_.test_forward_output);
        meshlets_ = std::move(meshlets);
    }
    // --cull-dump reads the meshlet path's mesh-shader outputs, which its pre-pass in compute does not make.
    if (config_.capture_meshlets && plan.geometry == Geometry::meshlet && plan.raster.raster == Raster::compute)
        throw UnsupportedRequest("--cull-dump: the meshlet path's pre-pass in compute (" + plan.raster.reason.substr(0, plan.raster.reason.find(';')) +
                                 ") has no mesh-shader outputs to dump; use --raster hardware");
    // The 32-bit visibility id names a triangle by (draw, primitive) on the indexed path and by
    // (visible-list entry, triangle) on the meshlet path (render/visibility_id.h): refuse a scene
    // whose counts do not fit.
    if (plan.shading.shading == Shading::visibility) {
        std::string error = plan.geometry == Geometry::meshlet ? visibility_meshlet_id_error(meshlets_->task_chunks().size())
                                                               : visibility_id_error(cpu_scene_);
        if (!error.empty()) throw UnsupportedRequest(error);
    }
    make_visibility_target();
}

void Renderer::set_camera_view(CameraView v) {
    config_.camera = v;
    default_camera_ = camera_for(v, bounds_min_, bounds_max_, cpu_scene_.grid);
}

void Renderer::resize(VkExtent2D extent) {
    vkDeviceWaitIdle(ctx_.device);
    create_frame_targets(ctx_, extent, targets_);
    make_visibility_target();
    for (auto& unit : units_) unit->resize(ctx_, extent);
}

FrameUniforms Renderer::frame_uniforms(uint32_t frame_index, const Camera& camera) const {
    FrameUniforms u{};
    float aspect = float(targets_.extent.width) / float(targets_.extent.height);
    glm::mat4 projection = camera.projection(aspect);
    u.view = camera.view();
    u.view_proj = projection * u.view;
    u.camera_position = glm::vec4(camera.position, 1.0f);
    u.sun_direction = glm::vec4(glm::normalize(glm::vec3(0.35f, 0.8f, 0.25f)), 0.0f);
    u.sun_color = glm::vec4(0.55f, 0.52f, 0.47f, 0.0f);
    u.ambient = glm::vec4(0.07f, 0.08f, 0.1f, 0.0f);
    u.sizes = {targets_.extent.width, targets_.extent.height, config_.lights, frame_index};
    uint32_t tiles_x = (targets_.extent.width + kTileSize - 1) / kTileSize;
    uint32_t tiles_y = (targets_.extent.height + kTileSize - 1) / kTileSize;
    u.tiles = {tiles_x, tiles_y, 0u, scene_.draw_count};  // tiles.z: the light lists' capacity (provide())
    u.projection = {projection[0][0], projection[1][1], camera.near_plane, camera.far_plane};
    u.inverse_view_proj = glm::inverse(u.view_proj);
    for (const auto& unit : units_) unit->provide(u, config_.plan);
    return u;
}

void Renderer::record(VkCommandBuffer cmd, uint32_t slot_index, uint32_t frame_index, const Camera& camera,
                      bool instrument) {
    FrameSlot& slot = slots_[slot_index];
    last_slot_ = slot_index;
    // The caller waited for this slot's last frame (its buffers are rewritten below): where it drew
    // the same view, its counters hold the sizes that view's stage ran at.
    std::pair<ViewMode, Stage> view{config_.plan.view.mode, config_.plan.view.stage};
    if (slot.view == view)
        if (uint32_t sizes = read_frame_counters(slot_index).view_sizes) view_sizes_ = sizes;
    slot.view = view;
    forget_pushed_descriptors(ctx_, cmd);  // a new recording (GPU-assisted validation only)
    FrameUniforms uniforms = frame_uniforms(frame_index, camera);
    memcpy(slot.uniforms.mapped, &uniforms, sizeof(uniforms));
    std::vector<PointLight> lights = animate_lights(config_.lights, frame_index, bounds_min_, bounds_max_);
    auto* gpu_lights = static_cast<GpuLight*>(slot.lights.mapped);
    for (size_t i = 0; i < lights.size(); ++i)
        gpu_lights[i] = {glm::vec4(lights[i].position, lights[i].radius), glm::vec4(lights[i].color, 0.0f)};

    decide_occlusion_rest(slot, slot_index);

    FrameContext f{ctx_, cmd, *slot.timer, scene_, targets_, config_.plan, slot.uniforms, slot.lights, counters_,
                   frame_index, config_.lights, instrument, &overlay_};
    f.light_loop_split_tiles = config_.light_loop_split_tiles;
    f.test_derivatives = config_.test_forward_output == ForwardTestOutput::derivatives;
    f.test_camera_rays = config_.test_camera_rays;
    f.exposure_state = &unit<ExposurePass>(PassId::exposure).state;
    f.meshlets = meshlets_.get();
    f.view_sizes = view_sizes_;

    slot.timer->reset(cmd);
    slot.timer->begin(cmd, Timer::frame);
    // The frame graph (render/frame_graph.h): the passes after the pre-pass declare what they read
    // and write, and it records the barriers between them.
    FrameGraph& graph = f.graph();
    // The counters zeroed, after the previous frame's last use (its readback copy). Fills of
    // disjoint ranges (no write-after-write between them): zeros, the resting flag, zeros.
    graph.pass(cmd, {writes(Res::counters, kTransferStage, VK_ACCESS_2_TRANSFER_WRITE_BIT)});
    constexpr VkDeviceSize kRestingWord = offsetof(GpuCounters, occlusion_resting);
    vkCmdFillBuffer(cmd, counters_.buffer, 0, kRestingWord, 0);
    vkCmdFillBuffer(cmd, counters_.buffer, kRestingWord, sizeof(uint32_t), occlusion_resting_ ? 1u : 0u);
    vkCmdFillBuffer(cmd, counters_.buffer, kRestingWord + 4, sizeof(GpuCounters) - kRestingWord - 4, 0);
    // The cull's lists (what the scene passes draw, culled this frame or not) and the meshlet path's.
    CullPass& cull = unit<CullPass>(PassId::cull);
    cull.graph(f);
    if (meshlets_) graph.bind(Res::meshlet_lists, meshlets_->lists());

    if (config_.test_extra_work) {
        // Tests only: known extra work in the frame timer (RendererConfig::test_extra_work). Each
        // frame's dispatch overwrites the last one's image: ordered after it, contents discarded.
        graph.bind(Res::test_work, test_work_target_);
        graph.pass(cmd, {writes(Res::test_work, kComputeStage, kStorageWrite, VK_IMAGE_LAYOUT_GENERAL, true)});
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, test_work_.handle());
        Descriptors().storage_image(0, test_work_target_.view).push(cmd, test_work_);
        push_constants(cmd, test_work_, &config_.test_extra_work, sizeof(uint32_t));
        vkCmdDispatch(cmd, kTestWorkSize / 8, kTestWorkSize / 8, 1);
    }
    f.pyramid = &unit<OcclusionPass>(PassId::occlusion).pyramid;
    f.cull_frozen = cull_frozen_;
    f.occlusion_resting = occlusion_resting_;
    f.view_legend = config_.view_legend;
    // --shading visibility: the pre-pass also writes the visibility image, a compute pass shades.
    const bool visibility = config_.plan.shading.shading == Shading::visibility && targets_.visibility.image;
    const bool two_phases = occlusion_culls(f) && !cull_frozen_;
    f.ids_after_late_draw = visibility && two_phases;
    // --raster compute: the compute rasterizer writes the visibility words (docs/raster.md), whose
    // ids name source triangles.
    const bool compute_raster = visibility && config_.plan.raster.raster == Raster::compute && targets_.raster_words.buffer;
    f.ids_name_source = compute_raster;
    record_units(f, FramePoint::before_depth);
    compute_raster ? raster_pass_.record(f, RasterPhase::first) : scene_pass_.record_depth(f);
    record_units(f, FramePoint::after_prepass);
    slot.ids_gated = false;
    if (two_phases) {
        // Occlusion phase 2 (docs/occlusion.md): only what phase 1 rejected as occluded, against
        // the pyramid just built; the re-admitted are added to the depth (no triangle is drawn
        // into it twice), then forward gets phase 1's survivors and the additions in input order.
        // The depth passes test GREATER and keep the nearest value, whatever order fragments come
        // in, so the additions may go into depth in any order; forward tests EQUAL and the last
        // fragment at the stored depth keeps the pixel, so where two triangles meet at the same
        // depth only --occlusion off's order gives its frame (cull_merge.comp; the meshlet path
        // draws each chunk's kept and re-admitted meshlets in bit order).
        begin_label(ctx_, cmd, debug_label(Timer::late_depth, "occlusion phase 2"));
        slot.timer->begin(cmd, Timer::late_depth);
        // Under --raster compute, late_depth's pieces (RasterPiece): the late cull, the raster
        // pass's, the merge, the final split.
        if (compute_raster) slot.timer->start_pieces(cmd, Timer::late_depth);
        if (config_.plan.geometry == Geometry::meshlet && meshlets_) {
            meshlets_->record_late_list(f);
            if (compute_raster) {
                slot.timer->end_piece(cmd, Timer::late_depth, RasterPiece::late_cull);
                // The re-admitted meshlets rasterized into phase 1's words: the frame's (docs/raster.md).
                raster_pass_.record(f, RasterPhase::late);
                raster_pass_.record_final_split(f);
            } else {
                scene_pass_.record_depth(f, true);
            }
        } else {
            cull.record_late(f);
            if (compute_raster) slot.timer->end_piece(cmd, Timer::late_depth, RasterPiece::late_cull);
            compute_raster ? raster_pass_.record(f, RasterPhase::late) : scene_pass_.record_depth(f, true);
            cull.record_merge(f);
            // The frame's words, split once the merge wrote the frame's list (which the
            // instrumented frame's classifying passes rasterize again).
            if (compute_raster) {
                slot.timer->end_piece(cmd, Timer::late_depth, RasterPiece::merge);
                raster_pass_.record_final_split(f);
            }
        }
        slot.timer->end(cmd, Timer::late_depth);
        end_label(ctx_, cmd);
        // The hardware pre-pass's ids name a place in the merged list: written once it exists
        // (ScenePass::record_ids), gated where the device can (ids_gated). The compute
        // rasterizer's name source triangles: phase 1's words and the late draw's are the frame's.
        if (f.ids_after_late_draw && !compute_raster) {
            begin_label(ctx_, cmd, debug_label(Timer::ids, "ids of the merged list"));
            slot.timer->begin(cmd, Timer::ids);
            scene_pass_.record_ids(f);
            slot.timer->end(cmd, Timer::ids);
            end_label(ctx_, cmd);
        }
        slot.ids_gated = f.ids_after_late_draw && !compute_raster && ids_gated(f);
    }
    // From here each pass declares its reads and writes: light cull, the ray tracer (the renderer
    // declares for it the lists the visibility ids name, which it reads), forward or the visibility
    // shading pass, the mip, resolve, exposure, the views of the declared passes, the overlay and
    // the frame's end.
    if (config_.plan[PassId::ray_trace].variant != Variant::off && ctx_.features.ray_tracing) {
        const VkPipelineStageFlags2 ray_stages = VK_PIPELINE_STAGE_2_RAY_TRACING_SHADER_BIT_KHR | kComputeStage;
        std::vector<Use> uses = {reads(Res::draw_lists, ray_stages, kStorageRead)};
        if (config_.plan.geometry == Geometry::meshlet && meshlets_) uses.push_back(reads(Res::meshlet_lists, ray_stages, kStorageRead));
        graph.pass(cmd, uses);
    }
    record_units(f, FramePoint::after_depth);
    // With --mip forward, forward also writes the mip, and appends to the mip pass's edge list.
    f.mip_edges = &unit<MipPass>(PassId::mip).edges;
    f.mip_edge_capacity = unit<MipPass>(PassId::mip).edge_capacity;
    if (visibility) {
        visibility_pass_.record(f);
    } else {
        scene_pass_.record_forward(f);
    }
    record_units(f, FramePoint::after_forward);
    // HDR -> 8-bit frame (and with --mip subgroup the mip); then exposure measures the mip. The
    // visibility path stays in compute (resolve.comp: the same bytes as the fragment resolve; its
    // shading pass wrote the quad mip), unless the quad mip is asked for where compute cannot write
    // it (no quad operations or full subgroups in compute): then the fragment resolve writes frame
    // and mip, as for forward.
    if (visibility && (config_.plan[PassId::mip].variant != Variant::subgroup || config_.plan.shading.quad_mip))
        resolve_pass_.record_compute(f);
    else
        resolve_pass_.record(f);
    record_units(f, FramePoint::after_resolve);
    // Views that show what a pass made (the mip, the light lists, the raster words) are its unit's.
    // The views start with one pass over the counters in every stage that may write them; the debug
    // views then declare the stages their pipelines count in (DebugViewPass::record, view_counter_barrier).
    if (config_.plan.view.mode != ViewMode::shaded)
        graph.pass(cmd, {writes(Res::counters, counter_stages(ctx_.features), kStorageReadWrite)});
    raster_pass_.record_view(f);
    visibility_pass_.record_material_view(f);
    for (const auto& unit : units_) unit->record_view(f);
    view_pass_.record(f, config_.view_legend);
    if (overlay_hook_) overlay_hook_(overlay_);
    overlay_.record(f, slot_index);

    // The frame ends with the colour ready to copy out (screenshot, swapchain blit), and this
    // slot's copy of the counters, which the host reads after the slot's fence (read_frame_counters).
    graph.bind(Res::counters_readback, slot.counters_readback);
    graph.pass(cmd, {reads(Res::color, VK_PIPELINE_STAGE_2_COPY_BIT | VK_PIPELINE_STAGE_2_BLIT_BIT, VK_ACCESS_2_TRANSFER_READ_BIT,
                           VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL),
                     reads(Res::counters, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_READ_BIT),
                     writes(Res::counters_readback, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT)});
    VkBufferCopy counters_region{0, 0, sizeof(GpuCounters)};
    vkCmdCopyBuffer(cmd, counters_.buffer, slot.counters_readback.buffer, 1, &counters_region);
    graph.pass(cmd, {reads(Res::counters_readback, VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT)});
    slot.timer->end(cmd, Timer::frame);
}

void Renderer::decide_occlusion_rest(FrameSlot& slot, uint32_t slot_index) {
    // Only `auto` rests, only where it culls and something could show it (not frozen, not the
    // pyramid's own view). The decision reads the counters of this slot's last frame, complete
    // (the caller waited for it), so it depends on counts alone: the same on every run.
    const Plan& plan = config_.plan;
    bool automatic = plan[PassId::occlusion].requested == Request::automatic && occlusion_culls(plan) && !cull_frozen_ &&
                     plan.view.mode != ViewMode::depth_pyramid;
    if (!automatic) {
        occlusion_resting_ = false;
    } else if (occlusion_resting_) {
        occlusion_resting_ = --occlusion_rest_left_ > 0;
    } else if (slot.occlusion_measured && occlusion_removes_little(read_frame_counters(slot_index), plan.geometry)) {
        occlusion_resting_ = true;
        occlusion_rest_left_ = kOcclusionRestFrames;
    }
    // This frame measures occlusion if it culls with a previous pyramid (provide() set it from
    // the last frame that built one).
    slot.occlusion_measured = automatic && !occlusion_resting_ && unit<OcclusionPass>(PassId::occlusion).previous_valid;
}

void Renderer::record_units(FrameContext& f, FramePoint point) {
    for (const PassInfo& pass : kPasses)
        if (pass.point == point) units_[size_t(pass.id)]->record(f);
}

namespace {

// With culling frozen no pass counts what culling kept: the frozen frame's counts stand in.
void keep_culling_counts(GpuCounters& c, const GpuCounters& frozen) {
    c.triangles_visible = frozen.triangles_visible;
    c.meshlets_in = frozen.meshlets_in;
    c.meshlets_visible = frozen.meshlets_visible;
    std::copy(std::begin(frozen.lod_draws), std::end(frozen.lod_draws), std::begin(c.lod_draws));
    std::copy(std::begin(frozen.lod_triangles), std::end(frozen.lod_triangles), std::begin(c.lod_triangles));
    std::copy(std::begin(frozen.lod_meshlets), std::end(frozen.lod_meshlets), std::begin(c.lod_meshlets));
    c.occlusion_triangles = frozen.occlusion_triangles;
    c.occlusion_meshlets = frozen.occlusion_meshlets;
}

}  // namespace

void Renderer::set_cull_frozen(bool frozen) {
    if (frozen && !cull_frozen_) frozen_counters_ = read_frame_counters(last_slot_);
    cull_frozen_ = frozen;
}

GpuCounters Renderer::read_frame_counters(uint32_t slot) const {
    GpuCounters c;
    memcpy(&c, slots_[slot].counters_readback.mapped, sizeof(c));
    if (cull_frozen_) keep_culling_counts(c, frozen_counters_);
    return c;
}

std::vector<uint8_t> Renderer::read_image(Res name, Image& image) {
    VkDeviceSize texel_bytes = image.format == kHdrFormat ? 8 : 4;
    VkDeviceSize bytes = VkDeviceSize(image.extent.width) * image.extent.height * texel_bytes;
    Buffer readback = create_buffer(ctx_, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryKind::host_readback, "readback");
    VkCommandBuffer cmd = begin_one_shot(ctx_);
    // After the frames, on their queue: the graph orders the copy after the image's last use there,
    // and the next frame's first use after the copy (the image stays in the copy's layout).
    FrameGraph& graph = targets_.graph;
    graph.bind(name, image);
    graph.pass(cmd, {reads(name, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_READ_BIT, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL)});
    VkBufferImageCopy region{};
    bool depth = image.format == kDepthFormat;
    region.imageSubresource = {VkImageAspectFlags(depth ? VK_IMAGE_ASPECT_DEPTH_BIT : VK_IMAGE_ASPECT_COLOR_BIT), 0, 0, 1};
    region.imageExtent = {image.extent.width, image.extent.height, 1};
    vkCmdCopyImageToBuffer(cmd, image.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, readback.buffer, 1, &region);
    end_one_shot(ctx_, cmd);
    std::vector<uint8_t> pixels(bytes);
    memcpy(pixels.data(), readback.mapped, bytes);
    return pixels;
}

std::vector<uint8_t> Renderer::read_color() { return read_image(Res::color, targets_.color); }
std::vector<uint8_t> Renderer::read_mip() { return read_image(Res::mip, targets_.mip); }
std::vector<uint8_t> Renderer::read_hdr() { return read_image(Res::hdr, targets_.hdr); }

std::vector<uint8_t> Renderer::read_fallback_mip() {
    Image mip = create_image(ctx_, targets_.mip.extent, kHdrFormat, VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                             "fallback mip (check)");
    VkCommandBuffer cmd = begin_one_shot(ctx_);
    // After the frames, as read_image: the fallback downsample of the frame's hdr into a mip of its
    // own, named the mip for the one-shot (then the frame's mip again).
    FrameGraph& graph = targets_.graph;
    graph.bind(Res::hdr, targets_.hdr);
    graph.bind(Res::mip, mip);
    graph.pass(cmd, {reads(Res::hdr, kComputeStage, kStorageRead, VK_IMAGE_LAYOUT_GENERAL),
                     writes(Res::mip, kComputeStage, kStorageWrite, VK_IMAGE_LAYOUT_GENERAL, true)});
    unit<MipPass>(PassId::mip).dispatch_downsample(cmd, targets_.hdr, mip);
    end_one_shot(ctx_, cmd);
    std::vector<uint8_t> pixels = read_image(Res::mip, mip);
    graph.bind(Res::mip, targets_.mip);
    return pixels;
}
ExposureState Renderer::read_exposure() const { return unit<ExposurePass>(PassId::exposure).read_state(ctx_); }

Renderer::History Renderer::history() const { return {read_exposure(), occlusion_resting_, occlusion_rest_left_}; }

bool Renderer::holds_pyramid() const { return unit<OcclusionPass>(PassId::occlusion).previous_valid; }

void Renderer::restore(const History& history) {
    write_buffer(ctx_, unit<ExposurePass>(PassId::exposure).state, &history.exposure, sizeof(history.exposure));
    occlusion_resting_ = history.occlusion_resting;
    occlusion_rest_left_ = history.occlusion_rest_left;
}

std::vector<uint32_t> Renderer::read_ray_traced() {
    std::vector<uint8_t> bytes = read_image(Res::ray_traced, targets_.ray_traced);  // R32_UINT: 4 bytes per pixel
    std::vector<uint32_t> words(bytes.size() / 4);
    memcpy(words.data(), bytes.data(), bytes.size());
    return words;
}

std::array<double, kTimerCount> Renderer::read_timings(uint32_t slot) {
    std::array<double, kTimerCount> ms = slots_[slot].timer->read();
    // The gated ids pass's timestamps are written in every frame of phase 2, but it drew only where
    // phase 2 re-admitted something (its draw count, the GPU's): the frame's counters say whether.
    double& ids = ms[size_t(Timer::ids)];
    if (ids >= 0.0 && slots_[slot].ids_gated && read_frame_counters(slot).occlusion_triangles.readmitted_phase2 == 0) ids = -1.0;
    return ms;
}

PieceTimes Renderer::read_raster_pieces(uint32_t slot) { return slots_[slot].timer->read_pieces(); }

std::vector<uint32_t> Renderer::read_visibility() {
    std::vector<uint8_t> bytes = read_image(Res::visibility, targets_.visibility);  // R32_UINT: the visibility id
    std::vector<uint32_t> ids(bytes.size() / 4);
    memcpy(ids.data(), bytes.data(), bytes.size());
    // Decoded as render/visibility_id.h lays it out: the meshlet path's entry through the task chunks.
    const std::vector<TaskChunk>* chunks = config_.plan.geometry == Geometry::meshlet && meshlets_ ? &meshlets_->task_chunks() : nullptr;
    std::vector<uint32_t> pairs(ids.size() * 2, kNoTriangle);
    for (size_t p = 0; p < ids.size(); ++p) {
        uint32_t id = ids[p];
        if (id == kVisibilityNone) continue;
        if (chunks) {
            uint32_t entry = visibility_id_entry(id);
            const TaskChunk& chunk = chunks->at(entry / 32);
            pairs[2 * p] = chunk.draw;
            pairs[2 * p + 1] = (chunk.first_meshlet + entry % 32) << kVisibilityMeshletTriangleBits | visibility_id_meshlet_triangle(id);
        } else {
            pairs[2 * p] = visibility_id_draw(id, scene_.draw_count);
            pairs[2 * p + 1] = visibility_id_primitive(id, scene_.draw_count);
        }
    }
    return pairs;
}

uint32_t Renderer::read_ids_draw_count() {
    vkDeviceWaitIdle(ctx_.device);
    return read_buffer_as<uint32_t>(ctx_, unit<CullPass>(PassId::cull).ids_draw_count);
}

std::vector<uint64_t> Renderer::read_raster_words() {
    if (config_.plan.raster.raster != Raster::compute || !targets_.raster_words.buffer) return {};
    vkDeviceWaitIdle(ctx_.device);
    std::vector<uint8_t> bytes = read_buffer(ctx_, targets_.raster_words);
    std::vector<uint64_t> words(bytes.size() / 8);
    memcpy(words.data(), bytes.data(), words.size() * 8);
    return words;
}

std::array<uint32_t, 4> Renderer::read_raster_bins() {
    if (!raster_pass_.tile_bins.buffer) return {};
    vkDeviceWaitIdle(ctx_.device);
    return read_buffer_as<std::array<uint32_t, 4>>(ctx_, raster_pass_.tile_bins);
}

std::array<uint32_t, 8> Renderer::read_raster_late_dispatches() {
    if (!raster_pass_.late_dispatches.buffer) return {};
    vkDeviceWaitIdle(ctx_.device);
    return read_buffer_as<std::array<uint32_t, 8>>(ctx_, raster_pass_.late_dispatches);
}

std::vector<float> Renderer::read_depth() {
    // --raster compute: the depth the split took from the words (R32_SFLOAT).
    bool compute = config_.plan.raster.raster == Raster::compute && targets_.raster_depth.image;
    std::vector<uint8_t> bytes = compute ? read_image(Res::depth, targets_.raster_depth)  // 4 bytes per pixel
                                         : read_image(Res::prepass_depth, targets_.depth);
    std::vector<float> depth(bytes.size() / sizeof(float));
    memcpy(depth.data(), bytes.data(), depth.size() * sizeof(float));
    return depth;
}

GpuCounters Renderer::read_counters() {
    GpuCounters c = read_buffer_as<GpuCounters>(ctx_, counters_);
    if (cull_frozen_) keep_culling_counts(c, frozen_counters_);
    return c;
}

std::vector<std::vector<uint32_t>> Renderer::read_drawn_indices() {
    if (config_.plan.geometry == Geometry::meshlet && meshlets_) return meshlets_->read_drawn_indices(ctx_, scene_.draw_count);
    // What forward drew (with occlusion: phase 1's survivors and phase 2's additions, merged).
    const CullPass& cull = unit<CullPass>(PassId::cull);
    // --cull off: each draw's whole chosen level, from the source indices (CullPass::record_select).
    if (config_.plan[PassId::cull].variant == Variant::off)
        return ::read_drawn_indices(ctx_, scene_.indices, cull.level_indirect, scene_.draw_count);
    return ::read_drawn_indices(ctx_, cull.culled_indices, cull.indirect, scene_.draw_count);
}

std::vector<std::vector<uint32_t>> Renderer::read_named_indices() {
    bool compute = config_.plan.shading.shading == Shading::visibility && config_.plan.raster.raster == Raster::compute &&
                   targets_.raster_words.buffer;
    if (!compute) return read_drawn_indices();
    // The levels the cull chose (CullPass::level_indirect), or level 0 where no pass chose.
    const CullPass& cull = unit<CullPass>(PassId::cull);
    return ::read_drawn_indices(ctx_, scene_.indices, cull.culled ? cull.level_indirect : scene_.indirect_all, scene_.draw_count);
}
