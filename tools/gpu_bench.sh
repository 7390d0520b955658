#!/usr/bin/env bash
# The GPU benchmarks of docs/benchmarks.md, batched so one device call runs a whole group.
# Usage: tools/gpu_bench.sh OUTDIR GROUP...   GROUP: cull | lights | mip | compare | views | auto | raster
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
  raster)  # issue 54 (docs/raster.md): the visibility pre-pass in hardware (32-bit ids) and in compute
    run=(--headless --instances 5 --lights 4096 --shading visibility --frames 200 --warmup 30)
    for size in "${sizes[@]}"; do
      for r in hardware compute; do
        $demo "${run[@]}" --size $size --raster $r --report "$out/raster/$r-$size.json" \
          --screenshot "$out/raster/$r-$size.png" > "$out/raster/$r-$size.log" 2>&1
      done
      # The compute rasterizer's fallback (ballots masked), whose words are the subgroup path's.
      $demo "${run[@]}" --size $size --raster compute --mask-ops ballot --report "$out/raster/fallback-$size.json" \
        --screenshot "$out/raster/fallback-$size.png" > "$out/raster/fallback-$size.log" 2>&1
      cmp -s "$out/raster/compute-$size.png" "$out/raster/fallback-$size.png" && echo "raster $size: subgroup and fallback frames identical"
      # The default command with nothing asked, untuned (auto: hardware without a verdict).
      $demo --headless --size $size --instances 5 --lights 4096 --frames 200 --warmup 30 \
        --report "$out/raster/default-$size.json" > "$out/raster/default-$size.log" 2>&1
    done
    # Scaling with triangles at 4K: 12 against 5 instances, both rasterizers.
    for r in hardware compute; do
      $demo "${run[@]}" --size 3840x2160 --instances 12 --raster $r --report "$out/raster/$r-12-3840x2160.json" \
        > "$out/raster/$r-12-3840x2160.log" 2>&1
    done
    python3 - "$out/raster" <<'PY'
import json, os, sys
d = sys.argv[1]
def t(name, key):
    path = f"{d}/{name}.json"
    if not os.path.exists(path): return float("nan")
    return json.load(open(path))["timings_ms"].get(key, {}).get("median", float("nan"))
for size in ("1920x1080", "3840x2160"):
    for name in ("hardware", "compute", "fallback", "default"):
        n = f"{name}-{size}"
        print(f"raster {n}: depth {t(n, 'depth'):.3f} ms, late_depth {t(n, 'late_depth'):.3f} ms, "
              f"pyramid {t(n, 'pyramid'):.3f} ms, ray_trace {t(n, 'ray_trace'):.3f} ms, frame {t(n, 'frame'):.3f} ms")
for r in ("hardware", "compute"):
    f5, f12 = t(f"{r}-3840x2160", "frame"), t(f"{r}-12-3840x2160", "frame")
    print(f"raster {r} 4K: frame 12 instances {f12:.3f} ms / 5 instances {f5:.3f} ms = {f12 / f5:.3f}x (target <= 1.3x)")
PY
    ;;
  *) echo "unknown group $group"; exit 2 ;;
  esac
  echo "done: $group"
done
