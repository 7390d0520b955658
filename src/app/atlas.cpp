#include "app/atlas.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <unistd.h>

#include "run/image_io.h"
#include "run/headless.h"
#include "run/progress.h"
#include "render/text_format.h"
#include "run/report.h"
#include "passes/debug_view_pass.h"

namespace {

constexpr size_t kColumns = size_t(Stage::count);
constexpr size_t kRows = std::size(kAtlasRows);
constexpr uint32_t kAtlasText = pack_rgba(230, 230, 230);
constexpr uint32_t kDimText = pack_rgba(150, 150, 160);

// "8.0 of 32 lanes (25%)" where one subgroup size ran, "40.1 lanes, sizes 32-64 (63%)" where
// several did (the occupancy from the lanes the subgroups had, when counted); empty if not measured.
std::string occupancy_text(const std::optional<SubgroupTally>& t) {
    if (!t) return "";
    double lanes = double(t->lanes) / double(t->subgroups);
    std::vector<uint32_t> sizes = subgroup_sizes(t->sizes);
    char text[96];
    if (sizes.size() == 1)
        snprintf(text, sizeof(text), "%.1f of %u lanes", lanes, sizes[0]);
    else
        snprintf(text, sizeof(text), "%.1f lanes, %s", lanes, sizes_text(t->sizes).c_str());
    std::string out = text;
    if (std::optional<double> full = occupancy(*t)) {
        snprintf(text, sizeof(text), " (%.0f%%)", 100.0 * *full);
        out += text;
    }
    return out;
}

}  // namespace

AtlasLayout make_atlas_layout(uint32_t frame_width, uint32_t frame_height) {
    AtlasLayout l;
    l.margin = 6;
    // Labels at double size once a frame is wide enough for "closest-hit" and an occupancy line.
    l.text_scale = frame_width >= 320 ? 2 : 1;
    int pitch = kTextLinePitch * l.text_scale;
    l.header_height = l.margin + 2 * pitch + l.margin;
    l.row_name_width = text_width("first-last-lane", l.text_scale) + 2 * l.margin;
    l.frame_width = int(frame_width);
    l.frame_height = int(frame_height);
    l.label_height = l.margin / 2 + 2 * pitch + l.margin / 2;
    l.cell_width = l.frame_width;
    l.cell_height = l.frame_height + l.label_height;
    l.width = l.row_name_width + int(kColumns) * (l.cell_width + l.margin);
    l.height = l.header_height + int(kRows) * (l.cell_height + l.margin);
    return l;
}

PixelRect AtlasLayout::cell(size_t row, size_t column) const {
    return {row_name_width + int(column) * (cell_width + margin), header_height + int(row) * (cell_height + margin),
            cell_width, cell_height};
}

PixelRect AtlasLayout::frame(size_t row, size_t column) const {
    PixelRect c = cell(row, column);
    return {c.x, c.y, frame_width, frame_height};
}

PixelRect AtlasLayout::label(size_t row, size_t column) const {
    PixelRect c = cell(row, column);
    return {c.x, c.y + frame_height, cell_width, label_height};
}

PixelRect AtlasLayout::row_name(size_t row) const {
    PixelRect c = cell(row, 0);
    return {0, c.y, row_name_width, c.h};
}

RgbaImage compose_atlas(const AtlasLayout& l, const std::vector<TextLine>& header, const std::vector<AtlasCell>& cells) {
    RgbaImage atlas(uint32_t(l.width), uint32_t(l.height), kSheetBackground);
    int pitch = kTextLinePitch * l.text_scale;
    for (size_t i = 0; i < header.size(); ++i)
        draw_text(atlas, l.margin, l.margin + int(i) * pitch, header[i].text, header[i].rgba, l.text_scale);
    for (size_t row = 0; row < kRows; ++row) {
        PixelRect name = l.row_name(row);
        draw_text(atlas, name.x + l.margin, name.y + l.frame_height / 2 - pitch / 2, view_mode_name(kAtlasRows[row]),
                  kAtlasText, l.text_scale);
        for (size_t column = 0; column < kColumns; ++column) {
            const AtlasCell& cell = cells[row * kColumns + column];
            fill_rect(atlas, l.cell(row, column), kSheetCellBackground);
            PixelRect frame = l.frame(row, column);
            if (cell.frame.width) {
                blit(atlas, cell.frame, frame.x, frame.y);
            } else {
                // Nothing rendered (the request itself is unsupported): the views' own hatch over
                // the whole frame, with the reason, so the cell is marked rather than missing.
                for (int y = 0; y < frame.h; ++y)
                    for (int x = 0; x < frame.w; ++x)
                        if (hatch_stripe(x, y)) fill_rect(atlas, {frame.x + x, frame.y + y, 1, 1}, kHatchColour);
                int y = frame.y + l.margin;
                for (const std::string& line : wrap_text(cell.failure, frame.w - 2 * l.margin, 1)) {
                    fill_rect(atlas, {frame.x + l.margin - 2, y - 2, text_width(line, 1) + 4, kTextLinePitch}, kSheetBackground);
                    draw_text(atlas, frame.x + l.margin, y, line, kAtlasText, 1, frame);
                    y += kTextLinePitch;
                }
            }
            PixelRect label = l.label(row, column);
            PixelRect text{label.x + l.margin / 2, label.y + l.margin / 2, label.w - l.margin, label.h - l.margin};
            for (size_t i = 0; i < cell.label.size(); ++i)
                draw_text(atlas, text.x, text.y + int(i) * pitch, cell.label[i].text, cell.label[i].rgba, l.text_scale, text);
        }
    }
    return atlas;
}

Options atlas_cell_options(const Context& ctx, const Options& options, ViewMode view, Stage stage, const std::string& screenshot) {
    Options o = options;
    o.mode = Mode::headless;
    o.plan.view = view;
    o.plan.view_stage = stage;
    // Task and mesh shaders run only on the meshlet path.
    if ((stage == Stage::task || stage == Stage::mesh) && ctx.features.mesh_shader) o.plan.geometry = Geometry::meshlet;
    o.frames = 1;  // nothing is timed: one frame after the instrumented one
    o.warmup = 0;
    o.screenshot = screenshot;
    o.mip_dump.clear(), o.ray_dump.clear(), o.report.clear(), o.cull_dump.clear();
    o.bandwidth_probe = false;
    return o;
}

std::vector<Plan> atlas_plans(const Context& ctx, const Options& options) {
    std::vector<Plan> plans;
    for (size_t column = 0; column < kColumns; ++column)
        for (ViewMode view : kAtlasRows) try {
                plans.push_back(make_plan(ctx.subgroup, ctx.features, atlas_cell_options(ctx, options, view, Stage(column)).plan));
            } catch (const UnsupportedRequest&) {
                // drawn hatched with its reason: nothing allocated
            }
    return plans;
}

int run_atlas(const Context& ctx, const Scene& scene, const Options& options) {
    namespace fs = std::filesystem;
    // Frames go through PNG files, as every screenshot does (run_headless), in a folder of our own.
    fs::path work = fs::temp_directory_path() / ("subgroup-demo-atlas-" + std::to_string(getpid()));
    fs::create_directories(work);

    std::vector<AtlasCell> cells(kRows * kColumns);
    std::vector<std::optional<SubgroupTally>> measured(kColumns);
    std::vector<std::string> unmeasured(kColumns);
    // A stage's column at a time: 42 renders, seconds each on a CPU device at the default size.
    ProgressLine line;
    auto started = std::chrono::steady_clock::now();
    for (size_t column = 0; column < kColumns; ++column) {
        Stage stage = Stage(column);
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        line.update("  atlas: " + std::string(stage_name(stage)) + ", stage " + std::to_string(column + 1) + " of " +
                    std::to_string(kColumns) + " after " + fixed(s, 1) + " s");
        for (size_t row = 0; row < kRows; ++row) {
            AtlasCell& cell = cells[row * kColumns + column];
            std::string name = std::string(stage_name(stage)) + "." + std::string(view_mode_name(kAtlasRows[row])) + ".png";
            Options o = atlas_cell_options(ctx, options, kAtlasRows[row], stage, (work / name).string());
            Plan plan;
            try {
                plan = make_plan(ctx.subgroup, ctx.features, o.plan);
            } catch (const UnsupportedRequest& e) {
                cell.failure = e.what();
                unmeasured[column] = e.what();
                continue;
            }
            RunResult result = run_headless(ctx, scene, o, plan, true);
            cell.frame = load_image(result.screenshot);
            fs::remove(result.screenshot);
            if (cell.frame.width == 0) throw std::runtime_error("cannot read back the screenshot " + result.screenshot);
            if (std::optional<SubgroupTally> t = measured_subgroups(result.counters, plan, stage)) measured[column] = t;
            else if (plan.view.variant != Variant::subgroup)
                unmeasured[column] = plan.view.reason;
        }
    }
    line.finish();
    fs::remove_all(work);

    for (size_t column = 0; column < kColumns; ++column) {
        std::string stage(stage_name(Stage(column)));
        std::string text = occupancy_text(measured[column]);
        printf("%-13s %s\n", stage.c_str(),
               !text.empty() ? ("mean " + text).c_str()
                                 : ("not measured: " + (unmeasured[column].empty() ? std::string("no subgroup counted")
                                                                                   : unmeasured[column])).c_str());
        for (size_t row = 0; row < kRows; ++row) {
            std::vector<TextLine>& label = cells[row * kColumns + column].label;
            label.push_back({stage, kAtlasText});
            label.push_back(text.empty() ? TextLine{"not measured", kHatchColour} : TextLine{text, kDimText});
        }
    }

    AtlasLayout layout = make_atlas_layout(options.width, options.height);
    char size[64];
    snprintf(size, sizeof(size), "%ux%u per cell", options.width, options.height);
    std::vector<TextLine> header = {
        {"subgroup-demo --atlas: " + ctx.info.name + " (" + ctx.info.driver + "), " +
             sizes_text(sizes_in_range(ctx.subgroup.min_size, ctx.subgroup.max_size)) + ", " + size, kAtlasText},
        {"under each frame: its stage and the mean active lanes per subgroup measured there (active-lanes' count; "
         "ray tracing: the ray_trace pass's); hatched: no subgroups there, the reason in the frame", kDimText}};
    RgbaImage atlas = compose_atlas(layout, header, cells);
    write_png(options.atlas, atlas.width, atlas.height, atlas.rgba);
    printf("wrote %s (%ux%u: %zu views x %zu stages)\n", options.atlas.c_str(), atlas.width, atlas.height, kRows, kColumns);
    return 0;
}
