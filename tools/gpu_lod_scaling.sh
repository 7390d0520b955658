#!/usr/bin/env bash
# Issue 33 on a GPU: the geometry scaling table with and without levels of detail (docs/lod.md).
# Median frame time at 1920x1080, --lights 1024 --ray-trace off, for --instances 2 5 8 12, both
# geometry paths, --lod auto beside --lod off; the triangles and meshlets kept come from the
# report's counters. One table row per run in OUT/table.md, each run's report kept.
# Issue 43 (docs/lod.md, "Image quality"): --lod auto against --lod off at 1280x720 with
# --instances 5 --ray-trace off --occlusion off, both paths, PSNR in OUT/psnr.txt (lavapipe: 36.41
# dB on both); and --cull off with --lod auto under --validate on both paths (the indexed path's
# level choice, lod_select.comp), exit codes in OUT/psnr.txt.
# Usage: tools/gpu_lod_scaling.sh BUILD_DIR [OUT]   (OUT defaults to $OUT)
set -uo pipefail
demo=${1:-build}/subgroup-demo
out=${2:-${OUT:-out-lod-scaling}}
scene=assets/default_scene.gltf
mkdir -p "$out"
table="$out/table.md"
echo "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)" | tee "$out/log.txt"
echo "| --instances | geometry | --lod | triangles in | triangles kept | meshlets kept | frame median ms | lod build ms | draws per level | triangles per level |" > "$table"
echo "| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | --- | --- |" >> "$table"
for n in 2 5 8 12; do
  for geometry in indexed meshlet; do
    for lod in off auto; do
      report="$out/report-$n-$geometry-$lod.json"
      $demo --headless --scene $scene --instances $n --lights 1024 --ray-trace off --size 1920x1080 \
        --frames 60 --warmup 10 --geometry $geometry --lod $lod --report "$report" > /dev/null 2>> "$out/log.txt" \
        || { echo "FAILED: $n $geometry $lod" | tee -a "$out/log.txt"; continue; }
      python3 - "$report" "$n" "$geometry" "$lod" >> "$table" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); c = r["counters"]; s = r["scene"]
def per_level(key):  # counters.lod (docs/lod.md), levels 0 up to the coarsest drawn; '-' where none chose a level
    lod = c.get("lod")
    if not lod: return "-"
    values = lod[key]; last = max([i for i, d in enumerate(lod["draws_per_level"]) if d] or [0])
    return " / ".join(f"{v:,}" for v in values[:last + 1])
print(f"| {sys.argv[2]} | {sys.argv[3]} | {sys.argv[4]} | {c['triangles_in']:,} | {c['triangles_visible']:,} | "
      f"{c.get('meshlets_visible') if c.get('meshlets_visible') is not None else '-'} | "
      f"{r['timings_ms']['frame']['median']:.2f} | {s.get('lod_build_ms', 0):.1f} | {per_level('draws_per_level')} | "
      f"{per_level('triangles_per_level')} |")
PY
    done
  done
done
cat "$table"

psnr="$out/psnr.txt"
: > "$psnr"
for geometry in indexed meshlet; do
  for lod in off auto; do
    $demo --headless --scene $scene --instances 5 --ray-trace off --occlusion off --size 1280x720 --frames 1 \
      --warmup 0 --geometry $geometry --lod $lod --screenshot "$out/psnr-$geometry-$lod.png" \
      --report "$out/psnr-$geometry-$lod.json" > /dev/null 2>> "$out/log.txt" || echo "FAILED: psnr $geometry $lod" | tee -a "$psnr"
  done
  echo "$geometry, --lod auto against --lod off: $(python3 tools/mip_diff.py "$out/psnr-$geometry-off.png" "$out/psnr-$geometry-auto.png")" | tee -a "$psnr"
  $demo --headless --validate --scene $scene --instances 5 --ray-trace off --size 1280x720 --frames 3 --warmup 1 \
    --geometry $geometry --lod auto --cull off --report "$out/cull-off-$geometry.json" > "$out/cull-off-$geometry.log" 2>&1
  echo "$geometry, --cull off --lod auto --validate: exit $?" | tee -a "$psnr"
done
