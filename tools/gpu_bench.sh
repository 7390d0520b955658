#!/usr/bin/env bash
# The GPU benchmark runner: named suites, one Markdown table each (OUT/SUITE.md, also printed), the
# reports and images beside it in OUT/SUITE/. docs/benchmarks.md quotes these tables.
#
# Usage (repository root): tools/gpu_bench.sh SUITE... [--build DIR] [--base DIR] [--out DIR]
#   --build DIR  the build measured (default build)
#   --base DIR   frame suite only: a second build to alternate with (this build / base)
#   --out DIR    where the tables and runs go (default $OUT, else out-bench)
# On the GPU machine, start it after the driver set-up:
#   for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig; tools/gpu_bench.sh frame compare --out $OUT
# The scene is passed explicitly (--scene assets/default_scene.gltf, from the repository root): a
# build may bake an absolute assets path that does not exist on that machine.
# Smaller runs (lavapipe): SIZES="160x90" FRAMES=10 WARMUP=2 INSTANCES=2 LIGHTS=64 REPEATS=3
# override the suites' defaults (sizes 1920x1080 3840x2160, --instances 5 --lights 4096).
#
# Suites (tools/README.md says which old script each measurement came from):
#   frame        the default command at both sizes, untuned (--no-tuning) and tuned (--tune first)
#   compare      --compare at both sizes: every ratio with its interval and word, the difference panel
#   validate     every view in every stage under --validate, --view raster (both compute paths and a
#                two-phase frame), the atlas, all-subgroup and all-fallback
#                on both geometry paths under --validate, the comparison's difference panel
#   determinism  REPEATS runs of the default command (indexed, meshlet, cull fallback): distinct
#                frames, mips, cull dumps, counter sets; --info --probe
#   occlusion    --occlusion off against auto, both cameras and geometry paths, alternated
#   visibility   --shading forward against visibility (quad and analytic derivatives, the mip's
#                fallback), both geometry paths, alternated; the shading pass's views, validated
#   cull         the cull pass per variant, --lod and --cull-group-size; the look-back's spin limits
#                (SPINS) and late schedules (SGD_CULL_LOOKBACK)
#   lights       light culling at 1024, 4096 and 16384 lights, each variant
#   mip          the quad mip (resolve, forward) against the compute downsample and off; the forward
#                shader's quad mip at three settings (its added forward time + fix-up)
#   resolve      the resolve pass with and without its mip, exposure variants, all-subgroup against
#                all-fallback; REPEATS runs at the large size: every mip against the CPU box filter
#   meshlet      the meshlet path against indexed: images and counts under --validate, per-pass
#                times, the task/mesh compaction split (SGD_MESHLET_FALLBACK_STAGE), the views; its
#                pre-pass in compute (--raster compute) against indexed in compute and its hardware
#                pre-pass, alternated: frame, --ray-trace off, the street with occlusion, the fallbacks
#   lod          the geometry scaling table (--instances 2 5 8 12, --lod off and auto), the PSNR of
#                --lod auto against off, --cull off --lod auto under --validate
#   raytrace     the ray tracer: validated variants and their dumps, masked ops and stage, timings
#                off / subgroup / fallback, every view in the six ray-tracing stages
#   poison       SGD_POISON_ALLOCATIONS=1 against plain: frame, mip, cull dump, ray dump, counters
#   tune         --tune at both sizes: tuned auto against the faster of all-subgroup and all-fallback; its
#                wall time and where it went (the renderers built, set-up and rounds); --base BUILD:
#                that build's --tune wall time too
#   pipeline-stats  the driver's statistics of the cull pipelines (SGD_PIPELINE_STATS), both paths
#   ties         VisibilityTies.* (tests/gpu/test_visibility_ties.cpp) at the large size, REPEATS times:
#                equal depths under occlusion's two phases resolve as forward and as --occlusion off
#                (needs the build's tests/gpu-tests)
#   auto         from an empty cache at each size: the first run's quick measurement and time, the
#                second run's, the first frame against the frame after a full --tune
#   first-compare  from an empty cache at each size: the first run (its measurement's duration, with
#                the driver's shader cache cold and, in a second cache, warm) against the frame after
#                --tune; then --compare in that tuned plan against a run LONG (3) times as long: wall
#                times (and where they went: set-up, rounds, images), every ratio, interval and word
#                in both (at 1080p and 4K by default; SIZES=one size per call where time is short)
#   raster       --raster hardware (the pre-pass with the 32-bit id) against compute, both sizes,
#                alternated: the plain frame, --ray-trace off (everything but the ray tracer), the street
#                camera with occlusion auto and off; compute's subgroup path against its fallback
#                (SGD_RASTER_PATH=fallback: the rasterizer alone; alternated in the same rounds: the
#                fallback's depth and frame over the subgroup's); the triangles and pixels of each
#                path (per lane, split, tile bin, hardware); the default command from an empty cache
#                and tuned; 12 against 5 instances at the large size; per-pass medians and the frames
#                each pass ran in (the hardware ids pass: those that re-admitted); where depth goes:
#                the compute rasterizer's depth and late_depth in pieces (counters.raster.dispatch_ms:
#                clears, chunks, tile bins, hardware draw, split; phase 2's cull and merge) per size,
#                subgroup path, fallback and the hardware pre-pass's depth side by side; --view raster's
#                picture and pixel counts at the large size; the frame-crossing triangles back on the
#                hardware (SGD_RASTER_GUARD_BAND=0) against the default guard band, and the coverage
#                tests on this GPU
#   materials    every map (docs/materials.md) at the large size: the shade pass in forward and both
#                derivative variants, the material waterfall against nonuniformEXT (--materials,
#                alternated, frames compared), the textures as one array texture's layers (a device
#                without descriptor indexing: SGD_MASK_FEATURES=descriptor-indexing) in forward and
#                visibility against descriptor indexing, alternated, with --base the frame before and
#                after, the comparison's derivatives, shading and materials ratios, the atlas validated
#   rays         the ray tracer (docs/ray-tracing.md): --shading visibility and forward, the subgroup
#                and fallback variants, each with the dense launch and the plain one (SGD_RAY_LISTS),
#                alternated over two rounds, and off: the traces' time
#                (ray_trace) beside the acceleration structures' rebuild (ray_build), rays per second
#                per kind (over the traces alone) and every stage's invocations, the variants' frames,
#                dumps and statistics (the subgroup variant's striped counters) compared, the targets (dense ray_trace, its speed-ups); --compare's ray_trace ratio with its interval; the six stages'
#                views on the visibility path (both geometry paths) and forward, validated
#   dense-rays   the ray tracer's dense launch against its plain one (docs/ray-tracing.md "Dense rays"),
#                both sizes, --shading visibility and forward: the subgroup variant with ballot lists,
#                atomic lists and per pixel (SGD_RAY_LISTS subgroup, fallback, off), the fallback with
#                atomic lists and per pixel, alternated over two rounds: ray_trace, plain over dense
#                (speedup), rays per second per kind, the pixels' share that list each ray kind, each
#                stage's lanes per subgroup on each launch (the subgroup variant's counts: how full the
#                traversal's subgroups ran); frames, ray dumps and statistics dense against plain (small
#                size); the ray-generation and miss views on each launch (lane-id, active-lanes, the
#                small size, validated) on one sheet
#   ray-materials  the reflections' whole material (docs/ray-tracing.md "The reflected surface's
#                material": both uv sets, the tangent or the triangle's frame, 80 bytes of callable
#                data) against --base (the build before: TEXCOORD_0 only, no normal map, 48 bytes; without
#                --base this build alone), both shadings and sizes, both variants, alternated over two
#                rounds: ray_trace (what the maps cost the traces) and the frame, after over before; the
#                closest-hit and callable invocations (the same rays: equal); one validated run each
#   refit        the ray tracer's acceleration structures refitted every frame (the default) against
#                rebuilt every frame (SGD_RAY_REFIT=off), both sizes, alternated over two rounds:
#                ray_build (the target), ray_trace (what the refitted tree costs the rays) and the frame,
#                the frames and ray dumps compared byte for byte, one validated run of each
#   graph        the frame graph against the build before it (--base DIR, needed): the default frame
#                (untuned) and every --compare row at both sizes, this build and base alternated over
#                two rounds, frame times side by side and this over base; the default frames compared
#                byte for byte; the views under --validate (validate suite) cover the graph's passes;
#                --raster compute on both geometry paths (street, occlusion auto): depth, late_depth
#   startup      start-up to the first frame (--frames 1 --no-tuning, the small size), with the driver's
#                shader cache empty (first: every pipeline the plan binds compiled cold, the user's cache
#                folder new) and filled by that run (warm), for the default plan and with every switched
#                pass on its fallback (the cull and its scans, light culling, exposure, the pyramid, the
#                ray lists by SGD_RAY_LISTS=fallback: one SPIR-V specialized both ways,
#                docs/architecture.md "Shader variants"), and those two on the meshlet path
#                (`meshlet`, `meshlet-fallbacks`: its task and mesh cull) and that path under --raster
#                compute (`raster`, `raster-fallbacks`: the compute rasterizer, SGD_RASTER_PATH, and its
#                meshlet cull in compute); STARTS (3) rounds, this build and --base (optional)
#                alternated: median wall and CPU seconds, this over base
# Adding a suite: one case block below (runs through `run` / `compare_run`, a table through
# tools/bench_tables.py), one line above and one in tools/README.md.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=build base="" out=${OUT:-out-bench} suites=()
while [ $# -gt 0 ]; do
  case $1 in
  --build) build=$2; shift 2 ;;
  --base) base=$2; shift 2 ;;
  --out) out=$2; shift 2 ;;
  -h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  -*) echo "gpu_bench.sh: unknown option $1" >&2; exit 2 ;;
  *) suites+=("$1"); shift ;;
  esac
done
[ ${#suites[@]} -gt 0 ] || { echo "usage: tools/gpu_bench.sh SUITE... [--build DIR] [--base DIR] [--out DIR] (--help)" >&2; exit 2; }

# The one preamble: the build, the scene, the scale, the log.
demo=$build/subgroup-demo
[ -x "$demo" ] || { echo "gpu_bench.sh: no $demo (build first, or pass --build DIR)" >&2; exit 2; }
scene_file=$PWD/assets/default_scene.gltf
sizes=(${SIZES:-1920x1080 3840x2160})
small=${sizes[0]} large=${sizes[${#sizes[@]}-1]}
frames=${FRAMES:-100} warmup=${WARMUP:-10} repeats=${REPEATS:-20}
scene=(--scene "$scene_file")
scaled=(--scene "$scene_file" --instances ${INSTANCES:-5} --lights ${LIGHTS:-4096})
tables="python3 $here/bench_tables.py"
mkdir -p "$out"
out=$(cd "$out" && pwd)
log=$out/log.txt
say() { echo "$*" | tee -a "$log"; }
device=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)
[ -n "$device" ] || device=$("$demo" --list-devices 2>/dev/null | head -1 | sed 's/^[0-9]*: //')
say "device: $device"
say "commit: $(git rev-parse --short HEAD 2>/dev/null), $(date -u '+%Y-%m-%d %H:%M UTC'), build $build"
start=$SECONDS

# run TAG ARGS...: the demo with ARGS and --report D/TAG.json; TAG, its exit code and seconds go to
# D/runs.tsv, which the tables read. ENV=... before `run` sets the environment of that run only.
run() {
  local tag=$1; shift
  local t=$SECONDS
  "$demo" "$@" --report "$d/$tag.json" > "$d/$tag.out" 2>&1
  local rc=$?
  printf '%s\t%s\t%s\n' "$tag" "$rc" "$((SECONDS - t))" >> "$d/runs.tsv"
  [ $rc -eq 0 ] || say "FAILED ($rc): $suite $tag: $(tail -n 1 "$d/$tag.out")"
}
# compare_run TAG ARGS...: --compare into D/TAG (report.json, report.md, compare.png, chart.svg).
compare_run() {
  local tag=$1; shift
  "$demo" --compare --out "$d/$tag" "$@" > "$d/$tag.out" 2>&1 || say "FAILED ($?): $suite $tag: $(tail -n 1 "$d/$tag.out")"
  find "$d/$tag" -name '*.png' ! -name compare.png -delete  # the screenshots: too many to bring back at 4K
}
# tune_into CACHE ARGS...: --tune at ARGS into a tuning cache of its own (the user's is left alone).
tune_into() {
  local cache=$1; shift
  XDG_CACHE_HOME=$cache "$demo" --tune "$@" > "$cache.tune.out" 2>&1 || say "FAILED ($?): $suite --tune: $(tail -n 1 "$cache.tune.out")"
}
# same A B: "yes" where the two files are byte-identical.
same() { cmp -s "$1" "$2" && echo yes || echo NO; }

for suite in "${suites[@]}"; do
  d=$out/$suite
  rm -rf "$d"; mkdir -p "$d"
  # Every suite has a tuning cache of its own (empty at its start): what `auto` means in one suite's
  # rows is measured there, never left by an earlier suite or the user, and the plans table says
  # what each row ran. Runs that set XDG_CACHE_HOME themselves use the folder they name.
  export XDG_CACHE_HOME=$d/cache; mkdir -p "$XDG_CACHE_HOME"
  md=$out/$suite.md
  echo "# $suite ($(git rev-parse --short HEAD 2>/dev/null), $(date -u +%Y-%m-%d), $device)" > "$md"
  t0=$SECONDS
  case $suite in
  frame)
    builds=("$build"); [ -n "$base" ] && builds+=("$base")
    for b in "${builds[@]}"; do [ "$b" = "$build" ] && which=this || which=base
      for size in "${sizes[@]}"; do XDG_CACHE_HOME=$d/cache-$which-$size demo=$b/subgroup-demo \
        tune_into "$d/cache-$which-$size" "${scaled[@]}" --size $size --frames 40 --warmup 8; done
    done
    for size in "${sizes[@]}"; do for round in 1 2; do for b in "${builds[@]}"; do
      [ "$b" = "$build" ] && which=this || which=base
      demo=$b/subgroup-demo run "untuned-$which-$size-$round" --headless "${scaled[@]}" --size $size --frames $frames --warmup $warmup --no-tuning
      XDG_CACHE_HOME=$d/cache-$which-$size demo=$b/subgroup-demo run "tuned-$which-$size-$round" --headless "${scaled[@]}" \
        --size $size --frames $frames --warmup $warmup
    done; done; done
    $tables runs "$d" frame cull depth pyramid late_depth light_cull ray_trace forward shade mip resolve exposure \
      plan:shading.shading plan:occlusion.variant >> "$md" ;;
  graph)
    [ -n "$base" ] || { say "graph: needs --base DIR (the build before the frame graph)"; continue; }
    for size in "${sizes[@]}"; do
      for round in 1 2; do for which in this base; do
        [ $which = this ] && b=$build || b=$base
        demo=$b/subgroup-demo run "frame-$which-$size-$round" --headless --no-tuning "${scaled[@]}" --size $size \
          --frames $frames --warmup $warmup --screenshot "$d/frame-$which-$size-$round.png"
        demo=$b/subgroup-demo compare_run "compare-$which-$size-$round" --no-tuning "${scaled[@]}" --size $size \
          --frames 60 --warmup $warmup
      done; done
      echo "frame at $size, this build and base byte-identical: $(same "$d/frame-this-$size-1.png" "$d/frame-base-$size-1.png")" >> "$md"
      # The compute rasterizer under the graph (docs/raster.md, "Barriers"): both geometry paths,
      # two-phase frames (street, occlusion auto), depth and late_depth this build over base.
      for geometry in indexed meshlet; do
        for round in 1 2; do for which in this base; do
          [ $which = this ] && b=$build || b=$base
          demo=$b/subgroup-demo run "raster-$geometry-$which-$size-$round" --headless --no-tuning "${scaled[@]}" --size $size \
            --frames $frames --warmup $warmup --shading visibility --raster compute --geometry $geometry --camera street \
            --occlusion auto --screenshot "$d/raster-$geometry-$which-$size-$round.png"
        done; done
        echo "--raster compute --geometry $geometry (street, occlusion auto) at $size, this build and base byte-identical: $(same \
          "$d/raster-$geometry-this-$size-1.png" "$d/raster-$geometry-base-$size-1.png")" >> "$md"
      done
    done
    $tables runs "$d" frame depth late_depth light_cull ray_trace forward shade mip resolve exposure >> "$md"
    $tables builds "$d"/compare-*/report.json >> "$md" ;;
  compare)
    for size in "${sizes[@]}"; do compare_run "compare-$size" "${scaled[@]}" --size $size --frames 60 --warmup $warmup; done
    $tables compare "$d"/compare-*/report.json >> "$md"
    "$demo" --info --probe --report "$d/probe.json" > "$d/probe.out" 2>&1
    $tables probe "$d/probe.json" >> "$md" ;;
  validate)
    stages="vertex tess-control tess-eval geometry fragment compute task mesh raygen any-hit closest-hit miss intersection callable"
    for view in lane-id first-last-lane active-lanes; do for stage in $stages; do
      run "view-$view-$stage" --headless --no-tuning "${scene[@]}" --size 640x360 --frames 2 --warmup 1 --validate \
        --geometry indexed --view $view --view-stage $stage --screenshot "$d/view-$view-$stage.png"
    done; done
    for geometry in indexed meshlet; do for v in subgroup fallback; do
      all=(); for opt in $("$demo" --help | sed -n 's/^  --\([a-z-]*\) V  *auto | subgroup .*/\1/p'); do all+=(--$opt $v); done
      run "all-$v-$geometry" --headless "${scaled[@]}" --size $small --frames 3 --warmup 1 --validate --geometry $geometry "${all[@]}"
    done; done
    # --view raster (docs/raster.md): both compute paths (ballots masked: the fallback), and a two-phase
    # frame (street, occlusion), whose words phase 1 and the late draw wrote.
    for path in subgroup fallback street; do
      extra=(); [ $path = fallback ] && extra=(--mask-ops ballot); [ $path = street ] && extra=(--camera street --occlusion auto)
      run "view-raster-$path" --headless --no-tuning "${scaled[@]}" --size 640x360 --frames 3 --warmup 1 --validate \
        --shading visibility --raster compute --view raster "${extra[@]}" --screenshot "$d/view-raster-$path.png"
    done
    # --view depth (docs/debug-views.md): the depth the passes read, street camera, with and without occlusion.
    for occlusion in auto off; do
      run "view-depth-occlusion-$occlusion" --headless --no-tuning "${scaled[@]}" --size 640x360 --frames 3 --warmup 1 --validate \
        --camera street --occlusion $occlusion --view depth --screenshot "$d/view-depth-occlusion-$occlusion.png"
    done
    # --view overdraw (docs/debug-views.md): front faces per pixel at the levels each draw draws, --lod auto and off.
    for lod in auto off; do
      run "view-overdraw-lod-$lod" --headless --no-tuning "${scaled[@]}" --size 640x360 --frames 3 --warmup 1 --validate \
        --lod $lod --view overdraw --screenshot "$d/view-overdraw-lod-$lod.png"
    done
    "$demo" --atlas "$d/atlas.png" --no-tuning "${scene[@]}" --size 640x360 --validate > "$d/atlas.out" 2>&1
    printf 'atlas\t%s\t0\n' $? >> "$d/runs.tsv"
    for size in "${sizes[@]}"; do compare_run "compare-$size" "${scaled[@]}" --size $size --frames 6 --warmup 2; done
    $tables runs "$d" validation: >> "$md"
    $tables differences "$d"/compare-*/report.json >> "$md" ;;
  determinism)
    for path in indexed meshlet cull-fallback; do
      args=(--geometry $path); [ $path = cull-fallback ] && args=(--cull fallback)
      for i in $(seq 1 $repeats); do
        run "$path-$i" --headless "${scaled[@]}" --size $large --frames 4 --warmup 1 "${args[@]}" \
          --screenshot "$d/$path-$i.png" --mip-dump "$d/$path-$i-mip.png" --cull-dump "$d/$path-$i-cull.txt"
      done
    done
    $tables distinct "$d" indexed meshlet cull-fallback >> "$md"
    rm -f "$d"/*-[0-9]*.png "$d"/*-cull.txt
    "$demo" --info --probe --report "$d/probe.json" > "$d/probe.out" 2>&1
    $tables probe "$d/probe.json" >> "$md" ;;
  occlusion)
    for size in "${sizes[@]}"; do for camera in overview street; do for geometry in indexed meshlet; do
      for round in 1 2; do for occlusion in off auto; do
        run "$size-$camera-$geometry-$occlusion-$round" --headless --no-tuning "${scaled[@]}" --size $size --frames $frames \
          --warmup $warmup --camera $camera --geometry $geometry --occlusion $occlusion --screenshot "$d/$size-$camera-$geometry-$occlusion-$round.png"
      done; done
    done; done; done
    $tables occlusion "$d" "${sizes[@]}" >> "$md" ;;
  visibility)
    configs=("forward:--shading forward" "visibility:--shading visibility" "visibility-analytic:--shading visibility --mask-ops quad"
             "visibility-mipfallback:--shading visibility --mip fallback"
             "meshlet-forward:--geometry meshlet --shading forward" "meshlet-visibility:--geometry meshlet --shading visibility")
    for size in "${sizes[@]}"; do for round in 1 2; do for config in "${configs[@]}"; do
      # shellcheck disable=SC2086
      run "${config%%:*}-$size-$round" --headless --no-tuning "${scaled[@]}" --size $size --frames $frames --warmup $warmup ${config#*:}
    done; done; done
    for geometry in indexed meshlet; do for view in lane-id first-last-lane active-lanes; do
      run "view-$geometry-$view" --headless --no-tuning "${scene[@]}" --size 640x360 --frames 2 --warmup 1 --validate \
        --geometry $geometry --shading visibility --view $view --view-stage compute --screenshot "$d/view-$geometry-$view.png"
    done; done
    $tables passes "$d" "${sizes[@]}" -- forward visibility visibility-analytic visibility-mipfallback meshlet-forward meshlet-visibility >> "$md"
    $tables runs "$d" --only view- validation: plan:view.reason >> "$md" ;;
  cull)
    for size in "${sizes[@]}"; do for lod in off auto; do for group in 64 256; do for v in subgroup fallback off; do
      run "$size-$lod-$group-$v" --headless "${scaled[@]}" --size $size --frames 60 --warmup $warmup --cull $v --lod $lod \
        --cull-group-size $group --bandwidth-probe --screenshot "$d/$size-$lod-$group-$v.png"
    done; done; done; done
    for spin in ${SPINS:-64 256}; do for v in subgroup fallback; do
      SGD_CULL_LOOKBACK=spin@$spin run "spin$spin-$small-$v" --headless "${scaled[@]}" --size $small --frames 60 --warmup $warmup --cull $v --lod off
    done; done
    for schedule in none late@8 late@8,spin@0; do for v in subgroup fallback; do
      SGD_CULL_LOOKBACK=$([ $schedule = none ] || echo $schedule) run "lookback-$schedule-$v" --headless "${scaled[@]}" \
        --size $small --frames 30 --warmup 5 --lod off --cull $v --cull-dump "$d/lookback-$schedule-$v.txt"
      echo "lookback $schedule $v: cull dump as the natural schedule's: $(same "$d/lookback-none-subgroup.txt" "$d/lookback-$schedule-$v.txt")" >> "$d/notes.txt"
    done; done
    for size in "${sizes[@]}"; do for lod in off auto; do for group in 64 256; do
      echo "$size --lod $lod group $group: subgroup and fallback frames identical to --cull off: $(same "$d/$size-$lod-$group-subgroup.png" "$d/$size-$lod-$group-off.png"), $(same "$d/$size-$lod-$group-fallback.png" "$d/$size-$lod-$group-off.png")" >> "$d/notes.txt"
    done; done; done
    rm -f "$d"/*.png
    $tables runs "$d" cull frame c:triangles_visible c:cull_lookback_fallbacks bandwidth:cull_fraction_of_copy >> "$md"
    cat "$d/notes.txt" >> "$md" ;;
  lights)
    for size in "${sizes[@]}"; do for n in 1024 4096 16384; do for v in subgroup fallback off; do
      run "$size-$n-$v" --headless "${scene[@]}" --size $size --lights $n --frames 120 --warmup 20 --light-cull $v
    done; done; done
    $tables runs "$d" light_cull forward frame c:light_list_overflow >> "$md" ;;
  mip)
    for size in "${sizes[@]}"; do for v in off subgroup forward fallback; do
      run "$size-$v" --headless "${scene[@]}" --instances ${INSTANCES:-4} --lights 2048 --size $size --frames 200 --warmup 30 \
        --mip $v --mip-dump "$d/$size-$v-mip.png"
    done; done
    # The forward shader's quad mip (--mip forward) at three settings, two rounds: its cost is forward(--mip
    # forward) - forward(--mip off) + mip_fixup, against the compute downsample (mip of --mip fallback).
    for round in 1 2; do for cfg in "$small 1 0" "$small ${INSTANCES:-5} ${LIGHTS:-4096}" "$large ${INSTANCES:-5} ${LIGHTS:-4096}"; do
      set -- $cfg
      for v in off forward fallback; do
        run "shading-$1-$2-$3-$v-$round" --headless "${scene[@]}" --size $1 --instances $2 --lights $3 --frames 120 --warmup 20 \
          --mip $v --mip-dump "$d/shading-$v.png"
      done
      echo "round $round, $1 --instances $2 --lights $3: forward and fallback mip dumps identical $(same "$d/shading-forward.png" "$d/shading-fallback.png")" >> "$d/notes.txt"
    done; done
    rm -f "$d"/shading-*.png
    $tables runs "$d" mip mip_fixup forward resolve frame out:mip_check.mismatched c:mip_edge_appends c:mip_edge_duplicates >> "$md"
    cat "$d/notes.txt" >> "$md" ;;
  resolve)
    all_sub="--cull subgroup --light-cull subgroup --mip subgroup --light-loop subgroup --exposure subgroup --ray-trace subgroup"
    for size in "${sizes[@]}"; do
      for cfg in "mip-subgroup:--mip subgroup" "mip-off:--mip off" "mip-fallback:--mip fallback" "mip-forward:--mip forward" \
                 "exposure-subgroup:--exposure subgroup" "exposure-fallback:--exposure fallback" \
                 "all-subgroup:$all_sub" "all-fallback:${all_sub//subgroup/fallback}"; do
        # shellcheck disable=SC2086
        run "$size-${cfg%%:*}" --headless "${scaled[@]}" --size $size --frames 120 --warmup 20 ${cfg#*:}
      done
    done
    for i in $(seq 1 $repeats); do for v in subgroup forward fallback; do
      run "repeat-$v-$i" --headless "${scaled[@]}" --size $large --frames 2 --warmup 1 --mip $v --mip-dump "$d/repeat-$v-$i.png"
    done
      echo "repeat $i: subgroup mip as fallback's $(same "$d/repeat-subgroup-$i.png" "$d/repeat-fallback-$i.png"), forward $(same "$d/repeat-forward-$i.png" "$d/repeat-fallback-$i.png")" >> "$d/notes.txt"
    done
    rm -f "$d"/repeat-*.png
    $tables runs "$d" resolve mip mip_fixup forward exposure frame out:mip_check.mismatched out:mip_check.fallback_mismatched >> "$md"
    cat "$d/notes.txt" >> "$md" ;;
  meshlet)
    check=(--headless --validate "${scaled[@]}" --ray-trace off --size $small --frames 2 --warmup 1)
    run check-indexed-off "${check[@]}" --geometry indexed --cull off --screenshot "$d/check-indexed-off.png"
    run check-indexed-subgroup "${check[@]}" --geometry indexed --cull subgroup
    for v in subgroup fallback off; do
      run "check-meshlet-$v" "${check[@]}" --geometry meshlet --cull $v --screenshot "$d/check-meshlet-$v.png"
      echo "meshlet --cull $v frame as indexed --cull off's: $(python3 "$here/mip_diff.py" "$d/check-indexed-off.png" "$d/check-meshlet-$v.png" 2>&1)" >> "$d/notes.txt"
    done
    for size in "${sizes[@]}"; do
      run "time-$size-indexed" --headless "${scaled[@]}" --ray-trace off --size $size --frames 200 --warmup 30 --geometry indexed
      run "time-$size-indexed-off" --headless "${scaled[@]}" --ray-trace off --size $size --frames 200 --warmup 30 --geometry indexed --cull off
      for v in subgroup fallback off; do
        run "time-$size-meshlet-$v" --headless "${scaled[@]}" --ray-trace off --size $size --frames 200 --warmup 30 --geometry meshlet --cull $v
      done
      for round in 1 2; do for pairing in subgroup task-fallback mesh-fallback fallback; do
        cull=subgroup stage=; case $pairing in fallback) cull=fallback ;; task-fallback) stage=task ;; mesh-fallback) stage=mesh ;; esac
        SGD_MESHLET_FALLBACK_STAGE=$stage run "split-$size-$pairing-$round" --headless --no-tuning "${scaled[@]}" --geometry meshlet \
          --occlusion off --size $size --frames 60 --warmup $warmup --cull $cull
      done; done
    done
    for stage in task mesh; do for view in lane-id first-last-lane active-lanes; do
      run "view-$stage-$view" --headless "${scene[@]}" --size 960x540 --frames 2 --warmup 1 --geometry meshlet --view $view \
        --view-stage $stage --screenshot "$d/view-$stage-$view.png"
    done; done
    # The meshlet path's pre-pass in compute (docs/raster.md, "The meshlet path") against indexed in
    # compute and the meshlet path's hardware pre-pass, under --shading visibility, alternated over
    # two rounds: the default frame, --ray-trace off, the street with occlusion auto and off, and the
    # fallbacks (the meshlet culling's and the rasterizer's: --cull fallback, SGD_RASTER_PATH=fallback).
    # First, validated at the small size, the frames of both meshlet pre-passes.
    for r in hardware compute; do
      run "check-meshlet-raster-$r" "${check[@]}" --geometry meshlet --shading visibility --raster $r --screenshot "$d/check-meshlet-raster-$r.png"
    done
    echo "meshlet --raster compute frame as the meshlet hardware pre-pass's: $(python3 "$here/mip_diff.py" "$d/check-meshlet-raster-hardware.png" "$d/check-meshlet-raster-compute.png" 2>&1)" >> "$d/notes.txt"
    rasters=("raster-indexed-hardware:--geometry indexed --raster hardware" "raster-indexed-compute:--geometry indexed --raster compute"
             "raster-meshlet-hardware:--geometry meshlet --raster hardware" "raster-meshlet-compute:--geometry meshlet --raster compute"
             "raster-meshlet-compute-fallback:--geometry meshlet --raster compute --cull fallback"
             "rtoff-indexed-compute:--geometry indexed --raster compute --ray-trace off"
             "rtoff-meshlet-hardware:--geometry meshlet --raster hardware --ray-trace off"
             "rtoff-meshlet-compute:--geometry meshlet --raster compute --ray-trace off"
             "street-meshlet-compute-occlusion:--geometry meshlet --raster compute --camera street --occlusion auto"
             "street-meshlet-compute-noocclusion:--geometry meshlet --raster compute --camera street --occlusion off")
    for size in "${sizes[@]}"; do for round in 1 2; do for config in "${rasters[@]}"; do
      path=auto; [[ ${config%%:*} == *-fallback ]] && path=fallback
      # shellcheck disable=SC2086
      SGD_RASTER_PATH=$path run "${config%%:*}-$size-$round" --headless --no-tuning "${scaled[@]}" --shading visibility --size $size \
        --frames $frames --warmup $warmup ${config#*:}
    done; done; done
    $tables runs "$d" depth forward frame c:triangles_visible c:meshlets_visible c:meshlets_in validation: >> "$md"
    tags=(); for config in "${rasters[@]}"; do tags+=("${config%%:*}"); done
    $tables passes "$d" "${sizes[@]}" -- "${tags[@]}" >> "$md"
    # Where depth goes on both geometry paths (counters.raster.dispatch_ms; the meshlet path's culling
    # is its meshlet_cull piece).
    $tables pieces "$d" "${sizes[@]}" -- raster-indexed-compute raster-meshlet-compute raster-meshlet-compute-fallback \
      rtoff-indexed-compute rtoff-meshlet-compute street-meshlet-compute-occlusion street-meshlet-compute-noocclusion >> "$md"
    # Above 1: the second of each pair is faster. The meshlet path in compute over indexed in compute
    # (the target: at least level) and over its hardware pre-pass; the fallbacks over the subgroup
    # path; the street's occlusion over none.
    for timer in depth frame; do
      $tables speedup "$d" $timer "${sizes[@]}" -- raster-indexed-compute:raster-meshlet-compute rtoff-indexed-compute:rtoff-meshlet-compute \
        raster-meshlet-hardware:raster-meshlet-compute rtoff-meshlet-hardware:rtoff-meshlet-compute \
        raster-meshlet-compute-fallback:raster-meshlet-compute street-meshlet-compute-noocclusion:street-meshlet-compute-occlusion >> "$md"
    done
    cat "$d/notes.txt" >> "$md" ;;
  lod)
    for n in 2 5 8 12; do for geometry in indexed meshlet; do for lod in off auto; do
      run "scaling-$n-$geometry-$lod" --headless "${scene[@]}" --instances $n --lights 1024 --ray-trace off --size $small \
        --frames 60 --warmup $warmup --geometry $geometry --lod $lod
    done; done; done
    for geometry in indexed meshlet; do
      for lod in off auto; do
        run "psnr-$geometry-$lod" --headless "${scene[@]}" --instances ${INSTANCES:-5} --ray-trace off --occlusion off \
          --size 1280x720 --frames 1 --warmup 0 --geometry $geometry --lod $lod --screenshot "$d/psnr-$geometry-$lod.png"
      done
      echo "$geometry, --lod auto against --lod off: $(python3 "$here/mip_diff.py" "$d/psnr-$geometry-off.png" "$d/psnr-$geometry-auto.png" 2>&1)" >> "$d/notes.txt"
      run "cull-off-$geometry" --headless --validate "${scene[@]}" --instances ${INSTANCES:-5} --ray-trace off --size 1280x720 \
        --frames 3 --warmup 1 --geometry $geometry --lod auto --cull off
    done
    $tables runs "$d" frame c:triangles_in c:triangles_visible c:meshlets_visible scene:lod_build_ms validation: >> "$md"
    cat "$d/notes.txt" >> "$md" ;;
  raytrace)
    for size in "${sizes[@]}"; do
      for v in subgroup fallback; do
        run "validate-$size-$v" --headless "${scaled[@]}" --size $size --frames 4 --warmup 1 --validate --ray-trace $v \
          --screenshot "$d/frame-$size-$v.png" --ray-dump "$d/dump-$size-$v.png"
      done
      echo "$size: frames identical $(same "$d/frame-$size-subgroup.png" "$d/frame-$size-fallback.png"), ray dumps identical $(same "$d/dump-$size-subgroup.png" "$d/dump-$size-fallback.png")" >> "$d/notes.txt"
      for v in off subgroup fallback; do
        run "time-$size-$v" --headless "${scaled[@]}" --size $size --frames 120 --warmup 20 --ray-trace $v
      done
    done
    run masked-ops --headless "${scaled[@]}" --size $small --frames 2 --warmup 1 --validate --ray-trace subgroup \
      --mask-ops arithmetic,shuffle,shuffle-relative,clustered,quad
    run masked-stage --headless "${scaled[@]}" --size $small --frames 2 --warmup 1 --validate --mask-stages intersection
    for view in lane-id first-last-lane active-lanes; do for stage in raygen any-hit closest-hit miss intersection callable; do
      run "view-$view-$stage" --headless "${scene[@]}" --size 960x540 --frames 2 --warmup 1 --validate --view $view \
        --view-stage $stage --screenshot "$d/view-$view-$stage.png"
    done; done
    "$build/png-sheet" "$d/views-sheet.png" --columns 6 "$d"/view-*.png > /dev/null 2>&1
    rm -f "$d"/frame-3840x2160-*.png "$d"/dump-3840x2160-*.png
    $tables runs "$d" ray_trace frame c:ray_trace.rays.primary c:ray_trace.rays.shadow validation: >> "$md"
    cat "$d/notes.txt" >> "$md" ;;
  rays)
    for size in "${sizes[@]}"; do
      for shading in visibility forward; do
        # The variants, each with the dense launch (SGD_RAY_LISTS auto: the rays listed with
        # ballots in the subgroup variant, one atomic per ray in the fallback) and the plain one
        # (off: one ray generation per pixel), alternated over two rounds: drift in the device's
        # clocks falls on all of them.
        for round in 1 2; do for launch in dense plain; do for v in subgroup fallback; do
          lists=auto; [ $launch = plain ] && lists=off
          SGD_RAY_LISTS=$lists run "$shading-$v-$launch-$size-$round" --headless "${scaled[@]}" --size $size --shading $shading \
            --ray-trace $v --frames $frames --warmup $warmup --screenshot "$d/frame-$size-$shading-$v-$launch.png" \
            --ray-dump "$d/dump-$size-$shading-$v-$launch.png"
        done; done; done
        for launch in dense plain; do
          f=$d/frame-$size-$shading dump=$d/dump-$size-$shading
          echo "$size $shading $launch: frames identical $(same "$f-subgroup-$launch.png" "$f-fallback-$launch.png"), ray dumps identical $(same "$dump-subgroup-$launch.png" "$dump-fallback-$launch.png")" >> "$d/notes.txt"
        done
        echo "$size $shading, dense against plain (subgroup): frames identical $(same "$d/frame-$size-$shading-subgroup-dense.png" "$d/frame-$size-$shading-subgroup-plain.png"), ray dumps identical $(same "$d/dump-$size-$shading-subgroup-dense.png" "$d/dump-$size-$shading-subgroup-plain.png")" >> "$d/notes.txt"
        run "$shading-off-$size" --headless "${scaled[@]}" --size $size --shading $shading --ray-trace off --frames $frames --warmup $warmup
      done
      # The targets: ray_trace (mean of the two rounds' medians) of the dense subgroup variant, and
      # its speed-up over its fallback and over the plain launch.
      python3 - "$d" "$size" >> "$d/notes.txt" <<'PY'
import json, sys
d, size = sys.argv[1:]
def ms(tag):
    v = [json.load(open(f"{d}/{tag}-{size}-{k}.json"))["timings_ms"]["ray_trace"]["median"] for k in (1, 2)]
    return sum(v) / 2
def counts(tag):  # the rays and every stage's invocations but raygen's (per listed ray, or per pixel)
    r = json.load(open(f"{d}/{tag}-{size}-1.json"))["counters"]["ray_trace"]
    return r["rays"], {k: s["invocations"] for k, s in r["stages"].items() if k != "raygen"}
def statistics(tag):  # everything both variants count, raygen included (same launch, same frame index)
    r = json.load(open(f"{d}/{tag}-{size}-1.json"))["counters"]["ray_trace"]
    return (r["rays"], {k: s["invocations"] for k, s in r["stages"].items()}, r["any_hit_rejections"], r["sphere_hits"])
def per_second(tag):  # rays per second per kind, over the traces alone (the report's, round 1)
    r = json.load(open(f"{d}/{tag}-{size}-1.json"))["counters"]["ray_trace"]["rays_per_second"] or {}
    return ", ".join(f"{k} {r[k] / 1e9:.2f}" for k in ("primary", "shadow", "reflection", "total") if k in r)
for shading in ("visibility", "forward"):
    try:
        same = all(counts(f"{shading}-{v}-dense") == counts(f"{shading}-{v}-plain") for v in ("subgroup", "fallback"))
        print(f"{size} {shading}, dense against plain: rays and closest-hit, miss, any-hit, intersection, callable "
              f"invocations equal: {'yes' if same else 'NO'}")
        for launch in ("dense", "plain"):
            equal = statistics(f"{shading}-subgroup-{launch}") == statistics(f"{shading}-fallback-{launch}")
            print(f"{size} {shading} {launch}, subgroup (striped counters, folded) against fallback: rays, every stage's "
                  f"invocations, rejections and sphere hits equal: {'yes' if equal else 'NO'}")
        for tag in ("subgroup-dense", "fallback-dense", "subgroup-plain", "fallback-plain"):
            print(f"{size} {shading} {tag}: G rays/s {per_second(f'{shading}-{tag}')}")
        sg, fb = ms(f"{shading}-subgroup-dense"), ms(f"{shading}-fallback-dense")
        plain_sg, plain_fb = ms(f"{shading}-subgroup-plain"), ms(f"{shading}-fallback-plain")
        target = 1.2 if size == "3840x2160" else 0.5
        print(f"{size} {shading} ray_trace: dense subgroup {sg:.3f} ms (target <= {target}), dense fallback {fb:.3f} ms, "
              f"plain subgroup {plain_sg:.3f} ms, plain fallback {plain_fb:.3f} ms; subgroup over its fallback "
              f"{fb / sg:.2f}x (target >= 1.10), dense over plain {plain_sg / sg:.2f}x")
    except (OSError, KeyError, ValueError) as e:
        print(f"{size} {shading}: no ray_trace figures ({e})")
PY
      # The ray_trace ratio with its 95% interval (the comparison's ray-trace rows shade with auto:
      # its shading column says which path), the rays per second beside it.
      compare_run "compare-$size" "${scaled[@]}" --size $size --frames $frames --warmup $warmup
      grep '^| ray_trace ' "$d/compare-$size/report.md" | sed "s/^/$size: /" >> "$d/notes.txt"
    done
    for path in "visibility indexed" "visibility meshlet" "forward indexed"; do
      read -r shading geometry <<< "$path"
      for stage in raygen any-hit closest-hit miss intersection callable; do
        run "view-$shading-$geometry-$stage" --headless "${scene[@]}" --size 960x540 --frames 2 --warmup 1 --validate \
          --shading $shading --geometry $geometry --view lane-id --view-stage $stage \
          --screenshot "$d/view-$shading-$geometry-$stage.png"
      done
    done
    rm -f "$d"/frame-3840x2160-*.png "$d"/dump-3840x2160-*.png
    $tables passes "$d" "${sizes[@]}" -- visibility-subgroup-dense visibility-fallback-dense visibility-subgroup-plain \
      visibility-fallback-plain forward-subgroup-dense forward-fallback-dense forward-subgroup-plain forward-fallback-plain >> "$md"
    $tables runs "$d" plan:ray_trace.lists ray_build ray_trace frame c:ray_trace.rays.primary c:ray_trace.rays.shadow c:ray_trace.rays.reflection \
      c:ray_trace.rays_per_second.primary c:ray_trace.rays_per_second.shadow c:ray_trace.rays_per_second.reflection c:ray_trace.rays_per_second.total \
      c:ray_trace.stages.closest_hit.invocations c:ray_trace.stages.miss.invocations c:ray_trace.stages.any_hit.invocations \
      c:ray_trace.stages.intersection.invocations c:ray_trace.stages.callable.invocations validation: >> "$md"
    cat "$d/notes.txt" >> "$md" ;;
  dense-rays)  # docs/ray-tracing.md "Dense rays": the dense launch against the plain one, and the views on each
    configs=(sg-ballot:subgroup:subgroup sg-atomic:subgroup:fallback sg-plain:subgroup:off fb-atomic:fallback:fallback
      fb-plain:fallback:off)
    for size in "${sizes[@]}"; do
      for shading in visibility forward; do
        # Alternated over two rounds: drift in the device's clocks falls on every configuration.
        for round in 1 2; do for config in "${configs[@]}"; do
          IFS=: read -r tag v lists <<< "$config"
          shots=()
          [ "$size" = "$small" ] && [ $round = 1 ] && shots=(--screenshot "$d/frame-$shading-$tag.png" --ray-dump "$d/dump-$shading-$tag.png")
          SGD_RAY_LISTS=$lists run "$shading-$tag-$size-$round" --headless "${scaled[@]}" --size $size --shading $shading \
            --ray-trace $v --frames $frames --warmup $warmup "${shots[@]}"
        done; done
      done
      python3 - "$d" "$size" >> "$d/notes.txt" <<'PY'
import json, sys
d, size = sys.argv[1:]
w, h = map(int, size.split("x"))
def report(tag, k=1):
    return json.load(open(f"{d}/{tag}-{size}-{k}.json"))
def ms(tag):  # ray_trace, the mean of the two rounds' medians
    return sum(report(tag, k)["timings_ms"]["ray_trace"]["median"] for k in (1, 2)) / 2
def counts(tag):  # the rays and every stage's invocations but raygen's (per listed ray, or per pixel)
    r = report(tag)["counters"]["ray_trace"]
    return r["rays"], {k: s["invocations"] for k, s in r["stages"].items() if k != "raygen"}, r["any_hit_rejections"], r["sphere_hits"]
def lanes(tag):  # each stage's lanes per subgroup (the subgroup variant's counts)
    st = report(tag)["counters"]["ray_trace"]["stages"]
    return ", ".join(f"{k} {s['lanes_per_subgroup']:.1f}" for k, s in st.items() if s.get("lanes_per_subgroup") is not None)
def line(shading, what, make):  # one line of notes, or why it has no figures (a run that failed)
    try:
        print(f"{size} {shading} {what}:", make())
    except (OSError, KeyError, ValueError, TypeError, ZeroDivisionError) as e:
        print(f"{size} {shading} {what}: no figures ({e})")
for shading in ("visibility", "forward"):
    def shares():
        rays = report(f"{shading}-fb-plain")["counters"]["ray_trace"]["rays"]
        return f"shadow {rays['shadow'] / (w * h):.1%}, reflection {rays['reflection'] / (w * h):.1%}"
    line(shading, "pixels listed per ray kind", shares)
    for dense, plain in (("sg-ballot", "sg-plain"), ("sg-atomic", "sg-plain"), ("fb-atomic", "fb-plain")):
        def pair():
            t_dense, t_plain = ms(f"{shading}-{dense}"), ms(f"{shading}-{plain}")
            same = counts(f"{shading}-{dense}") == counts(f"{shading}-{plain}")
            return (f"{t_dense:.3f} against {t_plain:.3f} ms: plain over dense {t_plain / t_dense:.3f}x; rays, invocations "
                    f"(raygen aside), rejections and sphere hits equal: {'yes' if same else 'NO'}")
        line(shading, f"ray_trace {dense} against {plain}", pair)
    for tag in ("sg-ballot", "sg-plain"):
        line(shading, f"{tag} lanes per subgroup", lambda: lanes(f"{shading}-{tag}"))
PY
    done
    for shading in visibility forward; do
      for pair in sg-ballot:sg-plain sg-atomic:sg-plain fb-atomic:fb-plain; do
        IFS=: read -r dense plain <<< "$pair"
        f=$d/frame-$shading dump=$d/dump-$shading
        echo "$small $shading $dense against $plain: frames identical $(same "$f-$dense.png" "$f-$plain.png"), ray dumps identical $(same "$dump-$dense.png" "$dump-$plain.png")" >> "$d/notes.txt"
      done
      # The views on the launch the frame traces (docs/ray-tracing.md "The views"): dense (auto) and per pixel.
      for lists in auto off; do for view in lane-id active-lanes; do for stage in raygen miss; do
        SGD_RAY_LISTS=$lists run "view-$shading-$lists-$view-$stage" --headless "${scene[@]}" --size 960x540 --frames 2 --warmup 1 \
          --validate --shading $shading --view $view --view-stage $stage --screenshot "$d/view-$shading-$lists-$view-$stage.png"
      done; done; done
    done
    "$build/png-sheet" "$d/views-sheet.png" --columns 4 "$d"/view-*.png > /dev/null 2>&1
    $tables speedup "$d" ray_trace "${sizes[@]}" -- visibility-sg-plain:visibility-sg-ballot visibility-sg-plain:visibility-sg-atomic \
      visibility-fb-plain:visibility-fb-atomic forward-sg-plain:forward-sg-ballot forward-sg-plain:forward-sg-atomic \
      forward-fb-plain:forward-fb-atomic >> "$md"
    $tables passes "$d" "${sizes[@]}" -- visibility-sg-ballot visibility-sg-atomic visibility-sg-plain visibility-fb-atomic \
      visibility-fb-plain forward-sg-ballot forward-sg-atomic forward-sg-plain forward-fb-atomic forward-fb-plain >> "$md"
    $tables runs "$d" plan:ray_trace.lists ray_trace c:ray_trace.rays.primary c:ray_trace.rays.shadow c:ray_trace.rays.reflection \
      c:ray_trace.rays_per_second.primary c:ray_trace.rays_per_second.shadow c:ray_trace.rays_per_second.reflection \
      c:ray_trace.rays_per_second.total c:ray_trace.stages.raygen.invocations c:ray_trace.stages.raygen.lanes_per_subgroup \
      c:ray_trace.stages.miss.lanes_per_subgroup c:ray_trace.stages.closest_hit.lanes_per_subgroup \
      c:ray_trace.stages.any_hit.lanes_per_subgroup validation: >> "$md"
    cat "$d/notes.txt" >> "$md" ;;
  ray-materials)  # docs/ray-tracing.md "The reflected surface's material": what every map costs the reflections
    for size in "${sizes[@]}"; do for shading in visibility forward; do
      for round in 1 2; do for b in "$build" ${base:+"$base"}; do for v in subgroup fallback; do
        [ "$b" = "$build" ] && which=after || which=before
        demo=$b/subgroup-demo run "$which-$shading-$v-$size-$round" --headless --no-tuning "${scaled[@]}" --size $size \
          --shading $shading --ray-trace $v --frames $frames --warmup $warmup
      done; done; done
    done; done
    for shading in visibility forward; do
      run "validate-$shading" --headless "${scaled[@]}" --size $small --frames 2 --warmup 1 --validate --shading $shading \
        --screenshot "$d/validate-$shading.png"
    done
    # ray_trace and the frame: the mean of the rounds' medians, after over before.
    python3 - "$d" "${sizes[@]}" >> "$d/notes.txt" <<'PY'
import json, sys
d, sizes = sys.argv[1], sys.argv[2:]
def load(tag):
    try:
        return json.load(open(f"{d}/{tag}.json"))
    except (OSError, ValueError):
        return None
def mean(which, rest, key):
    v = [r["timings_ms"][key]["median"] for r in (load(f"{which}-{rest}-{k}") for k in (1, 2)) if r]
    return sum(v) / len(v) if v else None
def invocations(which, rest):
    r = load(f"{which}-{rest}-1")
    if not r:
        return None
    stages = r["counters"]["ray_trace"]["stages"]
    return stages["closest_hit"]["invocations"], stages["callable"]["invocations"]
for size in sizes:
    for shading in ("visibility", "forward"):
        for v in ("subgroup", "fallback"):
            rest = f"{shading}-{v}-{size}"
            line = f"{size} {shading} {v}:"
            for key in ("ray_trace", "frame"):
                after, before = mean("after", rest, key), mean("before", rest, key)
                line += f" {key} {after:.3f} ms" if after else f" {key} n/a"
                if after and before:
                    line += f" (before {before:.3f} ms, after/before {after / before:.3f}x)"
            line += f"; closest-hit, callable invocations {invocations('after', rest)}"
            if load(f"before-{rest}-1"):
                line += f" (before {invocations('before', rest)})"
            print(line)
PY
    $tables runs "$d" ray_trace frame c:ray_trace.rays.reflection c:ray_trace.stages.closest_hit.invocations \
      c:ray_trace.stages.callable.invocations validation: >> "$md"
    cat "$d/notes.txt" >> "$md" ;;
  refit)  # docs/ray-tracing.md "Refitting": the lights' BLAS and the TLAS refitted or rebuilt
    for size in "${sizes[@]}"; do
      for round in 1 2; do for mode in refit rebuild; do
        refit=on; [ $mode = rebuild ] && refit=off
        SGD_RAY_REFIT=$refit run "$mode-$size-$round" --headless "${scaled[@]}" --size $size --frames $frames --warmup $warmup \
          --screenshot "$d/frame-$size-$mode.png" --ray-dump "$d/dump-$size-$mode.png"
      done; done
      echo "$size: refit against rebuild, frames identical $(same "$d/frame-$size-refit.png" "$d/frame-$size-rebuild.png"), ray dumps identical $(same "$d/dump-$size-refit.png" "$d/dump-$size-rebuild.png")" >> "$d/notes.txt"
    done
    for mode in refit rebuild; do
      refit=on; [ $mode = rebuild ] && refit=off
      SGD_RAY_REFIT=$refit run "validate-$mode" --headless "${scaled[@]}" --size $small --frames 4 --warmup 1 --validate
    done
    rm -f "$d"/frame-3840x2160-*.png "$d"/dump-3840x2160-*.png
    for timer in ray_build ray_trace frame; do $tables speedup "$d" $timer "${sizes[@]}" -- rebuild:refit >> "$md"; done
    $tables runs "$d" plan:ray_trace.refit ray_build ray_trace frame c:ray_trace.rays.shadow c:ray_trace.rays.reflection \
      c:ray_trace.stages.intersection.invocations validation: >> "$md"
    cat "$d/notes.txt" >> "$md" ;;
  poison)
    for size in "${sizes[@]}"; do for geometry in indexed meshlet; do
      for poison in 0 1; do
        SGD_POISON_ALLOCATIONS=$poison run "$size-$geometry-poison$poison" --headless "${scaled[@]}" --no-tuning --size $size \
          --frames 4 --warmup 1 --geometry $geometry --screenshot "$d/$size-$geometry-poison$poison.png" \
          --mip-dump "$d/$size-$geometry-poison$poison-mip.png" --cull-dump "$d/$size-$geometry-poison$poison-cull.txt" \
          --ray-dump "$d/$size-$geometry-poison$poison-ray.png"
      done
      p0=$d/$size-$geometry-poison0 p1=$d/$size-$geometry-poison1
      echo "$size $geometry, poisoned as plain: frame $(same "$p0.png" "$p1.png"), mip $(same "$p0-mip.png" "$p1-mip.png"), cull dump $(same "$p0-cull.txt" "$p1-cull.txt"), ray dump $(same "$p0-ray.png" "$p1-ray.png"), counters $($tables same-counters "$p0.json" "$p1.json")" >> "$d/notes.txt"
    done; done
    rm -f "$d"/*.png "$d"/*-cull.txt
    for poison in 0 1; do
      SGD_POISON_ALLOCATIONS=$poison compare_run "compare-$small-poison$poison" "${scaled[@]}" --no-tuning --size $small --frames 12 --warmup 2
    done
    $tables differences "$d"/compare-*/report.json >> "$md"
    cat "$d/notes.txt" >> "$md" ;;
  tune)  # with --base BUILD, that build's --tune too (its own cache): the wall time before and after
    for size in "${sizes[@]}"; do
      mkdir -p "$d/$size"
      t=$SECONDS
      XDG_CACHE_HOME=$d/cache "$demo" --tune --out "$d/$size" "${scaled[@]}" --size $size --frames 60 --warmup $warmup > "$d/tune-$size.out" 2>&1 \
        || say "FAILED ($?): tune $size"
      echo "tune $size: $((SECONDS - t)) s wall; $(grep -h '^time: ' "$d/tune-$size.out")" >> "$d/notes.txt"
      XDG_CACHE_HOME=$d/cache "$demo" --info "${scaled[@]}" --size $size 2>&1 | sed -n '/^pass /,/^$/p;/^tuning/p' > "$d/info-$size.txt"
      if [ -n "$base" ]; then
        mkdir -p "$d/base/$size"; t=$SECONDS
        XDG_CACHE_HOME=$d/cache-base "$base/subgroup-demo" --tune --out "$d/base/$size" "${scaled[@]}" --size $size --frames 60 \
          --warmup $warmup > "$d/tune-base-$size.out" 2>&1 || say "FAILED ($?): tune base $size"
        echo "tune $size, base build: $((SECONDS - t)) s wall" >> "$d/notes.txt"
      fi
    done
    $tables tune "$d"/*/tune.json >> "$md"
    cat "$d/notes.txt" >> "$md" ;;
  pipeline-stats)
    for geometry in indexed meshlet; do for v in subgroup fallback; do
      rm -f "$d/$geometry-$v.jsonl"
      SGD_PIPELINE_STATS=$d/$geometry-$v.jsonl run "$geometry-$v" --headless "${scaled[@]}" --no-tuning --frames 1 --warmup 0 \
        --size $small --geometry $geometry --cull $v
    done; done
    $tables pipeline-stats "$d" >> "$md" ;;
  auto)  # the first run on a device it has never seen (the quick measurement) against a full --tune
    for size in "${sizes[@]}"; do
      cache=$d/cache-$size; rm -rf "$cache"; mkdir -p "$cache"
      XDG_CACHE_HOME=$cache run "first-$size" --headless "${scaled[@]}" --size $size --frames 200 --warmup 30
      XDG_CACHE_HOME=$cache run "second-$size" --headless "${scaled[@]}" --size $size --frames 200 --warmup 30
      cp "$cache"/subgroup-demo/tuning-*.json "$d/quick-$size.json"
      # --tune replaces the quick verdict; its "quick:" line sets the quick choice against tuned auto in rounds.
      XDG_CACHE_HOME=$cache "$demo" --tune "${scaled[@]}" --size $size --frames 120 --warmup 20 --out "$d/tune-$size" \
        > "$d/tune-$size.out" 2>&1 || say "FAILED ($?): auto --tune $size"
      XDG_CACHE_HOME=$cache run "tuned-$size" --headless "${scaled[@]}" --size $size --frames 200 --warmup 30
      { grep -h '^auto: ' "$d/first-$size.out"; grep -h '^quick: ' "$d/tune-$size.out"
        python3 - "$d" "$size" <<'PY'
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
      } >> "$d/notes.txt" 2>&1
    done
    $tables runs "$d" frame depth forward shade resolve plan:shading.mode >> "$md"
    cat "$d/notes.txt" >> "$md" ;;
  materials)  # every map (docs/materials.md) and mipmapped textures (docs/scenes.md "Textures") at the large size
    # The shade pass with full materials: forward, quad-swap and analytic derivatives; then the
    # material waterfall against its nonuniformEXT fallback (--materials), alternated, 3 rounds.
    for config in "forward:--shading forward" "quads:--shading visibility" "analytic:--shading visibility --mask-ops quad"; do
      # shellcheck disable=SC2086
      run "${config%%:*}" --headless "${scaled[@]}" --size $large --frames 120 --warmup 20 ${config#*:} --screenshot "$d/${config%%:*}.png"
    done
    for round in 1 2 3; do for m in subgroup fallback; do
      run "materials-$m-$round" --headless --no-tuning "${scaled[@]}" --size $large --frames 120 --warmup 20 \
        --shading visibility --materials $m --screenshot "$d/materials-$m-$round.png"
    done; done
    echo "waterfall frame identical to nonuniformEXT's: $(same "$d/materials-subgroup-1.png" "$d/materials-fallback-1.png")" >> "$d/notes.txt"
    # Without descriptor indexing (masked, as the Mesa 22.3 lavapipe lacks it): the textures as the
    # layers of one array texture, forward and visibility (nonuniformEXT: the waterfall needs an
    # array of descriptors), alternated with descriptor indexing, 2 rounds.
    for round in 1 2; do for shading in forward visibility; do for t in indexed layers; do
      mask=""; [ $t = layers ] && mask=descriptor-indexing
      SGD_MASK_FEATURES=$mask run "textures-$t-$shading-$round" --headless --no-tuning "${scaled[@]}" --size $large --frames 120 \
        --warmup 20 --shading $shading --materials fallback --screenshot "$d/textures-$t-$shading-$round.png"
    done; done; done
    for shading in forward visibility; do
      echo "array-texture frame ($shading) identical to descriptor indexing's: $(same "$d/textures-layers-$shading-1.png" \
        "$d/textures-indexed-$shading-1.png")" >> "$d/notes.txt"
    done
    # The frame before and after (with --base BUILD, e.g. main before the maps): forward and visibility, alternated.
    if [ -n "$base" ]; then for round in 1 2; do for b in "$build" "$base"; do
      [ "$b" = "$build" ] && which=after || which=before
      for shading in forward visibility; do
        demo=$b/subgroup-demo run "$which-$shading-$round" --headless --no-tuning "${scaled[@]}" --size $large --frames 120 \
          --warmup 20 --shading $shading
      done
    done; done; fi
    # The derivatives ratio now that they also build the normal frame, and the shading ratio: the comparison at the large size.
    compare_run "compare-$large" "${scaled[@]}" --size $large --frames 60 --warmup $warmup
    # Validation-clean with every map: the atlas.
    "$demo" --atlas "$d/atlas.png" "${scene[@]}" --size 1280x720 --validate > "$d/atlas.out" 2>&1
    echo "atlas --validate: exit $?" >> "$d/notes.txt"
    $tables runs "$d" frame forward shade plan:shading.derivatives plan:shading.materials plan:textures.mode scene:textures scene:texture_bytes \
      scene:texture_ms scene:texture_anisotropy >> "$md"
    $tables compare "$d"/compare-*/report.json >> "$md"
    cat "$d/notes.txt" >> "$md" ;;
  ties)
    ln -sfn "$(cd "$build" && pwd)/shaders" "$build/tests/shaders"  # the test binary loads SPIR-V beside it
    SGD_TIES_SIZE=$large "$build/tests/gpu-tests" --gtest_filter='VisibilityTies.*' --gtest_repeat=$repeats > "$d/ties.out" 2>&1
    say "ties: gpu-tests exit $?"
    { echo "| test | size | runs passed | runs failed |"; echo "| --- | --- | ---: | ---: |"
      for t in LateDrawResolvesEqualDepthsAsForward ComputeRasterizerLateDrawResolvesEqualDepthsAsForward \
               HardwareIdsPassDrawsOnlyWhereThePhaseTwoReadmitted MeshletLateDrawResolvesEqualDepthsAsForward; do
        echo "| $t | $large | $(grep -c "^\[       OK \] VisibilityTies.$t " "$d/ties.out") | $(grep -c "^\[  FAILED  \] VisibilityTies.$t " "$d/ties.out") |"
      done; } >> "$md" ;;
  raster)  # docs/raster.md: the visibility pre-pass in hardware (32-bit ids) and in compute
    vis=("${scaled[@]}" --shading visibility --frames $frames --warmup $warmup --no-tuning)
    configs=("hardware:--raster hardware" "compute:--raster compute"
             "rtoff-hardware:--raster hardware --ray-trace off" "rtoff-compute:--raster compute --ray-trace off"
             "street-hardware-occlusion:--raster hardware --camera street --occlusion auto"
             "street-hardware-noocclusion:--raster hardware --camera street --occlusion off"
             "street-compute-occlusion:--raster compute --camera street --occlusion auto"
             "street-compute-noocclusion:--raster compute --camera street --occlusion off"
             "compute-fallback:--raster compute"
             "rtoff-compute-fallback:--raster compute --ray-trace off"
             "compute-noguard:--raster compute"
             "rtoff-compute-noguard:--raster compute --ray-trace off")
    for size in "${sizes[@]}"; do
      for round in 1 2; do for config in "${configs[@]}"; do
        # The *-fallback rows: the compute rasterizer's fallback path alone (SGD_RASTER_PATH); the
        # *-noguard rows: the triangles reaching past the frame's edge (and the near-plane polygons
        # that do) on the hardware, without a guard band (the default: 16,384 pixels).
        path=auto guard=; [[ ${config%%:*} == *-fallback ]] && path=fallback; [[ ${config%%:*} == *-noguard ]] && guard=0
        # shellcheck disable=SC2086
        SGD_RASTER_PATH=$path SGD_RASTER_GUARD_BAND=$guard run "${config%%:*}-$size-$round" --headless "${vis[@]}" --size $size ${config#*:}
      done; done
      # The default command from an empty cache (its first run's quick measurement), then after --tune.
      XDG_CACHE_HOME=$d/empty-$size run "first-$size" --headless "${scaled[@]}" --size $size --frames $frames --warmup $warmup
      tune_into "$d/cache-$size" "${scaled[@]}" --size $size --frames 40 --warmup 8
      XDG_CACHE_HOME=$d/cache-$size run "tuned-$size" --headless "${scaled[@]}" --size $size --frames $frames --warmup $warmup
    done
    # Scaling with triangles at the large size: 12 against 5 instances (the rounds above), both rasterizers.
    for r in hardware compute; do
      run "$r-12-$large" --headless --scene "$scene_file" --instances 12 --lights ${LIGHTS:-4096} --shading visibility \
        --frames $frames --warmup $warmup --size $large --raster $r --no-tuning
    done
    # --view raster at the large size: who wrote each pixel's word (the picture of docs/raster.md).
    run "view-raster-$large" --headless "${scaled[@]}" --no-tuning --shading visibility --raster compute --size $large \
      --frames 4 --warmup 1 --view raster --screenshot "$d/view-raster-$large.png"
    # Every run with each pass's median and the measured frames it ran in (n:): occlusion's late draw
    # and pyramid run only where phase 2 ran, and the hardware pre-pass's ids of the merged list
    # (ids) only where phase 2 re-admitted something (the instrumented frame's count beside it), so
    # their rows add up to the frame only with those counts. The compute rasterizer has no ids pass.
    $tables runs "$d" frame n:frame depth late_depth n:late_depth ids n:ids pyramid n:pyramid light_cull ray_trace shade \
      resolve c:occlusion.triangles_readmitted_phase2 plan:shading.shading plan:raster.mode plan:raster.variant \
      plan:occlusion.variant >> "$md"
    $tables passes "$d" "${sizes[@]}" -- hardware compute rtoff-hardware rtoff-compute street-hardware-occlusion \
      street-hardware-noocclusion street-compute-occlusion street-compute-noocclusion compute-fallback rtoff-compute-fallback \
      compute-noguard rtoff-compute-noguard >> "$md"
    # Where depth goes (docs/raster.md, "Where depth goes"): the compute rasterizer's depth and
    # late_depth in pieces (counters.raster.dispatch_ms), the subgroup path against its fallback,
    # with and without the ray tracer, the street under occlusion, the guard band at 0; the hardware
    # pre-pass's depth beside them.
    # And run by run: each piece's median (the hardware pre-pass's runs have none).
    pieced=(depth); for piece in setup chunks tile_bins hardware split; do pieced+=("c:raster.dispatch_ms.depth.$piece.median"); done
    pieced+=(late_depth); for piece in late_cull setup chunks tile_bins hardware merge split; do
      pieced+=("c:raster.dispatch_ms.late_depth.$piece.median"); done
    $tables runs "$d" "${pieced[@]}" n:late_depth plan:raster.mode plan:raster.variant >> "$md"
    $tables pieces "$d" "${sizes[@]}" -- rtoff-hardware rtoff-compute rtoff-compute-fallback rtoff-compute-noguard hardware compute \
      compute-fallback street-hardware-occlusion street-compute-occlusion street-compute-noocclusion >> "$md"
    # The compute rasterizer's subgroup path against its fallback (only the rasterizer differs): the
    # depth pass (its dispatches and the hardware's share) and the frame, alternated in the rounds
    # above; the target is >= 1.10x.
    # Then the frame-crossing triangles on the hardware (SGD_RASTER_GUARD_BAND=0) over the default
    # guard band, which takes them (and the near-plane polygons) in compute.
    for timer in depth frame; do
      $tables speedup "$d" $timer "${sizes[@]}" -- compute-fallback:compute rtoff-compute-fallback:rtoff-compute \
        compute-noguard:compute rtoff-compute-noguard:rtoff-compute >> "$md"
    done
    # Does this GPU's hardware clip inside its guard band, and at the near plane as the compute
    # rasterizer does? The coverage tests (docs/raster.md), the near-plane quad and the frame-crossing
    # triangles in compute: lavapipe clips at the frame's edge (4 of the generated scene's pixels on
    # such an edge); a GPU that does not should show 0 there. Needs the build's tests/gpu-tests.
    if [ -x "$build/tests/gpu-tests" ]; then
      ln -sfn "$(cd "$build" && pwd)/shaders" "$build/tests/shaders"  # the test binary loads SPIR-V beside it
      "$build/tests/gpu-tests" --gtest_filter='Raster.GeneratedSceneComputeNamesTheHardwaresTriangles:Raster.BundledSceneComputeNamesTheHardwaresTriangles:Raster.AGuardBandTakesTheFrameCrossingTrianglesInCompute:Raster.OcclusionPhaseTwoMatchesHardware:Raster.OcclusionPhasesWriteTheWordsOfOneRasterizationInEveryFrame' \
        > "$d/guard-band-coverage.out" 2>&1
      say "raster: the coverage tests with the default guard band: gpu-tests exit $?"
      { echo; echo "Coverage on this GPU (the near plane and the frame's edge in compute, the default guard band):"; echo
        grep -E "^\[ +(OK|FAILED) +\] Raster|covered pixels|not depth ties|near-plane quad|frames' words" "$d/guard-band-coverage.out" | sed 's/^/    /'; } >> "$md"
    fi
    # Who rasterized what in each compute run (the instrumented frame): triangles and pixels per path.
    $tables runs "$d" --only compute c:raster.compute_path c:raster.paths.per_lane.triangles c:raster.paths.split.triangles \
      c:raster.paths.tile_bin.triangles c:raster.paths.hardware.triangles c:raster.paths.per_lane.pixels c:raster.paths.split.pixels \
      c:raster.paths.tile_bin.pixels c:raster.paths.hardware.pixels c:raster.pixels_covered >> "$md"
    $tables runs "$d" --only view-raster frame view c:raster.compute_path c:raster.pixels_covered c:raster.paths.per_lane.pixels \
      c:raster.paths.split.pixels c:raster.paths.tile_bin.pixels c:raster.pixels_hardware >> "$md" ;;
  startup)  # docs/architecture.md "Shader variants": the driver's cache, first start and warm
    builds=("$build"); [ -n "$base" ] && builds+=("$base")
    fallbacks=(--light-cull fallback --exposure fallback --occlusion fallback --cull fallback --mip fallback --light-loop fallback)
    for round in $(seq ${STARTS:-3}); do for b in "${builds[@]}"; do
      [ "$b" = "$build" ] && which=this || which=base
      for config in default fallbacks meshlet meshlet-fallbacks raster raster-fallbacks; do
        cache=$d/cache-$config-$which-$round; rm -rf "$cache"; mkdir -p "$cache"
        args=(--headless "${scaled[@]}" --size $small --frames 1 --warmup 0 --no-tuning)
        [[ $config == *fallbacks ]] && args+=("${fallbacks[@]}")
        [[ $config == meshlet* ]] && args+=(--geometry meshlet)
        [[ $config == raster* ]] && args+=(--geometry meshlet --shading visibility --raster compute)
        for when in first warm; do
          tag=$config-$when-$which-$round
          # The fallbacks also list the dense launch's rays by one atomic each (ray_lists.comp's
          # fallback) and sort the compute rasterizer's triangles in shared memory; a build without
          # the switches reads the variables alike.
          lists=auto; [[ $config == *fallbacks ]] && lists=fallback
          seconds=$( { TIMEFORMAT='%R %U %S'; time SGD_RAY_LISTS=$lists SGD_RASTER_PATH=$lists XDG_CACHE_HOME=$cache \
            "$b/subgroup-demo" "${args[@]}" --report "$d/$tag.json" > "$d/$tag.out" 2>&1; } 2>&1 )
          rc=0; [ -s "$d/$tag.json" ] || { rc=1; say "FAILED: $suite $tag: $(tail -n 1 "$d/$tag.out")"; }
          printf '%s\t%s\t%s\t%s\t%s\n' $which $config $when $round "$seconds" >> "$d/startup.tsv"
          printf '%s\t%s\t%s\n' "$tag" $rc "${seconds%% *}" >> "$d/runs.tsv"
        done
        rm -rf "$cache"
      done
    done; done
    $tables startup "$d" >> "$md" ;;
  first-compare)  # the first run and the comparison, on the plan that runs (docs/comparison.md)
    # From an empty cache: the first run (its quick measurement and its duration), then --tune
    # and the tuned frame; the first frame over the tuned one (target 1.05x, measurement <= 3 s).
    # The driver keeps its compiled shaders under XDG_CACHE_HOME too (NVIDIA: nvidia/GLCache), so a
    # first run from an empty folder also compiles every pipeline cold, as on a new machine; the
    # warm first run finds the driver's cache filled by a --no-tuning run (which stores no verdict)
    # and no tuning file: the measurement alone, as after a driver's cache survives a rebuild.
    for size in "${sizes[@]}"; do
      cache=$d/cache-$size; rm -rf "$cache" "$cache-warm"; mkdir -p "$cache" "$cache-warm"
      t=$SECONDS; XDG_CACHE_HOME=$cache run "first-$size" --headless "${scaled[@]}" --size $size --frames 200 --warmup 30
      echo "first run $size (driver's shader cache cold): $((SECONDS - t)) s wall" >> "$d/notes.txt"
      grep -h '^auto: ' "$d/first-$size.out" >> "$d/notes.txt"
      XDG_CACHE_HOME=$cache-warm run "warm-up-$size" --headless --no-tuning "${scaled[@]}" --size $size --frames 2 --warmup 1
      XDG_CACHE_HOME=$cache-warm run "first-warm-$size" --headless "${scaled[@]}" --size $size --frames 200 --warmup 30
      echo "first run $size (driver's shader cache warm, no tuning file):" >> "$d/notes.txt"
      grep -h '^auto: ' "$d/first-warm-$size.out" >> "$d/notes.txt"
      XDG_CACHE_HOME=$cache "$demo" --tune "${scaled[@]}" --size $size --frames 120 --warmup 20 --out "$d/tune-$size" \
        > "$d/tune-$size.out" 2>&1 || say "FAILED ($?): first-compare --tune $size"
      grep -h '^quick: \|^check: ' "$d/tune-$size.out" >> "$d/notes.txt"
      XDG_CACHE_HOME=$cache run "tuned-$size" --headless "${scaled[@]}" --size $size --frames 200 --warmup 30
      python3 - "$d" "$size" >> "$d/notes.txt" 2>&1 <<'PY'
import json, sys
d, size = sys.argv[1], sys.argv[2]
r = {k: json.load(open(f"{d}/{k}-{size}.json")) for k in ("first", "first-warm", "tuned")}
frame = {k: v["timings_ms"]["frame"]["median"] for k, v in r.items()}
for k, cache in (("first", "cold"), ("first-warm", "warm")):
    seconds = r[k]["tuning"]["measure_seconds"]
    ratio = frame[k] / frame["tuned"]
    print(f"first run {size} (driver's shader cache {cache}): measured {seconds:.2f} s ({'ok' if seconds <= 3 else 'OVER'} 3 s); "
          f"frame {frame[k]:.3f} ms, after --tune {frame['tuned']:.3f} ms: first/tuned {ratio:.3f}x "
          f"({'ok' if ratio <= 1.05 else 'OVER'} 1.05x); plan {r[k]['plan']['shading']['mode']}, tuned {r['tuned']['plan']['shading']['mode']}")
PY
      # --compare in the tuned plan (a copy of the cache each, so both measure in the same plan: a
      # comparison stores its own verdicts) against a run three times as long (three times the
      # measured frames, in the same 10 rounds): wall time, every ratio with its interval and
      # word in both, and whether the words agree; the plan line names the plan.
      # LONG=0 leaves the long run out (at 4K it alone takes minutes: run one size per call).
      kinds=(compare); [ "${LONG:-3}" -gt 0 ] && kinds+=(long)
      for kind in "${kinds[@]}"; do
        rm -rf "$cache-$kind"; cp -r "$cache" "$cache-$kind"
        [ $kind = compare ] && f=60 || f=$((${LONG:-3} * (60 - warmup) + warmup))
        t=$SECONDS; XDG_CACHE_HOME=$cache-$kind compare_run "$kind-$size" "${scaled[@]}" --size $size --frames $f --warmup $warmup
        echo "$((SECONDS - t))" > "$d/$kind-$size.wall"
        echo "$kind $size: $((SECONDS - t)) s wall, --frames $f --warmup $warmup" >> "$d/notes.txt"
        grep -h '^plan: \|^time: ' "$d/$kind-$size.out" >> "$d/notes.txt"
      done
    done
    # The wall time of each --compare (target: 4K within 60 s) and where it went (report.json's
    # method.seconds: the one renderer's set-up, the rounds, writing the images, probe, repeat).
    python3 - "$d" "${sizes[@]}" >> "$md" <<'PY'
import json, os, sys
d, sizes = sys.argv[1], sys.argv[2:]
print("\n| size | run | wall s (process) | in the comparison s | set-up s | rounds s | rounds | images s | probe s | repeat s |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for size in sizes:
    for kind in ("compare", "long"):
        path = f"{d}/{kind}-{size}/report.json"
        if not os.path.exists(path):
            continue
        m = json.load(open(path))["method"]
        s = m.get("seconds", {})
        wall = open(f"{d}/{kind}-{size}.wall").read().strip()
        cells = [f"{s[k]:.1f}" if k in s else "-" for k in ("total", "setup", "rounds")]
        cells += [str(m["rounds"])] + [f"{s[k]:.1f}" if k in s else "-" for k in ("images", "probe", "repeat")]
        print(f"| {size} | {kind} | {wall} | " + " | ".join(cells) + " |")
PY
    for size in "${sizes[@]}"; do $tables rounds "$d/long-$size/report.json" "$d/compare-$size/report.json" >> "$md"; done
    $tables runs "$d" frame depth ray_trace shade plan:shading.mode plan:raster.mode plan:raster.variant plan:ray_trace.variant \
      tuning:measure_seconds >> "$md"
    cat "$d/notes.txt" >> "$md" ;;
  *) say "gpu_bench.sh: unknown suite $suite"; exit 2 ;;
  esac
  $tables plans "$d" >> "$md"
  say "$suite: $((SECONDS - t0)) s"
  cat "$md"
done
say "total $((SECONDS - start)) s; tables: $out/*.md"
