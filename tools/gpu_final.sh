#!/usr/bin/env bash
# The last GPU run of a session, on main after every merge (docs/benchmarks.md): in one call,
#   1. --info (device, the fourteen stages, the plan);
#   2. validation of everything together: all passes subgroup and all fallback, each geometry path,
#      at 1920x1080 on the 7.5M-triangle grid with 4,096 lights, with the Khronos layer;
#   3. every debug view in every one of the fourteen stages at 640x360, validated: --atlas (one PNG, with
#      each stage's measured occupancy);
#   (first) --compare at 1920x1080 and 3840x2160 (--instances 5 --lights 4096): the sheets and charts that
#      README and docs/benchmarks.md show, and their report.json.
# Usage (repository root): tools/gpu_final.sh BUILD_DIR OUT_DIR
set -uo pipefail
build=$1
out=$2
demo="$build/subgroup-demo"
scene=assets/default_scene.gltf
work=$(mktemp -d)
mkdir -p "$out"
exec > >(tee -a "$out/log.txt") 2>&1

run() {  # run NAME ARGS...: the demo, with its exit code and last line in the log
  local name=$1; shift
  local start=$SECONDS
  "$demo" "$@" > "$work/$name.out" 2>&1
  local rc=$?
  echo "[$name] exit $rc, $((SECONDS - start)) s: $(tail -n 1 "$work/$name.out")"
  [ $rc -ne 0 ] && tail -n 15 "$work/$name.out"
  return 0
}

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
"$demo" --info > "$work/info.txt" 2>&1; cat "$work/info.txt"

for size in 1920x1080 3840x2160; do
  echo "== compare $size"
  run "compare-$size" --compare --out "$work/compare-$size" --scene "$scene" --size $size --instances 5 --lights 4096 \
    --frames 60 --warmup 10
  grep -E "speed-up|no ratio" "$work/compare-$size.out"
  cp "$work/compare-$size/compare.png" "$out/compare-$size.png"
  cp "$work/compare-$size/chart.svg" "$work/chart-$size.svg"
  cp "$work/compare-$size/report.json" "$work/compare-report-$size.json"
done

echo "== validation, 1920x1080, --instances 5 --lights 4096"
common=(--headless --scene "$scene" --instances 5 --lights 4096 --size 1920x1080 --frames 3 --warmup 1 --validate)
for geometry in indexed meshlet; do
  for v in subgroup fallback; do
    all=()
    for opt in $("$demo" --help | sed -n 's/^  --\([a-z-]*\) V  *auto | subgroup .*/\1/p'); do all+=(--$opt $v); done
    run "validate-$geometry-$v" "${common[@]}" --geometry $geometry "${all[@]}" --report "$work/validate-$geometry-$v.json" \
      --screenshot "$work/validate-$geometry-$v.png"
  done
done

echo "== every view in every stage, 640x360: the atlas"
run atlas --atlas "$out/atlas.png" --scene "$scene" --size 640x360 --validate
cat "$work/atlas.out"

(cd "$work" && tar -czf "$out/results.tgz" info.txt ./*.json ./*.out ./*.svg)
ls -la "$out"
