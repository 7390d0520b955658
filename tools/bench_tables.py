#!/usr/bin/env python3
"""The Markdown tables of tools/gpu_bench.sh, from the demo's reports (the contract's JSON).

  runs DIR [--only PREFIX] COLUMN...   one row per run of DIR/runs.tsv: tag, exit code, seconds, COLUMNs.
      A COLUMN is a timer (the median ms of timings_ms.NAME: frame, cull, ...), or SECTION:PATH for a
      value of the report: c: counters, plan:, out: outputs, scene:, bandwidth:, validation: (the
      message count); PATH is dotted (c:ray_trace.rays).
  passes DIR SIZE... -- TAG...          per size, each timer's median ms, the mean of rounds 1 and 2
                                       of DIR/TAG-SIZE-ROUND.json, one column per TAG.
  pieces DIR SIZE... -- TAG...          per size, where depth and late_depth go (counters.raster.dispatch_ms:
                                       the compute rasterizer's pieces): each timer's median ms, its pieces'
                                       in frame order and their sum, and the frames it ran in, the mean of
                                       rounds 1 and 2 of DIR/TAG-SIZE-ROUND.json, one column per TAG (a run
                                       of the hardware pre-pass has its timers alone).
  speedup DIR TIMER SIZE... -- SLOW:FAST...  per size and pair, TIMER's median ms in DIR/SLOW-SIZE-ROUND.json
                                       and DIR/FAST-SIZE-ROUND.json for rounds 1 and 2 (run alternated),
                                       each round's SLOW / FAST and their mean: FAST's speed-up.
  compare REPORT...                    every ratio of --compare reports, with interval and word.
  differences REPORT...                the difference panel and run to run of --compare reports.
  builds REPORT...                     --compare reports of two builds (compare-this|base-SIZE-ROUND):
                                       each row's frame ms in both, and this over base.
  distinct DIR PATH...                 runs of DIR/PATH-I.*: distinct frames, mips, cull dumps, counters.
  occlusion DIR SIZE...                --occlusion off against auto (DIR/SIZE-CAMERA-GEOMETRY-OCC-ROUND).
  probe REPORT                         --info --probe's graphics-to-compute figures.
  tune TUNE_JSON...                    --tune's check: tuned auto against the faster of all-* rows.
  pipeline-stats DIR                   the cull pipelines' statistics of DIR/*.jsonl.
  same-counters A B                    "yes" where two reports' counters are equal (the look-back's
                                       fallback count, which depends on scheduling, left out).
  plans DIR                            the plan each run of DIR ran (its report's plan and tuning), and
                                       each configuration of every --compare report under DIR.
  rounds SLOW FAST                     two --compare reports of one size: every ratio with interval and
                                       word in both, whether the words agree, and each run's rounds.
  startup DIR                          DIR/startup.tsv (build, config, start, round, wall, user, sys
                                       seconds): per config and start (first: the driver's shader cache
                                       empty, warm: filled by the first), each build's median wall and
                                       CPU seconds, and this build over base.
"""
import glob
import hashlib
import json
import os
import statistics
import sys


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def dig(value, path):
    for key in path.split(".") if path else []:
        if not isinstance(value, dict) or key not in value:
            return None
        value = value[key]
    return value


def cell(value):
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3f}" if abs(value) < 1e5 else f"{value:,.0f}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return json.dumps(value) if isinstance(value, (dict, list)) else str(value)


SECTIONS = {"c": "counters", "plan": "plan", "out": "outputs", "scene": "scene", "bandwidth": "bandwidth", "tuning": "tuning"}


def column(report, spec):
    if report is None:
        return "-"
    if ":" not in spec:
        return cell(dig(report, f"timings_ms.{spec}.median"))
    section, path = spec.split(":", 1)
    if section == "validation":
        return cell(dig(report, "validation.messages"))
    if section == "n":  # n:PASS: the measured frames PASS ran in
        return cell(dig(report, f"timings_ms.{path}.frames"))
    return cell(dig(report.get(SECTIONS[section]), path))


def runs(args):
    folder, only = args[0], None
    columns = args[1:]
    if columns[:1] == ["--only"]:
        only, columns = columns[1], columns[2:]
    print("\n| run | exit | s | " + " | ".join(columns) + " |")
    print("| --- | ---: | ---: |" + " ---: |" * len(columns))
    with open(os.path.join(folder, "runs.tsv")) as f:
        for line in f:
            tag, rc, seconds = line.rstrip("\n").split("\t")
            if only and not tag.startswith(only):
                continue
            report = load(os.path.join(folder, tag + ".json"))
            print(f"| {tag} | {rc} | {seconds} | " + " | ".join(column(report, c) for c in columns) + " |")


def passes(args):
    split = args.index("--")
    folder, sizes, tags = args[0], args[1:split], args[split + 1:]
    for size in sizes:
        reports = {t: [r for r in (load(f"{folder}/{t}-{size}-{k}.json") for k in (1, 2)) if r] for t in tags}
        keys = []
        for t in tags:
            for r in reports[t]:
                keys += [k for k in r["timings_ms"] if k not in keys]
        keys = [k for k in keys if k != "frame"] + ["frame"]
        print(f"\n{size}, median ms (mean of 2 runs)\n")
        print("| pass | " + " | ".join(tags) + " |")
        print("| --- |" + " ---: |" * len(tags))
        for k in keys:
            values = [[r["timings_ms"][k]["median"] for r in reports[t] if k in r["timings_ms"]] for t in tags]
            print(f"| {k} | " + " | ".join(f"{statistics.mean(v):.3f}" if v else "" for v in values) + " |")


# counters.raster.dispatch_ms's pieces in frame order (kRasterPieceKeys, src/passes/pass_table.h).
PIECES = ["late_cull", "setup", "meshlet_cull", "chunks", "tile_bins", "hardware", "merge", "split"]


def pieces(args):
    split = args.index("--")
    folder, sizes, tags = args[0], args[1:split], args[split + 1:]
    for size in sizes:
        reports = {t: [r for r in (load(f"{folder}/{t}-{size}-{k}.json") for k in (1, 2)) if r] for t in tags}

        def mean(t, path):
            values = [v for v in (dig(r, path) for r in reports[t]) if isinstance(v, (int, float))]
            return statistics.mean(values) if values else None

        def row(label, values, digits=3):
            cells = ["" if v is None else f"{v:.{digits}f}" for v in values]
            print(f"| {label} | " + " | ".join(cells) + " |")

        print(f"\n{size}, where depth goes: median ms (mean of 2 runs), counters.raster.dispatch_ms\n")
        print("| timer / piece | " + " | ".join(tags) + " |")
        print("| --- |" + " ---: |" * len(tags))
        for timer in ("depth", "late_depth"):
            if all(mean(t, f"timings_ms.{timer}.median") is None for t in tags):
                continue
            row(f"**{timer}**", [mean(t, f"timings_ms.{timer}.median") for t in tags])
            for piece in PIECES:
                values = [mean(t, f"counters.raster.dispatch_ms.{timer}.{piece}.median") for t in tags]
                if any(v is not None for v in values):
                    row(f"{timer}.{piece}", values)
            sums = []
            for t in tags:
                parts = [mean(t, f"counters.raster.dispatch_ms.{timer}.{piece}.median") for piece in PIECES]
                sums.append(sum(p for p in parts if p is not None) if any(p is not None for p in parts) else None)
            row(f"{timer}: sum of the pieces", sums)
            row(f"{timer}: frames", [mean(t, f"timings_ms.{timer}.frames") for t in tags], 0)
        row("frame", [mean(t, "timings_ms.frame.median") for t in tags])


def speedup(args):
    split = args.index("--")
    folder, timer, sizes, pairs = args[0], args[1], args[2:split], args[split + 1:]
    print(f"\n| size | slow | fast | {timer} ms slow (rounds) | {timer} ms fast (rounds) | speed-up per round | mean speed-up |")
    print("| --- | --- | --- | --- | --- | --- | ---: |")
    for size in sizes:
        for pair in pairs:
            slow, fast = pair.split(":")
            def medians(tag):
                reports = [load(f"{folder}/{tag}-{size}-{k}.json") for k in (1, 2)]
                return [dig(r, f"timings_ms.{timer}.median") if r else None for r in reports]
            a, b = medians(slow), medians(fast)
            ratios = [x / y for x, y in zip(a, b) if x and y]
            show = lambda v: " / ".join(f"{x:.3f}" if x else "n/a" for x in v)
            mean = f"{statistics.mean(ratios):.3f}x" if ratios else "n/a"
            print(f"| {size} | {slow} | {fast} | {show(a)} | {show(b)} | " + " / ".join(f"{r:.3f}x" for r in ratios) + f" | {mean} |")


def size_of(path):
    return os.path.basename(os.path.dirname(path)).split("-", 1)[-1]


def folder_of(path):
    return os.path.basename(os.path.dirname(path))


def reports(args, name_of, missing):
    """(name, report) for each path that loads; one that does not gets the row `| name | missing`."""
    for path in args:
        r = load(path)
        if r is None:
            print(f"| {name_of(path)} | {missing}")
            continue
        yield name_of(path), r


def compare(args):
    print("\n| size | ratio | fallback run | fallback ms | subgroup run | subgroup ms | speed-up | 95% interval | verdict |")
    print("| --- | --- | --- | ---: | --- | ---: | ---: | --- | --- |")
    for size, r in reports(args, size_of, "no report |"):
        for key, d in r.get("ratio_details", {}).items():
            ratio = r.get("ratios", {}).get(key)  # the details hold the interval, the ratios the value
            print(f"| {size} | {key} | {d.get('fallback_run', '')} | {cell(d.get('fallback_ms'))} | "
                  f"{d.get('subgroup_run', '')} | {cell(d.get('subgroup_ms'))} | {f'{ratio:.3f}x' if ratio else 'n/a'} | "
                  f"{d.get('ratio_ci95')} | {d.get('verdict', d.get('reason', ''))} |")
    differences(args)


def builds(args):
    """--compare reports of two builds, in folders compare-this-SIZE-ROUND and compare-base-SIZE-ROUND:
    each row's median frame time in each build (the mean over rounds) and this build's over base's."""
    frames = {}
    for path in args:
        parts = os.path.basename(os.path.dirname(path)).split("-")
        r = load(path)
        if len(parts) < 4 or r is None:
            continue
        which, size = parts[1], parts[2]
        for run in r.get("runs", []):
            median = ((run.get("timings_ms") or {}).get("frame") or {}).get("median")
            if median is not None:
                frames.setdefault((size, run.get("name", "")), {"this": [], "base": []})[which].append(median)
    print("\n| size | row | this build ms | base build ms | this / base |")
    print("| --- | --- | ---: | ---: | ---: |")
    for (size, name), m in frames.items():
        this = sum(m["this"]) / len(m["this"]) if m["this"] else None
        base = sum(m["base"]) / len(m["base"]) if m["base"] else None
        ratio = f"{this / base:.3f}" if this and base else "n/a"
        print(f"| {size} | {name} | {cell(this)} | {cell(base)} | {ratio} |")
    differences(args)


def differences(args):
    print("\n| report | pair | differing pixels |")
    print("| --- | --- | ---: |")
    for name, r in reports(args, folder_of, "no report | |"):
        for d in r.get("differences", []):
            print(f"| {name} | {d['subgroup_run']} vs {d['fallback_run']} | {d['differing_pixels']} |")
        rr = r.get("run_to_run") or {}
        print(f"| {name} | run to run ({rr.get('run')} twice) | {rr.get('differing_pixels')} |")


def counters_without_schedule(report):
    c = dict((report or {}).get("counters", {}))
    c.pop("cull_lookback_fallbacks", None)
    return json.dumps(c, sort_keys=True)


def digest(path):
    try:
        with open(path, "rb") as f:
            return hashlib.md5(f.read()).hexdigest()
    except OSError:
        return None


def distinct(args):
    folder = args[0]
    print("\n| path | runs | distinct frames | distinct mips | distinct cull dumps | distinct counter sets |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for name in args[1:]:
        reports = sorted(glob.glob(f"{folder}/{name}-[0-9]*.json"))
        stems = [p[:-5] for p in reports]
        kinds = [".png", "-mip.png", "-cull.txt"]
        counts = [len({digest(s + k) for s in stems if digest(s + k)}) for k in kinds]
        sets = len({counters_without_schedule(load(p)) for p in reports})
        print(f"| {name} | {len(reports)} | " + " | ".join(str(c) for c in counts) + f" | {sets} |")


def occlusion(args):
    folder, sizes = args[0], args[1:]
    print("\n| size | camera | geometry | frame off ms (2 runs) | frame on ms (2 runs) | on / off | triangles off | removed | "
          "rejected phase 1 | tested phase 2 | re-admitted | auto resting | identical |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |")
    for size in sizes:
        for camera in ("overview", "street"):
            for geometry in ("indexed", "meshlet"):
                base = f"{folder}/{size}-{camera}-{geometry}"
                offs = [load(f"{base}-off-{k}.json") for k in (1, 2)]
                ons = [load(f"{base}-auto-{k}.json") for k in (1, 2)]
                if not all(offs + ons):
                    print(f"| {size} | {camera} | {geometry} | failed |")
                    continue
                fo = [r["timings_ms"]["frame"]["median"] for r in offs]
                fn = [r["timings_ms"]["frame"]["median"] for r in ons]
                to, tn = offs[0]["counters"]["triangles_visible"], ons[0]["counters"]["triangles_visible"]
                o = ons[0]["counters"].get("occlusion", {})
                unit = "meshlets" if geometry == "meshlet" else "triangles"
                identical = all(digest(f"{base}-off-{a}.png") == digest(f"{base}-auto-{b}.png") for a in (1, 2) for b in (1, 2))
                print(f"| {size} | {camera} | {geometry} | {fo[0]:.3f}, {fo[1]:.3f} | {fn[0]:.3f}, {fn[1]:.3f} | "
                      f"{statistics.mean(fn) / statistics.mean(fo):.3f}x | {to:,} | {(to - tn) / max(to, 1):.1%} | "
                      f"{cell(o.get(unit + '_rejected_phase1'))} | {cell(o.get(unit + '_tested_phase2'))} | "
                      f"{cell(o.get(unit + '_readmitted_phase2'))} | {'yes' if o.get('resting') else 'no'} | "
                      f"{'yes' if identical else 'NO'} |")


def probe(args):
    r = load(args[0])
    print(f"\nprobe (--info --probe): {json.dumps((r or {}).get('probe'))}")


def tune(args):
    print("\n| size | tuned auto ms | faster of all-* | its ms | ratio | 95% interval | verdict | renderers | set-up s | rounds s | total s |")
    print("| --- | ---: | --- | ---: | ---: | --- | --- | ---: | ---: | ---: | ---: |")
    for size, r in reports(args, folder_of, "no tune.json |"):
        c = r["check"]
        frames = c.get("frame_ms", {})
        best = c.get("faster_of_all")
        tuned = [v for k, v in frames.items() if k not in ("all-subgroup", "all-fallback")]
        t = r.get("seconds") or {}  # where the tune's wall time went (absent before one renderer)
        setup = t["rows_setup"] + t["check_setup"] if t else None
        rounds = t["rows_rounds"] + t["check_rounds"] if t else None
        print(f"| {size} | {cell(tuned[0] if tuned else None)} | {best} | {cell(frames.get(best))} | {cell(c.get('ratio'))} | "
              f"{c.get('ratio_ci95')} | {c.get('verdict')} | {r.get('renderers', '-')} | {cell(setup)} | {cell(rounds)} | "
              f"{cell(t.get('total'))} |")


def pipeline_stats(args):
    rows = {}
    for path in sorted(glob.glob(f"{args[0]}/*.jsonl")):
        for line in open(path):
            e = json.loads(line)
            if not any(k in e["pipeline"] for k in ("cull.comp", "cull_scan", "meshlet_cull", "cull_late", "cull_merge")):
                continue
            for x in e["executables"]:
                rows[(e["pipeline"], x["name"])] = (x["subgroup_size"], x["statistics"])
    if not rows:
        print("\n(no statistics: the driver exposes none)")
        return
    keys = sorted({k for _, stats in rows.values() for k in stats})
    print("\n| pipeline | executable | subgroup | " + " | ".join(keys) + " |")
    print("| --- | --- | ---: |" + " ---: |" * len(keys))
    for (name, exe), (sg, stats) in sorted(rows.items()):
        print(f"| {name} | {exe} | {sg} | " + " | ".join(str(stats.get(k, "")) for k in keys) + " |")


def same_counters(args):
    a, b = load(args[0]), load(args[1])
    print("yes" if a and b and counters_without_schedule(a) == counters_without_schedule(b) else "NO")


def plan_text(plan):
    """A report's plan in one cell: shading (and derivatives), rasterizer, geometry, then each pass's variant."""
    if not isinstance(plan, dict):
        return "-"
    shading = plan.get("shading", {})
    raster = plan.get("raster", {})
    text = shading.get("mode", "?")
    if shading.get("mode") == "visibility":
        text += "/" + str(shading.get("derivatives", "?"))
    text += ", raster " + str(raster.get("mode", "?"))
    if raster.get("mode") == "compute":
        text += "/" + str(raster.get("variant", "?"))
    geometry = plan.get("geometry")
    text += ", " + str(geometry.get("mode", "?") if isinstance(geometry, dict) else geometry)
    variants = [f"{k} {v['variant']}" for k, v in plan.items()
                if isinstance(v, dict) and "variant" in v and k not in ("shading", "raster", "view", "geometry")]
    return text + "; " + ", ".join(variants)


def tuning_text(tuning):
    if not isinstance(tuning, dict):
        return "-"
    if tuning.get("disabled"):
        return "off"
    if not tuning.get("used"):
        return "none" + (" (measured now)" if tuning.get("measured_now") else "")
    text = f"{tuning.get('made_by')} {tuning.get('measured_size')}"
    if tuning.get("measured_now"):
        text += f", measured now in {tuning.get('measure_seconds', 0):.2f} s"
    return text


def plans(args):
    folder = args[0]
    print("\nThe plan each run ran (shading, rasterizer, geometry; each pass's variant) and the tuning it read:\n")
    print("| run | plan | tuning |")
    print("| --- | --- | --- |")
    tsv = os.path.join(folder, "runs.tsv")
    if os.path.exists(tsv):
        with open(tsv) as f:
            for line in f:
                tag = line.split("\t")[0]
                report = load(os.path.join(folder, tag + ".json"))
                if report is not None:
                    print(f"| {tag} | {plan_text(report.get('plan'))} | {tuning_text(report.get('tuning'))} |")
    for path in sorted(glob.glob(os.path.join(folder, "**", "report.json"), recursive=True)):
        report = load(path)
        for run in (report or {}).get("runs", []):
            print(f"| {os.path.relpath(os.path.dirname(path), folder)}: {run.get('name')} | {plan_text(run.get('plan'))} | "
                  f"{tuning_text(run.get('tuning'))} |")


def rounds(args):
    slow, fast = load(args[0]), load(args[1])
    if slow is None or fast is None:
        print(f"\nno report: {args[0] if slow is None else args[1]}")
        return
    def method(r):
        m = r.get("method", {})
        return f"{m.get('rounds', '?')} rounds of {m.get('round_frames')} frames"
    print(f"\n{size_of(args[1])}: {method(fast)} against {method(slow)}\n")
    print("| ratio | speed-up | 95% interval | verdict | speed-up (longer run) | 95% interval | verdict | same word |")
    print("| --- | ---: | --- | --- | ---: | --- | --- | --- |")
    agree = 0
    for key, d in fast.get("ratio_details", {}).items():
        e = slow.get("ratio_details", {}).get(key, {})
        def show(x, report):
            ratio = report.get("ratios", {}).get(key)
            ci = x.get("ratio_ci95")
            ci = f"[{ci[0]:.3f}, {ci[1]:.3f}]" if isinstance(ci, list) and None not in ci else str(ci)
            return f"{f'{ratio:.3f}x' if ratio else 'n/a'} | {ci} | {x.get('verdict') or x.get('reason', '')}"
        same = "yes" if d.get("verdict") == e.get("verdict") else "NO"
        agree += same == "yes"
        print(f"| {key} | {show(d, fast)} | {show(e, slow)} | {same} |")
    print(f"\nthe same word on {agree} of {len(fast.get('ratio_details', {}))} ratios")


def startup(args):
    folder = args[0]
    times = {}  # (config, start, build) -> [(wall, cpu)]
    with open(os.path.join(folder, "startup.tsv")) as f:
        for line in f:
            fields = line.split()
            if len(fields) < 7:
                continue
            build, config, start, _, wall, user, system = fields[:7]
            times.setdefault((config, start, build), []).append((float(wall), float(user) + float(system)))
    print("\n| config | start | this wall s | this CPU s | base wall s | base CPU s | this / base (wall) | this / base (CPU) | runs |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    keys = sorted({(c, s) for c, s, _ in times}, key=lambda k: (k[0], k[1] != "first"))
    for config, start in keys:
        row, walls, cpus = [], {}, {}
        for build in ("this", "base"):
            t = times.get((config, start, build), [])
            walls[build] = statistics.median(w for w, _ in t) if t else None
            cpus[build] = statistics.median(c for _, c in t) if t else None
            row += [f"{walls[build]:.2f}" if t else "-", f"{cpus[build]:.2f}" if t else "-"]
        for m in (walls, cpus):
            row.append(f"{m['this'] / m['base']:.3f}x" if m["this"] and m["base"] else "-")
        n = "/".join(str(len(times.get((config, start, b), []))) for b in ("this", "base"))
        print(f"| {config} | {start} | " + " | ".join(row) + f" | {n} |")


COMMANDS = {"runs": runs, "passes": passes, "pieces": pieces, "speedup": speedup, "compare": compare, "builds": builds, "differences": differences, "distinct": distinct,
            "occlusion": occlusion, "probe": probe, "tune": tune, "pipeline-stats": pipeline_stats,
            "same-counters": same_counters, "plans": plans, "rounds": rounds, "startup": startup}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        print(__doc__)
        sys.exit(2)
    COMMANDS[sys.argv[1]](sys.argv[2:])
