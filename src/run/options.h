// The command line of the contract (../shared/spec/contract.md): parsed into plain data.
#pragma once

#include "scene/camera.h"

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "plan/plan.h"

enum class Mode { window, headless, info, compare, tune, atlas, list_devices, help, version };

struct Options {
    Mode mode = Mode::window;
    std::string scene;  // empty: the bundled default scene
    uint32_t instances = 1;
    uint32_t lights = 256;
    uint32_t width = 1280;
    uint32_t height = 720;
    uint32_t frames = 60;
    uint32_t warmup = 10;
    PlanRequest plan;
    uint32_t mask_stages = 0;  // bit(Stage)
    uint32_t mask_ops = 0;     // bit(Op)
    std::string screenshot;
    std::string mip_dump;
    std::string ray_dump;  // --ray-dump PATH: the ray_trace pass's shadow and reflection flags per pixel
    std::string report;
    std::string out_dir;  // --compare --out DIR
    bool no_tuning = false;  // --no-tuning: auto ignores the tuning file (compare/tuning.h)
    std::string atlas;    // --atlas PATH: every subgroup view in every stage on one PNG
    bool size_given = false;  // --size was on the command line (--atlas has its own default)
    bool validate = false;
    bool no_vsync = false;
    bool view_legend = true;  // debug views draw their legend / "unsupported" label (--no-legend: off)
    uint32_t cull_group_size = 64;  // --cull-group-size: invocations per cull workgroup (8 triangles each)
    uint32_t subgroup_size = 0;     // --subgroup-size: what the compute passes, task and mesh run at (0: the driver's)
    std::string cull_dump;          // --cull-dump PATH: the triangles the last frame drew
    bool bandwidth_probe = false;   // --bandwidth-probe: time a large buffer copy for the report
    bool unique_meshes = false;     // --unique-meshes: with --instances, each copy has its own geometry
    CameraView camera = CameraView::overview;  // --camera
    bool probe = false;             // --probe: with --info, also run the graphics-to-compute stage probe
    uint32_t test_extra_work = 0;   // tests only, no option: RendererConfig::test_extra_work
    uint32_t soak_frames = 0;  // window: > 0 runs that many frames cycling every control, checks memory, exits
    std::optional<uint32_t> device;
};

// Bad command line: exit 2 with the message.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

Options parse_options(const std::vector<std::string>& args);
std::string usage_text();
// The options --help documents ("--size", "--cull", ...), and the one an unknown option was
// most likely meant to be (edit distance), or empty when none is close.
std::vector<std::string> known_options();
std::string closest_option(std::string_view unknown);

// Hard limits checked before anything is allocated (the device's own limits are checked later).
constexpr uint32_t kMaxInstancesPerSide = 64;  // 4096 copies of the scene
constexpr uint32_t kMaxLights = 65536;
// --unique-meshes: the vertex and the index buffer are each bound as one storage buffer, and
// maxStorageBufferRange is a uint32 on every device: past this no device can run the request.
constexpr uint64_t kMaxGeometryBufferBytes = UINT32_MAX;
