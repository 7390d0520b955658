#!/usr/bin/env bash
# The GPU benchmarks of docs/benchmarks.md, batched so one device call runs a whole group.
# Usage: tools/gpu_bench.sh OUTDIR GROUP...   GROUP: cull | lights | mip | compare | views | auto | rays
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
  auto)  # issue 57: the first run on a device it has never seen (the quick measurement) against a full --tune
    for size in "${sizes[@]}"; do
      cache="$out/auto/cache-$size"; rm -rf "$cache"; mkdir -p "$cache"
      run=(--size $size --instances 5 --lights 4096)
      XDG_CACHE_HOME="$cache" $demo --headless "${run[@]}" --frames 200 --warmup 30 \
        --report "$out/auto/first-$size.json" > "$out/auto/first-$size.log" 2>&1
      XDG_CACHE_HOME="$cache" $demo --headless "${run[@]}" --frames 200 --warmup 30 \
        --report "$out/auto/second-$size.json" > "$out/auto/second-$size.log" 2>&1
      cp "$cache"/subgroup-demo/tuning-*.json "$out/auto/quick-$size.json"
      # --tune replaces the quick verdict; its "quick:" line sets the quick choice against tuned auto in rounds.
      XDG_CACHE_HOME="$cache" $demo --tune "${run[@]}" --frames 120 --warmup 20 --out "$out/auto/tune-$size" \
        > "$out/auto/tune-$size.log" 2>&1
      XDG_CACHE_HOME="$cache" $demo --headless "${run[@]}" --frames 200 --warmup 30 \
        --report "$out/auto/tuned-$size.json" > "$out/auto/tuned-$size.log" 2>&1
      grep -h '^auto: ' "$out/auto/first-$size.log"
      grep -h '^quick: ' "$out/auto/tune-$size.log"
      python3 - "$out/auto" "$size" <<'PY'
import json, sys
d, size = sys.argv[1], sys.argv[2]
r = {k: json.load(open(f"{d}/{k}-{size}.json")) for k in ("first", "second", "tuned")}
frame = {k: v["timings_ms"]["frame"]["median"] for k, v in r.items()}
t1, t2 = r["first"]["tuning"], r["second"]["tuning"]
print(f"auto {size}: first run measured {t1['measure_seconds']:.2f} s (limit 3 s: {'ok' if t1['measure_seconds'] <= 3 else 'OVER'}), "
      f"shading {r['first']['plan']['shading']['mode']}; second run measured: {t2['measured_now']} (must be False); "
      f"frame first {frame['first']:.3f} ms, second {frame['second']:.3f} ms, after --tune {frame['tuned']:.3f} ms "
      f"(shading {r['tuned']['plan']['shading']['mode']}): first/tuned {frame['first'] / frame['tuned']:.3f}x (limit 1.05x)")
PY
    done ;;
  rays)  # docs/ray-tracing.md: the ray tracer on the visibility path (no primary rays), subgroup against fallback
    # Per size: the pass's time, rays per second per kind and per-stage invocations in each report
    # (counters.ray_trace), the images and ray dumps of the two variants compared byte for byte,
    # the forward path (primary rays kept) beside it, then --compare's ray-trace rows for the
    # subgroup / fallback ratio with its 95% interval (ratio_details.ray_trace).
    for size in "${sizes[@]}"; do
      for shading in visibility forward; do for rt in subgroup fallback off; do
        name=rays-$size-$shading-$rt
        $demo --headless --size $size --instances 5 --lights 4096 --shading $shading --ray-trace $rt --frames 200 --warmup 30 \
          --report "$out/rays/$name.json" --screenshot "$out/rays/$name.png" \
          $([ $rt != off ] && echo --ray-dump "$out/rays/$name-dump.png") > /dev/null || echo "FAILED: $name"
      done
      cmp -s "$out/rays/rays-$size-$shading-subgroup.png" "$out/rays/rays-$size-$shading-fallback.png" && \
        cmp -s "$out/rays/rays-$size-$shading-subgroup-dump.png" "$out/rays/rays-$size-$shading-fallback-dump.png" && \
        echo "rays $size $shading: subgroup and fallback frames and ray dumps identical"
      done
      python3 - "$out/rays" "$size" <<'PY'
import json, sys
d, size = sys.argv[1], sys.argv[2]
for shading in ("visibility", "forward"):
    runs = {v: json.load(open(f"{d}/rays-{size}-{shading}-{v}.json")) for v in ("subgroup", "fallback", "off")}
    for v in ("subgroup", "fallback"):
        r, c = runs[v], runs[v]["counters"]["ray_trace"]
        rps = c["rays_per_second"] or {}
        print(f"{size} {shading} {v}: ray_trace {r['timings_ms']['ray_trace']['median']:.3f} ms, frame {r['timings_ms']['frame']['median']:.3f} ms"
              f" (off {runs['off']['timings_ms']['frame']['median']:.3f}); rays {c['rays']}; rays/s "
              + ", ".join(f"{k} {rps.get(k, 0) / 1e9:.2f} G" for k in ("primary", "shadow", "reflection", "total")))
        print("   invocations " + ", ".join(f"{k} {s['invocations']}" + (f" ({s['lanes_per_subgroup']:.1f} lanes/subgroup)" if 'lanes_per_subgroup' in s else "")
                                        for k, s in c["stages"].items()))
    same = all(runs["subgroup"]["counters"]["ray_trace"][k] == runs["fallback"]["counters"]["ray_trace"][k] for k in ("rays", "any_hit_rejections"))
    print(f"   subgroup and fallback rays and rejections equal: {same}")
PY
      # (The comparison's ray-trace rows shade with `auto`: its shading column says which path they took.)
      $demo --compare --out "$out/rays/compare-$size" --size $size --instances 5 --lights 4096 \
        --frames 120 --warmup 20 > /dev/null
      python3 -c "import json,sys; r=json.load(open(sys.argv[1])); d=r['ratio_details'].get('ray_trace'); print('$size ray_trace fallback/subgroup', r['ratios'].get('ray_trace'), d)" \
        "$out/rays/compare-$size/report.json"
      grep '^| ray_trace ' "$out/rays/compare-$size/report.md"
    done
    # The six stages' views on the visibility path, validation on (both geometry paths).
    for geometry in indexed meshlet; do for stage in raygen any-hit closest-hit miss intersection callable; do
      $demo --headless --size 960x540 --frames 2 --warmup 1 --validate --shading visibility --geometry $geometry \
        --view lane-id --view-stage $stage --screenshot "$out/rays/view-$geometry-$stage.png" \
        --report "$out/rays/view-$geometry-$stage.json" > "$out/rays/view-$geometry-$stage.log" 2>&1 || echo "FAILED: view $geometry $stage"
      grep -c "Validation" "$out/rays/view-$geometry-$stage.log" | sed "s/^/view $geometry $stage validation lines: /"
    done; done ;;
  *) echo "unknown group $group"; exit 2 ;;
  esac
  echo "done: $group"
done
