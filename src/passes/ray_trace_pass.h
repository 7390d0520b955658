// The ray_trace pass (docs/ray-tracing.md): sun shadows and reflections traced after the depth
// pre-pass with all six ray-tracing stages, into FrameTargets::ray_traced, which forward shading
// reads. Acceleration structures: a BLAS per unique mesh and a TLAS of the draws, built once; a
// BLAS of the lights' AABBs and the TLAS rebuilt every frame as the lights move. Both variants
// trace the same rays; they differ in how each stage counts the ray statistics
// (shaders/raytrace_stats.glsl).
#pragma once

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "passes/allocation.h"
#include "passes/pass_unit.h"

// The shader binding table's layout (pure arithmetic on the device's properties; unit-tested
// against the device dumps): one raygen record, then the miss, hit and callable regions, each
// starting at shaderGroupBaseAlignment, records at a stride of the handle size rounded up to
// shaderGroupHandleAlignment. The raygen region's size equals its stride (a Vulkan rule).
struct SbtRegion {
    VkDeviceSize offset = 0, stride = 0, size = 0;
};
struct SbtLayout {
    SbtRegion raygen, miss, hit, callable;
    VkDeviceSize bytes = 0;
};
SbtLayout sbt_layout(uint32_t handle_size, uint32_t handle_alignment, uint32_t base_alignment, uint32_t miss_count,
                     uint32_t hit_count, uint32_t callable_count);

// The shader groups, in the order of the pipeline's groups and the SBT's records.
enum RayGroup : uint32_t { kGroupRaygen, kGroupMiss, kGroupTriangles, kGroupLights, kGroupMaterial, kGroupCount };
constexpr uint32_t kTlasMaskGeometry = 1, kTlasMaskLights = 2;  // raytrace.glsl kMask*
// The frame's counters in the ray-tracing pipelines: 9 for the rays' statistics (raytrace_stats.glsl),
// and in the views' pipelines also 11, after their ViewParams at 10 (view_common.glsl).
constexpr uint32_t kRayStatsBinding = 9, kRayViewCountersBinding = 11;
constexpr float kBulbRadius = 0.3f;                               // raytrace.glsl kBulbRadius

// The TLAS's instances without their BLAS addresses (CPU-testable): one per draw (custom index the
// draw, its model transform, geometry mask, hit group 0, its facing flipped where the transform
// mirrors) and last the lights (identity, hit group 1).
struct TlasInstance {
    float transform[3][4];  // row-major 3x4, VkTransformMatrixKHR
    uint32_t custom_index;
    uint32_t mask;
    uint32_t sbt_offset;
    uint32_t blas;  // index into the BLAS list: a mesh, or meshes.size() for the lights
    // Mirrored (det < 0): the triangles' facing flipped. Ray tracing decides facing in object
    // space, the raster in window space, where a mirror turns the winding; flipped, a primary ray
    // culls the back faces the raster culls (VK_GEOMETRY_INSTANCE_TRIANGLE_FLIP_FACING_BIT_KHR).
    bool flip_facing;
};
std::vector<TlasInstance> tlas_instances(const GpuScene& scene);


// Where ray generation takes each pixel's surface from: a primary ray from the camera (forward
// shading: its pre-pass keeps only depth), or the pixel's triangle in the visibility image
// (--shading visibility), indexed or meshlet path; raytrace.rgen's variants.
enum class RaySurface : uint32_t { camera, visibility, visibility_meshlet, count };

class RayTracePass : public PassUnit {
public:
    RayTracePass() = default;
    RayTracePass(const RayTracePass&) = delete;
    ~RayTracePass() override;

    void create(const Context& ctx, const GpuScene& scene, uint32_t lights, VkExtent2D extent);
    void resize(const Context& ctx, VkExtent2D extent) override;
    void record(FrameContext& f) override;
    // The debug views lane-id, first-last-lane and active-lanes in a ray-tracing stage (f.plan.view):
    // traces the frame's rays again with the view's shaders, on the launch the frame traced (the
    // dense launch over the frame's own lists where it went dense, else one raygen per pixel), the
    // stage under view measuring its lanes (where it has no subgroups: marking its invocations as
    // "no lane data"), then colours each pixel by the invocation of that stage that served its ray
    // (shaders/raytrace_view.comp; `params`: the views' colours, DebugViewPass).
    bool record_stage_view(FrameContext& f, const Buffer& params) override;
    // Tests: the lists of the last dense launch (ray_lists.comp), each entry a pixel (x | y << 16),
    // in list order.
    struct Lists {
        std::vector<uint32_t> shadow, reflection;
    };
    Lists read_lists(const Context& ctx) const;

private:
    struct Structure {
        VkAccelerationStructureKHR handle = VK_NULL_HANDLE;
        VkDeviceAddress address = 0;
        VkDeviceSize offset = 0, size = 0, scratch = 0;
    };
    void build_static(const Context& ctx, const GpuScene& scene);
    void build_frame(FrameContext& f);  // this frame's light boxes, light BLAS and TLAS (built or refitted)
    Buffer make_sbt(const Context& ctx, const Pipeline& pipeline) const;
    // striped: the pipeline's stages count into stat_stripes_ (the subgroup variant), else into
    // the frame's counters.
    void trace(FrameContext& f, const Pipeline& pipeline, const Buffer& sbt, RaySurface surface, bool striped,
               const Buffer* view_params);
    // The dense launch (Plan::ray_lists): the compaction pass, then one ray per invocation.
    void trace_dense(FrameContext& f, RaySurface surface, int variant);
    struct ViewPipeline {
        Pipeline pipeline;
        Buffer sbt;
        Pipeline primary;  // the dense view on the forward path: its primary launch's
        Buffer primary_sbt;
    };
    // A view on the dense launch: the traced image cleared, (forward) the primary launch, then the
    // frame's lists traced again, each invocation writing its record (raytrace.rgen: store_view_record).
    void trace_dense_view(FrameContext& f, const ViewPipeline& view, RaySurface surface, const Buffer& params);
    // Set 0 as every pipeline of the pass has it, but the TLAS (binding 4): the compaction pass's too.
    void push_scene(FrameContext& f, Descriptors& d, RaySurface surface, bool striped) const;
    // The pass's own buffers named in the frame graph (frame_graph.h), each time it records.
    void bind(FrameContext& f);
    // What every launch and the compaction use of the frame's resources in `stages` (the depth,
    // the counters, the visibility image), for the frame graph: their images in the layouts the
    // descriptors name.
    static void scene_uses(FrameContext& f, RaySurface surface, VkPipelineStageFlags2 stages, std::vector<Use>& uses);
    static bool surface_available(const Context& ctx, RaySurface surface);
    RaySurface surface(const FrameContext& f) const;  // this frame's (a pipeline for it exists)
    // The lights' BLAS and the TLAS as a frame builds them; updatable: with ALLOW_UPDATE (the
    // light BLAS then prefers fast tracing too: built once, traced every frame).
    void light_build_info(VkAccelerationStructureBuildGeometryInfoKHR& info, VkAccelerationStructureGeometryKHR& geometry,
                          bool updatable) const;
    void tlas_build_info(VkAccelerationStructureBuildGeometryInfoKHR& info, VkAccelerationStructureGeometryKHR& geometry,
                         bool updatable) const;

    VkDevice device_ = VK_NULL_HANDLE;
    bool enabled_ = false;  // the device has ray tracing
    uint32_t lights_ = 0;
    uint32_t instance_count_ = 0;
    // By surface: [0] fallback, [1] subgroup (where the device's stages have subgroups).
    Pipeline pipeline_[size_t(RaySurface::count)][2];
    Pipeline aabbs_;        // light_aabbs.comp
    Buffer structures_;     // every BLAS and the TLAS, at 256-byte aligned offsets
    Buffer scratch_;
    Buffer instances_;      // VkAccelerationStructureInstanceKHR per TlasInstance
    Buffer light_aabbs_;    // VkAabbPositionsKHR per light
    Buffer sbt_[size_t(RaySurface::count)][2];
    // The dense launch (docs/ray-tracing.md, "Dense rays"): by surface
    // and [0] fallback, [1] subgroup, the pipelines whose ray generation traces one listed ray per
    // invocation (the statistics' variant), and the compaction passes (ray_lists.comp: atomics per
    // ray, ballots), made on first use; ray_lists_finish_ writes the launch's width.
    Pipeline dense_[size_t(RaySurface::count)][2];
    Buffer dense_sbt_[size_t(RaySurface::count)][2];
    Pipeline ray_lists_[size_t(RaySurface::count)][2];
    Pipeline ray_lists_finish_;
    // The forward path's primary launch before its dense one ([0] fallback, [1] subgroup): one
    // raygen per pixel traces the primary ray and stores the hit in primary_hits_.
    Pipeline primary_[2];
    Buffer primary_sbt_[2];
    Buffer primary_hits_;  // (draw, primitive) per pixel
    Buffer ray_lists_buffer_;  // header (the indirect launch, the counts) + a shadow and a reflection list
    // The subgroup variant's statistics (shaders/raytrace_stats.glsl, "The stripes"): zeroed before
    // its launches, folded into the frame's counters after them (ray_stats_fold.comp).
    Buffer stat_stripes_;
    Pipeline stats_fold_;
    VkExtent2D extent_{};
    // (stage, view kind, surface, dense), made on first use.
    std::map<std::tuple<uint32_t, std::string, uint32_t, bool>, ViewPipeline> views_;
    bool traced_dense_ = false;  // the last record() traced the dense launch (its lists are in ray_lists_buffer_)
    Pipeline view_colour_;                                           // raytrace_view.comp
    SbtLayout sbt_layout_;
    std::vector<Structure> blas_;  // per unique mesh, then the lights'
    Structure tlas_;
    VkDeviceSize light_scratch_offset_ = 0, tlas_scratch_offset_ = 0;
    // The lights' BLAS and the TLAS were last built with ALLOW_UPDATE, so a frame may refit them
    // (Plan::ray_refit); false until the first frame's build, and after a full rebuild's.
    bool updatable_ = false;
};

// The subgroup variant's striped statistics (raytrace_stats.glsl): kRayStatStripes copies of
// GpuCounters' words from 16 on, kRayStatStripeWords words apart; what ray_stats_fold.comp adds up.
constexpr uint32_t kRayStatStripes = 64, kRayStatStripeWords = 64;
constexpr uint64_t kRayStatStripesBytes = uint64_t(kRayStatStripes) * kRayStatStripeWords * sizeof(uint32_t);

// The lists of the dense launch at `extent`: a 32-byte header (VkTraceRaysIndirectCommandKHR, the
// two lists' counts, the reflection list's start) and one entry per pixel in each list.
uint64_t ray_lists_bytes(VkExtent2D extent);
// The forward path's primary hits at `extent`: (draw, primitive) per pixel.
uint64_t ray_primary_hits_bytes(VkExtent2D extent);

// counters.ray_trace.rays_per_second: each kind's rays (`rays`, the report's) over the pass's
// median milliseconds; null where the pass took no time.
nlohmann::json ray_trace_rays_per_second(const nlohmann::json& rays, double median_ms);

// The views' records on the dense launch (raytrace.rgen, store_view_record): bits 26..27 name the
// entry whose invocation wrote the record: 0 the per-pixel launch's (the forward path's primary
// launch), 1 the shadow list's, 2 the reflection list's.
constexpr uint32_t kViewEntryShift = 26, kViewShadowEntry = 1, kViewReflectionEntry = 2;

// The value ray_trace writes per pixel (shaders/raytrace.glsl): a shadow ray was traced; the sun is
// blocked; the reflection's bits (0: none).
constexpr uint32_t kTracedShadowRay = 1u << 30, kTracedSunBlocked = 1u << 31, kTracedReflection = (1u << 30) - 1;
