// The cull pass alone, dispatched in-process without drawing anything: so it runs, and is
// checked, at every lavapipe width, including 512 bits (16 lanes) where lavapipe on the CI
// machine cannot compile graphics pipelines and every drawing test is skipped (docs/testing.md).
// Oracles: the CPU reference (exactly, on the designed scene; up to borderline triangles on the
// bundled scene), subgroup against fallback (exactly), and the report counter against what was
// written. Validation with synchronization validation must stay silent.
#include <gtest/gtest.h>

#include "gpu_compute/compute_harness.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <memory>
#include <unistd.h>

#include "gpu/cull_scenes.h"
#include "passes/cull_pass.h"
#include "render/cull_reference.h"
#include "scene/lod.h"
#include "scoped_env.h"

namespace {


std::string fresh_dir(const std::string& name) {
    const char* sg = getenv("SGD_EXPECT_SUBGROUP");
    std::filesystem::path dir = std::filesystem::temp_directory_path() / "subgroup-demo-tests" /
                                ("CullCompute." + name + ".sg" + (sg ? sg : "x") + "." + std::to_string(getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir.string();
}

struct CullOutput {
    std::vector<std::vector<uint32_t>> drawn;
    uint32_t triangles_visible = 0;
    uint32_t lookback_fallbacks = 0;  // predecessors a workgroup counted itself (GpuCounters)
};

// One frame of the cull pass only: what Renderer::record() does before the depth pass. The pass
// (and so its look-back state) is kept from one run to the next while the group size and the
// look-back schedule (SGD_CULL_LOOKBACK) stay the same, as the renderer keeps it from frame to
// frame: every run after the first starts from the state the one before left.
class CullOnly {
public:
    CullOnly(const Context& ctx, const Scene& scene) : ctx_(ctx) {
        upload_scene(ctx, scene, gpu_);
        uniforms_ = create_buffer(ctx, sizeof(FrameUniforms), VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, MemoryKind::host_upload,
                                  "uniforms");
        lights_ = create_buffer(ctx, sizeof(GpuLight), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, MemoryKind::host_upload, "lights");
        counters_ = create_buffer(ctx, sizeof(GpuCounters),
                                  VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                                      VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                  MemoryKind::device_local, "counters");
    }

    const GpuScene& gpu() const { return gpu_; }
    // The next run creates the pass afresh: its look-back state as create() leaves it.
    void forget() { pass_.reset(); }

    // lod_camera: --lod auto seen from that camera (its position and projection choose the levels),
    // else --lod off.
    CullOutput run(Request variant, uint32_t group_size, const glm::mat4& view_proj, VkExtent2D extent,
                   const Camera* lod_camera = nullptr) {
        PlanRequest request;
        request[PassId::cull] = variant;
        request.lod = lod_camera != nullptr;
        Plan plan = make_plan(ctx_.subgroup, ctx_.features, request);
        LookbackSchedule schedule = lookback_schedule();
        if (!pass_ || pass_->group_size != group_size || pass_->schedule.late_group != schedule.late_group ||
            pass_->schedule.spin_limit != schedule.spin_limit) {
            pass_ = std::make_unique<CullPass>();
            pass_->create(ctx_, gpu_, group_size);
        }
        CullPass& pass = *pass_;
        FrameTargets targets;
        targets.extent = extent;  // the pass reads only the size
        FrameUniforms u{};
        u.view_proj = view_proj;
        u.sizes = {extent.width, extent.height, 0, 0};
        u.tiles = {1, 1, 0, gpu_.draw_count};
        if (lod_camera) {
            glm::mat4 projection = lod_camera->projection(float(extent.width) / float(extent.height));
            u.camera_position = glm::vec4(lod_camera->position, 1.0f);
            u.projection = {projection[0][0], projection[1][1], lod_camera->near_plane, lod_camera->far_plane};
        }
        memcpy(uniforms_.mapped, &u, sizeof(u));
        GpuTimer timer(ctx_);

        VkCommandBuffer cmd = begin_one_shot(ctx_);
        timer.reset(cmd);
        zero_before_compute(cmd, counters_, sizeof(GpuCounters));
        FrameContext f{ctx_, cmd, timer, gpu_, targets, plan, uniforms_, lights_, counters_, 0, 0};
        pass.record(f);
        EXPECT_EQ(f.draw_indices, &pass.culled_indices);  // the scene passes would draw the culled output
        EXPECT_EQ(f.draw_indirect, &pass.indirect);
        end_one_shot(ctx_, cmd);

        CullOutput out;
        out.drawn = read_drawn_indices(ctx_, pass.culled_indices, pass.indirect, gpu_.draw_count);
        Buffer readback = create_buffer(ctx_, sizeof(GpuCounters), VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                        MemoryKind::host_readback, "counters readback");
        cmd = begin_one_shot(ctx_);
        memory_barrier(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_MEMORY_WRITE_BIT,
                       VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_READ_BIT);
        VkBufferCopy region{0, 0, sizeof(GpuCounters)};
        vkCmdCopyBuffer(cmd, counters_.buffer, readback.buffer, 1, &region);
        end_one_shot(ctx_, cmd);
        GpuCounters counters;
        memcpy(&counters, readback.mapped, sizeof(counters));
        out.triangles_visible = counters.triangles_visible;
        out.lookback_fallbacks = counters.cull_lookback_fallbacks;
        return out;
    }

private:
    const Context& ctx_;
    GpuScene gpu_;
    std::unique_ptr<CullPass> pass_;
    Buffer uniforms_, lights_, counters_;
};


// --cull-group-size 64, 61, 5, 1 and 1024: partial subgroups in every workgroup at 4, 8 and 16
// lanes, one triangle per workgroup, and one workgroup per draw. At each size three dispatches
// share the look-back state (subgroup, fallback, subgroup), as frames do. One test per size, so
// each runs in a process of its own and ctest runs them side by side: in one process the five
// sizes' cold LLVM compiles at 16 lanes took 116 s, each in its own 5-10 s (issue 39).
class CullComputeAtGroupSize : public testing::TestWithParam<uint32_t> {};

// The bundled scene at its default view at 256x144, and the CPU reference's survivors there.
struct BundledView {
    Scene scene;
    std::vector<GpuDraw> draws;
    VkExtent2D extent{256, 144};
    glm::mat4 view_proj{1.0f};
    CullReference ref;
};

BundledView bundled_scene_at_its_default_view() {
    BundledView b;
    b.scene = load_scene(SGD_DEFAULT_SCENE);
    b.draws = build_draws(b.scene);
    Camera camera = default_camera(b.scene.bounds_min, b.scene.bounds_max);
    b.view_proj = camera.projection(float(b.extent.width) / float(b.extent.height)) * camera.view();
    b.ref = cull_reference(b.scene, b.draws, b.view_proj, make_cull_params(b.extent.width, b.extent.height, 8));
    return b;
}

TEST_P(CullComputeAtGroupSize, DesignedSceneMatchesTheReferenceExactly) {
    const uint32_t group_size = GetParam();
    DesignedMesh mesh = designed_mesh();
    Scene scene = load_scene(write_designed_gltf(fresh_dir("designed"), mesh));
    std::vector<GpuDraw> draws = build_draws(scene);
    CullReference ref = cull_reference(scene, draws, designed_view_proj(),
                                       make_cull_params(kDesignedWidth, kDesignedHeight, 8));
    expect_reference_matches_design(mesh, draws, ref);

    ValidatedContext v;
    ASSERT_EQ(v.ctx.subgroup.size, uint32_t(expected_subgroup_size()));
    ASSERT_EQ(v.ctx.properties.limits.subPixelPrecisionBits, 8u) << "the reference above assumed 8 bits";
    CullOnly cull(v.ctx, scene);
    for (Request variant : {Request::subgroup, Request::fallback, Request::subgroup}) {
        std::string what = std::string(request_name(variant)) + " at group size " + std::to_string(group_size);
        SCOPED_TRACE(what);
        CullOutput out = cull.run(variant, group_size, designed_view_proj(), {kDesignedWidth, kDesignedHeight});
        EXPECT_EQ(expect_same_survivors(scene, draws, ref, out.drawn, what), 0u);
        EXPECT_EQ(out.triangles_visible, ref.visible());
        // Nothing here is borderline, so the output is the reference's list slot by slot.
        ASSERT_EQ(out.drawn.size(), draws.size());
        for (size_t d = 0; d < draws.size(); ++d)
            EXPECT_EQ(out.drawn[d], reference_indices(scene, draws[d], ref.survivors[d])) << "draw " << d;
    }
    EXPECT_EQ(validation_message_count(), v.messages_before) << "validation messages (printed above)";
}

INSTANTIATE_TEST_SUITE_P(Sizes, CullComputeAtGroupSize, testing::Values(64u, 61u, 5u, 1u, 1024u),
                         [](const auto& info) { return "group_size_" + std::to_string(info.param); });

// The order check itself: on a real output with a draw of several survivors, swapping two of them
// must be caught (and the output as written must pass).
TEST(CullCompute, InputOrderCheckCatchesTwoSwappedSurvivors) {
    DesignedMesh mesh = designed_mesh();
    Scene scene = load_scene(write_designed_gltf(fresh_dir("designed-swap"), mesh));
    std::vector<GpuDraw> draws = build_draws(scene);
    ValidatedContext v;
    CullOnly cull(v.ctx, scene);
    CullOutput out = cull.run(Request::subgroup, 61, designed_view_proj(), {kDesignedWidth, kDesignedHeight});
    ASSERT_FALSE(out.drawn.empty());
    std::vector<uint32_t> drawn = out.drawn[0];
    ASSERT_GE(drawn.size(), 6u) << "the designed scene keeps several triangles of its first draw";
    EXPECT_EQ(input_order_violation(scene, draws[0], drawn), std::nullopt);
    std::swap_ranges(drawn.begin(), drawn.begin() + 3, drawn.end() - 3);
    EXPECT_NE(input_order_violation(scene, draws[0], drawn), std::nullopt) << "two swapped survivors went unnoticed";
    EXPECT_EQ(validation_message_count(), v.messages_before) << "validation messages (printed above)";
}

// The bundled scene at its default view: subgroup and fallback write the same list at group
// sizes with and without partial subgroups, and at size 1 with 299,928 workgroups (a 2D grid on
// lavapipe, whose grid dimensions stop at 65535).
TEST(CullCompute, BundledSceneSubgroupAndFallbackWriteTheSameListAndMatchTheReference) {
    auto [scene, draws, extent, view_proj, ref] = bundled_scene_at_its_default_view();

    ValidatedContext v;
    ASSERT_EQ(v.ctx.subgroup.size, uint32_t(expected_subgroup_size()));
    CullOnly cull(v.ctx, scene);
    for (uint32_t group_size : {64u, 61u, 1u}) {
        SCOPED_TRACE("group size " + std::to_string(group_size));
        CullOutput sub = cull.run(Request::subgroup, group_size, view_proj, extent);
        CullOutput fall = cull.run(Request::fallback, group_size, view_proj, extent);
        ASSERT_EQ(sub.drawn.size(), draws.size());
        ASSERT_EQ(fall.drawn.size(), draws.size());
        // The same output slot by slot, not only the same set: both keep input order.
        for (size_t d = 0; d < draws.size(); ++d) ASSERT_EQ(sub.drawn[d], fall.drawn[d]) << "draw " << d;
        expect_same_survivors(scene, draws, ref, sub.drawn, "subgroup");
        // And the same on a second run: no atomic race decides where a survivor goes.
        CullOutput again = cull.run(Request::subgroup, group_size, view_proj, extent);
        EXPECT_TRUE(again.drawn == sub.drawn) << "a second subgroup run wrote another order";
        EXPECT_EQ(sub.triangles_visible, triangle_total(sub.drawn));
        EXPECT_EQ(fall.triangles_visible, sub.triangles_visible);
    }
    EXPECT_EQ(validation_message_count(), v.messages_before) << "validation messages (printed above)";
}

// The look-back state is never reset by a pass of its own: each dispatch's words carry its parity,
// and the ticket counter goes back to 0 every second dispatch (cull.comp). Two views take turns on
// one pass, four dispatches, with levels of detail on: the views keep different triangles, and
// some draws choose another level in each (a level unused in one dispatch still writes its words,
// so none is left from two dispatches before). Each dispatch must write what a fresh pass writes
// for its view; a word of an earlier dispatch read as this one's would move survivors. The four
// dispatches run under the late schedule, where successors look at words before they are written.
TEST(CullCompute, LookbackStateCarriesFromDispatchToDispatchWithoutAReset) {
    Scene scene = load_scene(SGD_DEFAULT_SCENE);
    build_lod_chain(scene);
    std::vector<GpuDraw> draws = build_draws(scene);
    Camera camera = default_camera(scene.bounds_min, scene.bounds_max);
    const VkExtent2D extents[2] = {{256, 144}, {96, 54}};
    glm::mat4 view_proj[2];
    for (int i = 0; i < 2; ++i)
        view_proj[i] = camera.projection(float(extents[i].width) / float(extents[i].height)) * camera.view();

    ValidatedContext v;
    ASSERT_EQ(v.ctx.subgroup.size, uint32_t(expected_subgroup_size()));
    CullOnly cull(v.ctx, scene);
    CullOutput fresh[2];
    for (int i = 0; i < 2; ++i) {
        cull.forget();
        fresh[i] = cull.run(Request::subgroup, 64, view_proj[i], extents[i], &camera);
    }
    ASSERT_NE(fresh[0].triangles_visible, fresh[1].triangles_visible) << "the two views must keep different triangles";
    // Some draw keeps a different level in each view (its kept triangles are not in the other's level).
    size_t level_changes = 0;
    for (size_t d = 0; d < draws.size(); ++d) {
        const std::vector<uint32_t>& a = fresh[0].drawn[d];
        const std::vector<uint32_t>& b = fresh[1].drawn[d];
        if (a.empty() || b.empty()) continue;
        std::vector<Triangle> ta = triangles_of(a), tb = triangles_of(b);
        std::vector<Triangle> common;
        std::set_intersection(ta.begin(), ta.end(), tb.begin(), tb.end(), std::back_inserter(common));
        level_changes += common.empty();
    }
    EXPECT_GT(level_changes, 0u) << "no draw changed its level between the views";
    // Under the late schedule (below) successors read their predecessors' words before those are
    // written: what they find there is the last dispatch's word, which must read NOT READY.
    ScopedEnv late("SGD_CULL_LOOKBACK", "late@4");
    cull.forget();
    for (int dispatch = 0; dispatch < 4; ++dispatch) {
        int i = dispatch % 2;
        SCOPED_TRACE("dispatch " + std::to_string(dispatch));
        CullOutput out = cull.run(Request::subgroup, 64, view_proj[i], extents[i], &camera);
        EXPECT_EQ(out.triangles_visible, fresh[i].triangles_visible);
        ASSERT_EQ(out.drawn.size(), draws.size());
        for (size_t d = 0; d < draws.size(); ++d) ASSERT_EQ(out.drawn[d], fresh[i].drawn[d]) << "draw " << d;
    }
    EXPECT_EQ(validation_message_count(), v.messages_before) << "validation messages (printed above)";
}

// Forward progress. Lavapipe runs the workgroups of a dispatch on LP_NUM_THREADS threads, each to
// its end: on one thread a workgroup that spins on a predecessor not yet started would spin
// forever. SGD_CULL_LOOKBACK=late@K hands out the partitions of each run of K tickets last first,
// so on one thread every run's first workgroup finds its predecessors not started, and on two most
// do: only the fallback (counting a predecessor from the input) lets them finish. The output must
// be the natural schedule's slot by slot, in both variants, with the default spin and with none;
// and the fallback must have run (GpuCounters::cull_lookback_fallbacks). On one thread, with the
// natural schedule, every predecessor has finished before its successor starts: nothing falls back.
TEST(CullCompute, LateScheduleFallsBackAndWritesTheSameListOnOneAndTwoThreads) {
    auto [scene, draws, extent, view_proj, ref] = bundled_scene_at_its_default_view();

    for (const char* threads : {"1", "2"}) {
        SCOPED_TRACE(std::string("LP_NUM_THREADS=") + threads);
        ScopedEnv lp_threads("LP_NUM_THREADS", threads);  // read when the instance is created
        ValidatedContext v;
        ASSERT_EQ(v.ctx.subgroup.size, uint32_t(expected_subgroup_size()));
        CullOnly cull(v.ctx, scene);
        CullOutput natural = cull.run(Request::subgroup, 61, view_proj, extent);
        expect_same_survivors(scene, draws, ref, natural.drawn, "natural schedule");
        if (std::string(threads) == "1") EXPECT_EQ(natural.lookback_fallbacks, 0u);
        for (const char* schedule : {"late@8", "late@8,spin@0"})
            for (Request variant : {Request::subgroup, Request::fallback}) {
                SCOPED_TRACE(std::string(schedule) + " " + std::string(request_name(variant)));
                ScopedEnv knob("SGD_CULL_LOOKBACK", schedule);
                CullOutput late = cull.run(variant, 61, view_proj, extent);
                EXPECT_GT(late.lookback_fallbacks, 0u) << "the fallback never ran";
                EXPECT_EQ(late.triangles_visible, natural.triangles_visible);
                ASSERT_EQ(late.drawn.size(), draws.size());
                for (size_t d = 0; d < draws.size(); ++d) ASSERT_EQ(late.drawn[d], natural.drawn[d]) << "draw " << d;
            }
        EXPECT_EQ(validation_message_count(), v.messages_before) << "validation messages (printed above)";
    }
}

}  // namespace
