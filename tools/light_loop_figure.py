#!/usr/bin/env python3
"""docs/images/light-loop-tiles-per-subgroup.svg: how many distinct 16x16 tiles the lanes of one
subgroup span in forward shading, from the light_loop_iterations counter (tiles_spanned, lanes,
subgroups) of the instrumented frame. The numbers are the reports' (docs/light-lists.md lists the
runs); pass report JSON files as LABEL=PATH to draw others."""
import json
import sys

# label, subgroups spanning 1 / 2 / 3 / 4+ tiles, lanes, subgroup size
ROWS = [
    ("H200, 1920x1080, 7.5M triangles, 4,096 lights", [83431, 0, 0, 0], 856678, 32),
    ("H200, 3840x2160, 7.5M triangles, 4,096 lights", [250466, 0, 0, 0], 3426673, 32),
    ("lavapipe 8 lanes, 320x180, 4,096 lights", [14657, 0, 0, 0], 25793, 8),
    ("lavapipe 4 lanes, 320x180, 4,096 lights", [17167, 0, 0, 0], 25793, 4),
    ("lavapipe 8 lanes, split tiles (test hook)", [9815, 4842, 0, 0], 25793, 8),
    ("lavapipe 4 lanes, split tiles (test hook)", [12248, 4919, 0, 0], 25793, 4),
]
COLOURS = ["#3b7dd8", "#e8a33d", "#d8503b", "#8e44ad"]


def rows_from_reports(args):
    rows = []
    for arg in args:
        label, path = arg.split("=", 1)
        r = json.load(open(path))
        it = r["counters"]["light_loop_iterations"]
        rows.append((label, it["tiles_spanned"], it["lanes"], r["subgroup"]["size"]))
    return rows


def svg(rows):
    width, left, bar_w, row_h = 900, 330, 420, 34
    height = 70 + row_h * len(rows) + 40
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="13">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           '<text x="10" y="22" font-size="15" font-weight="bold">Distinct 16x16 light tiles per fragment subgroup '
           '(instrumented frame)</text>',
           '<text x="10" y="42" fill="#555">share of subgroups whose lanes lie in 1, 2, 3, 4+ tiles; right: shaded lanes per subgroup</text>']
    for i, (label, spans, lanes, size) in enumerate(rows):
        y = 60 + i * row_h
        total = sum(spans) or 1
        out.append(f'<text x="10" y="{y + 17}">{label}</text>')
        x = left
        for k, n in enumerate(spans):
            w = bar_w * n / total
            if w > 0:
                out.append(f'<rect x="{x:.1f}" y="{y + 4}" width="{w:.1f}" height="18" fill="{COLOURS[k]}"/>')
                if w > 40:
                    out.append(f'<text x="{x + 4:.1f}" y="{y + 17}" fill="white">{100 * n / total:.0f}%</text>')
            x += w
        out.append(f'<text x="{left + bar_w + 10}" y="{y + 17}">{lanes / total:.1f} of {size} lanes</text>')
    y = 60 + row_h * len(rows) + 10
    for k, name in enumerate(["1 tile", "2 tiles", "3 tiles", "4+ tiles"]):
        out.append(f'<rect x="{left + k * 100}" y="{y}" width="14" height="14" fill="{COLOURS[k]}"/>')
        out.append(f'<text x="{left + k * 100 + 20}" y="{y + 12}">{name}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    rows = rows_from_reports(sys.argv[1:]) if len(sys.argv) > 1 else ROWS
    sys.stdout.write(svg(rows))
