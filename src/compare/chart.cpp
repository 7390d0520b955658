#include "compare/chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "render/text_format.h"

namespace {

constexpr uint32_t kSubgroupColour = pack_rgba(64, 196, 200);   // teal
constexpr uint32_t kFallbackColour = pack_rgba(240, 150, 60);   // orange
constexpr uint32_t kWinnerColour = pack_rgba(255, 214, 90);     // gold outline and marker
constexpr uint32_t kText = pack_rgba(235, 235, 235);
constexpr uint32_t kDim = pack_rgba(160, 160, 170);
constexpr uint32_t kAxis = pack_rgba(110, 110, 120);
constexpr uint32_t kChartBackground = pack_rgba(28, 28, 34);
// Stacked segments, by timer slot (kTimers order).
constexpr uint32_t kSegmentColours[] = {pack_rgba(90, 160, 240), pack_rgba(150, 150, 160), pack_rgba(240, 200, 70),
                                        pack_rgba(110, 200, 110), pack_rgba(220, 110, 200), pack_rgba(240, 120, 100),
                                        pack_rgba(180, 140, 255), pack_rgba(120, 220, 220), pack_rgba(200, 200, 120),
                                        pack_rgba(255, 160, 160), pack_rgba(160, 255, 160), pack_rgba(160, 160, 255)};

uint32_t segment_colour(size_t timer) { return kSegmentColours[timer % std::size(kSegmentColours)]; }

// The chart as primitives in pixels, so that the PNG and the SVG are the same drawing.
struct Primitive {
    enum Kind { rect, outline, hatch, text } kind;
    double x, y, w, h;
    uint32_t rgba;
    std::string label;  // text
};

// A round axis maximum: four ticks of 1, 2, 2.5 or 5 times a power of ten, at least `value`.
double nice_ceiling(double value) {
    if (value <= 0) return 1;
    double power = std::pow(10.0, std::floor(std::log10(value / 4)));
    for (double step : {1.0, 2.0, 2.5, 5.0, 10.0})
        if (4 * step * power >= value) return 4 * step * power;
    return 40 * power;
}

// Row pitches in units of the text scale.
constexpr int kLine = 12;       // a text line
constexpr int kBar = 9;         // one bar
constexpr int kPairGap = 16;    // between two pairs: room for the interval's end labels and a third line

struct Layout {
    double x0, y0, width;
    int s;
    double label_width, forest_width, ratio_width;
    double bars_x0() const { return x0 + label_width; }
    double bars_x1() const { return x0 + width - ratio_width - forest_width; }
    double forest_x0() const { return bars_x1() + 8.0 * s; }
    double forest_x1() const { return x0 + width - ratio_width - 4.0 * s; }
};

// Decimals enough to tell the ticks of this step apart: 2.5 -> 1, 0.25 -> 2, 0.02 -> 2.
int decimals_for(double step) {
    int decimals = 0;
    while (decimals < 6 && std::fabs(step * std::pow(10.0, decimals) - std::round(step * std::pow(10.0, decimals))) > 1e-6)
        ++decimals;
    return decimals;
}

void add_axis(std::vector<Primitive>& out, const Layout& l, double y, double axis_max) {
    double x0 = l.bars_x0(), x1 = l.bars_x1();
    out.push_back({Primitive::rect, x0, y, x1 - x0, 1.0 * l.s, kAxis, ""});
    for (int i = 0; i <= 4; ++i) {
        double x = x0 + (x1 - x0) * i / 4.0;
        out.push_back({Primitive::rect, x, y, 1.0 * l.s, 3.0 * l.s, kAxis, ""});
        std::string tick = fixed(axis_max / 4.0 * i, decimals_for(axis_max / 4.0)) + (i == 4 ? " ms" : "");
        double tx = i == 4 ? x - text_width(tick, l.s) : x;
        out.push_back({Primitive::text, tx, y + 4.0 * l.s, 0, 0, kDim, tick});
    }
}

// A bar with its whisker and its value; `winner` outlines it and marks it with a star.
void add_bar(std::vector<Primitive>& out, const Layout& l, double y, const ChartBar& bar, double axis_max,
             uint32_t colour, bool winner, const std::string& side) {
    double x0 = l.bars_x0(), span = l.bars_x1() - x0, h = (kBar - 2) * l.s;
    auto at = [&](double ms) { return x0 + span * std::clamp(ms / axis_max, 0.0, 1.0); };
    double end = at(bar.median);
    out.push_back({Primitive::rect, x0, y, std::max(1.0, end - x0), h, colour, ""});
    if (winner) out.push_back({Primitive::outline, x0, y, std::max(1.0, end - x0), h, kWinnerColour, ""});
    // Whisker: min to max at mid-height, with end caps.
    double wx0 = at(bar.min), wx1 = at(bar.max), mid = y + h / 2;
    out.push_back({Primitive::rect, wx0, mid - 0.5 * l.s, std::max(1.0, wx1 - wx0), 1.0 * l.s, kText, ""});
    out.push_back({Primitive::rect, wx0, y + l.s, 1.0 * l.s, h - 2.0 * l.s, kText, ""});
    out.push_back({Primitive::rect, wx1, y + l.s, 1.0 * l.s, h - 2.0 * l.s, kText, ""});
    std::string value = (winner ? "* " : "") + side + " " + format_ms(bar.median);
    double tx = std::max(wx1, end) + 3.0 * l.s;
    if (tx + text_width(value, l.s) > l.bars_x1()) tx = std::max(x0 + 2.0 * l.s, end - text_width(value, l.s) - 3.0 * l.s);
    out.push_back({Primitive::text, tx, y, 0, 0, winner ? kWinnerColour : kText, value});
}

uint32_t verdict_colour(const ChartPair& p) {
    if (!p.ratio) return kDim;
    return p.verdict == Verdict::faster ? kSubgroupColour : p.verdict == Verdict::slower ? kFallbackColour : kDim;
}

std::string ratio_label(double r) { return std::isfinite(r) ? fixed(r, r < 10 ? 2 : 1) + "x" : "inf"; }

// The speed-up on the pair's own log scale: from the smallest to the largest of 1, the ratio and
// its interval, widened by a fifth on each side (and to at least -+2% around them), so the interval
// and where 1x falls are always readable. A line at 1x, the interval as a bar, the ratio as a
// square, the scale's ends labelled underneath.
void add_forest(std::vector<Primitive>& out, const Layout& l, double y, const ChartPair& p) {
    double x0 = l.forest_x0(), x1 = l.forest_x1(), mid = y + kBar * l.s;
    double lo = std::min(1.0, *p.ratio), hi = std::max(1.0, *p.ratio);
    if (p.ci95) lo = std::min(lo, p.ci95->lo), hi = std::max(hi, std::isfinite(p.ci95->hi) ? p.ci95->hi : *p.ratio * 4);
    double a = std::log(lo), b = std::log(hi), pad = std::max(0.2 * (b - a), std::log(1.02));
    a -= pad, b += pad;
    auto at = [&](double r) { return x0 + (x1 - x0) * (std::log(r) - a) / (b - a); };
    out.push_back({Primitive::rect, x0, mid, x1 - x0, 1.0 * l.s, kAxis, ""});
    out.push_back({Primitive::rect, at(1.0), y + 2.0 * l.s, 1.0 * l.s, (2.0 * kBar - 4.0) * l.s, kText, ""});
    uint32_t colour = verdict_colour(p);
    if (p.ci95) {
        double cx0 = at(p.ci95->lo), cx1 = std::isfinite(p.ci95->hi) ? at(p.ci95->hi) : x1;
        out.push_back({Primitive::rect, cx0, mid - 1.5 * l.s, std::max(1.0 * l.s, cx1 - cx0), 4.0 * l.s, colour, ""});
    }
    out.push_back({Primitive::rect, at(*p.ratio) - 2.5 * l.s, mid - 2.0 * l.s, 5.0 * l.s, 5.0 * l.s, kWinnerColour, ""});
    std::string left = ratio_label(std::exp(a)), right = ratio_label(std::exp(b));
    out.push_back({Primitive::text, x0, y + (2 * kBar + 1) * l.s, 0, 0, kDim, left});
    out.push_back({Primitive::text, x1 - text_width(right, l.s), y + (2 * kBar + 1) * l.s, 0, 0, kDim, right});
}

std::vector<Primitive> layout_chart(const CompareChart& c, double x, double y, double width, int s) {
    std::vector<Primitive> out;
    Layout l{x, y, width, s, 0, 0, 0};
    for (const ChartPair& p : c.pairs) l.label_width = std::max(l.label_width, double(text_width(p.name, s)));
    l.label_width = std::max(l.label_width, double(text_width("all-fallback", s))) + 8.0 * s;
    l.ratio_width = text_width("graphics/compute 1000.0x", s) + 8.0 * s;
    l.forest_width = std::round(0.22 * (width - l.label_width - l.ratio_width));

    out.push_back({Primitive::text, x, y, 0, 0, kText,
                   "Bars: each ratio's two sides in GPU ms on the row's own scale (median, min-max whiskers, * the faster)"});
    out.push_back({Primitive::text, x, y + kLine * s, 0, 0, kText,
                   "Right: fallback / subgroup on a log scale, 95% interval as a bar, white line at 1x; word from the interval"});
    y += kLine * s * 2.5;

    for (const ChartPair& p : c.pairs) {
        out.push_back({Primitive::text, x, y + 2.0 * s, 0, 0, kText, p.name});
        if (p.measured) {
            double axis_max = nice_ceiling(std::max({p.subgroup.max, p.fallback.max, p.subgroup.median, p.fallback.median}));
            out.push_back({Primitive::text, x, y + (2 + kLine) * s, 0, 0, kDim, "0-" + fixed(axis_max, decimals_for(axis_max / 4)) + " ms"});
            // A winner only where the interval excludes 1x.
            bool subgroup_wins = p.ratio && p.verdict == Verdict::faster, fallback_wins = p.ratio && p.verdict == Verdict::slower;
            add_bar(out, l, y, p.subgroup, axis_max, kSubgroupColour, subgroup_wins, p.subgroup_side);
            add_bar(out, l, y + kBar * s, p.fallback, axis_max, kFallbackColour, fallback_wins, p.fallback_side);
            if (p.ratio) add_forest(out, l, y, p);
        } else {
            // One line of the reason, cut to the bars' width (report.md has all of it).
            std::vector<std::string> lines = wrap_text("not measured: " + p.note, int(l.forest_x1() - l.bars_x0()), s);
            out.push_back({Primitive::text, l.bars_x0(), y + 2.0 * s, 0, 0, kDim, lines.size() > 1 ? lines[0] + " ..." : lines[0]});
        }
        double tx = l.x0 + width - l.ratio_width + 4.0 * s;
        out.push_back({Primitive::text, tx, y, 0, 0, verdict_colour(p), p.ratio ? speedup_text(*p.ratio, p.verdict) : "n/a"});
        if (p.ratio)
            out.push_back({Primitive::text, tx, y + kLine * s, 0, 0, kDim,
                           p.ci95 ? "95% " + ratio_label(p.ci95->lo) + " to " + ratio_label(p.ci95->hi) : "one round: no interval"});
        if (p.graphics_to_compute)
            out.push_back({Primitive::text, tx, y + (p.ratio ? 2 : 1) * kLine * s, 0, 0, kWinnerColour,
                           "graphics/compute " + ratio_label(*p.graphics_to_compute)});
        y += (2 * kBar + kPairGap) * s;
    }
    y += kLine * s;

    // The whole frame, stacked by pass.
    std::string frame_title = "whole GPU frame, stacked by pass";
    if (c.frame_ratio) frame_title += ": all-fallback / all-subgroup " + speedup_text(*c.frame_ratio, c.frame_verdict);
    out.push_back({Primitive::text, x, y, 0, 0, kText, frame_title});
    y += kLine * s * 1.5;
    double frame_max = 0;
    for (const ChartStack& st : c.stacks)
        if (st.measured) frame_max = std::max(frame_max, st.frame_ms);
    frame_max = nice_ceiling(frame_max);
    double x0 = l.bars_x0(), span = l.bars_x1() - x0, h = (kBar - 1) * s;
    for (const ChartStack& st : c.stacks) {
        out.push_back({Primitive::text, x, y + 2.0 * s, 0, 0, kText, st.run});
        if (st.measured) {
            double at = x0;
            for (const ChartSegment& seg : st.segments) {
                double w = span * seg.ms / frame_max;
                out.push_back({Primitive::rect, at, y, w, h, segment_colour(seg.timer), ""});
                if (seg.hosted_ms > 0)
                    out.push_back({Primitive::hatch, at + w - span * std::min(seg.hosted_ms, seg.ms) / frame_max, y,
                                   span * std::min(seg.hosted_ms, seg.ms) / frame_max, h, kText, ""});
                at += w;
            }
            out.push_back({Primitive::text, x0 + span * st.frame_ms / frame_max + 4.0 * s, y + 1.0 * s, 0, 0, kText,
                           "frame " + format_ms(st.frame_ms) + " ms"});
        } else {
            out.push_back({Primitive::text, x0, y + 2.0 * s, 0, 0, kDim, "skipped on this device"});
        }
        y += (kBar + 2) * s;
    }
    add_axis(out, l, y, frame_max);
    y += kLine * s * 1.6;
    // Legend: the timers present in either stack, and the hatched share of a hosted pass.
    double lx = x;
    std::vector<size_t> seen;
    std::string hosted;
    for (const ChartStack& st : c.stacks)
        for (const ChartSegment& seg : st.segments) {
            if (!seg.hosted_label.empty() && seg.hosted_ms > 0) hosted = seg.hosted_label;
            if (std::find(seen.begin(), seen.end(), seg.timer) != seen.end()) continue;
            seen.push_back(seg.timer);
            out.push_back({Primitive::rect, lx, y + 1.0 * s, 6.0 * s, 6.0 * s, segment_colour(seg.timer), ""});
            out.push_back({Primitive::text, lx + 8.0 * s, y, 0, 0, kText, seg.label});
            lx += 8.0 * s + text_width(seg.label, s) + 8.0 * s;
        }
    if (!hosted.empty()) {
        out.push_back({Primitive::hatch, lx, y + 1.0 * s, 6.0 * s, 6.0 * s, kText, ""});
        out.push_back({Primitive::text, lx + 8.0 * s, y, 0, 0, kText, hosted + " inside its host pass"});
    }
    return out;
}

// Rows the chart takes (fixed by the pass table), in text-scale units.
int chart_units() {
    int pairs = int(kChartPairs);
    return int(kLine * 2.5) + pairs * (2 * kBar + kPairGap) + kLine + int(kLine * 1.5) + 2 * (kBar + 2) + int(kLine * 1.6) +
           kLine + 8;
}

std::string xml_escape(const std::string& s) {
    std::string out;
    for (char ch : s) {
        if (ch == '<') out += "&lt;";
        else if (ch == '>') out += "&gt;";
        else if (ch == '&') out += "&amp;";
        else out += ch;
    }
    return out;
}

std::string svg_colour(uint32_t rgba) {
    char text[16];
    snprintf(text, sizeof(text), "#%02x%02x%02x", rgba & 0xff, (rgba >> 8) & 0xff, (rgba >> 16) & 0xff);
    return text;
}

}  // namespace

std::string speedup_text(double ratio, Verdict verdict) {
    switch (verdict) {
        case Verdict::faster: return fixed(ratio, 2) + "x faster";
        case Verdict::slower: return fixed(ratio, 2) + "x, " + fixed(1.0 / ratio, ratio < 0.1 ? 0 : 1) + "x slower";
        case Verdict::level: break;
    }
    return fixed(ratio, 2) + "x level";
}


int chart_height(int text_scale) { return chart_units() * text_scale; }

void draw_chart(RgbaImage& image, PixelRect area, const CompareChart& chart, int s) {
    fill_rect(image, area, kChartBackground);
    int pad = 4 * s;
    for (const Primitive& p : layout_chart(chart, area.x + pad, area.y + pad, area.w - 2 * pad, s)) {
        PixelRect r{int(std::lround(p.x)), int(std::lround(p.y)), int(std::lround(p.w)), int(std::lround(p.h))};
        switch (p.kind) {
            case Primitive::rect: fill_rect(image, intersect(r, area), p.rgba); break;
            case Primitive::outline:
                for (PixelRect edge : {PixelRect{r.x - 1, r.y - 1, r.w + 2, 2}, PixelRect{r.x - 1, r.y + r.h - 1, r.w + 2, 2},
                                       PixelRect{r.x - 1, r.y - 1, 2, r.h + 2}, PixelRect{r.x + r.w - 1, r.y - 1, 2, r.h + 2}})
                    fill_rect(image, intersect(edge, area), p.rgba);
                break;
            case Primitive::hatch:
                for (int yy = r.y; yy < r.y + r.h; ++yy)
                    for (int xx = r.x; xx < r.x + r.w; ++xx)
                        if (((xx + yy) / 3) % 2 == 0) fill_rect(image, intersect({xx, yy, 1, 1}, area), p.rgba);
                break;
            case Primitive::text: draw_text(image, r.x, r.y, p.label, p.rgba, s, area); break;
        }
    }
}

std::string chart_svg(const CompareChart& chart, const std::string& title) {
    const int s = 2, width = 1200, pad = 8;
    int height = chart_height(s) + 2 * pad + kLine * s;
    std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(width) + "\" height=\"" +
                      std::to_string(height) + "\" font-family=\"monospace\" font-size=\"" + std::to_string(8 * s) + "\">\n";
    svg += "<defs><pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
           "patternTransform=\"rotate(45)\"><rect width=\"3\" height=\"6\" fill=\"#ebebeb\"/></pattern></defs>\n";
    svg += "<rect width=\"100%\" height=\"100%\" fill=\"" + svg_colour(kChartBackground) + "\"/>\n";
    svg += "<text x=\"" + std::to_string(pad) + "\" y=\"" + std::to_string(pad + 8 * s) + "\" fill=\"#ffffff\">" +
           xml_escape(title) + "</text>\n";
    auto num = [](double v) { return fixed(v, 1); };
    for (const Primitive& p : layout_chart(chart, pad, pad + kLine * s, width - 2 * pad, s)) {
        switch (p.kind) {
            case Primitive::rect:
                svg += "<rect class=\"bar\" x=\"" + num(p.x) + "\" y=\"" + num(p.y) + "\" width=\"" + num(p.w) + "\" height=\"" +
                       num(p.h) + "\" fill=\"" + svg_colour(p.rgba) + "\"/>\n";
                break;
            case Primitive::outline:
                svg += "<rect x=\"" + num(p.x) + "\" y=\"" + num(p.y) + "\" width=\"" + num(p.w) + "\" height=\"" + num(p.h) +
                       "\" fill=\"none\" stroke=\"" + svg_colour(p.rgba) + "\" stroke-width=\"2\"/>\n";
                break;
            case Primitive::hatch:
                svg += "<rect x=\"" + num(p.x) + "\" y=\"" + num(p.y) + "\" width=\"" + num(p.w) + "\" height=\"" + num(p.h) +
                       "\" fill=\"url(#hatch)\"/>\n";
                break;
            case Primitive::text:
                // Raster text is placed by its top; SVG text by its baseline (about 7 font units lower).
                svg += "<text x=\"" + num(p.x) + "\" y=\"" + num(p.y + 7.0 * s) + "\" fill=\"" + svg_colour(p.rgba) + "\">" +
                       xml_escape(p.label) + "</text>\n";
                break;
        }
    }
    // The numbers behind the bars, machine-readable: one element per ratio.
    for (const ChartPair& p : chart.pairs) {
        svg += "<desc class=\"pair\" data-pass=\"" + xml_escape(p.name) + "\" data-key=\"" + xml_escape(p.key) +
               "\" data-measured=\"" + (p.measured ? "1" : "0") + "\"";
        if (p.measured)
            svg += " data-subgroup-ms=\"" + fixed(p.subgroup.median, 6) + "\" data-fallback-ms=\"" + fixed(p.fallback.median, 6) + "\"";
        if (p.ratio) svg += " data-ratio=\"" + fixed(*p.ratio, 6) + "\" data-verdict=\"" + std::string(verdict_name(p.verdict)) + "\"";
        if (p.ci95)
            svg += " data-ci-lo=\"" + fixed(p.ci95->lo, 6) + "\" data-ci-hi=\"" +
                   (std::isfinite(p.ci95->hi) ? fixed(p.ci95->hi, 6) : std::string("inf")) + "\"";
        if (p.graphics_to_compute) svg += " data-graphics-to-compute=\"" + fixed(*p.graphics_to_compute, 6) + "\"";
        svg += "/>\n";
    }
    svg += "</svg>\n";
    return svg;
}


ImageDifference image_difference(const RgbaImage& a, const RgbaImage& b) {
    ImageDifference d;
    if (a.width != b.width || a.height != b.height) return d;
    d.amplified = RgbaImage(a.width, a.height, pack_rgba(0, 0, 0));
    for (uint32_t y = 0; y < a.height; ++y)
        for (uint32_t x = 0; x < a.width; ++x) {
            const uint8_t *p = a.at(x, y), *q = b.at(x, y);
            int worst = 0;
            for (int ch = 0; ch < 3; ++ch) worst = std::max(worst, std::abs(int(p[ch]) - int(q[ch])));
            if (worst == 0) continue;
            ++d.differing;
            // x16 and at least a quarter of full scale, so a one-step difference is visible.
            uint8_t v = uint8_t(std::clamp(64 + worst * 16, 0, 255));
            uint8_t* o = d.amplified.at(x, y);
            o[0] = v, o[1] = uint8_t(v / 4), o[2] = uint8_t(v / 2);
        }
    return d;
}
