#include "window/hud.h"

#include <algorithm>
#include <cstdio>

#include "passes/cull_pass.h"
#include "render/text_format.h"
#include "render/text_quads.h"

namespace {

constexpr uint32_t kWhite = rgba8(240, 240, 240);
constexpr uint32_t kGrey = rgba8(165, 170, 180);
constexpr uint32_t kGreen = rgba8(110, 230, 120);
constexpr uint32_t kOrange = rgba8(255, 180, 80);
constexpr uint32_t kRed = rgba8(255, 95, 90);
constexpr uint32_t kYellow = rgba8(255, 235, 120);
constexpr uint32_t kPanel = rgba8(0, 0, 0, 185);

uint32_t variant_color(Variant v) {
    switch (v) {
        case Variant::subgroup: return kGreen;
        case Variant::fallback: return kOrange;
        case Variant::unsupported: return kRed;
        default: return kGrey;
    }
}


std::string ms_text(double ms) {
    if (ms < 0) return "-";
    return fixed(ms, ms < 10 ? 3 : ms < 100 ? 2 : 1);
}

// Where the strokes of `text` drawn at (x, y) lie (tighter than the font's line box, which includes
// the space below the baseline that the next line may use).
OverlayBox ink_box(float x, float y, const std::string& text, float scale) {
    OverlayBox box{x, y, x, y};
    bool first = true;
    for (const TextQuad& q : text_quads(text)) {
        OverlayBox r{x + q.x0 * scale, y + q.y0 * scale, x + q.x1 * scale, y + q.y1 * scale};
        box = first ? r : OverlayBox{std::min(box.x0, r.x0), std::min(box.y0, r.y0), std::max(box.x1, r.x1), std::max(box.y1, r.y1)};
        first = false;
    }
    return box;
}

// Lays text out in rows and columns, then draws one translucent panel behind all of it. Text that
// would run past max_width is cut with an ellipsis, so a panel never leaves the frame.
struct Panel {
    struct Item {
        float x, y;
        std::string text;
        uint32_t rgba;
    };
    struct Swatch {
        float x, y, size;
        uint32_t rgba;
    };
    float scale, x0, y0, line, pad, max_width;
    float y = 0, right = 0;
    std::vector<Item> items;
    std::vector<Swatch> swatches;

    Panel(float s, float x, float top, float width)
        : scale(s), x0(x), y0(top), line(11.0f * s), pad(4.0f * s), max_width(width) {}
    // Text at `column` (in units of the scale), cut to end before `limit` columns if given.
    void add(float column, const std::string& text, uint32_t rgba, float limit = -1) {
        float x = x0 + pad + column * scale;
        float end = x0 + max_width - pad;
        if (limit >= 0) end = std::min(end, x0 + pad + limit * scale);
        std::string fitted = fit_text(text, end - x, scale);
        items.push_back({x, y0 + pad + y, fitted, rgba});
        right = std::max(right, x + Overlay::text_width(fitted, scale));
    }
    // A colour key at `column` on this line (the graph's colour of a pass).
    void swatch(float column, uint32_t rgba) { swatches.push_back({x0 + pad + column * scale, y0 + pad + y, 6.0f * scale, rgba}); }
    void next_line(float lines = 1.0f) { y += line * lines; }
    OverlayBox box() const { return {x0, y0, right + pad, y0 + y + 2 * pad - 2.0f * scale}; }
    void draw(Overlay& overlay, std::vector<HudText>* texts) const {
        OverlayBox b = box();
        overlay.rect(b.x0, b.y0, b.x1 - b.x0, b.y1 - b.y0, kPanel);
        for (const Swatch& w : swatches) overlay.rect(w.x, w.y, w.size, w.size, w.rgba);
        for (const Item& i : items) {
            overlay.text(i.x, i.y, i.text, i.rgba, scale);
            if (texts && !i.text.empty()) texts->push_back({ink_box(i.x, i.y, i.text, scale), i.text});
        }
    }
};

}  // namespace

std::string fit_text(const std::string& text, float width, float scale) {
    if (Overlay::text_width(text, scale) <= width) return text;
    std::string cut = text;
    while (!cut.empty() && Overlay::text_width(cut + "...", scale) > width) cut.pop_back();
    return cut.empty() ? "" : cut + "...";
}

void FrameHistory::add(const std::array<double, kTimerCount>& sample) {
    for (size_t t = 0; t < kTimerCount; ++t) ms[next][t] = float(sample[t]);
    next = (next + 1) % kFrames;
    count = std::min(count + 1, kFrames);
}

void SmoothedTimes::add(const std::array<double, kTimerCount>& sample) {
    for (size_t p = 0; p < ms.size(); ++p) {
        if (sample[p] < 0) ms[p] = -1.0;
        else if (ms[p] < 0) ms[p] = sample[p];
        else ms[p] = ms[p] * (1.0 - kWeight) + sample[p] * kWeight;
    }
}

// The keys that are not a pass's (those come from the pass table).
const KeyHelp kOtherKeys[] = {
    {"0", "all passes auto, view shaded"},
    {"V / B (Shift: back)", "debug view / its shader stage"},
    {"M", "geometry: indexed / meshlet"},
    {"I", "shading: forward / visibility"},
    {"X", "visibility pre-pass: hardware / compute rasterizer"},
    {"L", "level of detail: auto / off"},
    {"T", "tuned auto on / off (the measured winners)"},
    {"Space", "pause the light animation"},
    {"Left drag", "orbit"},
    {"Right drag", "pan"},
    {"Wheel", "zoom"},
    {"W A S D", "fly (Shift: faster)"},
    {"Q / E", "down / up"},
    {"R", "reset the camera"},
    {"K", "camera: overview / street"},
    {"F", "freeze culling (fly out: see what was culled)"},
    {"P (Shift: back)", "depth-pyramid view: next level"},
    {"F12", "screenshot with the HUD"},
    {"C", "comparison, in the background"},
    {"G", "frame-time graph on / off"},
    {"H", "this help"},
    {"Esc", "quit"},
};

const std::vector<KeyHelp>& key_help() {
    // Short enough to sit beside the stats panel at 1280x720; docs/controls.md says more.
    static const std::vector<KeyHelp> help = [] {
        // The passes' keys in one line (digits in table order), so the panel fits small windows.
        std::vector<KeyHelp> keys;
        std::string first(1, char(kPasses.front().window_key)), last(1, char(kPasses.back().window_key)), names;
        for (const PassInfo& pass : kPasses) names += (names.empty() ? "" : ", ") + std::string(pass.name);
        keys.push_back({first + "-" + last + " / Shift", "variant, next / previous: " + names});
        keys.push_back({"", "(auto > subgroup > forward > fallback > off)"});
        keys.insert(keys.end(), std::begin(kOtherKeys), std::end(kOtherKeys));
        return keys;
    }();
    return help;
}

float hud_scale(uint32_t height) { return height >= 1400 ? 3.0f : height >= 600 ? 2.0f : 1.0f; }

namespace {

// The pass that owns a timer slot, if a selectable one does (not a pass that only runs inside
// the slot, like the light loop in forward).
const PassInfo* timer_owner(Timer t) {
    for (const PassInfo& pass : kPasses)
        if (pass.timer == t && has_own_timer(pass)) return &pass;
    return nullptr;
}

// What runs inside a timer slot besides its own pass: "+ quad mip" on forward.
std::string hosted_note(const Plan& plan, Timer t) {
    std::string note;
    for (const PassInfo& pass : kPasses)
        if (hosting_timer(pass, plan) == t && plan[pass.id].variant == Variant::subgroup)
            note += (note.empty() ? "+ " : " + ") + std::string(pass.hosted_label);
    return note;
}

struct PassRow {
    std::string name, variant;
    uint32_t colour;
    double ms;
    Timer timer;
};

// The stats panel with its left edge at x and top at y, at most `width` wide; returns where it is.
OverlayBox draw_stats(Overlay& overlay, const HudState& hud, float s, float x, float y, float width,
                      std::vector<HudText>* texts) {
    const Plan& plan = hud.plan;
    auto ms = [&](Timer t) { return hud.gpu.ms[size_t(t)]; };

    // One row per timer slot but the whole frame: a selectable pass's shows its variant.
    std::vector<PassRow> rows;
    for (const TimerInfo& t : kTimers) {
        if (t.timer == Timer::frame) continue;
        // Forward and the visibility path's shading pass never both run: one row, the planned one's.
        bool visibility = plan.shading.shading == Shading::visibility;
        if ((t.timer == Timer::shade && !visibility) || (t.timer == Timer::forward && visibility)) continue;
        std::string label(t.label);
        if (t.timer == Timer::shade) {
            Variant v = plan.shading.derivatives;  // quad-swap derivatives (subgroup) or analytic (fallback)
            std::string mark = plan.shading.source == PlanSource::measured ? "*" : "";
            std::string hosted = hosted_note(plan, t.timer);  // "+ quad mip + light loop"
            rows.push_back({label, std::string(variant_name(v)) + mark + (hosted.empty() ? "" : " " + hosted), variant_color(v),
                            ms(t.timer), t.timer});
        } else if (t.timer == Timer::depth && visibility) {
            // The visibility pre-pass: who rasterizes it (--raster, X), "compute/subgroup*" where
            // auto took a measured verdict.
            std::string mark = plan.raster.source == PlanSource::measured ? "*" : "";
            rows.push_back({label, raster_variant_name(plan.raster) + mark,
                            plan.raster.raster == Raster::compute ? variant_color(plan.raster.variant) : kWhite, ms(t.timer), t.timer});
        } else if (t.timer == Timer::view) {
            rows.push_back({label, std::string(view_mode_name(plan.view.mode)),
                            is_subgroup_view(plan.view.mode) ? variant_color(plan.view.variant) : kWhite, ms(t.timer), t.timer});
        } else if (const PassInfo* owner = timer_owner(t.timer)) {
            Variant v = plan[owner->id].variant;
            // "fallback*": auto took the measured winner (the tuning line below says whose).
            std::string mark = plan[owner->id].source == PlanSource::measured ? "*" : "";
            rows.push_back({label, std::string(variant_name(v)) + mark, variant_color(v), ms(t.timer), t.timer});
        } else {
            rows.push_back({label, hosted_note(plan, t.timer), kGreen, ms(t.timer), t.timer});
        }
    }
    // Columns from the measured text (in units of the scale): names, variants, then milliseconds,
    // whose column is kept inside the panel's width; a variant too long for its column is cut.
    float name_w = Overlay::text_width("frame", s), variant_w = Overlay::text_width("variant", s);
    for (const PassRow& r : rows) {
        name_w = std::max(name_w, Overlay::text_width(r.name, s));
        variant_w = std::max(variant_w, Overlay::text_width(r.variant, s));
    }
    const float gap = 8.0f, ms_w = Overlay::text_width("GPU ms", s) / s, inner = (width - 8.0f * s) / s;
    const float key_w = hud.graph ? 9.0f : 0.0f;  // the graph's colour key before each pass name
    const float variant_col = key_w + name_w / s + gap;
    const float ms_col = std::max(variant_col + gap, std::min(variant_col + variant_w / s + gap, inner - ms_w));

    Panel p(s, x, y, width);
    p.add(0, hud.device + "   subgroup size " + std::to_string(hud.subgroup_size), kWhite);
    p.next_line();
    p.add(0,
          std::to_string(hud.extent.width) + "x" + std::to_string(hud.extent.height) + "  " + hud.present_mode +
              "   animation frame " + std::to_string(hud.animation_frame) + (hud.paused ? " (paused)" : ""),
          kGrey);
    p.next_line(1.4f);
    p.add(0, "pass", kGrey, variant_col - gap);
    p.add(variant_col, "variant", kGrey, ms_col - gap);
    p.add(ms_col, "GPU ms", kGrey);
    p.next_line();
    for (const PassRow& r : rows) {
        if (hud.graph) p.swatch(0, hud_timer_colour(r.timer));
        p.add(key_w, r.name, kWhite, variant_col - gap);
        p.add(variant_col, r.variant, r.colour, ms_col - gap);
        p.add(ms_col, ms_text(r.ms), kWhite);
        p.next_line();
    }
    if (is_subgroup_view(plan.view.mode)) {
        p.add(10, std::string(stage_name(plan.view.stage)) + " stage: " + std::string(variant_name(plan.view.variant)),
              variant_color(plan.view.variant));
        p.next_line();
        if (plan.view.variant == Variant::unsupported) {
            p.add(10, plan.view.reason, kRed);
            p.next_line();
        }
    }
    p.add(0, "frame", kWhite, variant_col - gap);
    p.add(variant_col, "CPU " + fixed(hud.cpu_frame_ms, 1) + " ms", kGrey, ms_col - gap);
    p.add(ms_col, ms_text(ms(Timer::frame)), kWhite);
    p.next_line(1.4f);

    // Each pass's counter line (its table entry's hud_line): triangles kept, light-list entries.
    GpuCounters none{};
    auto counter_line = [&](const std::optional<HudLine>& line) {
        if (!line) return;
        p.add(key_w, line->label, kWhite, variant_col - gap);
        float column = variant_col;
        for (const HudSpan& span : line->spans) {
            uint32_t colour = span.tone == HudTone::alert ? kRed : span.tone == HudTone::dim ? kGrey : kWhite;
            // Within the panel: up to the right edge of the lines before, never past it.
            float limit = span.within_panel ? std::max(0.0f, (p.right - p.x0 - p.pad) / s) : -1.0f;
            p.add(column, span.text, colour, limit);
            column += Overlay::text_width(span.text, s) / s;
        }
        p.next_line();
    };
    for (const PassInfo& pass : kPasses)
        if (pass.hud_line)
            counter_line(pass.hud_line({plan, hud.counters, none, hud.triangles_total, hud.lights, ms(pass.timer) >= 0}));
    // Draws and triangles per level of detail, where a pass chose the levels (docs/lod.md); not in
    // frames under 300 rows, where the panel has no row to spare.
    if (hud.extent.height >= 300)
        counter_line(lod_hud_line({plan, hud.counters, none, hud.triangles_total, hud.lights, ms(Timer::cull) >= 0}));
    if (hud.cull_frozen) {
        p.add(0, "culling frozen (F): the lists and counts of the frame it froze at", kYellow);
        p.next_line();
    }
    if (!hud.tuning.empty()) {
        p.add(0, hud.tuning + (hud.tuning.rfind("tuned auto on", 0) == 0 ? ", * measured" : ""), kGrey);
        p.next_line();
    }
    p.next_line(0.4f);
    p.add(0, "H help   G graph   F12 screenshot   Esc quit", kGrey);
    p.next_line();
    p.draw(overlay, texts);
    return p.box();
}

// The key list, at (x, y), at most `width` wide; returns where it is.
OverlayBox draw_help(Overlay& overlay, float x, float y, float s, float width, std::vector<HudText>* texts) {
    float key_width = 0;
    for (const KeyHelp& k : key_help()) key_width = std::max(key_width, Overlay::text_width(k.keys, s));
    float column = key_width / s + 12;
    Panel h(s, x, y, width);
    h.add(0, "keys", kYellow);
    h.next_line(1.4f);
    for (const KeyHelp& k : key_help()) {
        h.add(0, k.keys, kYellow, column - 4);
        h.add(column, k.action, kWhite);
        h.next_line();
    }
    h.draw(overlay, texts);
    return h.box();
}

// The last frames' GPU time stacked by pass (one column per frame, newest on the right), with the
// 16.7 ms line of 60 Hz; `box` is where it goes.
void draw_graph(Overlay& overlay, const HudState& hud, OverlayBox box, float s, std::vector<HudText>* texts) {
    const FrameHistory& h = hud.history;
    overlay.rect(box.x0, box.y0, box.x1 - box.x0, box.y1 - box.y0, kPanel);
    float pad = 4 * s, title_h = 11 * s;
    float gx0 = box.x0 + pad, gx1 = box.x1 - pad, gy0 = box.y0 + pad + title_h, gy1 = box.y1 - pad;
    // The vertical scale: 16.7 ms at least, else the tallest frame, in steps of 16.7 ms.
    double tallest = 0;
    for (size_t i = 0; i < h.count; ++i) tallest = std::max(tallest, double(h.at(i)[size_t(Timer::frame)]));
    const double kBudget = 1000.0 / 60.0;
    double top = kBudget * std::max(1.0, std::ceil(tallest / kBudget));
    float column = (gx1 - gx0) / float(FrameHistory::kFrames);
    for (size_t i = 0; i < h.count; ++i) {
        const auto& frame = h.at(i);
        float x = gx1 - float(h.count - i) * column, y = gy1;
        for (const TimerInfo& t : kTimers) {
            if (t.timer == Timer::frame || frame[size_t(t.timer)] <= 0) continue;
            float hgt = float(frame[size_t(t.timer)] / top) * (gy1 - gy0);
            overlay.rect(x, y - hgt, std::max(column, 1.0f), hgt, hud_timer_colour(t.timer));
            y -= hgt;
        }
    }
    float budget_y = gy1 - float(kBudget / top) * (gy1 - gy0);
    overlay.rect(gx0, budget_y, gx1 - gx0, std::max(1.0f, s * 0.5f), kRed);
    std::string title = "GPU ms by pass, " + std::to_string(FrameHistory::kFrames) + " frames; red 16.7";
    if (top > kBudget) title += ", top " + fixed(top, 0);
    title = fit_text(title, gx1 - gx0, s);
    overlay.text(gx0, box.y0 + pad, title, kGrey, s);
    if (texts) texts->push_back({ink_box(gx0, box.y0 + pad, title, s), title});
}

}  // namespace

uint32_t hud_timer_colour(Timer t) {
    static constexpr uint32_t kColours[] = {rgba8(90, 160, 240), rgba8(150, 150, 160), rgba8(240, 200, 70),
                                            rgba8(110, 200, 110), rgba8(220, 110, 200), rgba8(240, 120, 100),
                                            rgba8(180, 140, 255), rgba8(120, 220, 220)};
    return kColours[size_t(t) % std::size(kColours)];
}

void draw_hud(Overlay& overlay, const HudState& hud, std::vector<HudText>* texts) {
    float s = hud_scale(hud.extent.height);
    float width = float(hud.extent.width), height = float(hud.extent.height);
    // At most 400 px (scaled) wide: long counter lines (LOD per level, occlusion) are cut to it,
    // so the panel keeps to the top right and the frame stays in view.
    float max_panel = std::max(40.0f * s, std::min(width - 8 * s, 400.0f * s));
    // Debug views, the mip view and the light-count view have already put their legends into the
    // overlay (top left): the panels keep clear of them. Each panel is measured by drawing it
    // into a scratch overlay, so one layout code path serves both.
    OverlayBox taken = overlay.bounds();
    auto below_taken = [&](OverlayBox box) {
        if (!box.overlaps(taken)) return box;
        float down = taken.y1 + 4 * s - box.y0;
        return OverlayBox{box.x0, box.y0 + down, box.x1, box.y1 + down};
    };
    Overlay scratch;
    OverlayBox size = draw_stats(scratch, hud, s, 0.0f, 0.0f, max_panel, nullptr);
    float stats_x = std::max(4 * s, width - size.x1 - 4 * s);
    OverlayBox stats = below_taken({stats_x, 4 * s, stats_x + size.x1, 4 * s + size.y1});
    OverlayBox help{};
    if (hud.help) {
        size = draw_help(scratch, 0.0f, 0.0f, s, max_panel, nullptr);
        help = below_taken({4 * s, 4 * s, 4 * s + size.x1, 4 * s + size.y1});
        draw_help(overlay, help.x0, help.y0, s, max_panel, texts);
    }
    // The help takes the stats' place where both do not fit.
    bool stats_shown = !help.overlaps(stats);
    if (stats_shown) draw_stats(overlay, hud, s, stats.x0, stats.y0, max_panel, texts);

    // Notes: newest at the bottom of the frame, older ones above, cut to the frame's width; on a
    // small frame, the older ones that would run into the help or stats panel are left out.
    float y = height - 4 * s;
    float notes_top = y;
    for (auto it = hud.notes.rbegin(); it != hud.notes.rend(); ++it) {
        std::string note = fit_text(*it, width - 12 * s, s);
        float top = y - Overlay::text_height(note, s) - 6 * s;
        OverlayBox box{4 * s, top, 4 * s + Overlay::text_width(note, s) + 4 * s, y};
        if ((hud.help && box.overlaps(help)) || (stats_shown && box.overlaps(stats))) break;
        y = top;
        overlay.label(4 * s, y, note, kYellow, s);
        if (texts) texts->push_back({ink_box(4 * s + 2 * s, y + 3 * s, note, s), note});  // label(): pad 2, +1 down
        notes_top = y;
    }

    // The frame-time graph, bottom right above the notes, where it overlaps no panel.
    if (hud.graph) {
        float gw = std::min(width - 8 * s, float(FrameHistory::kFrames) * 1.5f * s + 8 * s), gh = 60 * s;
        OverlayBox graph{width - 4 * s - gw, notes_top - 4 * s - gh, width - 4 * s, notes_top - 4 * s};
        bool room = graph.y0 >= 0 && !graph.overlaps(taken) && !(hud.help && graph.overlaps(help)) &&
                    !(stats_shown && graph.overlaps(stats));
        if (room) draw_graph(overlay, hud, graph, s, texts);
    }
}
