#!/usr/bin/env python3
"""Light-list benchmark: light_cull subgroup vs fallback, forward with lists vs brute force.

Runs build/subgroup-demo headless for every size x light count x --light-cull mode, keeps each
run's report JSON under --out, and prints the Markdown table of docs/light-lists.md.

  python3 tools/bench_lights.py --out out/lights                          # the GPU table
  python3 tools/bench_lights.py --sizes 640x360 --lights 256,1024,4096 --frames 20 --warmup 4 --brute-frames 3   # lavapipe
"""
import argparse
import json
import os
import subprocess
import sys


def run(demo, out, size, lights, mode, frames, warmup, extra):
    report = os.path.join(out, f"lights-{size}-{lights}-{mode}.json")
    cmd = [demo, "--headless", "--size", size, "--lights", str(lights), "--light-cull", mode,
           "--frames", str(frames), "--warmup", str(warmup), "--report", report] + extra
    print("+ " + " ".join(cmd), file=sys.stderr, flush=True)
    result = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if result.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed with exit code {result.returncode}:\n{result.stdout[-2000:]}")
    with open(report) as f:
        return json.load(f)


def median(report, key):
    t = report["timings_ms"].get(key)
    return t["median"] if t else float("nan")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--demo", default="build/subgroup-demo")
    parser.add_argument("--out", default="out/lights")
    parser.add_argument("--sizes", default="1920x1080,3840x2160")
    parser.add_argument("--lights", default="1024,4096,16384")
    parser.add_argument("--frames", type=int, default=120)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--brute-frames", type=int, default=0,
                        help="frames (1 of them warm-up) for the brute-force runs, when slow; 0: --frames/--warmup")
    parser.add_argument("extra", nargs="*", help="more demo options, after --")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)

    rows = []
    device = None
    for size in args.sizes.split(","):
        for lights in [int(n) for n in args.lights.split(",")]:
            r = {m: run(args.demo, args.out, size, lights, m, args.frames, args.warmup, args.extra)
                 for m in ("subgroup", "fallback")}
            brute = (args.brute_frames, 1) if args.brute_frames else (args.frames, args.warmup)
            r["off"] = run(args.demo, args.out, size, lights, "off", brute[0], brute[1], args.extra)
            device = device or f"{r['off']['device']['name']}, {r['off']['device']['driver']}, subgroup size {r['off']['subgroup']['size']}"
            sub, fb, off = r["subgroup"], r["fallback"], r["off"]
            atomics_sub = sub["counters"]["light_atomics"]
            atomics_fb = fb["counters"]["light_atomics"]
            rows.append([
                size, str(lights),
                f"{median(sub, 'light_cull'):.3f}", f"{median(fb, 'light_cull'):.3f}",
                f"{median(fb, 'light_cull') / median(sub, 'light_cull'):.2f}",
                f"{atomics_fb} / {atomics_sub} = {atomics_fb / max(1, atomics_sub):.1f}",
                f"{median(sub, 'forward'):.3f}", f"{median(off, 'forward'):.3f}",
                f"{median(off, 'forward') / median(sub, 'forward'):.2f}",
                f"{median(sub, 'frame'):.3f}", f"{median(off, 'frame'):.3f}",
                f"{sub['counters']['light_list_entries']}", f"{sub['counters']['light_list_overflow']}",
            ])
    header = ["size", "lights", "light_cull subgroup ms", "light_cull fallback ms", "fallback/subgroup",
              "list atomics fallback / subgroup", "forward with lists ms", "forward brute force ms",
              "brute/lists", "frame (subgroup) ms", "frame (off) ms", "entries", "overflow"]
    brute_note = f" ({args.brute_frames - 1} for brute force)" if args.brute_frames else ""
    print(f"\nDevice: {device}; median of {args.frames - args.warmup} frames{brute_note}\n")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
