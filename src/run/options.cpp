#include "run/options.h"

#include "passes/raster_pass.h"  // raster_guard_band

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstdlib>
#include <sstream>

namespace {

uint32_t parse_uint(const std::string& option, const std::string& value, uint32_t min, uint32_t max) {
    uint32_t result = 0;
    auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), result);
    if (error != std::errc() || end != value.data() + value.size())
        throw UsageError(option + " expects a whole number, got '" + value + "'");
    if (result < min || result > max)
        throw UsageError(option + " must be between " + std::to_string(min) + " and " + std::to_string(max) +
                         ", got " + value);
    return result;
}

void parse_size(const std::string& value, uint32_t& width, uint32_t& height) {
    size_t x = value.find('x');
    if (x == std::string::npos) throw UsageError("--size expects WxH (for example 1280x720), got '" + value + "'");
    // 32768 is the largest maxImageDimension2D of the devices we know (NVIDIA); the picked device's
    // own limit is checked before anything is allocated (run/limits.cpp).
    width = parse_uint("--size width", value.substr(0, x), 16, 32768);
    height = parse_uint("--size height", value.substr(x + 1), 16, 32768);
}

template <typename Parse>
uint32_t parse_list(const std::string& option, const std::string& value, Parse parse) {
    uint32_t bits = 0;
    size_t start = 0;
    while (start <= value.size()) {
        size_t comma = value.find(',', start);
        if (comma == std::string::npos) comma = value.size();
        std::string item = value.substr(start, comma - start);
        auto parsed = parse(item);
        if (!parsed) throw UsageError(option + ": unknown name '" + item + "'");
        bits |= 1u << uint32_t(*parsed);
        start = comma + 1;
    }
    return bits;
}

// An option's value read by `parse` (a parse_* function returning an optional), or a usage error
// saying what the option expects.
template <typename Parse>
auto parse_value(const std::string& option, const std::string& value, Parse parse, const std::string& expects) {
    auto parsed = parse(value);
    if (!parsed) throw UsageError(option + " expects " + expects + ", got '" + value + "'");
    return *parsed;
}

// The same where "auto" leaves the choice to the plan (nullopt).
template <typename Parse>
auto parse_auto_or(const std::string& option, const std::string& value, Parse parse, const std::string& expects) {
    using Value = decltype(parse_value(option, value, parse, expects));
    return value == "auto" ? std::nullopt : std::optional<Value>(parse_value(option, value, parse, expects));
}

// join({a, b, c}, ", ", " or ") == "a, b or c"
std::string join(const std::vector<std::string>& names, const char* separator, const char* last_separator) {
    std::string s;
    for (size_t i = 0; i < names.size(); ++i)
        s += (i == 0 ? "" : i + 1 == names.size() ? last_separator : separator) + names[i];
    return s;
}
std::string one_of(const std::vector<std::string>& names) { return join(names, ", ", " or "); }
std::string alternatives(const std::vector<std::string>& names) { return join(names, " | ", " | "); }

// The requests a pass accepts on the command line: auto and the variants it offers.
std::vector<std::string> request_names(const PassInfo& pass) {
    std::vector<std::string> names;
    for (Request r : {Request::automatic, Request::subgroup, Request::forward, Request::fallback, Request::off})
        if (offers(pass, r)) names.emplace_back(request_name(r));
    return names;
}

Request request_of(const PassInfo& pass, const std::string& value) {
    auto r = parse_request(value);
    if (!r || !offers(pass, *r))
        throw UsageError("--" + std::string(pass.name) + " expects " + one_of(request_names(pass)) + ", got '" + value + "'");
    return *r;
}

std::vector<std::string> view_list() { return {kViewNames.begin(), kViewNames.end()}; }

std::vector<std::string> stage_list() {
    std::vector<std::string> names;
    for (const StageInfo& s : kStages) names.emplace_back(stage_name(s.stage));
    return names;
}

// "  --cull V               auto | subgroup | fallback | off": one line per pass of the table.
std::string pass_usage_lines() {
    std::string lines;
    for (const PassInfo& pass : kPasses) {
        std::string option = "  --" + std::string(pass.name) + " V";
        option.resize(std::max<size_t>(option.size() + 1, 25), ' ');
        lines += option + alternatives(request_names(pass)) + "\n";
    }
    return lines;
}

size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        size_t diagonal = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            size_t substitute = diagonal + (a[i - 1] != b[j - 1]);
            diagonal = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, substitute});
        }
    }
    return row[b.size()];
}

}  // namespace

std::vector<std::string> known_options() {
    // Every option --help documents, in its order: the help text is the list, so it cannot drift.
    std::vector<std::string> names;
    std::istringstream lines(usage_text());
    for (std::string line; std::getline(lines, line);) {
        size_t start = line.find_first_not_of(' ');
        for (size_t at = start; at != std::string::npos && line.compare(at, 2, "--") == 0;) {
            size_t end = line.find_first_of(" ,", at);
            std::string name = line.substr(at, end == std::string::npos ? std::string::npos : end - at);
            if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
            at = end == std::string::npos || line.compare(end, 2, ", ") != 0 ? std::string::npos : end + 2;
        }
    }
    return names;
}

std::string closest_option(std::string_view unknown) {
    std::string best;
    size_t best_distance = std::max<size_t>(2, unknown.size() / 3) + 1;  // further than this: no guess
    for (const std::string& name : known_options()) {
        size_t d = edit_distance(unknown, name);
        if (d < best_distance) best = name, best_distance = d;
    }
    return best;
}

std::string usage_text() {
    std::string text = R"(subgroup-demo: a Vulkan forward renderer that shows what subgroup operations buy, pass by pass.

Modes:
  (none)                 interactive window on the default scene
  --headless             render --frames frames offscreen
  --info                 print the device, its subgroup capabilities and the plan
  --compare --out DIR    run every configuration and write a comparison sheet and report
  --tune                 measure each pass's subgroup against its fallback, and the shading rows
                         (forward against visibility, its derivatives, its quad mip against the
                         downsample), at --size and keep the verdicts for tuned auto, replacing
                         a first run's quick verdict (--out DIR: also DIR/tune.json)
  --atlas PATH           one PNG of every subgroup view (rows) in every stage (columns), each
                         cell a --size frame (default 480x270) with the occupancy measured there
  --list-devices         list Vulkan physical devices
  --help, --version

Options:
  --scene PATH           .gltf or .glb file (default: the bundled scene)
  --instances N          replicate the scene in an N x N grid (default 1)
  --unique-meshes        with --instances, every copy gets its own vertex and index data
  --lights N             animated point lights (default 256, at most 65536)
  --size WxH             render resolution (default 1280x720)
  --frames N             frames rendered (default 60)
  --warmup N             frames excluded from timing (default 10)
@PASSES@  --view M               @VIEWS@
                         (docs/debug-views.md); raster: who wrote each pixel's word under
                         --raster compute (a lane, a split over lanes, a tile bin, or the
                         hardware rasterizer); materials: how many materials each pixel's
                         subgroup walked in the material waterfall (--shading visibility,
                         --materials auto or subgroup)
  --view-stage S         @STAGES@
  --geometry G           indexed (compute cull + indirect draws) | meshlet (task + mesh shaders)
  --shading S            auto | forward | visibility
                         forward: the fragment stage shades; visibility: the pre-pass writes
                         each pixel's triangle, a compute pass over 2x2 quads shades and the
                         resolve runs in compute (docs/visibility.md); auto takes forward unless
                         a verdict measured on this device says visibility is faster (without
                         one, the first run measures both for at most 3 s and stores it)
  --raster R             auto | hardware | compute
                         hardware: the graphics pipeline draws the visibility pre-pass; compute:
                         a compute rasterizer writes each pixel's 64-bit word (depth, id) with
                         atomics, the hardware the triangles it is not built for (docs/raster.md);
                         auto takes compute where a verdict measured on this device says it is faster
  --materials V          auto | subgroup | fallback: the visibility shading pass's per-pixel
                         materials; subgroup: a waterfall over each subgroup's distinct materials
                         (subgroupBroadcastFirst, a uniform index per trip); fallback: each lane
                         indexes its own (nonuniformEXT); auto takes subgroup where compute has
                         ballot (docs/materials.md)
  --camera C             overview (fitted, from above) | street (eye height down a street of the
                         --instances grid, docs/occlusion.md) (default overview)
  --lod M                auto (each instance draws the coarsest level of detail whose error
                         projects to at most a quarter pixel, docs/lod.md) | off (full detail)
                         (default auto)
  --no-legend            hide the debug views' legends and labels (for image comparisons)
  --no-tuning            auto ignores the measured verdicts of --tune / --compare / a first run
                         (capabilities only) and measures nothing
  --mask-stages LIST     comma list of stages to treat as lacking subgroup support
  --mask-ops LIST        comma list of basic,vote,arithmetic,ballot,shuffle,shuffle-relative,clustered,quad
  --screenshot PATH      PNG of the final frame
  --mip-dump PATH        PNG of the half-resolution mip of the final frame
  --ray-dump PATH        PNG of the ray-traced flags of the final frame: red lit by the sun, green a
                         shadow ray was traced, blue a reflection was added (docs/ray-tracing.md)
  --report PATH          JSON report
  --validate             enable the Khronos validation layer with synchronization validation
  --device INDEX         pick a physical device (see --list-devices)
  --cull-group-size N    invocations per cull workgroup, each testing 8 triangles, 1..1024 (default 64)
  --subgroup-size N      run the cull, light-cull and exposure passes and the task and mesh
                         stages at N lanes (a power of two the device offers, see --info)
  --cull-dump PATH       text file of the triangles the last frame drew after culling
  --bandwidth-probe      also time a 256 MiB buffer copy; the report compares the cull pass with it
  --probe                with --info: time the same loop in a fragment and a compute shader (the
                         graphics-to-compute ratio that --compare shows beside graphics-vs-compute ratios)
  --no-vsync             window: mailbox or immediate present where offered
  --soak-frames N        window: render N frames pressing every key in turn, check resident memory, exit

Exit codes: 0 ok, 1 runtime failure, 2 bad usage or unsupported request, 3 bad scene,
            4 no usable Vulkan device, 5 validation messages under --validate.
)";
    text.replace(text.find("@PASSES@"), 8, pass_usage_lines());
    text.replace(text.find("@STAGES@"), 8, alternatives(stage_list()));
    text.replace(text.find("@VIEWS@"), 7, alternatives(view_list()));
    return text;
}

Options parse_options(const std::vector<std::string>& args) {
    Options o;
    bool headless = false, info = false, compare = false, tune = false, atlas = false, list = false, help = false, version = false;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto value = [&]() -> const std::string& {
            if (i + 1 >= args.size()) throw UsageError(a + " needs a value (see --help)");
            return args[++i];
        };
        if (a == "--headless") headless = true;
        else if (a == "--info") info = true;
        else if (a == "--compare") compare = true;
        else if (a == "--tune") tune = true;
        else if (a == "--no-tuning") o.no_tuning = true;
        else if (a == "--atlas") atlas = true, o.atlas = value();
        else if (a == "--list-devices") list = true;
        else if (a == "--help" || a == "-h") help = true;
        else if (a == "--version") version = true;
        else if (a == "--validate") o.validate = true;
        else if (a == "--no-vsync") o.no_vsync = true;
        else if (a == "--no-legend") o.view_legend = false;
        else if (a == "--soak-frames") o.soak_frames = parse_uint(a, value(), 1, 10000000);
        else if (a == "--scene") o.scene = value();
        else if (a == "--instances") o.instances = parse_uint(a, value(), 1, kMaxInstancesPerSide);
        else if (a == "--lights") o.lights = parse_uint(a, value(), 0, kMaxLights);
        else if (a == "--size") parse_size(value(), o.width, o.height), o.size_given = true;
        else if (a == "--frames") o.frames = parse_uint(a, value(), 1, 1000000);
        else if (a == "--warmup") o.warmup = parse_uint(a, value(), 0, 1000000);
        else if (auto pass = a.rfind("--", 0) == 0 ? find_pass_by_name(a.substr(2)) : std::nullopt)
            o.plan[*pass] = request_of(pass_info(*pass), value());
        else if (a == "--view") o.plan.view = parse_value(a, value(), parse_view_mode, one_of(view_list()));
        else if (a == "--view-stage") o.plan.view_stage = parse_value(a, value(), parse_stage, one_of(stage_list()));
        else if (a == "--shading") o.plan.shading = parse_auto_or(a, value(), parse_shading, "auto, forward or visibility");
        else if (a == "--raster") o.plan.raster = parse_auto_or(a, value(), parse_raster, "auto, hardware or compute");
        else if (a == "--materials") {
            auto r = parse_request(value());
            if (!r || (*r != Request::automatic && *r != Request::subgroup && *r != Request::fallback))
                throw UsageError("--materials expects auto, subgroup or fallback, got '" + args[i] + "'");
            o.plan.materials = *r;
        } else if (a == "--geometry") o.plan.geometry = parse_value(a, value(), parse_geometry, "indexed or meshlet");
        else if (a == "--camera") o.camera = parse_value(a, value(), parse_camera_view, "overview or street");
        else if (a == "--lod") {
            std::string mode = value();
            if (mode != "auto" && mode != "off") throw UsageError("--lod expects auto or off, got '" + mode + "'");
            o.plan.lod = mode == "auto";
        } else if (a == "--mask-stages") o.mask_stages = parse_list(a, value(), parse_stage);
        else if (a == "--mask-ops") o.mask_ops = parse_list(a, value(), parse_op);
        else if (a == "--screenshot") o.screenshot = value();
        else if (a == "--mip-dump") o.mip_dump = value();
        else if (a == "--ray-dump") o.ray_dump = value();
        else if (a == "--report") o.report = value();
        else if (a == "--out") o.out_dir = value();
        else if (a == "--device") o.device = parse_uint(a, value(), 0, 1000);
        else if (a == "--cull-group-size") o.cull_group_size = parse_uint(a, value(), 1, 1024);
        else if (a == "--subgroup-size") {
            // Vulkan's subgroup sizes are powers of two, 1 to 128; the device's range is checked later.
            o.subgroup_size = parse_uint(a, value(), 1, 128);
            if (!std::has_single_bit(o.subgroup_size))
                throw UsageError("--subgroup-size expects a power of two from 1 to 128, got '" + args[i] + "'");
        }
        else if (a == "--cull-dump") o.cull_dump = value();
        else if (a == "--bandwidth-probe") o.bandwidth_probe = true;
        else if (a == "--probe") o.probe = true;
        else if (a == "--unique-meshes") o.unique_meshes = true;
        else if (std::string guess = closest_option(a); !guess.empty())
            throw UsageError("unknown option '" + a + "': did you mean " + guess + "? (see --help)");
        else throw UsageError("unknown option '" + a + "' (see --help)");
    }
    int modes = headless + info + compare + tune + atlas + list;
    if (help) o.mode = Mode::help;
    else if (version) o.mode = Mode::version;
    else if (modes > 1) throw UsageError("choose one of --headless, --info, --compare, --tune, --atlas, --list-devices");
    else if (headless) o.mode = Mode::headless;
    else if (info) o.mode = Mode::info;
    else if (compare) o.mode = Mode::compare;
    else if (tune) o.mode = Mode::tune;
    else if (atlas) o.mode = Mode::atlas;
    else if (list) o.mode = Mode::list_devices;
    if (o.mode == Mode::compare && o.out_dir.empty()) throw UsageError("--compare needs --out DIR");
    if (o.mode != Mode::compare && o.mode != Mode::tune && !o.out_dir.empty())
        throw UsageError("--out is only used with --compare and --tune");
    if (o.mode == Mode::atlas && !o.size_given) o.width = 480, o.height = 270;
    if (o.soak_frames && (headless || info || compare || tune || atlas || list)) throw UsageError("--soak-frames is only used by the window");
    if (o.probe && o.mode != Mode::info && o.mode != Mode::help && o.mode != Mode::version)
        throw UsageError("--probe is only used with --info (--compare always runs the probe)");
    if (o.warmup >= o.frames && (o.mode == Mode::headless || o.mode == Mode::compare || o.mode == Mode::tune))
        throw UsageError("--warmup (" + std::to_string(o.warmup) + ") must be less than --frames (" +
                         std::to_string(o.frames) + ")");
    // The ray tracer's launch (docs/ray-tracing.md, "Dense rays"): no option, the environment
    // (tools/gpu_bench.sh's rays suite measures the dense launch against the plain one).
    if (const char* lists = std::getenv("SGD_RAY_LISTS"); lists && *lists) {
        std::string_view m = lists;
        if (m == "subgroup") o.plan.ray_lists = Request::subgroup;
        else if (m == "fallback") o.plan.ray_lists = Request::fallback;
        else if (m == "off") o.plan.ray_lists = Request::off;
        else if (m != "auto") throw UsageError("SGD_RAY_LISTS must be auto, subgroup, fallback or off, not '" + std::string(m) + "'");
    }
    // The ray tracer's acceleration structures (docs/ray-tracing.md, "Refitting"): refitted every
    // frame unless SGD_RAY_REFIT=off (the full rebuild, for gpu_bench.sh's refit suite and tests).
    if (const char* refit = std::getenv("SGD_RAY_REFIT"); refit && *refit) {
        std::string_view m = refit;
        if (m == "off") o.plan.ray_refit = false;
        else if (m != "on") throw UsageError("SGD_RAY_REFIT must be on or off, not '" + std::string(m) + "'");
    }
    // The compute rasterizer's path (docs/raster.md): likewise the environment alone (the raster
    // suite measures the subgroup path against its fallback with the other passes as they are).
    if (const char* path = std::getenv("SGD_RASTER_PATH"); path && *path) {
        std::string_view m = path;
        if (m == "subgroup") o.plan.raster_variant = Request::subgroup;
        else if (m == "fallback") o.plan.raster_variant = Request::fallback;
        else if (m != "auto") throw UsageError("SGD_RASTER_PATH must be auto, subgroup or fallback, not '" + std::string(m) + "'");
    }
    if (!raster_guard_band(std::getenv("SGD_RASTER_GUARD_BAND")))
        throw UsageError("SGD_RASTER_GUARD_BAND must be a number of pixels from 0 to " + std::to_string(kRasterMaxGuardBand) + ", not '" +
                         std::getenv("SGD_RASTER_GUARD_BAND") + "'");
    return o;
}
