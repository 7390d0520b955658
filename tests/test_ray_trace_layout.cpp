// The ray_trace pass's CPU-side arithmetic (passes/ray_trace_pass.h): the shader binding table's
// layout against both device dumps' properties, the TLAS's instances (counts, transforms, masks,
// hit groups), and the plan of a pass that needs six stages and a device
// feature. No device needed.
#include <gtest/gtest.h>

#include <glm/gtc/matrix_transform.hpp>

#include "plan/plan.h"
#include "passes/ray_trace_pass.h"

namespace {

struct RtProperties {
    const char* dump;
    uint32_t handle_size, handle_alignment, base_alignment;
};
// ../shared/device-caps: lavapipe-mesa25-vulkaninfo.txt and nvidia-h200-vulkaninfo.txt
// (VkPhysicalDeviceRayTracingPipelinePropertiesKHR).
const RtProperties kDevices[] = {{"lavapipe (Mesa 25)", 32, 16, 32}, {"NVIDIA H200", 32, 32, 64}};

// Every subgroup operation, in `stages` (bit(Stage) set).
SubgroupCaps every_op_in(uint32_t stages) {
    SubgroupCaps c;
    c.ops = (1u << uint32_t(Op::count)) - 1;
    c.stages = stages;
    return c;
}

// Subgroups in fragment, compute and the six ray-tracing stages.
constexpr uint32_t kRayTracingDeviceStages = bit(Stage::fragment) | bit(Stage::compute) | kRayTracingStages;

// Ray tracing with the indirect launch.
DeviceFeatures indirect_ray_tracing() {
    DeviceFeatures f;
    f.ray_tracing = f.ray_tracing_indirect = true;
    return f;
}

}  // namespace

TEST(RayTraceLayout, ShaderBindingTableFollowsTheDeviceAlignments) {
    for (const RtProperties& d : kDevices) {
        SCOPED_TRACE(d.dump);
        SbtLayout l = sbt_layout(d.handle_size, d.handle_alignment, d.base_alignment, 1, 2, 1);
        for (const SbtRegion* r : {&l.raygen, &l.miss, &l.hit, &l.callable}) {
            EXPECT_EQ(r->offset % d.base_alignment, 0u);    // each region starts at the base alignment
            EXPECT_EQ(r->stride % d.handle_alignment, 0u);  // records at a multiple of the handle alignment
            EXPECT_GE(r->stride, d.handle_size);
        }
        EXPECT_EQ(l.raygen.size, l.raygen.stride);  // VUID-vkCmdTraceRaysKHR-size-04023
        EXPECT_GE(l.miss.size, 1 * l.miss.stride);
        EXPECT_GE(l.hit.size, 2 * l.hit.stride);
        EXPECT_GE(l.callable.size, 1 * l.callable.stride);
        // Regions in order, without overlap, inside the table.
        EXPECT_GE(l.miss.offset, l.raygen.offset + l.raygen.size);
        EXPECT_GE(l.hit.offset, l.miss.offset + l.miss.size);
        EXPECT_GE(l.callable.offset, l.hit.offset + l.hit.size);
        EXPECT_EQ(l.bytes, l.callable.offset + l.callable.size);
    }
    // The numbers: lavapipe 32-byte records in 32-byte regions; the H200 64-byte raygen region.
    SbtLayout lavapipe = sbt_layout(32, 16, 32, 1, 2, 1);
    EXPECT_EQ(lavapipe.hit.offset, 64u);
    EXPECT_EQ(lavapipe.hit.stride, 32u);
    EXPECT_EQ(lavapipe.bytes, 160u);
    SbtLayout h200 = sbt_layout(32, 32, 64, 1, 2, 1);
    EXPECT_EQ(h200.raygen.size, 64u);
    EXPECT_EQ(h200.miss.offset, 64u);
    EXPECT_EQ(h200.hit.offset, 128u);
    EXPECT_EQ(h200.callable.offset, 192u);
    EXPECT_EQ(h200.bytes, 256u);
    // A handle that is not a multiple of the alignment rounds up.
    EXPECT_EQ(sbt_layout(24, 16, 64, 3, 1, 1).miss.stride, 32u);
}

TEST(RayTraceLayout, OneInstancePerDrawSharingTheMeshesBlas) {
    GpuScene scene;
    scene.meshes = {{0, 6, false}, {6, 3, true}};
    glm::mat4 moved = glm::translate(glm::mat4(1.0f), glm::vec3(1, 2, 3)) * glm::scale(glm::mat4(1.0f), glm::vec3(2.0f));
    glm::mat4 mirrored = moved * glm::scale(glm::mat4(1.0f), glm::vec3(-1, 1, 1));
    for (uint32_t mesh : {0u, 1u, 0u}) {  // three draws, two of mesh 0 (--instances shares meshes)
        GpuDraw d{};
        d.model = scene.cpu_draws.size() == 2 ? mirrored : moved;  // the last mirrored
        d.mesh = mesh;
        scene.cpu_draws.push_back(d);
    }
    scene.draw_count = 3;
    std::vector<TlasInstance> instances = tlas_instances(scene);
    ASSERT_EQ(instances.size(), 4u);  // the draws, then the lights
    for (uint32_t i = 0; i < 3; ++i) {
        EXPECT_EQ(instances[i].custom_index, i);
        EXPECT_EQ(instances[i].blas, scene.cpu_draws[i].mesh);
        EXPECT_EQ(instances[i].mask, kTlasMaskGeometry);
        EXPECT_EQ(instances[i].sbt_offset, 0u);  // the triangle hit group
        // Row-major 3x4: the translation in the last column, the scale on the diagonal.
        EXPECT_FLOAT_EQ(instances[i].transform[0][3], 1.0f);
        EXPECT_FLOAT_EQ(instances[i].transform[1][3], 2.0f);
        EXPECT_FLOAT_EQ(instances[i].transform[2][3], 3.0f);
        EXPECT_FLOAT_EQ(instances[i].transform[1][1], 2.0f);
        EXPECT_FLOAT_EQ(instances[i].transform[0][0], i == 2 ? -2.0f : 2.0f);
        // The mirrored draw's facing flipped, so its primary rays cull what the raster culls.
        EXPECT_EQ(instances[i].flip_facing, i == 2);
        EXPECT_FLOAT_EQ(instances[i].transform[0][1], 0.0f);
    }
    EXPECT_EQ(instances[3].blas, 2u);  // after the meshes' BLASes
    EXPECT_EQ(instances[3].mask, kTlasMaskLights);
    EXPECT_EQ(instances[3].sbt_offset, 1u);  // the procedural hit group
    EXPECT_FLOAT_EQ(instances[3].transform[0][0], 1.0f);
    EXPECT_FLOAT_EQ(instances[3].transform[0][3], 0.0f);
    EXPECT_FALSE(instances[3].flip_facing);
}

TEST(RayTracePlan, NoRayTracingMeansOffAndExplicitRequestsFail) {
    SubgroupCaps c = every_op_in((1u << uint32_t(Stage::count)) - 1);
    DeviceFeatures f;  // no ray tracing
    PassPlan p = make_plan(c, f, {})[PassId::ray_trace];
    EXPECT_EQ(p.variant, Variant::off);
    EXPECT_EQ(p.reason, "device lacks VK_KHR_ray_tracing_pipeline and VK_KHR_acceleration_structure");
    for (Request r : {Request::subgroup, Request::fallback}) {
        PlanRequest request;
        request[PassId::ray_trace] = r;
        try {
            make_plan(c, f, request);
            ADD_FAILURE() << "no exception";
        } catch (const UnsupportedRequest& e) {
            EXPECT_EQ(std::string(e.what()), "--ray-trace " + std::string(request_name(r)) +
                                                 ": device lacks VK_KHR_ray_tracing_pipeline and "
                                                 "VK_KHR_acceleration_structure on this device; use auto or off");
        }
    }
    PlanRequest off;
    off[PassId::ray_trace] = Request::off;
    EXPECT_EQ(make_plan(c, f, off)[PassId::ray_trace].variant, Variant::off);
}

// The dense launch (docs/ray-tracing.md, "Dense rays"): auto lists with ballots where the pass runs
// its subgroup variant and compute has ballots, with one atomic per ray otherwise; per pixel where
// the device has no indirect launch (a request for lists there is refused), or where asked.
TEST(RayTracePlan, DenseLaunchFollowsTheVariantAndTheIndirectLaunch) {
    DeviceFeatures f = indirect_ray_tracing();
    SubgroupCaps c = every_op_in(kRayTracingDeviceStages);
    Plan plan = make_plan(c, f, {});
    EXPECT_EQ(plan.ray_lists, Variant::subgroup);
    EXPECT_EQ(plan.ray_lists_reason, "dense launch: the rays listed with ballots, one atomic per subgroup and list");
    PlanRequest fallback;
    fallback[PassId::ray_trace] = Request::fallback;
    EXPECT_EQ(make_plan(c, f, fallback).ray_lists, Variant::fallback);
    SubgroupCaps masked = c;
    apply_masks(masked, bit(Stage::compute), 0);
    plan = make_plan(masked, f, {});
    EXPECT_EQ(plan[PassId::ray_trace].variant, Variant::subgroup);
    EXPECT_EQ(plan.ray_lists, Variant::fallback);
    EXPECT_EQ(plan.ray_lists_reason,
              "dense launch: the rays listed with one atomic per ray (compute stage has no subgroup support (masked by --mask-stages))");
    PlanRequest ballots;
    ballots.ray_lists = Request::subgroup;
    EXPECT_THROW(make_plan(masked, f, ballots), UnsupportedRequest);
    PlanRequest off;
    off.ray_lists = Request::off;
    EXPECT_EQ(make_plan(c, f, off).ray_lists, Variant::off);
    PlanRequest no_rays;
    no_rays[PassId::ray_trace] = Request::off;
    EXPECT_EQ(make_plan(c, f, no_rays).ray_lists, Variant::off);
    f.ray_tracing_indirect = false;
    plan = make_plan(c, f, {});
    EXPECT_EQ(plan.ray_lists, Variant::off);
    EXPECT_EQ(plan.ray_lists_reason, "one ray generation per pixel: the device lacks rayTracingPipelineTraceRaysIndirect");
    EXPECT_THROW(make_plan(c, f, ballots), UnsupportedRequest);
}

// Refitting (docs/ray-tracing.md, "Refitting"): the frames refit where rays are traced, unless the
// full rebuild is asked for (SGD_RAY_REFIT=off); without rays there is nothing to refit.
TEST(RayTracePlan, RefitWhereRaysAreTracedUnlessAskedOff) {
    DeviceFeatures f = indirect_ray_tracing();
    SubgroupCaps c = every_op_in(kRayTracingDeviceStages);
    EXPECT_TRUE(make_plan(c, f, {}).ray_refit);
    PlanRequest rebuild;
    rebuild.ray_refit = false;
    EXPECT_FALSE(make_plan(c, f, rebuild).ray_refit);
    PlanRequest no_rays;
    no_rays[PassId::ray_trace] = Request::off;
    EXPECT_FALSE(make_plan(c, f, no_rays).ray_refit);
    f.ray_tracing = false;
    EXPECT_FALSE(make_plan(c, f, {}).ray_refit);
}

TEST(RayTracePlan, EverySixStagesNeedSubgroups) {
    DeviceFeatures f;
    f.ray_tracing = true;
    SubgroupCaps c = every_op_in(bit(Stage::fragment) | bit(Stage::compute));  // lavapipe (Mesa 25): none of the six
    PassPlan p = make_plan(c, f, {})[PassId::ray_trace];
    EXPECT_EQ(p.variant, Variant::fallback);
    EXPECT_EQ(p.reason, "raygen, any-hit, closest-hit, miss, intersection, callable stages have no subgroup support");
    c.stages |= kRayTracingStages;
    EXPECT_EQ(make_plan(c, f, {})[PassId::ray_trace].variant, Variant::subgroup);
    SubgroupCaps masked = c;
    apply_masks(masked, bit(Stage::miss), 0);
    p = make_plan(masked, f, {})[PassId::ray_trace];
    EXPECT_EQ(p.variant, Variant::fallback);
    EXPECT_EQ(p.reason, "miss stage has no subgroup support (masked by --mask-stages)");
    for (Op op : {Op::basic, Op::vote, Op::ballot}) {
        SubgroupCaps without = c;
        apply_masks(without, 0, bit(op));
        EXPECT_EQ(make_plan(without, f, {})[PassId::ray_trace].variant, Variant::fallback) << op_name(op);
    }
    SubgroupCaps no_arithmetic = c;  // the ray statistics use no arithmetic operation
    apply_masks(no_arithmetic, 0, bit(Op::arithmetic) | bit(Op::shuffle) | bit(Op::quad));
    EXPECT_EQ(make_plan(no_arithmetic, f, {})[PassId::ray_trace].variant, Variant::subgroup);
}
