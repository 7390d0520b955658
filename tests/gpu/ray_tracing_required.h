// The ray-tracing tests' requirement (RayTrace.*, MaterialMaps.Reflected*): where the device has no
// ray-tracing pipeline the test is skipped, unless the record of the running driver says it traces
// (tests/known_drivers.h: the Mesa 25 lavapipe): then detection that lost it is a failure, not a skip.
#pragma once

#include <gtest/gtest.h>

#include "gpu/harness.h"
#include "known_drivers.h"

// Whether the device traces: the record's answer where the running driver has one, else the device's.
inline bool device_traces() {
    const KnownDriver* k = known_driver();
    return k ? k->ray_tracing : test_context().features.ray_tracing;
}

#define REQUIRE_RAY_TRACING()                                                                                       \
    if (!test_context().features.ray_tracing) {                                                                     \
        if (device_traces())                                                                                        \
            FAIL() << "detection found no ray-tracing pipeline, but the record of " << known_driver()->name         \
                   << " has one (tests/known_drivers.h)";                                                           \
        GTEST_SKIP() << "device has no ray-tracing pipeline (VK_KHR_ray_tracing_pipeline): nothing to trace";       \
    }

// The dense launch's requirement: vkCmdTraceRaysIndirectKHR (rayTracingPipelineTraceRaysIndirect),
// held to the driver's record as above.
#define REQUIRE_INDIRECT_TRACE()                                                                                    \
    if (!test_context().features.ray_tracing_indirect) {                                                            \
        if (known_driver() && known_driver()->ray_tracing)                                                          \
            FAIL() << "detection found no indirect trace launch, but " << known_driver()->name                      \
                   << " has rayTracingPipelineTraceRaysIndirect (its ray tracing, tests/known_drivers.h)";          \
        GTEST_SKIP() << "device lacks rayTracingPipelineTraceRaysIndirect: no dense launch";                        \
    }
