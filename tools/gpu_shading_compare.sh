#!/usr/bin/env bash
# The comparison's shading rows on a GPU (docs/visibility.md, docs/benchmarks.md "The speed-ups"):
# one `--compare` at 1920x1080 with --instances 5 --lights 4096 (every row of the matrix, the
# shading-forward, shading-visibility and shading-visibility-fallback rows among them), then the
# `shading` ratio (forward's frame over visibility's) and the `derivatives` ratio (the shading pass
# with analytic derivatives over the same with quad swaps), each with its 95% interval and word,
# the three rows' frame and shade medians, and `--info`'s shading line, which follows the verdict
# the comparison stored. The tuning cache is OUT/cache (the user's is left alone).
# Usage (repository root, build/ built): tools/gpu_shading_compare.sh [BUILD_DIR] [OUT]
# (SIZE=WxH FRAMES=N WARMUP=N INSTANCES=N LIGHTS=N override the defaults, e.g. for a quick check on lavapipe.)
set -uo pipefail
demo=${1:-build}/subgroup-demo
out=${2:-${OUT:-out-shading-compare}}
mkdir -p "$out"
export XDG_CACHE_HOME="$out/cache"
log="$out/log.txt"
size=${SIZE:-1920x1080}
say() { echo "$*" | tee -a "$log"; }
say "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
start=$(date +%s)
$demo --compare --out "$out/cmp" --scene assets/default_scene.gltf --size $size --instances ${INSTANCES:-5} --lights ${LIGHTS:-4096} \
  --frames ${FRAMES:-60} --warmup ${WARMUP:-10} > "$out/compare.txt" 2>> "$log" || { say "FAILED: --compare at $size"; exit 1; }
say "--compare at $size: $(( $(date +%s) - start )) s"
grep -E '^(shading|derivatives|frame|geometry) ' "$out/compare.txt" | tee -a "$log"
python3 - "$out/cmp/report.json" <<'PY' | tee -a "$log"
import json, sys
r = json.load(open(sys.argv[1]))
for key in ("shading", "derivatives"):
    d = r["ratio_details"][key]
    ci = d.get("ratio_ci95")
    print(f"{key}: ratio {r['ratios'][key]}, 95% {ci}, {d.get('verdict')}; {d['fallback_run']} {d.get('fallback_ms')} ms "
          f"over {d['subgroup_run']} {d.get('subgroup_ms')} ms ({d['measured_as']}){'; ' + d['reason'] if 'reason' in d else ''}")
runs = {run["name"]: run for run in r["runs"]}
print("\n| row | frame ms | depth | forward | shade | resolve | derivatives |")
print("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
for name in ("shading-forward", "shading-visibility", "shading-visibility-fallback"):
    run = runs.get(name)
    if not run:
        print(f"| {name} | skipped | | | | | |")
        continue
    t = run["timings_ms"]
    cell = lambda k: f"{t[k]['median']:.3f}" if k in t else "-"
    print(f"| {name} | {cell('frame')} | {cell('depth')} | {cell('forward')} | {cell('shade')} | {cell('resolve')} | "
          f"{run['plan']['shading']['derivatives']} |")
for s in r["skipped"]:
    if s["name"].startswith("shading-"): print(f"skipped {s['name']}: {s['reason']}")
print(f"\ndifference panel: {[d['differing_pixels'] for d in r['differences']]}, run to run {r['run_to_run']['differing_pixels']}")
PY
say "--info after the comparison (tuned auto, from $XDG_CACHE_HOME):"
$demo --info 2>&1 | grep -E '^(shading|tuning) ' | tee -a "$log"
say "results: $out/cmp (compare.png, chart.svg, report.md, report.json), $out/log.txt"
