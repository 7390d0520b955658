// The other compute passes alone, in-process, without drawing anything: light culling (subgroup:
// ballot-aggregated appends; fallback: one atomic per entry) and the mip fallback (2x2 downsample).
// Like the cull pass (test_cull_compute.cpp) they run, and are checked, at every lavapipe width,
// including 512 bits (16 lanes) where lavapipe cannot compile a graphics pipeline
// (docs/testing.md). The inputs a draw would have made are uploaded instead:
// - light culling reads a synthetic reversed-Z depth buffer (a slanted, rippled surface with
//   background tiles); oracle: the CPU reference (tests/oracles/light_reference.cpp) as sets per
//   tile, up to borderline pairs, and subgroup against fallback;
// - (the mip fallback and the exposure reduction: test_exposure_compute.cpp);
// - the compute-stage debug views (lane-id, first-last-lane) over an uploaded frame; oracle: the
//   subgroup size the device reports, and how subgroups tile a 16x16 workgroup.
// Validation with synchronization validation must stay silent.
#include <gtest/gtest.h>

#include "gpu_compute/compute_harness.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>

#include "passes/debug_view_pass.h"
#include "passes/light_cull_pass.h"
#include "passes/mip_pass.h"
#include "oracles/light_reference.h"
#include "scene/camera.h"
#include "scene/lights.h"

namespace {

GpuCounters read_counters(const Context& ctx, const Buffer& counters) {
    Buffer readback = create_buffer(ctx, sizeof(GpuCounters), VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryKind::host_readback,
                                    "counters readback");
    VkCommandBuffer cmd = begin_one_shot(ctx);
    memory_barrier(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_MEMORY_WRITE_BIT, VK_PIPELINE_STAGE_2_COPY_BIT,
                   VK_ACCESS_2_TRANSFER_READ_BIT);
    VkBufferCopy region{0, 0, sizeof(GpuCounters)};
    vkCmdCopyBuffer(cmd, counters.buffer, readback.buffer, 1, &region);
    end_one_shot(ctx, cmd);
    GpuCounters c;
    memcpy(&c, readback.mapped, sizeof(c));
    return c;
}

// What one compute pass needs of a frame, filled the way Renderer::record() fills it.
struct ComputeFrame {
    const Context& ctx;
    Scene scene;
    GpuScene gpu;
    FrameTargets targets;
    Buffer uniforms, lights, counters;
    FrameUniforms u{};
    std::vector<GpuLight> light_data;

    ComputeFrame(const Context& c, VkExtent2D extent, uint32_t light_count, uint32_t frame_index)
        : ctx(c), scene(load_scene(SGD_DEFAULT_SCENE)) {
        upload_scene(ctx, scene, gpu);
        create_frame_targets(ctx, extent, targets);
        // The pre-pass would have written the depth; here it is uploaded, so it is a copy target too.
        targets.depth = create_image(ctx, extent, kDepthFormat,
                                     VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT |
                                         VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
                                     "depth (uploaded)");
        Camera camera = default_camera(scene.bounds_min, scene.bounds_max);
        glm::mat4 projection = camera.projection(float(extent.width) / float(extent.height));
        u.view = camera.view();
        u.view_proj = projection * u.view;
        u.camera_position = glm::vec4(camera.position, 1.0f);
        u.sizes = {extent.width, extent.height, light_count, frame_index};
        u.tiles = {(extent.width + kTileSize - 1) / kTileSize, (extent.height + kTileSize - 1) / kTileSize,
                   kLightListCapacity, gpu.draw_count};
        u.projection = {projection[0][0], projection[1][1], camera.near_plane, camera.far_plane};
        uniforms = create_buffer(ctx, sizeof(FrameUniforms), VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, MemoryKind::host_upload,
                                 "uniforms");
        memcpy(uniforms.mapped, &u, sizeof(u));
        for (const PointLight& l : animate_lights(light_count, frame_index, scene.bounds_min, scene.bounds_max))
            light_data.push_back({glm::vec4(l.position, l.radius), glm::vec4(l.color, 0.0f)});
        lights = create_buffer(ctx, sizeof(GpuLight) * std::max<size_t>(1, light_data.size()),
                               VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, MemoryKind::host_upload, "lights");
        memcpy(lights.mapped, light_data.data(), sizeof(GpuLight) * light_data.size());
        counters = create_buffer(ctx, sizeof(GpuCounters),
                                 VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                                     VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                 MemoryKind::device_local, "counters");
    }

    // Records `body` after zeroing the counters, as a frame does, and waits for it.
    template <typename Body>
    void run(const Plan& plan, Body body) {
        GpuTimer timer(ctx);
        VkCommandBuffer cmd = begin_one_shot(ctx);
        timer.reset(cmd);
        zero_before_compute(cmd, counters, sizeof(GpuCounters));
        FrameContext f{ctx, cmd, timer, gpu, targets, plan, uniforms, lights, counters, u.sizes.w, u.sizes.z};
        body(f);
        end_one_shot(ctx, cmd);
    }
};

// A reversed-Z depth buffer of a plausible scene: view distance rising from 30% to 150% of the
// camera's distance to the scene centre from the bottom of the frame to the top, rippled across
// (so tiles have a depth range), and background (0) in the top rows and in a few scattered tiles.
std::vector<float> synthetic_depth(const FrameUniforms& u, float centre_distance) {
    const uint32_t w = u.sizes.x, h = u.sizes.y;
    const double n = u.projection.z, far = u.projection.w;
    std::vector<float> depth(size_t(w) * h);
    for (uint32_t y = 0; y < h; ++y)
        for (uint32_t x = 0; x < w; ++x) {
            uint32_t tx = x / kTileSize, ty = y / kTileSize;
            bool background = y < h / 8 || (tx * 7 + ty * 3) % 11 == 0;
            double t = 1.0 - double(y) / h;  // 1 at the bottom row (near), 0 at the top
            double d = centre_distance * (1.5 - 1.2 * t) * (1.0 + 0.08 * std::sin(x * 0.21) * std::cos(y * 0.17));
            d = std::clamp(d, n * 1.01, far * 0.99);
            depth[size_t(y) * w + x] = background ? 0.0f : float((n * far / d - n) / (far - n));
        }
    return depth;
}

struct LightListsRun {
    std::vector<uint32_t> words;
    std::vector<TileList> tiles;
    GpuCounters counters{};
};

LightListsRun cull_lights(ComputeFrame& frame, const std::vector<float>& depth, Request variant) {
    PlanRequest request;
    request[PassId::light_cull] = variant;
    Plan plan = make_plan(frame.ctx.subgroup, frame.ctx.features, request);
    EXPECT_EQ(plan[PassId::light_cull].variant, variant == Request::subgroup ? Variant::subgroup : Variant::fallback)
        << plan[PassId::light_cull].reason;
    upload_image(frame.ctx, frame.targets.depth, depth.data(), 4, VK_IMAGE_ASPECT_DEPTH_BIT);
    LightCullPass pass;
    pass.create(frame.ctx, frame.targets.extent);
    frame.run(plan, [&](FrameContext& f) {
        pass.record(f);
        EXPECT_NE(f.light_lists, nullptr) << "the pass built no lists";
    });
    LightListsRun out;
    out.words = pass.read_lists(frame.ctx);
    out.tiles = decode_light_lists(out.words, pass.layout());
    out.counters = read_counters(frame.ctx, frame.counters);
    // Nothing written past the last list.
    EXPECT_EQ(out.words.size(), pass.layout().words() + kLightListGuardWords);
    for (size_t i = pass.layout().words(); i < out.words.size(); ++i)
        EXPECT_EQ(out.words[i], kLightListGuardValue) << "a write landed past the last list, at word " << i;
    return out;
}

TEST(LightCullCompute, ListsEqualTheCpuReferenceAndSubgroupEqualsFallback) {
    ValidatedContext v;
    ASSERT_EQ(v.ctx.subgroup.size, uint32_t(expected_subgroup_size()));
    for (auto [light_count, frame_index] : {std::pair{256u, 0u}, std::pair{2048u, 37u}}) {
        SCOPED_TRACE("lights " + std::to_string(light_count) + " frame " + std::to_string(frame_index));
        ComputeFrame frame(v.ctx, {320, 180}, light_count, frame_index);
        Camera camera = default_camera(frame.scene.bounds_min, frame.scene.bounds_max);
        float centre = glm::length(0.5f * (frame.scene.bounds_min + frame.scene.bounds_max) - camera.position);
        std::vector<float> depth = synthetic_depth(frame.u, centre);
        ReferenceLists ref = reference_light_lists(frame.u, frame.light_data, depth, kTileSize, 1e-5 * frame.u.projection.w);
        ASSERT_GT(ref.pairs, 200u) << "the synthetic surface should put lights in many tiles";
        EXPECT_LT(ref.borderline_pairs * 100, ref.pairs) << "over 1% of pairs are within rounding of the boundary";

        LightListsRun runs[2] = {cull_lights(frame, depth, Request::subgroup), cull_lights(frame, depth, Request::fallback)};
        for (const LightListsRun& run : runs) {
            ASSERT_EQ(run.tiles.size(), ref.tiles.size());
            uint64_t stored = 0, background_tiles = 0;
            for (size_t t = 0; t < ref.tiles.size(); ++t) {
                std::set<uint32_t> must(ref.tiles[t].lights.begin(), ref.tiles[t].lights.end());
                std::set<uint32_t> may(ref.tiles[t].borderline.begin(), ref.tiles[t].borderline.end());
                std::set<uint32_t> got(run.tiles[t].lights.begin(), run.tiles[t].lights.end());
                EXPECT_EQ(got.size(), run.tiles[t].lights.size()) << "tile " << t << " lists a light twice";
                EXPECT_EQ(run.tiles[t].count, run.tiles[t].lights.size()) << "tile " << t << ": nothing overflows here";
                for (uint32_t light : got)
                    EXPECT_TRUE(must.count(light) || may.count(light)) << "tile " << t << " lists light " << light;
                for (uint32_t light : must) EXPECT_TRUE(got.count(light)) << "tile " << t << " misses light " << light;
                if (!ref.tiles[t].has_geometry) {
                    ++background_tiles;
                    EXPECT_TRUE(got.empty()) << "background tile " << t << " has lights";
                }
                stored += got.size();
            }
            EXPECT_GT(background_tiles, 0u);
            EXPECT_EQ(run.counters.light_list_entries, stored);
            EXPECT_EQ(run.counters.light_list_overflow, 0u);
        }
        // The two variants build the same sets (the order within a list may differ).
        for (size_t t = 0; t < ref.tiles.size(); ++t)
            EXPECT_EQ(std::set<uint32_t>(runs[0].tiles[t].lights.begin(), runs[0].tiles[t].lights.end()),
                      std::set<uint32_t>(runs[1].tiles[t].lights.begin(), runs[1].tiles[t].lights.end()))
                << "tile " << t;
        printf("[ light-cull ] %u lights, subgroup size %u: %llu (tile, light) pairs, %llu borderline\n", light_count,
               v.ctx.subgroup.size, (unsigned long long)ref.pairs, (unsigned long long)ref.borderline_pairs);
    }
    EXPECT_EQ(validation_message_count(), v.messages_before) << "validation messages (printed above)";
}

// The lane-id and first-last-lane views in the compute stage (one invocation per pixel, 16x16
// workgroups) over an uploaded grey frame at 256x144: every pixel shows a palette lane; each run
// of `size` consecutive local invocation indices of a workgroup holds lanes 0..size-1 once each
// (a full subgroup); first-last marks exactly lane 0 and lane size-1 of each.
TEST(DebugViewCompute, LaneIdAndFirstLastTileWorkgroupsWithWholeSubgroups) {
    ValidatedContext v;
    ASSERT_EQ(v.ctx.subgroup.size, uint32_t(expected_subgroup_size()));
    const int size = int(v.ctx.subgroup.size);
    const VkExtent2D extent{256, 144};
    ASSERT_EQ(int(kViewWorkgroup * kViewWorkgroup) % size, 0);
    DebugViewPass pass;
    pass.create(v.ctx);
    std::map<ViewMode, std::vector<uint8_t>> images;
    for (ViewMode mode : {ViewMode::lane_id, ViewMode::first_last_lane}) {
        PlanRequest request;
        request.view = mode;
        request.view_stage = Stage::compute;
        Plan plan = make_plan(v.ctx.subgroup, v.ctx.features, request);
        ASSERT_EQ(plan.view.variant, Variant::subgroup) << plan.view.reason;
        ComputeFrame frame(v.ctx, extent, 1, 0);
        std::vector<uint8_t> grey(size_t(extent.width) * extent.height * 4, 128);
        upload_image(v.ctx, frame.targets.color, grey.data(), 4);
        frame.run(plan, [&](FrameContext& f) { pass.record(f, false); });
        images[mode] = read_image(v.ctx, frame.targets.color, 4);
    }
    std::map<uint32_t, int> palette;
    for (uint32_t lane = 0; lane < kLanePaletteSize; ++lane) palette[lane_colour(lane)] = int(lane);
    auto colour = [&](const std::vector<uint8_t>& image, size_t i) {
        return uint32_t(image[i * 4]) | uint32_t(image[i * 4 + 1]) << 8 | uint32_t(image[i * 4 + 2]) << 16 | 0xff000000u;
    };
    std::map<int64_t, std::multiset<int>> subgroups;
    int wrong = 0, first = 0, last = 0;
    for (uint32_t y = 0; y < extent.height; ++y)
        for (uint32_t x = 0; x < extent.width; ++x) {
            size_t i = size_t(y) * extent.width + x;
            auto it = palette.find(colour(images[ViewMode::lane_id], i));
            if (it == palette.end()) {
                if (++wrong <= 5) ADD_FAILURE() << "pixel " << x << "," << y << " is not a lane colour";
                continue;
            }
            int lane = it->second;
            int local = int(y % kViewWorkgroup) * int(kViewWorkgroup) + int(x % kViewWorkgroup);
            int64_t group = int64_t(y / kViewWorkgroup) * extent.width + x / kViewWorkgroup;
            subgroups[group * 4096 + (local - lane)].insert(lane);
            uint32_t mark = colour(images[ViewMode::first_last_lane], i);
            bool want_first = lane == 0, want_last = lane == size - 1;
            first += mark == kFirstLaneColour;
            last += mark == kLastLaneColour;
            if ((mark == kFirstLaneColour) != want_first || (mark == kLastLaneColour) != want_last)
                if (++wrong <= 5) ADD_FAILURE() << "pixel " << x << "," << y << " (lane " << lane << ") marked wrongly";
        }
    EXPECT_EQ(wrong, 0);
    EXPECT_EQ(subgroups.size(), size_t(extent.width * extent.height / size));
    for (const auto& [key, lanes] : subgroups) {
        ASSERT_EQ(int(lanes.size()), size) << "subgroup " << key;
        for (int lane = 0; lane < size; ++lane) ASSERT_EQ(lanes.count(lane), 1u) << "subgroup " << key << " lane " << lane;
    }
    EXPECT_EQ(first, int(subgroups.size()));
    EXPECT_EQ(last, int(subgroups.size()));
    printf("[ view ] compute stage, subgroup size %d: %zu subgroups, each lanes 0..%d once\n", size, subgroups.size(), size - 1);
    EXPECT_EQ(validation_message_count(), v.messages_before) << "validation messages (printed above)";
}

}  // namespace
