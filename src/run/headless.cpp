#include "run/headless.h"

#include "passes/occlusion_pass.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include "render/exposure_reference.h"
#include "render/mip_reference.h"
#include "render/tonemap.h"

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "run/cull_dump.h"
#include "run/image_io.h"
#include "run/limits.h"
#include "run/progress.h"
#include "passes/debug_view_pass.h"
#include "passes/exposure_pass.h"
#include "scene/lod.h"
#include "passes/ray_trace_pass.h"
#include "render/gpu_scene.h"

uint64_t lod_index_bytes(const Scene& scene) {
    uint64_t bytes = 0;
    for (const Mesh& mesh : scene.meshes)
        for (uint32_t l = 1; l < mesh.lod_count; ++l) bytes += uint64_t(mesh.lods[l].index_count) * sizeof(uint32_t);
    return bytes;
}

uint64_t base_mesh_bytes(const Scene& scene) {
    uint64_t indices = 0;
    for (const Mesh& mesh : scene.meshes) indices += mesh.index_count;
    return indices * sizeof(uint32_t) + uint64_t(scene.vertices.size()) * sizeof(Vertex);
}

std::string default_scene_path() {
    // The source tree's copy when it is there; else assets/ beside the build folder, so a build
    // copied elsewhere (the GPU machine) still finds it.
    if (std::filesystem::exists(SGD_DEFAULT_SCENE)) return SGD_DEFAULT_SCENE;
    return executable_dir() + "/../assets/default_scene.gltf";
}

Scene load_requested_scene(const Options& options) {
    Scene scene = load_scene(options.scene.empty() ? default_scene_path() : options.scene);
    for (const std::string& w : scene.warnings) fprintf(stderr, "warning: %s\n", w.c_str());
    // Checked before the copies are made: each costs host memory as well as GPU buffers.
    uint64_t draws = uint64_t(scene.instances.size()) * options.instances * options.instances;
    if (draws > kMaxDraws)
        throw UsageError("--instances " + std::to_string(options.instances) + " makes " + std::to_string(draws) +
                         " draws (" + std::to_string(scene.instances.size()) + " per copy), more than the " +
                         std::to_string(kMaxDraws) + " the renderer supports; use a smaller --instances");
    if (options.unique_meshes && options.instances > 1) {
        // Before copying: a request no device can bind fails here, without allocating gigabytes.
        uint64_t copies = uint64_t(options.instances) * options.instances;
        uint64_t vertex_bytes = copies * scene.vertices.size() * sizeof(Vertex);
        uint64_t index_bytes = copies * scene.indices.size() * sizeof(uint32_t);
        if (vertex_bytes > kMaxGeometryBufferBytes || index_bytes > kMaxGeometryBufferBytes)
            throw UsageError("--instances " + std::to_string(options.instances) + " --unique-meshes needs " +
                             std::to_string(vertex_bytes >> 20) + " MiB of vertices and " + std::to_string(index_bytes >> 20) +
                             " MiB of indices, each one storage buffer, past the 4 GiB no device binds; "
                             "use a smaller --instances or drop --unique-meshes");
    }
    // Always built, whatever --lod says: the window toggles it (L). Before the copies, which
    // share (or, with --unique-meshes, copy) each mesh's levels.
    auto lod_start = std::chrono::steady_clock::now();
    build_lod_chain(scene);
    scene.lod_build_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - lod_start).count();
    if (options.instances > 1) replicate_grid(scene, options.instances, options.unique_meshes);
    if (scene.triangle_count() == 0) throw SceneError("scene " + scene.path + " has no triangles to draw");
    return scene;
}

ContextOptions context_options(const Options& o) {
    ContextOptions c;
    c.validate = o.validate;
    c.device_index = o.device ? int(*o.device) : -1;
    c.mask_stages = o.mask_stages;
    c.mask_ops = o.mask_ops;
    c.subgroup_size = o.subgroup_size;
    return c;
}

RendererConfig renderer_config(const Options& options, const Plan& plan, VkExtent2D extent) {
    RendererConfig config;
    config.extent = extent;
    config.lights = options.lights;
    config.plan = plan;
    config.view_legend = options.view_legend;
    config.cull_group_size = options.cull_group_size;
    config.capture_meshlets = !options.cull_dump.empty();
    config.test_extra_work = options.test_extra_work;
    config.camera = options.camera;
    return config;
}

nlohmann::json renderer_json(const RendererConfig& c) {
    nlohmann::json passes = nlohmann::json::object();
    for (const PassInfo& pass : kPasses) passes[std::string(pass.key)] = variant_name(c.plan[pass.id].variant);
    return {{"extent", {c.extent.width, c.extent.height}},
            {"lights", c.lights},
            {"passes", passes},
            {"shading", shading_name(c.plan.shading.shading)},
            {"view", {{"mode", view_mode_name(c.plan.view.mode)}, {"stage", stage_name(c.plan.view.stage)}}},
            {"view_legend", c.view_legend},
            {"cull_group_size", c.cull_group_size}};
}

Plan widest_plan(const Context& ctx, const Options& options) {
    // The typed shading, else forward: the visibility id is checked where visibility is asked for,
    // and planned_allocations counts the visibility image wherever forward is not typed.
    Plan widest;
    widest.geometry = options.plan.geometry;
    widest.shading.shading = options.plan.shading.value_or(Shading::forward);
    if (ctx.features.int64_atomics) widest.raster.raster = Raster::compute;
    return widest;
}

void check_device_limits(const Context& ctx, const Options& options, const Plan& plan, const Scene& scene) {
    check_device_limits(ctx, options, std::vector<Plan>{plan}, scene);
}

void check_device_limits(const Context& ctx, const Options& options, const std::vector<Plan>& plans, const Scene& scene) {
    check_limits(device_limits(ctx), options, plans, scene);  // run/limits.cpp: every buffer the renderer makes
    const VkPhysicalDeviceLimits& limits = ctx.properties.limits;
    if (options.cull_group_size > limits.maxComputeWorkGroupSize[0] ||
        options.cull_group_size > limits.maxComputeWorkGroupInvocations)
        throw UsageError("--cull-group-size " + std::to_string(options.cull_group_size) +
                         " exceeds the device's largest workgroup (" +
                         std::to_string(std::min(limits.maxComputeWorkGroupSize[0], limits.maxComputeWorkGroupInvocations)) + ")");
    // A required subgroup size caps a workgroup at that many lanes times maxComputeWorkgroupSubgroups
    // (only asked where the device offers a range: required_subgroup_size).
    const SubgroupCaps& caps = ctx.subgroup_unmasked;
    if (required_subgroup_size(caps, ctx.subgroup_size, Stage::compute)) {
        // The cull test's --cull-group-size, and every other compute shader's fixed workgroup.
        uint32_t largest = std::max(options.cull_group_size, kLargestFixedWorkgroup);
        if (uint64_t(ctx.subgroup_size) * caps.max_workgroup_subgroups < largest)
            throw UsageError("--subgroup-size " + std::to_string(ctx.subgroup_size) + ": a workgroup of " +
                             std::to_string(largest) + " invocations needs more than this device's " +
                             std::to_string(caps.max_workgroup_subgroups) +
                             " subgroups (maxComputeWorkgroupSubgroups) at that size; use a larger size");
    }
}

namespace {

// Requests that a run cannot honour, refused before anything is allocated.
void check_run_request(const Options& options, const Plan& plan) {
    // With --mip off no pass writes the mip: refuse to dump or show one rather than output stale texels.
    if (plan[PassId::mip].variant == Variant::off && !options.mip_dump.empty())
        throw UsageError("--mip-dump needs a mip, but --mip off renders none; use --mip auto, subgroup, forward or fallback");
    if (plan[PassId::ray_trace].variant == Variant::off && !options.ray_dump.empty())
        throw UsageError("--ray-dump needs the ray-trace pass, but it is off (" + plan[PassId::ray_trace].reason +
                         "); use --ray-trace auto, subgroup or fallback on a device with ray tracing");
    if (plan[PassId::mip].variant == Variant::off && plan.view.mode == ViewMode::mip)
        throw UsageError("--view mip shows the mip, but --mip off renders none; use --mip auto, subgroup, forward or fallback");
    if (plan.view.mode == ViewMode::materials && plan.view.variant == Variant::unsupported)
        throw UsageError("--view materials shows how many materials each subgroup's waterfall walked, but " + plan.view.reason +
                         "; use --shading visibility with --materials auto or subgroup");
    if (plan.view.mode == ViewMode::raster && plan.view.variant == Variant::unsupported)
        throw UsageError("--view raster shows who wrote the compute rasterizer's words, but " + plan.view.reason +
                         "; use --shading visibility --raster compute");
}

}  // namespace

HeadlessRun::HeadlessRun(const Context& ctx, const Scene& scene, const Options& options, const Plan& plan)
    : ctx_(ctx), scene_(scene), options_(options), plan_(plan) {
    check_run_request(options, plan);
    renderer_ = std::make_shared<Renderer>(ctx, scene, renderer_config(options, plan, {options.width, options.height}));
    start();
}

bool SharedRenderer::fits(const Scene& s, const RendererConfig& c) const {
    if (!renderer) return true;
    const RendererConfig& m = config;
    return scene == &s && m.extent.width == c.extent.width && m.extent.height == c.extent.height && m.lights == c.lights &&
           m.view_legend == c.view_legend && m.cull_group_size == c.cull_group_size &&
           m.light_loop_split_tiles == c.light_loop_split_tiles && m.test_extra_work == c.test_extra_work &&
           m.capture_meshlets == c.capture_meshlets && m.test_forward_output == c.test_forward_output &&
           m.test_camera_rays == c.test_camera_rays && m.camera == c.camera;
}

HeadlessRun::HeadlessRun(const Context& ctx, const Scene& scene, const Options& options, const Plan& plan, SharedRenderer& shared)
    : ctx_(ctx), scene_(scene), options_(options), plan_(plan) {
    check_run_request(options, plan);
    RendererConfig config = renderer_config(options, plan, {options.width, options.height});
    if (!shared.fits(scene, config)) throw std::logic_error("a shared renderer made for other options than this run's");
    if (!shared.renderer) {
        shared.renderer = std::make_shared<Renderer>(ctx, scene, config);
        shared.scene = &scene;
        shared.config = config;
    }
    renderer_ = shared.renderer;
    last_user_ = shared.last_user;  // every run, the first too, switches it to its own plan
    start();
}

bool HeadlessRun::take_renderer() {
    if (!last_user_ || *last_user_ == this) return false;
    if (HeadlessRun* previous = *last_user_) previous->history_ = renderer_->history();
    *last_user_ = this;
    renderer_->set_plan(plan_);  // the frames are synchronous: the renderer is idle here
    renderer_->restore(history_);
    return true;
}

void HeadlessRun::settle(bool always) {
    // Where this plan culls by occlusion and the last frame (another plan's) left no depth pyramid
    // (occlusion off or resting there), one untimed frame of this plan builds one, so that no timed
    // frame's phase 1 finds none; frame_ not advanced: the warm-up is unchanged. Its adaptation and
    // rest are undone, so this run's next frame continues its own. `always`: one such frame wherever
    // the last frame was another run's (finish's read-backs are of a frame of this plan).
    if (take_renderer() && (always || (occlusion_culls(plan_) && !renderer_->holds_pyramid()))) {
        submit_frame(frame_, false);
        renderer_->restore(history_);
    }
}

void HeadlessRun::start() {
    const Context& ctx = ctx_;
    take_renderer();  // the meshlet path's buffers are made here where this plan needs them
    VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    alloc.commandPool = ctx.command_pool;
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = 1;
    VK_CHECK(vkAllocateCommandBuffers(ctx.device, &alloc, &cmd_));
    VkFenceCreateInfo fence_info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VK_CHECK(vkCreateFence(ctx.device, &fence_info, nullptr, &fence_));

    result_.triangles_in = renderer_->gpu_scene().triangle_count;
    result_.texture_bytes = renderer_->gpu_scene().texture_bytes;
    result_.texture_ms = renderer_->gpu_scene().texture_ms;
    if (const MeshletPass* m = renderer_->meshlets()) {
        result_.meshlets = m->meshlets().meshlets.size();
        result_.meshlet_build_ms = m->meshlets().build_ms;
        result_.base_meshlet_bytes = meshlet_gpu_bytes(m->meshlets(), 0, 0);
        result_.lod_meshlet_bytes = meshlet_gpu_bytes(m->meshlets(), 1, kMaxLodLevels - 1);
    }
    // One instrumented frame before the timed ones counts light-list atomics and the light loop's
    // trips; its timings are not used.
    submit_frame(0, true);
    result_.instrumented = renderer_->read_counters();
}

HeadlessRun::~HeadlessRun() {
    if (last_user_ && *last_user_ == this) *last_user_ = nullptr;
    if (fence_) vkDestroyFence(ctx_.device, fence_, nullptr);
    if (cmd_) vkFreeCommandBuffers(ctx_.device, ctx_.command_pool, 1, &cmd_);
}

void HeadlessRun::submit_frame(uint32_t frame_index, bool instrument) {
    take_renderer();
    VK_CHECK(vkResetCommandBuffer(cmd_, 0));
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    VK_CHECK(vkBeginCommandBuffer(cmd_, &begin));
    renderer_->record(cmd_, 0, frame_index, renderer_->default_view(), instrument);
    VK_CHECK(vkEndCommandBuffer(cmd_));
    VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &cmd_;
    VK_CHECK(vkQueueSubmit(ctx_.queue, 1, &submit, fence_));
    wait_for_frame(ctx_, fence_);  // bounded: a lost or hung device ends the run with a message
    VK_CHECK(vkResetFences(ctx_.device, 1, &fence_));
}

void HeadlessRun::render(uint32_t count, uint32_t round) {
    settle(false);
    for (uint32_t i = 0; i < count; ++i, ++frame_) {
        submit_frame(frame_, false);
        std::array<double, kTimerCount> ms = renderer_->read_timings(0);
        PieceTimes pieces = renderer_->read_raster_pieces(0);
        if (capture_frame_ == frame_) capture();
        if (frame_ < options_.warmup) continue;
        for (size_t p = 0; p < ms.size(); ++p) {
            if (ms[p] < 0) continue;
            RoundSamples& rounds = result_.rounds[p];
            if (rounds.size() <= round) rounds.resize(round + 1);
            rounds[round].push_back(ms[p]);
        }
        for (size_t t = 0; t < pieces.size(); ++t)
            for (size_t p = 0; p < kRasterPieceCount; ++p)
                if (pieces[t][p] >= 0) result_.raster_pieces[t][p].push_back(pieces[t][p]);
    }
}

RunResult run_headless(const Context& ctx, const Scene& scene, const Options& options, const Plan& plan, bool quiet) {
    HeadlessRun run(ctx, scene, options, plan);
    bool progress = !quiet && options.frames >= 20;
    ProgressLine line;
    for (uint32_t frame = 0; frame < options.frames; frame += 10) {
        run.render(std::min(10u, options.frames - frame), 0);
        if (progress) line.update("frame " + std::to_string(run.frames_rendered()) + "/" + std::to_string(options.frames));
    }
    line.finish();
    return run.finish();
}

namespace {

// Each timer's summary over all its rounds' frames.
void summarize_rounds(RunResult& result) {
    for (size_t p = 0; p < result.rounds.size(); ++p) {
        std::vector<double> all;
        for (const std::vector<double>& round : result.rounds[p]) all.insert(all.end(), round.begin(), round.end());
        result.ran[p] = !all.empty();
        result.timings[p] = summarize(all);
    }
}

}  // namespace

RunResult HeadlessRun::timings() const {
    RunResult result;
    result.rounds = result_.rounds;
    result.raster_pieces = result_.raster_pieces;
    summarize_rounds(result);
    return result;
}

void HeadlessRun::capture() {
    captured_ = true;
    result_.image = renderer_->read_color();
    result_.image_frame = frame_;
    result_.counters = renderer_->read_counters();
    result_.exposure = renderer_->read_exposure();
}

RunResult HeadlessRun::finish() {
    const Options& options = options_;
    const Plan& plan = plan_;
    Renderer& renderer = *renderer_;
    // A shared renderer's last frame may be another run's: the counters and read-backs below are
    // then of one more frame, of this plan (none where the captured frame's are returned).
    const bool dumps = !options.cull_dump.empty() || !options.ray_dump.empty() || !options.mip_dump.empty();
    if (!captured_ || dumps) settle(true);
    RunResult result = std::move(result_);
    summarize_rounds(result);
    if (!captured_) {
        result.counters = renderer.read_counters();
        result.exposure = renderer.read_exposure();
    }
    result.counters.light_atomics = result.instrumented.light_atomics;
    bool measured = plan[PassId::exposure].variant == Variant::subgroup || plan[PassId::exposure].variant == Variant::fallback;
    if (!measured) result.exposure.applied = exposure::kFixed;
    if (!options.screenshot.empty()) {
        write_png(options.screenshot, options.width, options.height, captured_ ? result.image : renderer.read_color());
        result.screenshot = options.screenshot;
    }
    if (!options.cull_dump.empty()) {
        uint32_t last_frame = frame_ - 1;  // the frame the renderer holds
        CullDump dump{options.width, options.height, renderer.frame_uniforms(last_frame, renderer.default_view()).view_proj,
                      renderer.read_drawn_indices()};
        write_cull_dump(options.cull_dump, dump);
    }
    if (!options.ray_dump.empty()) {
        std::vector<uint32_t> traced = renderer.read_ray_traced();
        std::vector<uint8_t> rgba(traced.size() * 4);
        for (size_t i = 0; i < traced.size(); ++i) {
            uint32_t t = traced[i];
            bool shadow_ray = t & kTracedShadowRay;
            rgba[4 * i + 0] = shadow_ray && !(t & kTracedSunBlocked) ? 255 : 0;
            rgba[4 * i + 1] = shadow_ray ? 255 : 0;
            rgba[4 * i + 2] = (t & kTracedReflection) ? 255 : 0;
            rgba[4 * i + 3] = 255;
        }
        write_png(options.ray_dump, options.width, options.height, rgba);
        result.ray = options.ray_dump;
    }
    if (options.bandwidth_probe) result.copy = measure_copy_bandwidth(ctx_);
    if (!options.mip_dump.empty()) {
        VkExtent2D half{std::max(1u, options.width / 2), std::max(1u, options.height / 2)};
        std::vector<uint8_t> mip_bytes = renderer.read_mip();
        std::vector<float> mip = halves_to_floats(mip_bytes);
        // The HDR mip as the frame shows it: tonemapped with the exposure the last frame applied.
        write_png(options.mip_dump, half.width, half.height, tonemap_rgba8(mip, result.exposure.applied));
        result.mip = options.mip_dump;
        // And held to its definition on this same frame: a mip compared with another run's can
        // differ only because the frame did (docs/quad-mip.md, "Deterministic frames").
        result.mip_check = check_mip(halves_to_floats(renderer.read_hdr()), options.width, options.height, mip);
        // And the other writers' mip to the compute fallback's of the same frame, byte for byte: the
        // three writers must agree exactly (box_filter.glsl), which another run cannot show where
        // its frame differs.
        if (plan[PassId::mip].variant != Variant::fallback)
            result.mip_check.fallback_mismatched = differing_texels(mip_bytes, renderer.read_fallback_mip(), 8);
    }
    return result;
}
