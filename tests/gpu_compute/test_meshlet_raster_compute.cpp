// The meshlet path's culling in compute (meshlet_raster_cull.comp, docs/raster.md, "The meshlet
// path"), dispatched alone, so it runs at every lavapipe width (16 lanes too, where nothing draws):
// the list of chunks it hands the compute rasterizer must hold exactly the chunks of the meshlets
// its masks keep (a meshlet of n triangles: ceil(n / 64) chunks, first triangles 0 and 64), its
// counters must count them, the subgroup path (ballots, one atomic per subgroup), the fallback
// (shared-memory atomics) of the same SPIR-V (USE_SUBGROUP) and the fallback twin without subgroup
// operations must keep and list the same, and --cull off (every meshlet of the chosen levels kept)
// must list the chunks counted here from the meshlets themselves.
#include <algorithm>
#include <map>

#include "gpu_compute/compute_harness.h"
#include "passes/meshlet_pass.h"  // build_task_chunks, MeshletPush
#include "render/cull_reference.h"
#include "render/gpu_scene.h"
#include "run/headless.h"
#include "run/options.h"
#include "scene/camera.h"
#include "scene/meshlets.h"
#include "scoped_env.h"

namespace {

constexpr uint32_t kWidth = 320, kHeight = 180;
constexpr uint32_t kChunkTriangles = 64;  // raster.comp's workgroup

struct Listed {
    std::vector<uint32_t> kept_masks;               // per task chunk: chunk_kept
    std::map<std::pair<uint32_t, uint32_t>, int> chunks;  // (visible-list entry, first triangle) -> times listed
    uint32_t count = 0;
    GpuCounters counters{};
};

Listed cull(const Context& ctx, const Scene& scene, const GpuScene& gpu, const Meshlets& meshlets, const std::vector<TaskChunk>& table,
            const std::string& variant) {
    Camera camera = camera_for(CameraView::overview, scene.bounds_min, scene.bounds_max, scene.grid);
    glm::mat4 projection = camera.projection(float(kWidth) / float(kHeight));
    FrameUniforms u{};
    u.view = camera.view();
    u.view_proj = projection * u.view;
    u.camera_position = glm::vec4(camera.position, 1.0f);
    u.sizes = {kWidth, kHeight, 0, 0};
    u.tiles = {0, 0, 0, uint32_t(scene.instances.size())};
    u.projection = {projection[0][0], projection[1][1], camera.near_plane, camera.far_plane};
    const VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
    Buffer uniforms = create_buffer_with_data(ctx, &u, sizeof(u), VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, "frame uniforms");
    std::vector<float> positions;
    for (uint32_t index : meshlets.vertices)
        positions.insert(positions.end(), {scene.vertices[index].position.x, scene.vertices[index].position.y, scene.vertices[index].position.z});
    auto upload = [&](const auto& data, const char* name) {
        return create_buffer_with_data(ctx, data.data(), std::max<size_t>(data.size() * sizeof(data[0]), 4), storage, name);
    };
    Buffer meshlet_buffer = upload(meshlets.meshlets, "meshlets"), position_buffer = upload(positions, "positions");
    Buffer triangle_buffer = upload(meshlets.triangles, "triangles"), chunk_buffer = upload(table, "task chunks");
    std::vector<uint32_t> zeros(std::max<size_t>(table.size() * 32 * 8, sizeof(GpuCounters) / 4), 0u);
    Buffer visible = create_buffer_with_data(ctx, zeros.data(), table.size() * 32 * 32, storage, "visible list");
    Buffer counters = create_buffer_with_data(ctx, zeros.data(), sizeof(GpuCounters), storage, "counters");
    Buffer none = create_buffer_with_data(ctx, zeros.data(), 64, storage, "unread");  // attributes, capture, pyramid, an empty late list
    CullParams params = make_cull_params(kWidth, kHeight, ctx.properties.limits.subPixelPrecisionBits);
    // meshlet_raster_list.glsl: the header (nothing listed, the first phase, triangles tested), then the chunks.
    std::vector<uint32_t> list(12 + 2 * 2 * meshlets.meshlets.size(), 0u);
    list[2] = list[6] = 1;
    memcpy(&list[8], &params.snap_px, 4);
    memcpy(&list[9], &params.frustum_eps, 4);
    list[11] = 1;
    Buffer list_buffer = create_buffer_with_data(ctx, list.data(), list.size() * 4, storage, "meshlet raster chunks");

    // The layout the shader declares (0 the frame, 1 the draws, 9 the list, 16.. the meshlet path's).
    // "subgroup", "fallback" and "off" (CULL_OFF, constant 0): the switch's; "twin": its twin.
    std::string shader = variant == "twin" ? "no_subgroup" : "switch";
    Pipeline p = create_compute_pipeline(ctx, {.shader = "meshlet_raster_cull.comp." + shader,
                                               .specialization = {variant == "off" ? 1u : 0u}, .use_subgroup = variant == "subgroup"});
    VkCommandBuffer cmd = begin_one_shot(ctx);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p.handle());
    Descriptors d;
    const uint32_t first = kMeshletFirstBinding;
    d.buffer(0, uniforms, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER).buffer(1, gpu.draws).buffer(9, list_buffer);
    d.buffer(first, meshlet_buffer).buffer(first + 1, position_buffer).buffer(first + 2, none).buffer(first + 3, triangle_buffer);
    d.buffer(first + 4, chunk_buffer).buffer(first + 5, visible).buffer(first + kMeshletCountersOffset, counters);
    d.buffer(first + 7, none).buffer(first + 8, none).buffer(first + 9, none);
    d.push(cmd, p);
    MeshletPush push{uint32_t(table.size()), params.snap_px, params.frustum_eps, 0u, 0.0f, 0u};  // level 0, no occlusion
    push_constants(cmd, p, &push, sizeof(push));
    dispatch(ctx, cmd, uint32_t(table.size()), 1);  // a workgroup per task chunk
    end_one_shot(ctx, cmd);

    Listed l;
    std::vector<uint8_t> bytes = read_buffer(ctx, list_buffer);
    memcpy(list.data(), bytes.data(), list.size() * 4);
    l.count = list[3];
    for (uint32_t i = 0; i < std::min<uint32_t>(l.count, uint32_t(list.size() - 12) / 2); ++i) ++l.chunks[{list[12 + 2 * i], list[13 + 2 * i]}];
    bytes = read_buffer(ctx, visible);
    for (size_t c = 0; c < table.size(); ++c) {
        uint32_t mask;
        memcpy(&mask, bytes.data() + c * 32 * 32, 4);
        l.kept_masks.push_back(mask);
    }
    l.counters = read_buffer_as<GpuCounters>(ctx, counters);
    return l;
}

TEST(MeshletRasterCompute, ListsTheChunksOfTheKeptMeshletsInEveryVariant) {
    ValidatedContext v;
    static const Scene scene = load_requested_scene(Options{});
    GpuScene gpu;
    upload_scene(v.ctx, scene, gpu);
    Meshlets meshlets = build_meshlets(scene, kMeshletMaxVertices, kMeshletMaxTriangles);
    std::vector<TaskChunk> table = build_task_chunks(scene, meshlets);
    auto chunks_of = [&](uint32_t c, uint32_t i) { return (meshlets.meshlets[table[c].first_meshlet + i].triangle_count + kChunkTriangles - 1) / kChunkTriangles; };

    uint32_t all_level0 = 0, all_level0_chunks = 0;
    for (uint32_t c = 0; c < table.size(); ++c)
        if (table[c].flags >> kTaskChunkLevelShift == 0)
            for (uint32_t i = 0; i < table[c].count; ++i) all_level0 += 1, all_level0_chunks += chunks_of(c, i);

    std::map<std::string, Listed> runs;
    for (const char* variant : {"subgroup", "fallback", "twin", "off"}) {
        Listed l = cull(v.ctx, scene, gpu, meshlets, table, variant);
        // The list holds exactly the kept meshlets' chunks, each once.
        std::map<std::pair<uint32_t, uint32_t>, int> expected;
        uint32_t kept = 0;
        for (uint32_t c = 0; c < table.size(); ++c)
            for (uint32_t i = 0; i < 32; ++i)
                if (l.kept_masks[c] >> i & 1u) {
                    ASSERT_LT(i, table[c].count) << variant << ": chunk " << c << " kept a meshlet it does not hold";
                    ++kept;
                    for (uint32_t k = 0; k < chunks_of(c, i); ++k) expected[{32 * c + i, kChunkTriangles * k}] = 1;
                }
        EXPECT_EQ(l.count, expected.size()) << variant;
        EXPECT_TRUE(l.chunks == expected) << variant << ": the list is not the kept meshlets' chunks, each once";
        EXPECT_EQ(l.counters.meshlets_visible, kept) << variant;
        EXPECT_EQ(l.counters.meshlets_in, all_level0) << variant;
        runs[variant] = l;
    }
    for (const char* path : {"fallback", "twin"}) {
        EXPECT_TRUE(runs["subgroup"].kept_masks == runs[path].kept_masks) << path << " keeps other meshlets than the subgroup path";
        EXPECT_TRUE(runs["subgroup"].chunks == runs[path].chunks) << path << " lists other chunks than the subgroup path";
        EXPECT_EQ(runs["subgroup"].count, runs[path].count) << path;
    }
    EXPECT_LT(runs["subgroup"].counters.meshlets_visible, all_level0) << "the overview culls nothing: the test shows little";
    EXPECT_GT(runs["subgroup"].counters.meshlets_visible, 0u);
    EXPECT_EQ(runs["off"].count, all_level0_chunks) << "--cull off: every meshlet of level 0, its chunks";
    printf("meshlet culling in compute: %u of %u meshlets kept, %u chunks listed (--cull off: %u)\n",
           runs["subgroup"].counters.meshlets_visible, all_level0, runs["subgroup"].count, runs["off"].count);
    EXPECT_EQ(validation_message_count(), v.messages_before) << "validation messages (printed above)";
}

}  // namespace
