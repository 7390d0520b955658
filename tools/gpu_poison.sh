#!/usr/bin/env bash
# Issue 31 on a GPU: are the difference panel's pixels (cull-subgroup vs cull-fallback, and run to
# run) memory that a frame reads before writing it? SGD_POISON_ALLOCATIONS=1 fills every new buffer
# and image with garbage (docs/testing.md, "Reads before writes"), so:
#   headless: the same command with and without poison must give the same frame, mip, cull dump,
#             ray dump and counters; a difference names a read before a write on this device.
#   compare:  --compare with and without poison. With poison every renderer starts from the same
#             memory whatever ran before it: if the panel's counts drop to 0 only with poison, the
#             cause is memory contents; if they stay, it is something poison cannot reach (workgroup
#             memory or registers read before written, a race, the driver's acceleration-structure
#             builds). Each nonzero pair also gets an amplified difference image (tools/mip_diff.py).
# Usage: tools/gpu_poison.sh BUILD_DIR [OUT [headless|compare|all]]   (OUT defaults to $OUT)
#   SIZES (default "1920x1080 3840x2160") and COMPARE_SIZES (default 1920x1080) pick the frame
#   sizes; SIZES=160x90 COMPARE_SIZES=160x90 tries the script on lavapipe in a few minutes.
set -uo pipefail
demo=${1:-build}/subgroup-demo
out=${2:-${OUT:-out-poison}}
mode=${3:-all}
here=$(cd "$(dirname "$0")" && pwd)
scene=$here/../assets/default_scene.gltf
common=(--scene $scene --instances 5 --lights 4096 --no-tuning)
mkdir -p "$out"
log="$out/log.txt"
start=$(date +%s)
say() { echo "$*" | tee -a "$log"; }
say "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"

if [ "$mode" = headless ] || [ "$mode" = all ]; then
  for size in ${SIZES:-1920x1080 3840x2160}; do
    for geometry in indexed meshlet; do
      for poison in 0 1; do
        d="$out/headless-$size-$geometry-poison$poison"
        mkdir -p "$d"
        SGD_POISON_ALLOCATIONS=$poison $demo --headless "${common[@]}" --size $size --frames 4 --warmup 1 --geometry $geometry \
          --screenshot "$d/frame.png" --mip-dump "$d/mip.png" --cull-dump "$d/cull.txt" --ray-dump "$d/ray.png" \
          --report "$d/report.json" > /dev/null 2>> "$log" || say "FAILED: headless $size $geometry poison=$poison"
        python3 -c "import json; print(json.dumps(json.load(open('$d/report.json'))['counters'], sort_keys=True))" \
          > "$d/counters.json" 2>> "$log"
      done
      a="$out/headless-$size-$geometry-poison0" b="$out/headless-$size-$geometry-poison1"
      verdict=""
      for f in frame.png mip.png cull.txt ray.png counters.json; do
        cmp -s "$a/$f" "$b/$f" || verdict+=" $f differs;"
      done
      for f in frame.png ray.png; do
        [ -f "$a/$f" ] && [ -f "$b/$f" ] && ! cmp -s "$a/$f" "$b/$f" && say "  $f: $(python3 "$here/mip_diff.py" "$a/$f" "$b/$f" --diff "$out/headless-$size-$geometry-$f-diff.png" 2>&1)"
      done
      say "headless $size $geometry, poisoned vs plain:${verdict:- identical}"
    done
  done
fi

if [ "$mode" = compare ] || [ "$mode" = all ]; then
  for size in ${COMPARE_SIZES:-1920x1080}; do
    for poison in 0 1; do
      d="$out/compare-$size-poison$poison"
      SGD_POISON_ALLOCATIONS=$poison $demo --compare --out "$d" "${common[@]}" --size $size --frames 12 --warmup 2 \
        > "$d.txt" 2>> "$log" || say "FAILED: compare $size poison=$poison"
      python3 - "$d/report.json" "$poison" <<'PY' | tee -a "$log"
import json, sys
r = json.load(open(sys.argv[1]))
pairs = {f"{d['subgroup_run']} vs {d['fallback_run']}": d["differing_pixels"] for d in r["differences"]}
pairs["run to run (all-fallback twice)"] = r["run_to_run"]["differing_pixels"]
print(f"compare poison={sys.argv[2]}: " + ", ".join(f"{k}: {v}" for k, v in pairs.items()))
counters = {run["name"]: run["counters"] for run in r["runs"]}
for key in ("light_list_overflow", "mip_edge_overflow"):
    over = {n: c.get(key) for n, c in counters.items() if c.get(key)}
    if over: print(f"  {key} nonzero: {over}")
PY
      for pair in "cull-subgroup cull-fallback" "all-fallback all-fallback-again"; do
        set -- $pair
        [ -f "$d/$1.png" ] && [ -f "$d/$2.png" ] && ! cmp -s "$d/$1.png" "$d/$2.png" &&
          say "  $1 vs $2: $(python3 "$here/mip_diff.py" "$d/$1.png" "$d/$2.png" --diff "$d/diff-$1-$2.png" 2>&1)"
      done
    done
  done
fi
say "done in $(( $(date +%s) - start )) s"
