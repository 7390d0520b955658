// Renders one frame through Renderer in this process and reads back what the light-cull tests
// compare: the list buffer, the pre-pass depth, the counters, the colour, and the exact inputs
// (uniforms, lights) the CPU reference needs.
#pragma once

#include <vector>

#include "oracles/light_reference.h"
#include "passes/light_cull_pass.h"
#include "render/renderer.h"

// One Vulkan context for the whole test process, with validation (and synchronization
// validation) on; validation_message_count() counts its messages.
const Context& test_context();
const Scene& default_scene();

// A renderer's configuration: `extent`, `lights` lights, and the plan of `request` on ctx's device.
RendererConfig planned_config(const Context& ctx, const PlanRequest& request, VkExtent2D extent, uint32_t lights);

struct LightFrame {
    FrameUniforms uniforms{};
    std::vector<GpuLight> lights;
    std::vector<float> depth;
    LightListLayout layout;
    std::vector<uint32_t> words;  // the whole list buffer, guard words included (empty when off)
    std::vector<TileList> tiles;  // decoded from words
    GpuCounters counters{};
    std::vector<uint8_t> color;   // RGBA8
    Plan plan;
};

// The light tests' frame size.
constexpr VkExtent2D kLightFrameSize{320, 180};

struct LightFrameRequest {
    VkExtent2D extent = kLightFrameSize;
    uint32_t lights = 256;
    Request light_cull = Request::automatic;
    Request light_loop = Request::automatic;
    bool split_tiles = false;  // forward: odd pixel columns take the next tile's list (FrameContext)
    uint32_t frame_index = 0;
    bool instrument = false;
    ViewMode view = ViewMode::shaded;
    const Scene* scene = nullptr;  // default_scene() when null
};

LightFrame render_light_frame(const LightFrameRequest& request);

// The CPU reference for the frame, from its own depth buffer, lights and uniforms.
ReferenceLists reference_for(const LightFrame& frame);

// A tolerance for "borderline" pairs: 1e-5 of the far plane distance (float rounding of view
// space positions is about 1e-7 of it), see ReferenceTile::borderline.
double borderline_tolerance(const FrameUniforms& uniforms);
