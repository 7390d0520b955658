// --atlas PATH: the three subgroup views (rows: lane-id, first-last-lane, active-lanes) in the
// fourteen stages (columns, in the contract's order) on one PNG. Each cell is a --size frame with
// the view's legend, labelled under it with its stage and the mean active lanes per subgroup
// measured in that stage; a stage the device cannot show is the hatched frame with its reason.
#pragma once

#include <string>
#include <vector>

#include "run/options.h"
#include "plan/plan.h"
#include "compare/sheet.h"

struct Context;
struct Scene;

constexpr ViewMode kAtlasRows[3] = {ViewMode::lane_id, ViewMode::first_last_lane, ViewMode::active_lanes};

// Where everything lies on the atlas; it follows from the frame size alone, so a test recomputes it.
struct AtlasLayout {
    int margin = 0;
    int text_scale = 1;  // header, row names and cell labels
    int header_height = 0;
    int row_name_width = 0;  // the column of row names on the left
    int frame_width = 0, frame_height = 0;
    int label_height = 0;  // under each frame: the stage, then its occupancy
    int cell_width = 0, cell_height = 0;
    int width = 0, height = 0;

    PixelRect cell(size_t row, size_t column) const;
    PixelRect frame(size_t row, size_t column) const;  // the frame, 1:1, at the cell's top
    PixelRect label(size_t row, size_t column) const;  // under the frame
    PixelRect row_name(size_t row) const;
};
AtlasLayout make_atlas_layout(uint32_t frame_width, uint32_t frame_height);

struct AtlasCell {
    RgbaImage frame;              // empty where the view could not be rendered at all
    std::vector<TextLine> label;  // stage, occupancy (and why not measured)
    std::string failure;          // no frame: why (drawn hatched in the cell)
};

// cells[row * size_t(Stage::count) + column]; header lines at the top.
RgbaImage compose_atlas(const AtlasLayout& layout, const std::vector<TextLine>& header, const std::vector<AtlasCell>& cells);

// The options of the cell of `view` in `stage`: one untimed frame, its screenshot written to
// `screenshot` and nothing else; the task and mesh stages on the meshlet path where the device has it.
Options atlas_cell_options(const Context& ctx, const Options& options, ViewMode view, Stage stage, const std::string& screenshot = {});
// The plan of every cell the device can draw (the others show their reason instead): each cell
// is a renderer of its own, so start_up (app/run.h) checks each plan's limits before the first.
std::vector<Plan> atlas_plans(const Context& ctx, const Options& options);

// The mode: renders the 42 cells, writes the PNG, prints each stage's occupancy. Returns the exit code.
// `ctx` and `scene` come from the start-up (app/run.h), which checked every cell's plan.
int run_atlas(const Context& ctx, const Scene& scene, const Options& options);
