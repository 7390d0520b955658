// Device limits checked before anything is allocated (run/limits.cpp): the planned allocations
// against sizes worked out by hand, and the refusals against made-up device limits.
#include "run/limits.h"
#include "render/gpu_types.h"
#include "render/visibility_id.h"
#include "scene/meshlets.h"
#include "scene/texture_mips.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>

namespace {

// One mesh of `triangles` triangles over `vertices` vertices, placed `instances` times, and
// `textures` textures of texture_size x texture_size texels.
Scene make_scene(uint32_t vertices, uint32_t triangles, uint32_t instances, uint32_t textures = 0, int texture_size = 64) {
    Scene scene;
    scene.vertices.resize(vertices);
    scene.indices.resize(size_t(triangles) * 3, 0);
    scene.meshes.push_back({0, triangles * 3, 0});
    scene.materials.push_back({});
    for (uint32_t i = 0; i < instances; ++i) scene.instances.push_back({0, glm::mat4(1.0f)});
    scene.textures.resize(textures);
    for (Texture& t : scene.textures) {
        t.width = t.height = texture_size;
        t.rgba.resize(size_t(texture_size) * texture_size * 4);
    }
    return scene;
}

Options options_at(uint32_t width, uint32_t height, uint32_t lights = 256) {
    Options o;
    o.width = width;
    o.height = height;
    o.lights = lights;
    return o;
}

std::map<std::string, uint64_t> by_name(const std::vector<PlannedAllocation>& list) {
    std::map<std::string, uint64_t> m;
    for (const PlannedAllocation& p : list) m[p.name] += p.bytes;
    return m;
}

// lavapipe (Mesa 22.3) as vulkaninfo reports it: 128 MiB storage range, 2 GiB heap and allocation.
DeviceLimits lavapipe() {
    DeviceLimits l;
    l.max_image_dimension_2d = 16384;
    l.max_scene_textures = 65536;
    l.max_storage_buffer_range = 134217728;
    l.max_buffer_size = 0xffffffffull;
    l.max_allocation_size = 0x80000000ull;
    l.device_local_heap = 2147483648ull;
    l.unified_memory = true;
    return l;
}

void expect_refusal(const std::function<void()>& check, const std::vector<std::string>& fragments) {
    try {
        check();
        ADD_FAILURE() << "no UsageError";
    } catch (const UsageError& e) {
        std::string message = e.what();
        for (const std::string& f : fragments) EXPECT_NE(message.find(f), std::string::npos) << message;
        EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    }
}

}  // namespace

TEST(Limits, PlannedAllocationsMatchHandCountedSizes) {
    Scene scene = make_scene(100, 130, 4, 2);  // 130 triangles: 1 cull chunk of 8 x 64 per draw
    auto a = by_name(planned_allocations(scene, options_at(100, 50, 10), Plan{}));
    EXPECT_EQ(a["vertices"], 100u * 32);
    EXPECT_EQ(a["source indices"], 390u * 4);
    EXPECT_EQ(a["draws"], 4u * sizeof(GpuDraw));
    EXPECT_EQ(a["indirect (all)"], 4u * 20);
    EXPECT_EQ(a["indirect template"], 4u * 20);
    EXPECT_EQ(a["culled indices"], 4u * 390 * 4);  // every drawn triangle may survive
    EXPECT_EQ(a["culled indirect"], 4u * 20);
    EXPECT_EQ(a["cull chunks"], 4u * 1 * 16);  // uvec4 entries; the scene has no coarser levels
    EXPECT_EQ(a["cull look-back state"], (4u * 1 + 1) * 4);  // a word per chunk and the ticket
    Options small_groups = options_at(100, 50, 10);
    small_groups.cull_group_size = 8;  // chunks of 8 x 8 = 64 triangles: 3 per draw
    auto b = by_name(planned_allocations(scene, small_groups, Plan{}));
    EXPECT_EQ(b["cull chunks"], 4u * 3 * 16);
    EXPECT_EQ(b["cull look-back state"], (4u * 3 + 1) * 4);
    // Each texture at its own size with its full chain (64, 32, ... 1 a side), and the white texel.
    const uint64_t chain = (64 * 64 + 32 * 32 + 16 * 16 + 8 * 8 + 4 * 4 + 2 * 2 + 1) * 4;
    EXPECT_EQ(mip_chain_bytes(64, 64), chain);
    EXPECT_EQ(a["textures"], 4u + 2 * chain);
    // 100x50 is 7x4 tiles of 16 pixels: a count and 512 entries each, then 64 guard words.
    EXPECT_EQ(a["light lists"], (28u * 513 + 64) * 4);
    EXPECT_EQ(a["hdr"], 100u * 50 * 8);  // RGBA16F: forward's target
    EXPECT_EQ(a["color"], 100u * 50 * 4);
    EXPECT_EQ(a["depth"], 100u * 50 * 4);
    EXPECT_EQ(a["half-resolution mip"], 50u * 25 * 8);  // RGBA16F
    EXPECT_EQ(a["exposure state"], 48u);
    EXPECT_EQ(a["lights"], 2u * 10 * 32);  // one copy per frame in flight
    EXPECT_EQ(a["staging"], 4u + 2 * chain);  // the texture upload (all of it in one batch) is the largest
    // The visibility image (R32_UINT: the 32-bit id), unless forward is asked for where nothing can switch.
    EXPECT_EQ(a["visibility"], 100u * 50 * 4);  // --shading auto: a tune's verdict may pick it
    Options forward = options_at(100, 50, 10);
    forward.mode = Mode::headless;
    forward.plan.shading = Shading::forward;
    EXPECT_EQ(by_name(planned_allocations(scene, forward, Plan{})).count("visibility"), 0u);
    forward.mode = Mode::window;  // the I key switches to visibility
    EXPECT_EQ(by_name(planned_allocations(scene, forward, Plan{}))["visibility"], 100u * 50 * 4);
}

// The compute rasterizer's buffers follow the plan that runs, not the typed request: --raster
// auto that a stored verdict sends to compute (plan.raster compute, options.plan.raster unset)
// counts its words, depth and hardware list, and a storage range they pass is refused naming them.
TEST(Limits, TheComputeRasterizersBuffersFollowTheResolvedPlan) {
    Scene scene = make_scene(100, 130, 4);  // 520 triangles
    Options automatic = options_at(100, 50);
    Plan hardware, compute;
    hardware.shading.shading = compute.shading.shading = Shading::visibility;
    compute.raster.raster = Raster::compute;
    EXPECT_EQ(by_name(planned_allocations(scene, automatic, hardware)).count("raster words"), 0u);
    auto a = by_name(planned_allocations(scene, automatic, compute));
    EXPECT_EQ(a["raster words"], 100u * 50 * 8);  // a 64-bit word a pixel
    EXPECT_EQ(a["raster depth"], 100u * 50 * 4);
    EXPECT_EQ(a["raster hardware list"], 16u + 4 * 520);  // a command, then an id a triangle
    DeviceLimits l = lavapipe();
    l.max_storage_buffer_range = 100 * 50 * 8 - 1;
    expect_refusal([&] { check_limits(l, automatic, compute, scene); }, {"raster words buffer", "40000 bytes", "smaller --size"});
    try {
        check_limits(l, automatic, hardware, scene);
    } catch (const UsageError& e) {
        EXPECT_EQ(std::string(e.what()).find("raster words"), std::string::npos) << e.what();
    }
}

// The meshlet path's buffers follow the plan that runs: none on the indexed path; the meshlets,
// their task chunks and lists on the meshlet path; with the compute rasterizer also the chunk list
// its culling in compute fills, a header and an 8-byte chunk per 64 triangles of each meshlet of
// every level, once per draw of its mesh (each draw keeps its meshlets once a frame). A heap
// that holds the plan without them but not with them refuses the meshlet request.
TEST(Limits, TheMeshletPathsBuffersFollowThePlan) {
    Scene scene = make_scene(100, 130, 4);  // one mesh: 130 triangles are two meshlets of at most 124
    Options o = options_at(100, 50);
    Plan indexed, hardware, compute;
    hardware.geometry = compute.geometry = Geometry::meshlet;
    indexed.raster.raster = compute.raster.raster = Raster::compute;
    for (const auto& [name, bytes] : by_name(planned_allocations(scene, o, indexed)))
        EXPECT_NE(name.rfind("meshlet", 0), 0u) << name << ": the indexed path makes no meshlet buffer";
    auto h = by_name(planned_allocations(scene, o, hardware));
    auto c = by_name(planned_allocations(scene, o, compute));
    const uint64_t meshlets = scene_meshlets(scene).meshlets.size();
    ASSERT_GE(meshlets, 2u);
    EXPECT_EQ(h["meshlets"], meshlets * sizeof(Meshlet));
    EXPECT_EQ(h["meshlet visible list"], 4u * 32 * 32);  // a task chunk per draw: 32 entries of 32 bytes
    EXPECT_EQ(h.count("meshlet raster chunks"), 0u);
    uint64_t chunks_per_draw = 0;
    for (const Meshlet& m : scene_meshlets(scene).meshlets) chunks_per_draw += (m.triangle_count + 63) / 64;
    EXPECT_EQ(c["meshlet raster chunks"], 48 + 8 * 4 * chunks_per_draw);  // the scene's 4 draws of the one mesh
    uint64_t without = 0, with = 0;
    for (const PlannedAllocation& p : planned_allocations(scene, o, compute))
        if (p.kind != AllocationKind::host_buffer) (p.name.rfind("meshlet", 0) == 0 ? with : without) += p.bytes;
    DeviceLimits l = lavapipe();
    l.unified_memory = false;
    l.device_local_heap = (without + with / 2) / 9 * 10;  // 90% of it holds all but half the meshlet path's
    check_limits(l, o, indexed, scene);
    expect_refusal([&] { check_limits(l, o, compute, scene); }, {"the renderer would need", "GPU memory"});
}

// A task or mesh debug view is drawn by the meshlet path's shaders whatever the geometry
// (Renderer::set_plan), so it counts the meshlet path's buffers where the device has mesh shaders.
TEST(Limits, ATaskOrMeshViewCountsTheMeshletPath) {
    Scene scene = make_scene(100, 130, 4);
    Options o = options_at(100, 50);
    Plan view;
    view.view.mode = ViewMode::lane_id;
    view.view.variant = Variant::unsupported;  // shown hatched: drawn all the same
    DeviceLimits mesh_shaders = lavapipe();
    mesh_shaders.mesh_shader = true;
    for (Stage stage : {Stage::task, Stage::mesh}) {
        view.view.stage = stage;
        EXPECT_EQ(by_name(planned_allocations(scene, o, view, mesh_shaders))["meshlet visible list"], 4u * 32 * 32);
        EXPECT_EQ(by_name(planned_allocations(scene, o, view, lavapipe())).count("meshlet visible list"), 0u);
    }
    view.view.stage = Stage::fragment;
    EXPECT_EQ(by_name(planned_allocations(scene, o, view, mesh_shaders)).count("meshlet visible list"), 0u);
}

// Plans that take turns on one renderer (--compare's rows, the window's keys) hold every buffer
// any of them made, each once: the union by name, at the most any plan asks (the per-frame copies
// counted once, the staging buffer the largest), and a limit one plan alone passes refuses them.
TEST(Limits, PlansThatShareARendererHoldEachBufferOnce) {
    Scene scene = make_scene(100, 130, 4);
    Options o = options_at(100, 50, 10);
    Plan indexed, meshlet;
    meshlet.geometry = Geometry::meshlet;
    meshlet.shading.shading = Shading::visibility;
    meshlet.raster.raster = Raster::compute;
    auto i = by_name(planned_allocations(scene, o, indexed));
    auto m = by_name(planned_allocations(scene, o, meshlet));
    auto both = by_name(planned_allocations(scene, o, std::vector<Plan>{indexed, meshlet, indexed}));
    for (const auto& [name, bytes] : both) EXPECT_EQ(bytes, std::max(i[name], m[name])) << name;
    EXPECT_EQ(both.size(), m.size());  // the meshlet plan's names hold the indexed plan's
    EXPECT_EQ(both["lights"], 2u * 10 * 32);  // one copy per frame in flight, not one per plan
    EXPECT_EQ(both["meshlet visible list"], 4u * 32 * 32);
    // 200 draws of 2 triangles: the visible list (a task chunk a draw, 1 KiB each) is the largest
    // storage buffer of the meshlet path, twice the indexed path's largest (the draws, 512 bytes each).
    Scene many = make_scene(4, 2, 200);
    Plan hardware;
    hardware.geometry = Geometry::meshlet;
    DeviceLimits l = lavapipe();
    l.max_storage_buffer_range = 150000;
    check_limits(l, o, indexed, many);
    check_limits(l, o, std::vector<Plan>{indexed, indexed}, many);
    expect_refusal([&] { check_limits(l, o, std::vector<Plan>{indexed, hardware}, many); },
                   {"the meshlet visible list buffer would need", "(204800 bytes)", "storage buffer range"});
}

TEST(Limits, WithinLavapipeLimitsPasses) {
    EXPECT_NO_THROW(check_limits(lavapipe(), options_at(1280, 720), Plan{}, make_scene(10000, 20000, 16)));
    EXPECT_NO_THROW(check_limits(lavapipe(), options_at(3840, 2160, 65536), Plan{}, make_scene(10000, 20000, 16)));
}

TEST(Limits, SizeBeyondTheLargestImage) {
    DeviceLimits l = lavapipe();
    l.max_image_dimension_2d = 1024;
    expect_refusal([&] { check_limits(l, options_at(2000, 100), Plan{}, make_scene(3, 1, 1)); },
                   {"--size 2000x100 exceeds the device's largest image (1024 pixels a side)", "smaller --size"});
    expect_refusal([&] { check_limits(l, options_at(100, 1025), Plan{}, make_scene(3, 1, 1)); }, {"--size 100x1025"});
    EXPECT_NO_THROW(check_limits(l, options_at(1024, 1024), Plan{}, make_scene(3, 1, 1)));
}

TEST(Limits, LightListsBoundTheSizeOnLavapipe) {
    // 4096x4096 is 65536 tiles: (65536 * 513 + 64) * 4 bytes = 134480128 > 134217728.
    expect_refusal([&] { check_limits(lavapipe(), options_at(4096, 4096), Plan{}, make_scene(3, 1, 1)); },
                   {"light lists buffer would need", "134480128 bytes", "storage buffer range of 128 MiB",
                    "smaller --size"});
    EXPECT_NO_THROW(check_limits(lavapipe(), options_at(4096, 4080), Plan{}, make_scene(3, 1, 1)));
}

TEST(Limits, CulledIndicesBoundTheInstancesOnLavapipe) {
    // 11,184,811 triangles * 12 bytes is just over 128 MiB; 11,184,810 just fits. A single mesh
    // that large is too big by itself (its source indices); as 4096 instances of a 2731-triangle
    // mesh (what --instances 64 does) only the culled copy of every drawn triangle is.
    expect_refusal([&] { check_limits(lavapipe(), options_at(320, 180), Plan{}, make_scene(3, 11184811, 1)); },
                   {"source indices buffer would need", "134217732 bytes", "use a smaller scene"});
    EXPECT_NO_THROW(check_limits(lavapipe(), options_at(320, 180), Plan{}, make_scene(3, 11184810, 1)));
    expect_refusal([&] { check_limits(lavapipe(), options_at(320, 180), Plan{}, make_scene(3, 2731, 4096)); },
                   {"culled indices buffer would need", "134234112 bytes", "smaller --instances"});
    EXPECT_NO_THROW(check_limits(lavapipe(), options_at(320, 180), Plan{}, make_scene(3, 2730, 4096)));
}

TEST(Limits, BufferAndAllocationSizeLimits) {
    DeviceLimits l = lavapipe();
    l.max_storage_buffer_range = 0xffffffffull;
    l.max_buffer_size = 1u << 20;
    expect_refusal([&] { check_limits(l, options_at(320, 180), Plan{}, make_scene(40000, 10, 1)); },
                   {"vertices buffer would need", "1280000 bytes", "largest buffer of 1.0 MiB"});
    l = lavapipe();
    l.max_allocation_size = 4u << 20;  // 1024x512: 2048 tiles, (2048 * 513 + 64) * 4 bytes of lists
    expect_refusal([&] { check_limits(l, options_at(1024, 512), Plan{}, make_scene(3, 1, 1)); },
                   {"the light lists buffer would need 4.0 MiB (4202752 bytes)", "largest allocation of 4.0 MiB",
                    "smaller --size"});
    EXPECT_NO_THROW(check_limits(l, options_at(512, 512), Plan{}, make_scene(3, 1, 1)));
}

TEST(Limits, HeapIsNeverOvercommitted) {
    DeviceLimits l = lavapipe();
    l.max_storage_buffer_range = 0xffffffffull;
    l.device_local_heap = 64ull << 20;
    // 1 M vertices (32 MiB, and 32 MiB of their tangents and second UVs) + 1 M triangles (12 MiB
    // source, 12 MiB culled) + targets: over 90% of 64 MiB, within 90% of 192 MiB.
    expect_refusal([&] { check_limits(l, options_at(320, 180), Plan{}, make_scene(1 << 20, 1 << 20, 1)); },
                   {"GPU memory", "more than 90% of the device's 64 MiB heap"});
    l.device_local_heap = 192ull << 20;
    EXPECT_NO_THROW(check_limits(l, options_at(320, 180), Plan{}, make_scene(1 << 20, 1 << 20, 1)));
}

TEST(Limits, TooManyTexturesForTheArray) {
    DeviceLimits l = lavapipe();
    l.max_scene_textures = 8;
    expect_refusal([&] { check_limits(l, options_at(64, 64), Plan{}, make_scene(3, 1, 1, 8)); },
                   {"8 textures", "at most 7"});
    EXPECT_NO_THROW(check_limits(l, options_at(64, 64), Plan{}, make_scene(3, 1, 1, 7)));
}

TEST(Limits, TextureLargerThanTheDeviceImage) {
    DeviceLimits l = lavapipe();
    l.max_image_dimension_2d = 128;
    expect_refusal([&] { check_limits(l, options_at(64, 64), Plan{}, make_scene(3, 1, 1, 2, 256)); },
                   {"texture 0 is 256x256", "largest image (128 pixels a side)"});
    EXPECT_NO_THROW(check_limits(l, options_at(64, 64), Plan{}, make_scene(3, 1, 1, 2, 128)));
}

// Texture memory is the mip chains': a scene whose textures fit the heap alone, not with their
// chains, is refused.
TEST(Limits, TextureChainsCountAgainstTheHeap) {
    DeviceLimits l = lavapipe();
    l.device_local_heap = 64ull << 20;  // 90%: 57.6 MiB
    l.unified_memory = false;           // the staging buffer is not in that heap
    // 3 textures of 2048^2: 48 MiB of level 0, 64 MiB with their chains.
    expect_refusal([&] { check_limits(l, options_at(64, 64), Plan{}, make_scene(3, 1, 1, 3, 2048)); },
                   {"GPU memory", "64 MiB heap"});
    EXPECT_NO_THROW(check_limits(l, options_at(64, 64), Plan{}, make_scene(3, 1, 1, 2, 2048)));
}

TEST(Limits, TooManyDraws) {
    expect_refusal([&] { check_limits(lavapipe(), options_at(64, 64), Plan{}, make_scene(3, 1, uint32_t(kMaxDraws) + 1)); },
                   {"draws", "smaller --instances"});
}

// The 32-bit visibility id (render/visibility_id.h): the draw field takes ceil(log2(draws)) bits,
// the primitive the rest of 31; a scene whose largest draw needs more is refused (exit 2) before
// anything is allocated, and every id the limits allow decodes to itself and is never "none".
TEST(VisibilityId, SplitFollowsTheDrawCountAndRefusesPastIt) {
    auto scene_of = [](uint32_t draws, uint32_t triangles) {
        Scene scene;
        scene.meshes.push_back({0, triangles * 3, 0});
        scene.instances.assign(draws, {0, glm::mat4(1.0f)});
        return scene;
    };
    EXPECT_EQ(visibility_draw_bits(1), 0u);
    EXPECT_EQ(visibility_draw_bits(2), 1u);
    EXPECT_EQ(visibility_draw_bits(4096), 12u);
    EXPECT_EQ(visibility_draw_bits(4097), 13u);
    // 4096 draws: 12 bits, 19 left, 2^19 - 1 triangles a draw.
    EXPECT_EQ(visibility_id_error(scene_of(4096, (1u << 19) - 1)), "");
    std::string error = visibility_id_error(scene_of(4096, 1u << 19));
    EXPECT_NE(error.find("4096 draws (12 bits"), std::string::npos) << error;
    EXPECT_NE(error.find("more than the 524287"), std::string::npos) << error;
    EXPECT_NE(visibility_id_error(scene_of(4097, (1u << 19) - 1)), "");
    // The bundled scene's largest draw, 49152 triangles, at --instances 14 (29792 draws) and 15 (34200).
    EXPECT_EQ(visibility_id_error(scene_of(29792, 49152)), "");
    EXPECT_NE(visibility_id_error(scene_of(34200, 49152)), "");
    for (uint32_t draws : {1u, 2u, 3u, 4096u, 34200u}) {
        uint32_t last_draw = draws - 1, last_primitive = uint32_t(visibility_max_primitives(draws)) - 1;
        for (bool late : {false, true}) {
            uint32_t id = visibility_id_indexed(last_draw, last_primitive, late, draws);
            EXPECT_NE(id, kVisibilityNone) << draws;
            EXPECT_EQ(visibility_id_draw(id, draws), last_draw);
            EXPECT_EQ(visibility_id_primitive(id, draws), last_primitive);
            EXPECT_EQ(visibility_id_late(id), late);
        }
    }
    uint32_t meshlet = visibility_id_meshlet(uint32_t(kVisibilityMaxMeshletEntries) - 1, 123, true);
    EXPECT_NE(meshlet, kVisibilityNone);
    EXPECT_EQ(visibility_id_entry(meshlet), kVisibilityMaxMeshletEntries - 1);
    EXPECT_EQ(visibility_id_meshlet_triangle(meshlet), 123u);
    EXPECT_EQ(visibility_meshlet_id_error(1u << 19), "");
    EXPECT_NE(visibility_meshlet_id_error((1u << 19) + 1), "");
    // Through the start-up checks: only where the run shades with visibility.
    Options visibility = options_at(64, 64);
    visibility.plan.shading = Shading::visibility;
    Scene big = make_scene(3, 1, 3);
    big.meshes[0].index_count = 3u << 30;  // 2^30 triangles: 3 draws leave 29 bits
    Plan shading_visibility;
    shading_visibility.shading.shading = Shading::visibility;
    expect_refusal([&] { check_limits(lavapipe(), visibility, shading_visibility, big); },
                   {"32-bit visibility id", "--shading forward"});
    // Auto that a stored verdict sends to visibility is checked the same way: the plan decides.
    expect_refusal([&] { check_limits(lavapipe(), options_at(64, 64), shading_visibility, big); }, {"32-bit visibility id"});
    try {  // forward names no triangle by id (the scene is refused for its culled indices instead)
        check_limits(lavapipe(), options_at(64, 64), Plan{}, big);
    } catch (const UsageError& e) {
        EXPECT_EQ(std::string(e.what()).find("visibility id"), std::string::npos) << e.what();
    }
}
