#!/usr/bin/env bash
# Issue 31 on a GPU: does the same command give the same frame, mip, cull dump and counters on
# every run (order-preserving compaction), and what do the comparison's intervals and the
# graphics-to-compute probe say? docs/benchmarks.md records the results.
# Usage: tools/gpu_determinism.sh BUILD_DIR [OUT [repeats|compare|all]]   (OUT defaults to $OUT)
#   repeats: 20 runs of the default command at 3840x2160 (--instances 5 --lights 4096, culling and
#            ray tracing on), indexed, --geometry meshlet and --cull fallback (the comparison's
#            differing pairs all hold a fallback cull), each hashed; then --info --probe.
#   compare: --compare at 1920x1080 and 3840x2160 (--instances 5 --lights 4096).
set -uo pipefail
demo=${1:-build}/subgroup-demo
out=${2:-${OUT:-out-determinism}}
mode=${3:-all}
scene=assets/default_scene.gltf
mkdir -p "$out"
log="$out/log.txt"
start=$(date +%s)
say() { echo "$*" | tee -a "$log"; }
say "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"

if [ "$mode" = repeats ] || [ "$mode" = all ]; then
  for geometry in indexed meshlet cull-fallback; do
    path_args="--geometry $geometry"
    [ "$geometry" = cull-fallback ] && path_args="--cull fallback"
    hashes="$out/$geometry-hashes.txt"
    : > "$hashes"; : > "$out/$geometry-counters.jsonl"
    for i in $(seq 1 20); do
      [ $(( $(date +%s) - start )) -gt 500 ] && { say "$geometry: stopped after $((i - 1)) runs (time)"; break; }
      $demo --headless --scene $scene --instances 5 --lights 4096 --size 3840x2160 --frames 4 --warmup 1 \
        $path_args --screenshot "$out/frame.png" --mip-dump "$out/mip.png" --cull-dump "$out/cull.txt" \
        --report "$out/report.json" > /dev/null 2>> "$log" || { say "FAILED: $geometry run $i"; continue; }
      # Every run's counters are kept (one JSON line each), so the keys that vary can be named; the
      # cull look-back's fallback count depends on scheduling (docs/culling.md) and is left out.
      python3 -c "import json; c = json.load(open('$out/report.json'))['counters']; c.pop('cull_lookback_fallbacks', None); print(json.dumps(c, sort_keys=True))" >> "$out/$geometry-counters.jsonl"
      counters=$(tail -1 "$out/$geometry-counters.jsonl" | md5sum | cut -c1-32)
      echo "$(md5sum < "$out/frame.png" | cut -c1-32) $(md5sum < "$out/mip.png" | cut -c1-32) $(md5sum < "$out/cull.txt" | cut -c1-32) $counters" >> "$hashes"
    done
    runs=$(wc -l < "$hashes")
    for k in 1 2 3 4; do distinct[$k]=$(cut -d' ' -f$k "$hashes" | sort -u | wc -l); done
    say "$geometry: $runs runs at 3840x2160: ${distinct[1]} distinct frame(s), ${distinct[2]} mip(s), ${distinct[3]} cull dump(s), ${distinct[4]} counter set(s)"
    cp "$out/report.json" "$out/$geometry-last-report.json"
  done
  $demo --info --probe --report "$out/probe.json" > "$out/probe.txt" 2>> "$log" || say "FAILED: --info --probe"
  say "probe: $(python3 -c "import json; p=json.load(open('$out/probe.json'))['probe']; print(json.dumps(p))" 2>/dev/null)"
  rm -f "$out/frame.png" "$out/mip.png" "$out/cull.txt" "$out/report.json"
fi

if [ "$mode" = compare ] || [ "$mode" = all ]; then
  for size in 1920x1080 3840x2160; do
    $demo --compare --out "$out/compare-$size" --scene $scene --instances 5 --lights 4096 --size $size \
      --frames 40 --warmup 8 > "$out/compare-$size.txt" 2>> "$log" || say "FAILED: compare $size"
    say "$size compare done at $(( $(date +%s) - start )) s"
    python3 - "$out/compare-$size/report.json" <<'PY' | tee -a "$log"
import json, sys
r = json.load(open(sys.argv[1]))
for name, d in r.get("ratio_details", {}).items():
    print(f"  {name}: {d.get('ratio')} ci95 {d.get('ratio_ci95')} {d.get('verdict')} probe {d.get('graphics_to_compute')}")
print("  differences:", json.dumps(r.get("differences")), "run_to_run:", json.dumps(r.get("run_to_run")))
PY
  done
fi
say "done in $(( $(date +%s) - start )) s"
