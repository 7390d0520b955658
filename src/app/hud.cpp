#include "app/hud.h"

#include <algorithm>
#include <cstdio>

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

std::string thousands(uint64_t n) {
    std::string digits = std::to_string(n), out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

std::string fixed(double v, int decimals) {
    char buffer[32];
    snprintf(buffer, sizeof(buffer), "%.*f", decimals, v);
    return buffer;
}

std::string ms_text(double ms) {
    if (ms < 0) return "-";
    return fixed(ms, ms < 10 ? 3 : ms < 100 ? 2 : 1);
}

// Lays text out in rows and columns, then draws one translucent panel behind all of it.
struct Panel {
    struct Item {
        float x, y;
        std::string text;
        uint32_t rgba;
    };
    float scale, x0, y0, line, pad;
    float y = 0, right = 0;
    std::vector<Item> items;

    Panel(float s, float x, float top) : scale(s), x0(x), y0(top), line(11.0f * s), pad(4.0f * s) {}
    void add(float column, const std::string& text, uint32_t rgba) {
        float x = x0 + pad + column * scale;
        items.push_back({x, y0 + pad + y, text, rgba});
        right = std::max(right, x + Overlay::text_width(text, scale));
    }
    void next_line(float lines = 1.0f) { y += line * lines; }
    OverlayBox box() const { return {x0, y0, right + pad, y0 + y + 2 * pad - 2.0f * scale}; }
    void draw(Overlay& overlay) const {
        OverlayBox b = box();
        overlay.rect(b.x0, b.y0, b.x1 - b.x0, b.y1 - b.y0, kPanel);
        for (const Item& i : items) overlay.text(i.x, i.y, i.text, i.rgba, scale);
    }
};

void pass_row(Panel& p, const std::string& name, const std::string& variant, uint32_t color, double ms) {
    p.add(0, name, kWhite);
    p.add(62, variant, color);
    p.add(150, ms_text(ms), kWhite);
    p.next_line();
}

}  // namespace

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
    {"V / Shift+V", "debug view"},
    {"B / Shift+B", "debug view's shader stage"},
    {"Space", "pause the light animation"},
    {"Left drag", "orbit"},
    {"Right drag", "pan"},
    {"Wheel", "zoom"},
    {"W A S D", "fly (Shift: faster)"},
    {"Q / E", "down / up"},
    {"R", "reset the camera"},
    {"F12", "screenshot with the HUD"},
    {"C", "comparison, in the background"},
    {"H", "this help"},
    {"Esc", "quit"},
};

const std::vector<KeyHelp>& key_help() {
    // Short enough to sit beside the stats panel at 1280x720; docs/controls.md says more.
    static const std::vector<KeyHelp> help = [] {
        std::vector<KeyHelp> keys;
        for (const PassInfo& pass : kPasses) {
            char key = char(pass.window_key);
            keys.push_back({std::string(1, key) + " / Shift+" + key,
                            std::string(pass.name) + " variant" + (keys.empty() ? ", next / previous" : "")});
        }
        keys.push_back({"", "(auto > subgroup > fallback > off)"});
        keys.insert(keys.end(), std::begin(kOtherKeys), std::end(kOtherKeys));
        return keys;
    }();
    return help;
}

float hud_scale(uint32_t height) { return height >= 1400 ? 3.0f : height >= 600 ? 2.0f : 1.0f; }

namespace {

// The pass that owns a timer slot, if a selectable one does (its own, or its hosted path's own
// work; not a pass that only runs inside the slot, like the light loop in forward).
const PassInfo* timer_owner(Timer t) {
    for (const PassInfo& pass : kPasses)
        if ((pass.timer == t && has_own_timer(pass)) || pass.hosted_own_timer == t) return &pass;
    return nullptr;
}

// What runs inside a timer slot besides its own pass: "+ quad mip" on forward.
std::string hosted_note(const Plan& plan, Timer t) {
    std::string note;
    for (const PassInfo& pass : kPasses)
        if (pass.host_timer == t && plan[pass.id].variant == Variant::subgroup) note += "+ " + std::string(pass.hosted_label);
    return note;
}

// The stats panel with its left edge at x and top at y; returns where it is.
OverlayBox draw_stats(Overlay& overlay, const HudState& hud, float s, float x, float y) {
    const Plan& plan = hud.plan;
    auto ms = [&](Timer t) { return hud.gpu.ms[size_t(t)]; };

    Panel p(s, x, y);
    p.add(0, hud.device + "   subgroup size " + std::to_string(hud.subgroup_size), kWhite);
    p.next_line();
    p.add(0,
          std::to_string(hud.extent.width) + "x" + std::to_string(hud.extent.height) + "  " + hud.present_mode +
              "   animation frame " + std::to_string(hud.animation_frame) + (hud.paused ? " (paused)" : ""),
          kGrey);
    p.next_line(1.4f);
    p.add(0, "pass", kGrey);
    p.add(62, "variant", kGrey);
    p.add(150, "GPU ms", kGrey);
    p.next_line();
    // One row per timer slot but the whole frame: a selectable pass's shows its variant.
    for (const TimerInfo& t : kTimers) {
        if (t.timer == Timer::frame) continue;
        std::string label(t.label);
        if (t.timer == Timer::view) {
            std::string view = std::string(view_mode_name(plan.view.mode));
            pass_row(p, label, view, is_subgroup_view(plan.view.mode) ? variant_color(plan.view.variant) : kWhite, ms(t.timer));
        } else if (const PassInfo* owner = timer_owner(t.timer)) {
            Variant v = plan[owner->id].variant;
            pass_row(p, label, std::string(variant_name(v)), variant_color(v), ms(t.timer));
        } else {
            pass_row(p, label, hosted_note(plan, t.timer), kGreen, ms(t.timer));
        }
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
    p.add(0, "frame", kWhite);
    p.add(62, "CPU " + fixed(hud.cpu_frame_ms, 1) + " ms", kGrey);
    p.add(150, ms_text(ms(Timer::frame)), kWhite);
    p.next_line(1.4f);

    // Without a cull pass in the frame everything is drawn (and the counter is not written).
    bool culled = plan[PassId::cull].variant != Variant::off && ms(Timer::cull) >= 0;
    uint64_t visible = culled ? hud.counters.triangles_visible : hud.triangles_total;
    double percent = hud.triangles_total ? 100.0 * double(visible) / double(hud.triangles_total) : 0.0;
    p.add(0, "triangles", kWhite);
    p.add(62, thousands(visible) + " of " + thousands(hud.triangles_total) + (culled ? " visible (" : " drawn (") +
                  fixed(percent, 1) + "%)",
          kWhite);
    p.next_line();
    p.add(0, "lights", kWhite);
    if (plan[PassId::light_cull].variant == Variant::off || ms(Timer::light_cull) < 0) {
        p.add(62, std::to_string(hud.lights) + ", no light lists this frame", kGrey);
    } else {
        std::string entries =
            std::to_string(hud.lights) + ", " + thousands(hud.counters.light_list_entries) + " list entries, ";
        p.add(62, entries, kWhite);
        p.add(62 + Overlay::text_width(entries, s) / s, thousands(hud.counters.light_list_overflow) + " overflow",
              hud.counters.light_list_overflow ? kRed : kWhite);
    }
    // The ray tracer's rays and, per stage, how full its subgroups were: invocations over the
    // subgroup variant's atomics (one per subgroup) over the subgroup size. The fallback makes one
    // atomic per invocation, so it measures no lanes: the invocations only.
    if (plan[PassId::ray_trace].variant != Variant::off && ms(Timer::ray_trace) >= 0) {
        p.next_line();
        const RayStats& r = hud.counters.rays;
        p.add(0, "rays", kWhite);
        p.add(62, thousands(r.rays[0]) + " primary, " + thousands(r.rays[1]) + " shadow, " + thousands(r.rays[2]) + " reflection",
              kWhite);
        p.next_line();
        bool subgroup = plan[PassId::ray_trace].variant == Variant::subgroup;
        p.add(0, subgroup ? "RT lanes" : "RT calls", kWhite);
        static const char* kShort[6] = {"rgen", "ahit", "chit", "miss", "isec", "call"};
        std::string line;
        for (int i = 0; i < 6; ++i) {
            line += std::string(i ? "  " : "") + kShort[i] + " ";
            if (!subgroup) line += thousands(r.invocations[i]);
            else if (r.subgroups[i] == 0 || hud.subgroup_size == 0) line += "-";
            else line += fixed(100.0 * double(r.invocations[i]) / (double(r.subgroups[i]) * hud.subgroup_size), 0) + "%";
        }
        p.add(62, line, subgroup ? kGreen : kGrey);
    }
    p.next_line(1.4f);
    p.add(0, "H help   F12 screenshot   Esc quit", kGrey);
    p.next_line();
    p.draw(overlay);
    return p.box();
}

// The key list, at (x, y); returns where it is.
OverlayBox draw_help(Overlay& overlay, float x, float y, float s) {
    float key_width = 0;
    for (const KeyHelp& k : key_help()) key_width = std::max(key_width, Overlay::text_width(k.keys, s));
    float column = key_width / s + 12;
    Panel h(s, x, y);
    h.add(0, "keys", kYellow);
    h.next_line(1.4f);
    for (const KeyHelp& k : key_help()) {
        h.add(0, k.keys, kYellow);
        h.add(column, k.action, kWhite);
        h.next_line();
    }
    h.draw(overlay);
    return h.box();
}

}  // namespace

void draw_hud(Overlay& overlay, const HudState& hud) {
    float s = hud_scale(hud.extent.height);
    float width = float(hud.extent.width);
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
    OverlayBox size = draw_stats(scratch, hud, s, 0.0f, 0.0f);
    float stats_x = std::max(4 * s, width - size.x1 - 4 * s);
    OverlayBox stats = below_taken({stats_x, 4 * s, stats_x + size.x1, 4 * s + size.y1});
    OverlayBox help{};
    if (hud.help) {
        size = draw_help(scratch, 0.0f, 0.0f, s);
        help = below_taken({4 * s, 4 * s, 4 * s + size.x1, 4 * s + size.y1});
        draw_help(overlay, help.x0, help.y0, s);
    }
    // The help takes the stats' place where both do not fit.
    if (!help.overlaps(stats)) draw_stats(overlay, hud, s, stats.x0, stats.y0);

    // Notes: newest at the bottom of the frame, older ones above.
    float y = float(hud.extent.height) - 4 * s;
    for (auto it = hud.notes.rbegin(); it != hud.notes.rend(); ++it) {
        y -= Overlay::text_height(*it, s) + 6 * s;
        overlay.label(4 * s, y, *it, kYellow, s);
    }
}
