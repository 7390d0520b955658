// Debug views lane-id, first-last-lane and active-lanes in any shader stage: vertex, tess-control,
// tess-eval, geometry (pass-through draws of the scene), fragment, compute (one invocation per
// pixel). Where the plan says the stage cannot run the view's subgroup operations, the same draw
// runs without them and hatches the scene, with a label saying why; no lane number is made up.
#pragma once

#include <array>
#include <functional>
#include <optional>

#include "passes/subgroup_tally.h"
#include "render/frame.h"
#include "render/overlay.h"

// The compute view's workgroup is kViewWorkgroup x kViewWorkgroup invocations (shaders/view.comp).
constexpr uint32_t kViewWorkgroup = 16;
constexpr uint32_t kLanePaletteSize = 128;  // the largest subgroup Vulkan allows

// The views' colours: RGBA8 as 0xAABBGGRR, sRGB-encoded bytes, exactly what the views write
// into the colour target (tests decode images with these).
uint32_t lane_colour(uint32_t lane);  // lane-id: lane < kLanePaletteSize; neighbours differ strongly
constexpr uint32_t kFirstLaneColour = rgba8(0, 220, 255);    // first-last-lane: first active lane
constexpr uint32_t kLastLaneColour = rgba8(255, 40, 200);    // last active lane
constexpr uint32_t kOnlyLaneColour = rgba8(255, 255, 255);   // the only active lane (first and last)
constexpr float kFirstLastDim = 0.7f;                        // unmarked pixels keep 30% of the scene
constexpr uint32_t kHatchColour = rgba8(255, 190, 0);        // "no subgroup support" stripes
// active-lanes ramp: active lanes / subgroup size at 0, 0.5 and 1 (linear in between).
constexpr std::array<uint32_t, 3> kActiveRamp = {rgba8(200, 30, 30), rgba8(240, 200, 40), rgba8(40, 200, 90)};
uint32_t active_ramp_colour(float fraction);  // the shader's ramp, for legends (may differ by 1 in a byte)

// The lod view (--view lod, docs/lod.md): one colour per level of detail, 0 to kMaxLodLevels - 1,
// from full detail (green) through warm colours to the coarsest (blue, purple).
constexpr std::array<uint32_t, kMaxLodLevels> kLodColours = {rgba8(40, 200, 90),  rgba8(230, 230, 60), rgba8(250, 150, 40),
                                                             rgba8(230, 50, 50),  rgba8(230, 60, 200), rgba8(150, 80, 240),
                                                             rgba8(60, 110, 250), rgba8(60, 220, 240)};

// The overdraw view (--view overdraw): every fragment the lod view's draws rasterize, without a
// depth test, adds this to its pixel, from black (alpha 0: the premultiplied blend adds). Blue
// counts 16 per fragment up to 15 fragments; red is full at 4 and green at 8, so the ramp runs
// black, brown, orange, yellow to white at 16 and more.
constexpr uint32_t kOverdrawStep = rgba8(64, 32, 16, 0);
constexpr uint32_t kOverdrawBlueStep = (kOverdrawStep >> 16) & 0xff;
constexpr uint32_t kOverdrawCountable = 255 / kOverdrawBlueStep;  // fragments a pixel's blue counts exactly: 15

// Whether pixel (x, y) lies on a stripe of the hatch (shaders/view_common.glsl, hatch_stripe).
constexpr bool hatch_stripe(int x, int y) { return ((x + y) / 6) % 2 == 0; }

// The frame's counters, where the stage under view ORs in the subgroup sizes it ran at
// (GpuCounters::view_sizes): the binding after the colours' in every view (view_common.glsl), 5 in
// the graphics views (after the scene's 0..3 and ViewParams), 2 in the compute view (after the
// colour image and ViewParams).
constexpr uint32_t kViewGraphicsCountersBinding = 5;
constexpr uint32_t kViewComputeCountersBinding = 2;

// Which SPIR-V variant a view stage runs: `plain` has no subgroup operation at all.
enum class ViewKind : uint32_t { plain, lane_id, first_last, active, count };

// One pipeline's shaders: each Vulkan stage and the SPIR-V it runs ("view.tesc.lane_id").
using PipelineShaders = std::vector<std::pair<VkShaderStageFlagBits, std::string>>;
// The pipelines DebugViewPass draws a view in `stage` with (vertex to compute), in order: for
// tess-control, tess-eval and geometry the depth redraw's (all plain), then the view's own, where
// `stage` runs `kind` and every other stage its plain pass-through.
std::vector<PipelineShaders> view_pipelines(Stage stage, ViewKind kind);
// The pipeline stages whose shaders read and write the frame's counters while a view runs `kind`
// in `stage` (the stage it draws in: vertex for a hatch without that stage): for vertex to compute
// the stages of view_pipelines() that run a variant other than plain, for task and mesh both (the
// meshlet path's shaders count in every variant), for a ray-tracing stage the ray-tracing stage.
// The view's barrier makes the frame's earlier counter writes visible there.
VkPipelineStageFlags2 view_counter_stages(Stage stage, ViewKind kind);

// The view's barrier on the counters: from every stage that may have written them earlier in the
// frame on this device (counter_stages) to the stages the view counts in (view_counter_stages).
// Both 0 where the view counts nowhere (the hatch): no barrier then.
struct CounterBarrier {
    VkPipelineStageFlags2 src = 0, dst = 0;
};
CounterBarrier view_counter_barrier(const DeviceFeatures& features, Stage stage, ViewKind kind);

class DebugViewPass {
public:
    void create(const Context& ctx);
    // Draws the planned view (f.plan.view) over the shaded frame; nothing for other views.
    // `legend`: add the legend or the "no subgroup support" label to f.overlay.
    void record(FrameContext& f, bool legend);
    // Draws a supported view in a stage that a pass's own work runs (the ray tracer's six stages;
    // compute under --shading visibility, the shading pass), given the views' colours: the renderer
    // asks its units (PassUnit::record_stage_view) and the visibility pass.
    std::function<bool(FrameContext&, const Buffer&)> unit_view;

private:
    const Pipeline& pipeline(const Context& ctx, Stage stage, ViewKind kind);
    const Pipeline& depth_pipeline(const Context& ctx, Stage stage);
    void push_view_bindings(FrameContext& f, const Pipeline& pipeline);
    void record_depth(FrameContext& f, const Pipeline& pipeline);
    void record_graphics(FrameContext& f, const Pipeline& pipeline);
    void begin_view_rendering(FrameContext& f);
    void record_compute(FrameContext& f, const Pipeline& pipeline);
    void record_lod(FrameContext& f, bool legend);
    void record_overdraw(FrameContext& f, bool legend);
    void draw_chosen_levels(FrameContext& f, const Pipeline& pipeline, uint32_t colour);  // 0: kLodColours

    Buffer params_;  // ViewParams of shaders/view_common.glsl, constant
    // Created on first use: a variant with subgroup operations is loaded only when the plan has
    // confirmed the stage supports them (pipeline creation would fail otherwise).
    std::array<std::array<Pipeline, size_t(ViewKind::count)>, size_t(Stage::count)> pipelines_;
    // Tessellation and geometry views redraw depth through their own pass-through stages first.
    std::array<Pipeline, size_t(Stage::count)> depth_pipelines_;
    // The lod and overdraw views, created on first use: their pipelines (the same shaders), and one
    // indirect command per draw and level.
    Pipeline lod_pipeline_, overdraw_pipeline_;
    Buffer lod_indirect_;
    uint32_t lod_commands_ = 0;
    Buffer lod_count_;  // lod_commands_, for a frame that drew with a GPU count (FrameContext::drew_with_count)
};

// What the frame counted about the subgroups of `stage`: the active-lanes view's own count where it
// ran there (view_subgroups, view_lanes, view_sizes; lane_slots only where one size ran), or in a
// ray-tracing stage the ray_trace pass's subgroup statistics. nullopt where nothing counted.
std::optional<SubgroupTally> measured_subgroups(const GpuCounters& counters, const Plan& plan, Stage stage);

// Double-size legend text in frames at least this tall, single below, whatever the text (the
// HUD's own step, window/hud.h hud_scale, so legend and HUD text match).
constexpr uint32_t kLegendDoubleSizeHeight = 600;
// The legend of a view of colour keys (lod, overdraw, raster, materials): its title, then a row of
// swatches, each with its text, at the text size of the frame's size.
struct Swatch {
    uint32_t colour;
    std::string text;
};
void add_swatch_legend(Overlay& overlay, VkExtent2D extent, const std::string& title, const std::vector<Swatch>& swatches);
// The legend of a view (mode, stage, the subgroup sizes that ran, colours) or the unsupported
// stage's label. `sizes`: the sizes the stage ran at, a mask of powers of two (SubgroupTally::sizes).
void add_view_legend(Overlay& overlay, VkExtent2D extent, const ViewPlan& plan, uint32_t sizes);
// The lod view's legend: its title and a swatch per level, numbered, at the same text size.
void add_lod_legend(Overlay& overlay, VkExtent2D extent, bool lod_auto);
// The overdraw view's: its title and the swatches of 1, 2, 4, 8 and 16 fragments (16: and more).
void add_overdraw_legend(Overlay& overlay, VkExtent2D extent);
// Its first line: "lane-id | closest-hit | subgroup sizes 32-64".
std::string view_legend_title(const ViewPlan& plan, uint32_t sizes);
// The lane-id legend's swatches: one per lane of the largest subgroup that ran.
uint32_t legend_lanes(uint32_t sizes);
