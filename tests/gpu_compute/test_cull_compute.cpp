// The cull pass alone, dispatched in-process without drawing anything: so it runs, and is
// checked, at every lavapipe width, including 512 bits (16 lanes) where lavapipe on the CI
// machine cannot compile graphics pipelines and every drawing test is skipped (docs/testing.md).
// Oracles: the CPU reference (exactly, on the designed scene; up to borderline triangles on the
// bundled scene), subgroup against fallback (exactly), and the report counter against what was
// written. Validation with synchronization validation must stay silent.
#include <gtest/gtest.h>

#include "gpu_compute/compute_harness.h"

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <unistd.h>

#include "gpu/cull_scenes.h"
#include "passes/cull_pass.h"
#include "render/cull_reference.h"

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
};

// One frame of the cull pass only: what Renderer::record() does before the depth pass.
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

    CullOutput run(Request variant, uint32_t group_size, const glm::mat4& view_proj, VkExtent2D extent) {
        PlanRequest request;
        request[PassId::cull] = variant;
        Plan plan = make_plan(ctx_.subgroup, ctx_.features, request);
        CullPass pass;
        pass.create(ctx_, gpu_, group_size);
        FrameTargets targets;
        targets.extent = extent;  // the pass reads only the size
        FrameUniforms u{};
        u.view_proj = view_proj;
        u.sizes = {extent.width, extent.height, 0, 0};
        u.tiles = {1, 1, 0, gpu_.draw_count};
        memcpy(uniforms_.mapped, &u, sizeof(u));
        GpuTimer timer(ctx_);

        VkCommandBuffer cmd = begin_one_shot(ctx_);
        timer.reset(cmd);
        vkCmdFillBuffer(cmd, counters_.buffer, 0, sizeof(GpuCounters), 0);
        memory_barrier(cmd, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                       VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                       VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
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
        return out;
    }

private:
    const Context& ctx_;
    GpuScene gpu_;
    Buffer uniforms_, lights_, counters_;
};


TEST(CullCompute, DesignedSceneMatchesTheReferenceExactlyAtAnyGroupSize) {
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
    for (Request variant : {Request::subgroup, Request::fallback})
        for (uint32_t group_size : {64u, 61u, 5u, 1u}) {
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
    Scene scene = load_scene(SGD_DEFAULT_SCENE);
    std::vector<GpuDraw> draws = build_draws(scene);
    const VkExtent2D extent{256, 144};
    Camera camera = default_camera(scene.bounds_min, scene.bounds_max);
    glm::mat4 view_proj = camera.projection(float(extent.width) / float(extent.height)) * camera.view();
    CullReference ref = cull_reference(scene, draws, view_proj, make_cull_params(extent.width, extent.height, 8));

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

}  // namespace
