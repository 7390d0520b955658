#!/usr/bin/env bash
# The GPU benchmarks of docs/benchmarks.md, batched so one device call runs a whole group.
# Usage: tools/gpu_bench.sh OUTDIR GROUP...   GROUP: cull | lights | mip | compare | views
# Every run is headless with timestamps; reports (the contract's JSON) land in OUTDIR/<group>/, and
# docs/benchmarks.md quotes their timings_ms medians.
set -uo pipefail
out=$1; shift
demo=./build/subgroup-demo
sizes=(1920x1080 3840x2160)
mkdir -p "$out"

for group in "$@"; do
  mkdir -p "$out/$group"
  case $group in
  cull)  # 25 copies of the scene: 7.5M triangles
    for size in "${sizes[@]}"; do for cull in subgroup fallback off; do
      $demo --headless --size $size --instances 5 --frames 200 --warmup 30 --cull $cull --bandwidth-probe \
        --report "$out/cull/cull-$size-$cull.json" --screenshot "$out/cull/cull-$size-$cull.png" > /dev/null
    done
    cmp -s "$out/cull/cull-$size-subgroup.png" "$out/cull/cull-$size-off.png" && \
      cmp -s "$out/cull/cull-$size-fallback.png" "$out/cull/cull-$size-off.png" && echo "cull $size: images identical"
    done ;;
  lights)
    for size in "${sizes[@]}"; do for n in 1024 4096 16384; do for mode in subgroup fallback off; do
      $demo --headless --size $size --lights $n --frames 120 --warmup 20 --light-cull $mode \
        --report "$out/lights/lights-$size-$n-$mode.json" > /dev/null
    done; done; done ;;
  mip)
    for size in "${sizes[@]}"; do for mip in off subgroup fallback; do
      $demo --headless --size $size --instances 4 --lights 2048 --frames 200 --warmup 30 --mip $mip \
        --report "$out/mip/mip-$size-$mip.json" --mip-dump "$out/mip/mip-$size-$mip-mip.png" > /dev/null
    done; done ;;
  compare)
    for size in "${sizes[@]}"; do
      $demo --compare --out "$out/compare/$size" --size $size --instances 5 --lights 4096 --frames 120 --warmup 20
    done ;;
  views)
    for view in lane-id first-last-lane active-lanes; do for stage in vertex tess-control tess-eval geometry fragment compute; do
      $demo --headless --size 960x540 --frames 2 --warmup 1 --view $view --view-stage $stage \
        --screenshot "$out/views/$view-$stage.png" --report "$out/views/$view-$stage.json" > /dev/null
    done; done
    for stage in vertex tess-eval fragment; do
      $demo --headless --size 960x540 --frames 2 --warmup 1 --view lane-id --view-stage $stage --mask-stages $stage \
        --screenshot "$out/views/masked-$stage.png" > /dev/null
    done ;;
  *) echo "unknown group $group"; exit 2 ;;
  esac
  echo "done: $group"
done
