#include "app/run.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "render/exposure_reference.h"
#include "render/mip_reference.h"
#include "render/tonemap.h"

#include <cstdio>
#include <unistd.h>
#include <filesystem>
#include <fstream>

#include "app/cull_dump.h"
#include "app/image_io.h"
#include "app/limits.h"
#include "passes/debug_view_pass.h"
#include "passes/exposure_pass.h"
#include "passes/light_cull_pass.h"
#include "scene/lod.h"
#include "passes/ray_trace_pass.h"

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

void check_device_limits(const Context& ctx, const Options& options, const Scene& scene) {
    check_limits(device_limits(ctx), options, scene);  // app/limits.cpp: every buffer the renderer makes
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
        // The cull test's --cull-group-size, light culling's 64, the exposure reduction's and the
        // cull scan's 256.
        uint32_t largest = std::max({options.cull_group_size, kLightCullWorkgroup, kExposureReduceWorkgroup});
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
}

}  // namespace

HeadlessRun::HeadlessRun(const Context& ctx, const Scene& scene, const Options& options, const Plan& plan)
    : ctx_(ctx), scene_(scene), options_(options), plan_(plan) {
    check_run_request(options, plan);
    renderer_ = std::make_unique<Renderer>(ctx, scene, renderer_config(options, plan, {options.width, options.height}));
    VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    alloc.commandPool = ctx.command_pool;
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = 1;
    VK_CHECK(vkAllocateCommandBuffers(ctx.device, &alloc, &cmd_));
    VkFenceCreateInfo fence_info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VK_CHECK(vkCreateFence(ctx.device, &fence_info, nullptr, &fence_));

    result_.triangles_in = renderer_->gpu_scene().triangle_count;
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
    if (fence_) vkDestroyFence(ctx_.device, fence_, nullptr);
    if (cmd_) vkFreeCommandBuffers(ctx_.device, ctx_.command_pool, 1, &cmd_);
}

void HeadlessRun::submit_frame(uint32_t frame_index, bool instrument) {
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
    for (uint32_t i = 0; i < count; ++i, ++frame_) {
        submit_frame(frame_, false);
        std::array<double, kTimerCount> ms = renderer_->read_timings(0);
        if (frame_ < options_.warmup) continue;
        for (size_t p = 0; p < ms.size(); ++p) {
            if (ms[p] < 0) continue;
            RoundSamples& rounds = result_.rounds[p];
            if (rounds.size() <= round) rounds.resize(round + 1);
            rounds[round].push_back(ms[p]);
        }
    }
}

RunResult run_headless(const Context& ctx, const Scene& scene, const Options& options, const Plan& plan, bool quiet) {
    HeadlessRun run(ctx, scene, options, plan);
    bool progress = !quiet && options.frames >= 20;
    // On a terminal one line, redrawn in place; into a pipe or a file one line per update (a
    // carriage return there would run the updates together: "frame 10/20frame 20/20").
    bool terminal = isatty(fileno(stderr));
    for (uint32_t frame = 0; frame < options.frames; frame += 10) {
        run.render(std::min(10u, options.frames - frame), 0);
        if (progress) fprintf(stderr, terminal ? "\rframe %u/%u" : "frame %u/%u\n", run.frames_rendered(), options.frames);
    }
    if (progress && terminal) fprintf(stderr, "\n");
    return run.finish();
}

RunResult HeadlessRun::finish() {
    const Options& options = options_;
    const Plan& plan = plan_;
    Renderer& renderer = *renderer_;
    RunResult result = std::move(result_);
    for (size_t p = 0; p < result.rounds.size(); ++p) {
        std::vector<double> all;
        for (const std::vector<double>& round : result.rounds[p]) all.insert(all.end(), round.begin(), round.end());
        result.ran[p] = !all.empty();
        result.timings[p] = summarize(all);
    }
    result.counters = renderer.read_counters();
    result.counters.light_atomics = result.instrumented.light_atomics;
    result.exposure = renderer.read_exposure();
    bool measured = plan[PassId::exposure].variant == Variant::subgroup || plan[PassId::exposure].variant == Variant::fallback;
    if (!measured) result.exposure.applied = exposure::kFixed;
    if (!options.screenshot.empty()) {
        write_png(options.screenshot, options.width, options.height, renderer.read_color());
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

nlohmann::json device_json(const Context& ctx) {
    return {{"name", ctx.info.name},       {"driver", ctx.info.driver}, {"api_version", ctx.info.api_version},
            {"type", ctx.info.type},       {"vendor_id", ctx.info.vendor_id},
            {"timestamp_period_ns", ctx.info.timestamp_period_ns}};
}

nlohmann::json subgroup_json(const Context& ctx) {
    const SubgroupCaps& s = ctx.subgroup;
    return {{"size", s.size},
            {"min_size", s.min_size},
            {"max_size", s.max_size},
            {"stages", stage_names(s.stages)},
            {"operations", op_names(s.ops)},
            {"quad_in_all_stages", s.quad_in_all_stages},
            {"masked_stages", stage_names(s.masked_stages)},
            {"masked_operations", op_names(s.masked_ops)},
            // --subgroup-size: the size the compute passes, task and mesh were run at (null: the driver's choice)
            {"forced_size", ctx.subgroup_size ? nlohmann::json(ctx.subgroup_size) : nlohmann::json(nullptr)}};
}

static nlohmann::json measured_by_json(const std::string& by) { return by.empty() ? nlohmann::json(nullptr) : nlohmann::json(by); }

static nlohmann::json pass_json(const PassPlan& p) {
    return {{"requested", request_name(p.requested)},
            {"variant", variant_name(p.variant)},
            {"reason", p.reason},
            {"source", plan_source_name(p.source)},
            {"measured_by", measured_by_json(p.measured_by)},
            {"measured_on", measured_by_json(p.measured_on)}};
}

nlohmann::json plan_json(const Plan& plan) {
    nlohmann::json j = nlohmann::json::object();
    for (const PassInfo& pass : kPasses) j[std::string(pass.key)] = pass_json(plan[pass.id]);
    j["geometry"] = {{"mode", geometry_name(plan.geometry)},
                     {"reason", plan.geometry == Geometry::meshlet
                                    ? "task + mesh shaders over meshlets; --cull applies to their culling"
                                    : "compute cull pass + indexed indirect draws"}};
    j["shading"] = {{"requested", shading_request_name(plan.shading)},
                    {"mode", shading_name(plan.shading.shading)},
                    {"derivatives", variant_name(plan.shading.derivatives)},
                    {"derivatives_requested", request_name(plan.shading.derivatives_requested)},
                    {"light_loop", variant_name(plan.shading.light_loop)},
                    {"quad_mip", plan.shading.quad_mip},
                    {"reason", plan.shading.reason},
                    {"source", plan_source_name(plan.shading.source)},
                    {"measured_by", measured_by_json(plan.shading.measured_by)},
                    {"measured_on", measured_by_json(plan.shading.measured_on)}};
    j["raster"] = {{"requested", plan.raster.requested ? raster_name(*plan.raster.requested) : "auto"},
                   {"mode", raster_name(plan.raster.raster)},
                   {"variant", variant_name(plan.raster.variant)},
                   {"reason", plan.raster.reason},
                   {"source", plan_source_name(plan.raster.source)}};
    j["view"] = {{"mode", view_mode_name(plan.view.mode)},
                 {"stage", stage_name(plan.view.stage)},
                 {"variant", variant_name(plan.view.variant)},
                 {"reason", plan.view.reason}};
    return j;
}

nlohmann::json views_json(const Context& ctx) {
    nlohmann::json j = nlohmann::json::object();
    for (const StageInfo& st : kStages)
        for (ViewMode mode : {ViewMode::lane_id, ViewMode::first_last_lane, ViewMode::active_lanes}) {
            ViewPlan v = plan_view(ctx.subgroup, ctx.features, mode, st.stage);
            j[std::string(stage_name(st.stage))][std::string(view_mode_name(mode))] = {{"variant", variant_name(v.variant)},
                                                                          {"reason", v.reason}};
        }
    return j;
}

nlohmann::json report_json(const Context& ctx, const Options& options, const Plan& plan, const Scene& scene,
                           const RunResult& r) {
    // Each pass reports its own counters (its table entry's report_counters).
    nlohmann::json counters = {{"triangles_in", r.triangles_in}};
    for (const PassInfo& pass : kPasses)
        if (pass.report_counters)
            pass.report_counters(counters, {plan, r.counters, r.instrumented, r.triangles_in, options.lights,
                                            r.ran[size_t(pass.timer)]});
    // The exposure the last frame was resolved with (1.0, fixed, without the exposure pass), and
    // the mip's average luminance the exposure pass measured in that frame (null without it): exp2
    // of the mean fixed-point log2 luminance (docs/exposure.md). Read from the exposure unit's
    // state, not from the frame's counters.
    bool measured = r.exposure.texels != 0;
    counters["exposure"] = r.exposure.applied;
    counters["luminance_average"] = measured ? nlohmann::json(std::exp2(double(r.exposure.log2_average))) : nlohmann::json(nullptr);
    counters["log2_luminance_average"] = measured ? nlohmann::json(r.exposure.log2_average) : nlohmann::json(nullptr);
    counters["exposure_next"] = measured ? nlohmann::json(r.exposure.exposure) : nlohmann::json(nullptr);
    // The active-lanes view's occupancy in the stage under view (docs/debug-views.md); null for
    // other views, an unsupported stage, and the ray-tracing stages (their ray_trace stages say it).
    counters["view"] = nullptr;
    if (!(bit(plan.view.stage) & kRayTracingStages))
        if (std::optional<SubgroupTally> t = measured_subgroups(r.counters, plan, plan.view.stage)) {
            std::optional<double> full = occupancy(*t);
            counters["view"] = {{"stage", stage_name(plan.view.stage)},
                                {"subgroups", t->subgroups},
                                {"lanes", t->lanes},
                                {"lanes_per_subgroup", double(t->lanes) / double(t->subgroups)},
                                {"sizes", subgroup_sizes(t->sizes)},
                                {"occupancy", full ? nlohmann::json(*full) : nlohmann::json(nullptr)}};
        }
    nlohmann::json timings = nlohmann::json::object();
    for (size_t p = 0; p < r.timings.size(); ++p)
        if (r.ran[p])
            timings[std::string(kTimers[p].key)] = {{"median", r.timings[p].median}, {"min", r.timings[p].min}, {"max", r.timings[p].max}};
    auto path_or_null = [](const std::string& s) { return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s); };
    // Bytes per second of the cull pass (host-computed bytes over its median time), and the copy
    // bandwidth measured in this run to compare it with (--bandwidth-probe). 1 GB/s = 1e9 B/s.
    nlohmann::json bandwidth = nlohmann::json::object();
    const size_t cull = size_t(Timer::cull);
    if (r.ran[cull]) {
        CullTraffic traffic = cull_traffic(scene, build_draws(scene), r.counters.triangles_visible, options.cull_group_size);
        bandwidth["cull_bytes"] = traffic.total();
        bandwidth["cull_bytes_read"] = traffic.bytes_read;
        bandwidth["cull_bytes_written"] = traffic.bytes_written;
        bandwidth["cull_unique_bytes"] = traffic.unique_total();
        if (r.timings[cull].median > 0) {
            bandwidth["cull_gbps"] = double(traffic.total()) / (r.timings[cull].median * 1e6);
            bandwidth["cull_unique_gbps"] = double(traffic.unique_total()) / (r.timings[cull].median * 1e6);
        }
    }
    if (r.copy.bytes) {
        bandwidth["copy_bytes"] = r.copy.bytes;
        bandwidth["copy_ms"] = r.copy.ms;
        bandwidth["copy_bandwidth_gbps"] = r.copy.gbps;
        if (bandwidth.contains("cull_gbps") && r.copy.gbps > 0) {
            bandwidth["cull_fraction_of_copy"] = bandwidth["cull_gbps"].get<double>() / r.copy.gbps;
            bandwidth["cull_unique_fraction_of_copy"] = bandwidth["cull_unique_gbps"].get<double>() / r.copy.gbps;
        }
    }
    return {
        {"schema", 1},
        {"device", device_json(ctx)},
        {"subgroup", subgroup_json(ctx)},
        {"plan", plan_json(plan)},
        {"scene",
         {{"path", scene.path},
          {"vertices", scene.vertices.size()},
          {"triangles", scene.triangle_count()},
          {"meshes", scene.meshes.size()},
          {"instances", options.instances},
          {"unique_meshes", scene.unique_meshes},
          {"draws", scene.instances.size()},
          {"lights", options.lights},
          {"textures", scene.textures.size()},
          {"geometry", geometry_name(plan.geometry)},
          {"camera", camera_view_name(options.camera)},
          // Meshlets of the unique meshes (built once, shared by --instances copies), and the
          // host time meshoptimizer took; null on the indexed path, which builds none.
          {"meshlets", r.meshlets ? nlohmann::json(r.meshlets) : nlohmann::json(nullptr)},
          {"meshlet_build_ms", r.meshlets ? nlohmann::json(r.meshlet_build_ms) : nlohmann::json(nullptr)},
          // Levels of detail (docs/lod.md): --lod, the host time the chain took, and the memory
          // of the coarser levels' indices against the base meshes' indices and vertices; on the
          // meshlet path also the meshlets of both (GPU bytes; null on the indexed path), and the
          // figure the issue bounds by 1: all LOD data over all base mesh data.
          {"lod", plan.lod ? "auto" : "off"},
          {"lod_build_ms", scene.lod_build_ms},
          {"lod_index_bytes", lod_index_bytes(scene)},
          {"base_mesh_bytes", base_mesh_bytes(scene)},
          {"lod_meshlet_bytes", r.meshlets ? nlohmann::json(r.lod_meshlet_bytes) : nlohmann::json(nullptr)},
          {"base_meshlet_bytes", r.meshlets ? nlohmann::json(r.base_meshlet_bytes) : nlohmann::json(nullptr)},
          {"lod_memory_fraction", double(lod_index_bytes(scene) + r.lod_meshlet_bytes) /
                                      double(std::max<uint64_t>(1, base_mesh_bytes(scene) + r.base_meshlet_bytes))}}},
        {"frame", {{"width", options.width}, {"height", options.height}, {"frames", options.frames}, {"warmup", options.warmup}}},
        {"timings_ms", timings},
        {"counters", counters},
        {"bandwidth", bandwidth},
        {"renderer", renderer_json(renderer_config(options, plan, {options.width, options.height}))},
        {"validation", {{"enabled", options.validate}, {"messages", validation_message_count()}}},
        {"outputs", {{"screenshot", path_or_null(r.screenshot)}, {"mip", path_or_null(r.mip)}, {"ray", path_or_null(r.ray)},
                     // --mip-dump: the dumped mip against the CPU box filter of the same frame, and
                     // (subgroup, forward) against the compute fallback's mip of that frame.
                     {"mip_check", r.mip.empty() ? nlohmann::json(nullptr)
                                                 : nlohmann::json{{"texels", r.mip_check.texels},
                                                                  {"mismatched", r.mip_check.mismatched},
                                                                  {"fallback_mismatched", r.mip_check.fallback_mismatched
                                                                       ? nlohmann::json(*r.mip_check.fallback_mismatched)
                                                                       : nlohmann::json(nullptr)},
                                                                  {"first_mismatch", r.mip_check.mismatched
                                                                       ? nlohmann::json{r.mip_check.first_x, r.mip_check.first_y}
                                                                       : nlohmann::json(nullptr)}}}}},
    };
}

void print_info(const Context& ctx, const Plan& plan) {
    const SubgroupCaps& s = ctx.subgroup;
    const SubgroupCaps& raw = ctx.subgroup_unmasked;
    printf("Device      %s (%s)\n", ctx.info.name.c_str(), ctx.info.type.c_str());
    printf("Driver      %s, Vulkan %s\n", ctx.info.driver.c_str(), ctx.info.api_version.c_str());
    printf("Subgroup    size %u (min %u, max %u), size control %s, full subgroups %s\n", s.size, s.min_size,
           s.max_size, s.size_control ? "yes" : "no", s.full_subgroups ? "yes" : "no");
    std::string required;  // the stages a pipeline may require a size of (--subgroup-size)
    for (const StageInfo& st : kStages)
        if (raw.required_size_stages & bit(st.stage)) required += (required.empty() ? "" : ", ") + std::string(stage_name(st.stage));
    printf("            sizes required in %s", required.empty() ? "no stage" : required.c_str());
    if (ctx.subgroup_size) printf("; --subgroup-size %u", ctx.subgroup_size);
    printf("\n\n");

    auto mark = [](bool device, bool masked) { return !device ? "no" : masked ? "masked" : "yes"; };
    printf("%-14s %s\n", "stage", "subgroups");
    for (const StageInfo& st : kStages)
        printf("%-14s %s\n", std::string(stage_name(st.stage)).c_str(), mark(raw.has(st.stage), s.masked_stages & bit(st.stage)));
    printf("\n%-17s %s\n", "operation", "supported");
    for (uint32_t i = 0; i < uint32_t(Op::count); ++i) {
        Op op = Op(i);
        printf("%-17s %s\n", std::string(op_name(op)).c_str(), mark(raw.has(op), s.masked_ops & bit(op)));
    }
    printf("%-17s %s\n", "quad (all stages)", s.quad_in_all_stages ? "yes" : "no");
    printf("\nfeatures: tessellation %s, geometry %s, fragment stores %s, multi-draw indirect %s, quad control %s, "
           "maximal reconvergence %s, mesh shaders %s, ray-tracing pipelines %s\n",
           ctx.features.tessellation ? "yes" : "no", ctx.features.geometry ? "yes" : "no",
           ctx.features.fragment_stores ? "yes" : "no", ctx.features.multi_draw_indirect ? "yes" : "no",
           ctx.features.quad_control ? "yes" : "no", ctx.features.maximal_reconvergence ? "yes" : "no",
           ctx.features.mesh_shader ? "yes" : "no", ctx.features.ray_tracing ? "yes" : "no");

    // The source column: requested, capabilities, or the verdict's maker and date (quick, tune, compare).
    printf("\n%-12s %-10s %-12s %-18s %s\n", "pass", "requested", "variant", "source", "reason");
    auto row = [](const char* name, const PassPlan& p) {
        printf("%-12s %-10s %-12s %-18s %s\n", name, std::string(request_name(p.requested)).c_str(),
               std::string(variant_name(p.variant)).c_str(), source_text(p.source, p.measured_by, p.measured_on).c_str(),
               p.reason.c_str());
    };
    for (const PassInfo& pass : kPasses) row(std::string(pass.key).c_str(), plan[pass.id]);
    // --shading: forward or visibility; visibility's variant is its derivatives' (docs/visibility.md).
    const ShadingPlan& shading = plan.shading;
    printf("%-12s %-10s %-12s %-18s %s\n", "shading", std::string(shading_request_name(shading)).c_str(),
           std::string(shading_variant_name(shading)).c_str(),
           source_text(shading.source, shading.measured_by, shading.measured_on).c_str(), shading.reason.c_str());
    // --raster: hardware, or the compute rasterizer's path (docs/raster.md).
    const RasterPlan& raster = plan.raster;
    printf("%-12s %-10s %-16s %-13s %s\n", "raster", raster.requested ? std::string(raster_name(*raster.requested)).c_str() : "auto",
           raster_variant_name(raster).c_str(), std::string(plan_source_name(raster.source)).c_str(), raster.reason.c_str());

    printf("\n%-16s %-13s %s\n", "debug view", "stage", "variant / reason");
    for (ViewMode mode : {ViewMode::lane_id, ViewMode::first_last_lane, ViewMode::active_lanes})
        for (const StageInfo& st : kStages) {
            ViewPlan v = plan_view(s, ctx.features, mode, st.stage);
            bool chosen = mode == plan.view.mode && st.stage == plan.view.stage;
            printf("%-16s %-13s %s: %s%s\n", std::string(view_mode_name(mode)).c_str(), std::string(stage_name(st.stage)).c_str(),
                   std::string(variant_name(v.variant)).c_str(), v.reason.c_str(), chosen ? "   <- selected" : "");
        }
}
