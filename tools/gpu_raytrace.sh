#!/usr/bin/env bash
# The ray tracer's GPU run (docs/ray-tracing.md, docs/benchmarks.md), everything in one call:
#   1. validation: subgroup and fallback at 1920x1080 and 3840x2160, --instances 5 --lights 4096,
#      with --validate (Khronos layer + synchronization validation), their reports, frames and ray
#      dumps: statistics and images compared between the variants (here, and again off the machine);
#   2. the subgroup statistics with operations it does not use masked (--mask-ops), and auto with
#      one ray-tracing stage masked (fallback): the same counts;
#   3. timings: --ray-trace off / subgroup / fallback at both sizes (no validation, 120 frames):
#      the frame with ray tracing over the frame without it, the pass's subgroup over fallback cost;
#   4. every view (lane-id, first-last-lane, active-lanes) in every ray-tracing stage, validated, at
#      960x540 on the bundled scene, laid out on one sheet; three of them at 1920x1080 for the docs.
# Usage (repository root): tools/gpu_raytrace.sh BUILD_DIR OUT_DIR
set -uo pipefail
build=$1
out=$2
demo="$build/subgroup-demo"
scene=assets/default_scene.gltf
work=$(mktemp -d)
log="$out/log.txt"
mkdir -p "$out"
exec > >(tee -a "$log") 2>&1

pack() {  # what has run so far goes back even if the call is cut short
  (cd "$work" && tar czf "$out/reports.tar.gz" $(ls *.json views/*.json *.out 2>/dev/null))
}

run() {  # run NAME ARGS...: the demo with its exit code and last line in the log
  local name=$1; shift
  local start=$SECONDS
  timeout 150 "$demo" "$@" > "$work/$name.out" 2>&1
  local rc=$?
  echo "[$name] exit $rc, $((SECONDS - start)) s: $(tail -n 1 "$work/$name.out")"
  [ $rc -ne 0 ] && tail -n 20 "$work/$name.out"
  return 0
}

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
"$demo" --info | grep -E "^device|raygen|any-hit|closest-hit|^miss|intersection|callable|ray_trace" | head -20

common=(--headless --scene "$scene" --instances 5 --lights 4096)
for size in 1920x1080 3840x2160; do
  for v in subgroup fallback; do
    run "validate-$size-$v" "${common[@]}" --size $size --frames 4 --warmup 1 --validate --ray-trace $v \
      --report "$work/validate-$size-$v.json" --screenshot "$work/frame-$size-$v.png" --ray-dump "$work/dump-$size-$v.png"
  done
  cmp -s "$work/frame-$size-subgroup.png" "$work/frame-$size-fallback.png" && echo "$size: frames identical" || echo "$size: FRAMES DIFFER"
  cmp -s "$work/dump-$size-subgroup.png" "$work/dump-$size-fallback.png" && echo "$size: ray dumps identical" || echo "$size: RAY DUMPS DIFFER"
done
run masked-ops-1080 "${common[@]}" --size 1920x1080 --frames 2 --warmup 1 --validate --ray-trace subgroup \
  --mask-ops arithmetic,shuffle,shuffle-relative,clustered,quad --report "$work/masked-ops-1920x1080.json"
run masked-stage-1080 "${common[@]}" --size 1920x1080 --frames 2 --warmup 1 --validate --mask-stages intersection \
  --report "$work/masked-stage-1920x1080.json"

pack
for size in 1920x1080 3840x2160; do
  for v in off subgroup fallback; do
    run "time-$size-$v" "${common[@]}" --size $size --frames 120 --warmup 20 --ray-trace $v --report "$work/time-$size-$v.json"
  done
done

pack
mkdir -p "$work/views"
for view in lane-id first-last-lane active-lanes; do
  for stage in raygen any-hit closest-hit miss intersection callable; do
    run "view-$view-$stage" --headless --scene "$scene" --size 960x540 --frames 2 --warmup 1 --validate --view $view \
      --view-stage $stage --screenshot "$work/views/$view-$stage.png" --report "$work/views/$view-$stage.json"
  done
done
"$build/png-sheet" "$out/views-sheet.png" --columns 6 $(for view in lane-id first-last-lane active-lanes; do
  for stage in raygen any-hit closest-hit miss intersection callable; do echo "$work/views/$view-$stage.png"; done; done)
for pair in "lane-id raygen" "active-lanes closest-hit" "first-last-lane miss" "lane-id intersection"; do
  set -- $pair
  run "view-1080-$1-$2" --headless --scene "$scene" --size 1920x1080 --frames 2 --warmup 1 --view $1 --view-stage $2 \
    --screenshot "$work/view-1080-$1-$2.png"
done

# Back: the reports, the 1080p frames, dumps and views, and the log (at most 8 files).
pack
(cd "$work" && tar cf "$out/images-1080.tar" frame-1920x1080-*.png dump-1920x1080-*.png view-1080-*.png)
cp "$work/frame-3840x2160-subgroup.png" "$out/frame-3840x2160-subgroup.png" 2>/dev/null
echo "done"
