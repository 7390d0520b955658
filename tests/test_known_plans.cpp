// The planner (src/caps/) on the capabilities of the recorded drivers (tests/known_drivers.h:
// lavapipe from Mesa 22.3 and 25.0, and an NVIDIA H200), held to what the record implies: a view
// runs in a stage exactly where the stage has subgroups with the view's operations and the device
// runs the stage; meshlets exactly where there are mesh shaders; ray tracing off without it, the
// subgroup path only where all six stages have subgroups. The GPU record is what shows, without a
// GPU, a planner calling vertex, tessellation, geometry or ray-tracing subgroups unsupported.
#include <gtest/gtest.h>

#include "plan/plan.h"
#include "known_drivers.h"
#include "passes/pass_table.h"

namespace {

// The bit(Stage) or bit(Op) set of names as the record spells them; a name the parser does not know fails.
template <typename Parse>
uint32_t bits_of(const std::vector<std::string>& names, Parse parse) {
    uint32_t bits = 0;
    for (const std::string& n : names) {
        auto value = parse(n);
        EXPECT_TRUE(value) << n;
        if (value) bits |= bit(*value);
    }
    return bits;
}

SubgroupCaps caps_of(const KnownDriver& k) {
    SubgroupCaps c;
    c.size = c.min_size = c.max_size = 8;
    c.stages = bits_of(k.subgroup_stages, parse_stage);
    c.ops = bits_of(k.subgroup_operations, parse_op);
    c.quad_in_all_stages = k.quad_in_all_stages;
    c.size_control = k.size_control;
    c.full_subgroups = k.full_subgroups;
    c.required_size_stages = bits_of(k.required_size_stages, parse_stage);
    return c;
}

DeviceFeatures features_of(const KnownDriver& k) {
    DeviceFeatures f;
    f.pipeline_statistics = k.pipeline_statistics;
    f.tessellation = k.tessellation;
    f.geometry = k.geometry;
    f.fragment_stores = k.fragment_stores;
    f.vertex_stores = k.vertex_stores;
    f.multi_draw_indirect = k.multi_draw_indirect;
    f.compute_full_subgroups = k.full_subgroups;
    f.quad_control = k.quad_control;
    f.maximal_reconvergence = k.maximal_reconvergence;
    f.quad_control_enabled = k.quad_control && k.maximal_reconvergence;
    f.mesh_shader = k.mesh_shader;
    f.ray_tracing = k.ray_tracing;
    f.descriptor_indexing = k.descriptor_indexing;
    if (!k.descriptor_indexing) f.textures_missing = "device lacks descriptor indexing";
    return f;
}

std::vector<const KnownDriver*> records() {
    std::vector<const KnownDriver*> all;
    for (const KnownDriver& k : known_drivers()) all.push_back(&k);
    all.push_back(&nvidia_h200_record());
    return all;
}

TEST(KnownDrivers, MesaVersionIsReadFromTheDriverInfo) {
    int major = 0, minor = 0;
    ASSERT_TRUE(parse_mesa_version("Mesa 25.0.7-2~bpo12+1 (LLVM 15.0.6)", major, minor));
    EXPECT_EQ(major, 25);
    EXPECT_EQ(minor, 0);
    ASSERT_TRUE(parse_mesa_version("Mesa 22.3.6 (LLVM 15.0.6)", major, minor));
    EXPECT_EQ(major, 22);
    EXPECT_EQ(minor, 3);
    EXPECT_FALSE(parse_mesa_version("570.195.03", major, minor));
}

TEST(KnownPlans, ViewsRunExactlyWhereTheRecordSays) {
    for (const KnownDriver* k : records()) {
        SCOPED_TRACE(k->name);
        SubgroupCaps caps = caps_of(*k);
        DeviceFeatures features = features_of(*k);
        for (const StageInfo& st : kStages)
            for (ViewMode mode : {ViewMode::lane_id, ViewMode::first_last_lane, ViewMode::active_lanes}) {
                std::string stage(stage_name(st.stage)), name(view_mode_name(mode));
                ViewPlan plan = plan_view(caps, features, mode, st.stage);
                bool expected = record_supports_view(*k, name, stage);
                EXPECT_EQ(variant_name(plan.variant), variant_name(expected ? Variant::subgroup : Variant::unsupported))
                    << name << " in " << stage << ": " << plan.reason;
            }
    }
}

TEST(KnownPlans, MeshletsAndRayTracingFollowTheRecord) {
    for (const KnownDriver* k : records()) {
        SCOPED_TRACE(k->name);
        SubgroupCaps caps = caps_of(*k);
        DeviceFeatures features = features_of(*k);
        PlanRequest meshlet;
        meshlet.geometry = Geometry::meshlet;
        if (k->mesh_shader) {
            Plan p = make_plan(caps, features, meshlet);
            bool task_mesh = k->has_stage("task") && k->has_stage("mesh");
            EXPECT_EQ(variant_name(p[PassId::cull].variant), variant_name(task_mesh ? Variant::subgroup : Variant::fallback))
                << p[PassId::cull].reason;
        } else {
            EXPECT_THROW(make_plan(caps, features, meshlet), UnsupportedRequest);
        }
        Plan p = make_plan(caps, features, {});
        Variant ray_trace = !k->ray_tracing                                       ? Variant::off
                            : record_rt_stages_without_subgroups(*k).empty() ? Variant::subgroup
                                                                               : Variant::fallback;
        EXPECT_EQ(variant_name(p[PassId::ray_trace].variant), variant_name(ray_trace)) << p[PassId::ray_trace].reason;
    }
}

}  // namespace

// The scene's textures and the material waterfall follow the record: the Mesa 22.3 lavapipe has no
// descriptor indexing, so its textures are one array texture's layers and the visibility shading
// pass indexes them nonuniformly (no waterfall over a coordinate); the others bind an array of
// descriptors and walk it with the waterfall (they all have ballot in compute).
TEST(KnownPlans, TexturesAndTheWaterfallFollowTheRecord) {
    for (const KnownDriver* k : records()) {
        SCOPED_TRACE(k->name);
        PlanRequest request;
        request.shading = Shading::visibility;
        Plan p = make_plan(caps_of(*k), features_of(*k), request);
        EXPECT_EQ(p.textures.layers, !k->descriptor_indexing) << p.textures.reason;
        EXPECT_EQ(texture_mode_name(p.textures), k->descriptor_indexing ? "descriptor-indexing" : "array-texture");
        EXPECT_EQ(p.shading.materials, k->descriptor_indexing ? Variant::subgroup : Variant::fallback) << p.shading.materials_reason;
        request.materials = Request::subgroup;
        if (k->descriptor_indexing) EXPECT_NO_THROW(make_plan(caps_of(*k), features_of(*k), request));
        else EXPECT_THROW(make_plan(caps_of(*k), features_of(*k), request), UnsupportedRequest);
    }
}
