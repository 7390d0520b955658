#include "run/report.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "run/cull_dump.h"
#include "run/image_io.h"
#include "run/limits.h"
#include "passes/cull_pass.h"
#include "passes/debug_view_pass.h"
#include "passes/exposure_pass.h"
#include "passes/pass_unit.h"
#include "passes/ray_trace_pass.h"
#include "render/exposure_reference.h"
#include "render/mip_reference.h"
#include "render/tonemap.h"
#include "render/gpu_scene.h"
#include "scene/lod.h"

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
    // The ray tracer's launch: subgroup or fallback, the dense lists' compaction; off, per pixel.
    j["ray_trace"]["lists"] = variant_name(plan.ray_lists);
    j["ray_trace"]["lists_reason"] = plan.ray_lists_reason;
    // Whether the frames refit the lights' BLAS and the TLAS (false: rebuilt every frame).
    j["ray_trace"]["refit"] = plan.ray_refit;
    j["geometry"] = {{"mode", geometry_name(plan.geometry)},
                     {"reason", plan.geometry == Geometry::meshlet
                                    ? "task + mesh shaders over meshlets; --cull applies to their culling"
                                    : "compute cull pass + indexed indirect draws"}};
    j["shading"] = {{"requested", shading_request_name(plan.shading)},
                    {"mode", shading_name(plan.shading.shading)},
                    {"derivatives", variant_name(plan.shading.derivatives)},
                    {"derivatives_requested", request_name(plan.shading.derivatives_requested)},
                    {"light_loop", variant_name(plan.shading.light_loop)},
                    {"materials", variant_name(plan.shading.materials)},
                    {"materials_requested", request_name(plan.shading.materials_requested)},
                    {"materials_reason", plan.shading.materials_reason},
                    {"quad_mip", plan.shading.quad_mip},
                    {"reason", plan.shading.reason},
                    {"source", plan_source_name(plan.shading.source)},
                    {"measured_by", measured_by_json(plan.shading.measured_by)},
                    {"measured_on", measured_by_json(plan.shading.measured_on)}};
    j["textures"] = {{"mode", texture_mode_name(plan.textures)}, {"reason", plan.textures.reason}};
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

namespace {

// Where the compute rasterizer's depth and late_depth go (docs/raster.md, "Counters"): per timer,
// the median of each piece over the measured frames it was recorded in, and how many.
nlohmann::json raster_dispatch_json(const RunResult& r) {
    nlohmann::json timers = nlohmann::json::object();
    for (size_t t = 0; t < kPiecedTimers.size(); ++t)
        for (size_t p = 0; p < kRasterPieceCount; ++p)
            if (!r.raster_pieces[t][p].empty()) {
                TimingStats s = summarize(r.raster_pieces[t][p]);
                timers[std::string(timer_info(kPiecedTimers[t]).key)][std::string(kRasterPieceKeys[p])] = {{"median", s.median},
                                                                                                            {"frames", s.frames}};
            }
    return timers;
}

}  // namespace

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
    // --raster compute (docs/raster.md): who rasterized the instrumented frame's triangles and who
    // wrote its pixels; null under the hardware pre-pass.
    counters["raster"] = nullptr;
    if (plan.shading.shading == Shading::visibility && plan.raster.raster == Raster::compute) {
        const GpuCounters& i = r.instrumented;
        counters["raster"] = {{"compute_path", plan.raster.variant == Variant::subgroup ? "subgroup" : "fallback"},
                              {"triangles_compute", i.raster_triangles[0]},
                              {"triangles_hardware", i.raster_triangles[1]},
                              {"pixels_covered", i.raster_pixels_covered},
                              {"pixels_compute", i.raster_pixels_covered - std::min(i.raster_pixels_covered, i.raster_pixels_hardware)},
                              {"pixels_hardware", i.raster_pixels_hardware},
                              {"paths", {{"per_lane", {{"triangles", i.raster_path_triangles[0]}, {"pixels", i.raster_path_pixels[0]}}},
                                         {"split", {{"triangles", i.raster_path_triangles[1]}, {"pixels", i.raster_path_pixels[1]}}},
                                         {"tile_bin", {{"triangles", i.raster_path_triangles[2]}, {"pixels", i.raster_path_pixels[2]}}},
                                         {"hardware", {{"triangles", i.raster_triangles[1]}, {"pixels", i.raster_pixels_hardware}}}}},
                              {"dispatch_ms", raster_dispatch_json(r)}};
    }
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
    // The visibility shading pass's material waterfall (docs/materials.md), in the instrumented
    // frame: subgroups that shaded a pixel and the waterfall's trips (one per distinct material of
    // each); null without the waterfall.
    counters["material_waterfall"] = nullptr;
    if (plan.shading.materials == Variant::subgroup && r.instrumented.material_subgroups)
        counters["material_waterfall"] = {
            {"subgroups", r.instrumented.material_subgroups},
            {"trips", r.instrumented.material_trips},
            {"trips_per_subgroup", double(r.instrumented.material_trips) / double(r.instrumented.material_subgroups)}};
    nlohmann::json timings = nlohmann::json::object();
    for (size_t p = 0; p < r.timings.size(); ++p)
        if (r.ran[p])
            timings[std::string(kTimers[p].key)] = {{"median", r.timings[p].median}, {"min", r.timings[p].min}, {"max", r.timings[p].max},
                                                    {"frames", r.timings[p].frames}};
    // The physical measure of the ray tracer: rays per second of each kind (the contract's "ray
    // counts per type with rays per second"), over the pass's median time.
    const size_t ray_timer = size_t(Timer::ray_trace);
    if (counters.contains("ray_trace") && counters["ray_trace"].is_object())
        counters["ray_trace"]["rays_per_second"] =
            r.ran[ray_timer] ? ray_trace_rays_per_second(counters["ray_trace"]["rays"], r.timings[ray_timer].median) : nlohmann::json(nullptr);
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
          // Every texture at its own size with its full mip chain (docs/scenes.md, "Textures"): GPU
          // bytes, and the host time of building the chains and uploading them.
          {"texture_bytes", r.texture_bytes},
          {"texture_ms", r.texture_ms},
          {"texture_anisotropy", sampler_anisotropy(ctx)},
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
        // The process's pipelines (vk/resources.h): compiled at first use or ahead on threads
        // (SGD_PIPELINE_COMPILE), how many were used, the seconds their first use waited, and
        // how many compiles started ahead (used or not).
        {"pipelines", {{"compile", ctx.compile_ahead ? "ahead" : "first-use"}, {"compiled", pipeline_compiles().count},
                       {"seconds", pipeline_compiles().seconds}, {"started_ahead", pipeline_compiles().ahead}}},
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
