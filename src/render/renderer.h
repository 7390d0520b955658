// Owns the GPU scene, the frame targets and the passes, and records one frame in order:
// units at before_depth (cull) -> depth -> units at after_depth (light cull) -> forward (HDR; +
// shading-time quad mip), or with --shading visibility the compute shading pass over the depth
// pass's visibility image (passes/visibility_pass.h) -> units at after_forward (mip fallback, fix-up) -> resolve (tonemap; +
// quad mip) -> units at after_resolve (exposure) -> view -> overlay. The selectable passes come
// from the pass table (passes/pass_table.h); depth, forward and the views are the renderer's own.
#pragma once

#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "passes/cull_pass.h"
#include "passes/exposure_pass.h"
#include "passes/resolve_pass.h"
#include "passes/meshlet_pass.h"
#include "passes/debug_view_pass.h"
#include "passes/pass_unit.h"
#include "passes/scene_pass.h"
#include "passes/visibility_pass.h"
#include "passes/raster_pass.h"
#include "render/overlay.h"
#include "scene/camera.h"
#include "scene/lights.h"

constexpr uint32_t kFramesInFlight = 2;
constexpr uint32_t kTestWorkSize = 256;

struct RendererConfig {
    VkExtent2D extent{1280, 720};
    uint32_t lights = 256;
    Plan plan;
    bool view_legend = true;  // debug-view legends and labels in the frame
    uint32_t cull_group_size = kDefaultCullGroupSize;
    bool light_loop_split_tiles = false;  // tests only: see FrameContext
    // Tests only (the verdicts' "slowed on purpose" configuration, tests/gpu/test_verdicts.cpp): > 0
    // adds a known amount of GPU work to every frame, inside the frame timer before the passes: the
    // stage probe's loop (shaders/probe_loop.glsl) this many times per invocation over a
    // kTestWorkSize^2 compute dispatch. The frame it draws is unchanged.
    uint32_t test_extra_work = 0;
    // --geometry meshlet: record the order of the mesh shaders' primitive outputs, so that
    // read_drawn_indices() works there too (tests, --cull-dump). Costs a write per triangle.
    bool capture_meshlets = false;
    // Tests only (tests/gpu/test_visibility.cpp): forward writes which triangle it drew, or its uv
    // derivatives, instead of a colour; with derivatives the visibility shading pass writes its own.
    ForwardTestOutput test_forward_output = ForwardTestOutput::colour;
    // Tests only (tests/gpu/test_ray_trace.cpp): on the visibility path the ray tracer finds each
    // pixel's surface with a primary ray, as on the forward path, instead of from its triangle:
    // the oracle the triangle's surface is compared against (FrameContext::test_camera_rays).
    bool test_camera_rays = false;
    CameraView camera = CameraView::overview;  // --camera: what default_view() is
};

struct FrameSlot {
    Buffer uniforms;
    Buffer lights;
    std::unique_ptr<GpuTimer> timer;
    Buffer counters_readback;  // GpuCounters of this slot's last frame, copied at the end of record()
    // The debug view (mode and stage) this slot's last frame drew, if any frame was recorded in it.
    std::optional<std::pair<ViewMode, Stage>> view;
    // Its last frame culled by occlusion under `auto` with a previous pyramid: its counters say
    // whether occlusion pays (occlusion_removes_little).
    bool occlusion_measured = false;
    // Its last frame recorded the hardware ids pass with a draw count from the GPU (ids_gated).
    bool ids_gated = false;
};

class Renderer {
public:
    Renderer(const Context& ctx, const Scene& scene, const RendererConfig& config);
    ~Renderer();
    Renderer(const Renderer&) = delete;
    Renderer& operator=(const Renderer&) = delete;
    // How many renderers this process holds now (--compare's images are each made alone: a test
    // holds it to that).
    static uint32_t alive() { return alive_; }
    // How many renderers this process has built (--tune and the first run's measurement report
    // the ones they built: one, shared by every row).
    static uint32_t built() { return built_; }
    // Seconds this process has spent in Renderer's constructor (the scene's upload, the passes'
    // buffers and layouts; pipelines compile in the first frames): the measurements' set-up split.
    static double seconds_building() { return seconds_building_; }

    // A plan with --geometry meshlet builds the meshlet path on first use (meshlets, buffers,
    // pipelines: a pause of the window's first such frame).
    void set_plan(const Plan& plan);
    const Plan& plan() const { return config_.plan; }
    void resize(VkExtent2D extent);
    VkExtent2D extent() const { return targets_.extent; }

    // Records frame `frame_index` into cmd, using per-frame buffers of `slot` (< kFramesInFlight).
    // `instrument` counts light-list atomics (done in one frame outside the timed ones).
    void record(VkCommandBuffer cmd, uint32_t slot, uint32_t frame_index, const Camera& camera, bool instrument = false);
    // After the slot's frame finished: per-pass GPU milliseconds (negative where a pass did not run).
    // Negative: the pass did not run. The gated ids pass ran only where its frame re-admitted triangles.
    std::array<double, kTimerCount> read_timings(uint32_t slot);
    // After the frame's fence too: the compute rasterizer's pieces of depth and late_depth
    // (counters.raster.dispatch_ms), negative where not recorded.
    PieceTimes read_raster_pieces(uint32_t slot);
    // After the slot's frame finished: the counters it wrote (no wait; the window's HUD reads these every frame).
    GpuCounters read_frame_counters(uint32_t slot) const;
    // The subgroup sizes the next frame's view legend names (GpuCounters::view_sizes of the last
    // completed frame that drew the view; 0 before one has: then the device's range).
    uint32_t view_sizes() const { return view_sizes_; }

    // Readbacks: the device must be idle (headless runs wait per frame). Tightly packed: the
    // colour RGBA8; the HDR frame and the mip RGBA16F (8 bytes a texel, half_to_float in tonemap.h).
    std::vector<uint8_t> read_color();
    std::vector<uint8_t> read_mip();
    std::vector<uint8_t> read_hdr();
    // The compute fallback's mip of the last frame's HDR target, written into an image of its own
    // (the frame's mip is left as it is): what --mip-dump holds the planned writer's mip to.
    std::vector<uint8_t> read_fallback_mip();
    ExposureState read_exposure() const;
    // What a frame carries into the next besides the plan and the previous frame's depth: the
    // exposure's adaptation and occlusion `auto`'s rest. A renderer that several runs share
    // (HeadlessRun: --compare's rows, the first run's measurement) keeps each run's own across the
    // others' frames, so a run's frames are those of a renderer of its own. The device must be idle.
    struct History {  // default: a new renderer's
        ExposureState exposure = initial_exposure_state();
        bool occlusion_resting = false;
        uint32_t occlusion_rest_left = 0;
    };
    History history() const;
    void restore(const History& history);
    // The last frame built a depth pyramid, which the next frame's occlusion phase 1 tests against
    // (the same scene, camera and levels of detail give the same depth whatever the plan).
    bool holds_pyramid() const;
    std::vector<float> read_depth();  // reversed Z, row-major
    // --shading visibility: per pixel the visibility id decoded to (draw, primitive), two words,
    // row-major (frame.h, kNoTriangle). On the
    // meshlet path the primitive word is meshlet << 7 | its triangle.
    std::vector<uint32_t> read_visibility();
    // --raster compute: the last frame's 64-bit visibility words (shaders/raster.glsl), row-major;
    // empty where the plan rasterized in hardware.
    std::vector<uint64_t> read_raster_words();
    // --raster compute: the tile bins' header after the last rasterization: its dispatch's
    // workgroups (x, y, z) and the entries appended (past the capacity where triangles went to the
    // hardware instead); zeros without the compute rasterizer.
    std::array<uint32_t, 4> read_raster_bins();
    // --raster compute under occlusion: the last late draw's dispatches (RasterPass::late_dispatches:
    // the chunks' x, y, z, then at [4] the split's), zeros without the compute rasterizer.
    std::array<uint32_t, 8> read_raster_late_dispatches();
    // Tests only: false drops the compute rasterizer's top-left condition (RasterPass::top_left).
    void set_raster_top_left(bool on) { raster_pass_.top_left = on ? 1u : 0u; }
    // Tests only: the hardware list holds `capacity` triangles, the slots after them `guard_id`
    // (RasterPass::make_guarded_list).
    void set_raster_list_capacity(uint32_t capacity, uint32_t guard_id) { raster_pass_.make_guarded_list(ctx_, capacity, guard_id); }
    // Tests only: the draw count cull_late.comp left for the hardware ids pass in the last frame
    // (CullPass::ids_draw_count: every draw where phase 2 re-admitted something, else 0).
    uint32_t read_ids_draw_count();
    // Tests only: tile bins of `entries` entries (RasterPass::set_bin_capacity).
    void set_raster_bin_capacity(uint32_t entries) { raster_pass_.set_bin_capacity(entries); }
    // Tests only: SGD_RASTER_GUARD_BAND's pixels past the frame's edge (RasterPass::guard_band).
    void set_raster_guard_band(uint32_t pixels) { raster_pass_.guard_band = pixels; }
    // The ray_trace pass's image of the last frame (shaders/raytrace.glsl's encoding, row-major);
    // needs a ray-trace variant other than off.
    std::vector<uint32_t> read_ray_traced();
    GpuCounters read_counters();
    // Per draw, the indices the last frame drew (the culled output; with --cull off each draw's
    // whole level of detail).
    std::vector<std::vector<uint32_t>> read_drawn_indices();
    // Per draw, the list read_visibility's primitives index (render/frame.h's named_indices): under
    // --raster compute the source indices of each draw's chosen level, else read_drawn_indices().
    std::vector<std::vector<uint32_t>> read_named_indices();

    // The frame graph, whose states carry on after a frame (the window's copy to the swapchain).
    FrameGraph& frame_graph() { return targets_.graph; }
    // Add text/rectangles here before record(); they are drawn at the end of that frame.
    Overlay& overlay() { return overlay_; }
    // Called in record() once the passes and views have added their labels and legends, just
    // before the overlay is drawn: the window's HUD, laid out around what is already there.
    void set_overlay_hook(std::function<void(Overlay&)> hook) { overlay_hook_ = std::move(hook); }
    const GpuScene& gpu_scene() const { return scene_; }
    const MeshletPass* meshlets() const { return meshlets_.get(); }
    // The unit of a pass, for what another part of the frame or a test reads of it.
    template <typename Unit>
    Unit& unit(PassId id) const { return static_cast<Unit&>(*units_[size_t(id)]); }
    const Camera& default_view() const { return default_camera_; }
    // The window's camera key: default_view() becomes that view's.
    void set_camera_view(CameraView v);
    CameraView camera_view() const { return config_.camera; }
    glm::vec3 bounds_min() const { return bounds_min_; }
    glm::vec3 bounds_max() const { return bounds_max_; }

    // Culling frozen (the window's F key): no pass tests anything; the depth and forward passes draw
    // the lists of the last frame that culled, wherever the camera goes, so one can fly out and see
    // what was culled. The counters of culling (triangles and meshlets kept, per level, occlusion)
    // read as that frame's. Call with the device idle.
    void set_cull_frozen(bool frozen);
    bool cull_frozen() const { return cull_frozen_; }
    // Occlusion `auto` rests in the frames after one where it removed little (occlusion_pass.h).
    bool occlusion_resting() const { return occlusion_resting_; }

    // The CPU-side values a frame uses (also what tests rebuild their references from).
    FrameUniforms frame_uniforms(uint32_t frame_index, const Camera& camera) const;

private:
    std::vector<uint8_t> read_image(Res name, Image& image);
    void make_visibility_target();  // where the plan shades with visibility and there is none yet
    void record_units(FrameContext& f, FramePoint point);
    // Occlusion `auto`'s rest (occlusion_pass.h): sets occlusion_resting_ for the frame in `slot`.
    void decide_occlusion_rest(FrameSlot& slot, uint32_t slot_index);

    static inline uint32_t alive_ = 0;
    static inline uint32_t built_ = 0;
    static inline double seconds_building_ = 0;
    const Context& ctx_;
    const Scene& cpu_scene_;  // outlives the renderer (its owner's); the meshlet path is built from it
    RendererConfig config_;
    GpuScene scene_;
    FrameTargets targets_;
    std::array<FrameSlot, kFramesInFlight> slots_;
    Buffer counters_;
    // The subgroup sizes the debug view's stage ran at in the last completed frame that drew this
    // view (GpuCounters::view_sizes); 0 until one has. Its legend names them.
    uint32_t view_sizes_ = 0;
    bool cull_frozen_ = false;
    GpuCounters frozen_counters_{};  // the culling counters of the frame culling froze at
    bool occlusion_resting_ = false;
    uint32_t occlusion_rest_left_ = 0;  // frames to rest before occlusion comes back
    uint32_t last_slot_ = 0;         // the slot of the last recorded frame
    Camera default_camera_;
    glm::vec3 bounds_min_, bounds_max_;

    std::array<std::unique_ptr<PassUnit>, kPassCount> units_;  // from the pass table, by PassId
    std::unique_ptr<MeshletPass> meshlets_;  // created when a plan first asks for --geometry meshlet
    Pipeline test_work_;                     // RendererConfig::test_extra_work, and its target
    Image test_work_target_;
    ScenePass scene_pass_;
    VisibilityPass visibility_pass_;
    RasterPass raster_pass_;
    ResolvePass resolve_pass_;
    DebugViewPass view_pass_;
    Overlay overlay_;
    std::function<void(Overlay&)> overlay_hook_;
};
