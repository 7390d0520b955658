// Made-up devices for the planner's CPU tests (tests/known_drivers.h holds real drivers' records).
#pragma once

#include "caps/caps.h"

// lavapipe's shape at 8 lanes: subgroups in fragment and compute, every operation but clustered.
inline SubgroupCaps lavapipe_like_caps() {
    SubgroupCaps c;
    c.size = c.min_size = c.max_size = 8;
    c.stages = bit(Stage::fragment) | bit(Stage::compute);
    c.ops = bit(Op::basic) | bit(Op::vote) | bit(Op::arithmetic) | bit(Op::ballot) | bit(Op::shuffle) |
            bit(Op::shuffle_relative) | bit(Op::quad);
    return c;
}

// Every stage, every operation, quads everywhere, 32 lanes (an NVIDIA GPU's shape).
inline SubgroupCaps every_subgroup_caps() {
    SubgroupCaps c;
    c.size = c.min_size = c.max_size = 32;
    c.stages = (1u << uint32_t(Stage::count)) - 1;
    c.ops = (1u << uint32_t(Op::count)) - 1;
    c.quad_in_all_stages = true;
    return c;
}

// Every device feature the passes and views ask for, mesh shaders and ray tracing included.
inline DeviceFeatures every_feature() {
    DeviceFeatures f;
    f.tessellation = f.geometry = f.fragment_stores = f.vertex_stores = f.multi_draw_indirect = true;
    f.mesh_shader = f.ray_tracing = f.compute_full_subgroups = f.int64_atomics = true;
    return f;
}
