#!/usr/bin/env bash
# Issue 31 on a GPU: what the order-preserving cull costs (docs/culling.md, docs/benchmarks.md).
# The cull pass's median GPU time for both variants at --cull-group-size 64, 128 and 256, with
# --lod off and auto, at 1920x1080 and 3840x2160 (--instances 5 --lights 4096), one run each;
# then --compare at 1920x1080 for the cull ratio with its interval.
# Usage: tools/gpu_cull.sh BUILD_DIR [OUT]   (OUT defaults to $OUT)
set -uo pipefail
demo=${1:-build}/subgroup-demo
out=${2:-${OUT:-out-cull}}
scene=assets/default_scene.gltf
mkdir -p "$out"
table="$out/cull.md"
echo "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)" | tee "$out/log.txt"
echo "| size | --lod | --cull-group-size | subgroup ms | fallback ms | fallback / subgroup | triangles kept | frame ms (subgroup) |" > "$table"
echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |" >> "$table"
for size in 1920x1080 3840x2160; do
  for lod in off auto; do
    for group in 64 128 256; do
      for variant in subgroup fallback; do
        $demo --headless --scene $scene --instances 5 --lights 4096 --size $size --frames 60 --warmup 10 \
          --cull $variant --cull-group-size $group --lod $lod --report "$out/$size-$lod-$group-$variant.json" \
          > /dev/null 2>> "$out/log.txt" || echo "FAILED: $size $lod $group $variant" | tee -a "$out/log.txt"
      done
      python3 - "$out/$size-$lod-$group" "$size" "$lod" "$group" >> "$table" <<'PY'
import json, sys
try:
    s = json.load(open(sys.argv[1] + "-subgroup.json")); f = json.load(open(sys.argv[1] + "-fallback.json"))
except Exception as e:
    print(f"| {sys.argv[2]} | {sys.argv[3]} | {sys.argv[4]} | failed: {e} |"); sys.exit()
sm, fm = s["timings_ms"]["cull"]["median"], f["timings_ms"]["cull"]["median"]
print(f"| {sys.argv[2]} | {sys.argv[3]} | {sys.argv[4]} | {sm:.4f} | {fm:.4f} | {fm / sm:.3f}x | "
      f"{s['counters']['triangles_visible']:,} | {s['timings_ms']['frame']['median']:.3f} |")
PY
    done
  done
done
cat "$table"
$demo --compare --scene $scene --instances 5 --lights 4096 --size 1920x1080 --frames 40 --warmup 8 \
  --out "$out/compare-1080p" > "$out/compare-1080p.log" 2>&1 || echo "FAILED: compare" | tee -a "$out/log.txt"
python3 - "$out/compare-1080p/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for k, d in r.get("ratio_details", {}).items():
    print(k, d)
print("differences", [(d.get("pair"), d.get("differing_pixels")) for d in r.get("differences", [])])
print("run_to_run", r.get("run_to_run"))
PY
