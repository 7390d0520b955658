#!/usr/bin/env bash
# --shading forward against --shading visibility on a GPU (docs/visibility.md): the default command
# (every other pass auto, every feature on, --no-tuning) with --instances 5 --lights 4096 at
# 1920x1080 and 3840x2160; visibility with its quad-swap derivatives and, masked, its analytic
# fallback (--mask-ops quad, which also moves the quad mip to its compute fallback: the `mip` row);
# visibility with --mip fallback (the shading pass without its quad mip); then the shading pass's
# three debug views, validated.
# Each configuration twice, alternated, so clock drift falls on all of them. Writes
# OUT/visibility.md (per-pass medians and the frame), the reports and OUT/log.txt (a few minutes).
# Usage (repository root, build/ built): tools/gpu_visibility.sh [BUILD_DIR] [OUT]
# (SIZES="WxH ..." FRAMES=N WARMUP=N override the defaults, e.g. for a quick check on lavapipe.)
set -uo pipefail
demo=${1:-build}/subgroup-demo
out=${2:-${OUT:-out-visibility}}
mkdir -p "$out"
log="$out/log.txt"
echo "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)" | tee "$log"
# visibility-mipfallback: the same shading pass without its quad mip (the compute downsample writes
# it, as the `mip` row): the shade rows' difference is what writing the mip in the shading pass costs.
configs=("forward:--shading forward" "visibility:--shading visibility" "visibility-analytic:--shading visibility --mask-ops quad"
         "visibility-mipfallback:--shading visibility --mip fallback")
sizes=${SIZES:-1920x1080 3840x2160}
for size in $sizes; do
  for round in 1 2; do
    for config in "${configs[@]}"; do
      tag=${config%%:*}
      $demo --headless --no-tuning --scene assets/default_scene.gltf --size $size --instances 5 --lights 4096 \
        --frames ${FRAMES:-100} --warmup ${WARMUP:-10} ${config#*:} --report "$out/$tag-$size-$round.json" \
        > /dev/null 2>> "$log" || echo "FAILED: $tag $size $round" | tee -a "$log"
    done
  done
done
python3 - "$out" $sizes > "$out/visibility.md" <<'PY'
import json, sys, statistics
out = sys.argv[1]
tags = ("forward", "visibility", "visibility-analytic", "visibility-mipfallback")
def report(tag, size, r):
    try: return json.load(open(f"{out}/{tag}-{size}-{r}.json"))
    except Exception: return None
for size in sys.argv[2:]:
    reports = {t: [x for x in (report(t, size, r) for r in (1, 2)) if x] for t in tags}
    keys = []
    for t in tags:
        for rep in reports[t]:
            keys += [k for k in rep["timings_ms"] if k not in keys]
    keys = [k for k in keys if k != "frame"] + ["frame"]
    print(f"\n{size}, --instances 5 --lights 4096, median ms (mean of 2 runs)\n")
    print("| pass | " + " | ".join(tags) + " |")
    print("| --- |" + " ---: |" * len(tags))
    for k in keys:
        cells = []
        for t in tags:
            v = [rep["timings_ms"][k]["median"] for rep in reports[t] if k in rep["timings_ms"]]
            cells.append(f"{statistics.mean(v):.3f}" if v else "")
        print(f"| {k} | " + " | ".join(cells) + " |")
    for t in tags:
        if reports[t]: print(f"\n{t}: plan.shading = {json.dumps(reports[t][0]['plan']['shading'])}")
PY
# The shading pass's own debug views, validated (the compute views under --shading visibility).
for view in lane-id first-last-lane active-lanes; do
  $demo --headless --no-tuning --scene assets/default_scene.gltf --size 640x360 --frames 2 --warmup 1 --validate \
    --shading visibility --view $view --view-stage compute --report "$out/view-$view.json" --screenshot "$out/view-$view.png" \
    > "$out/view-$view.out" 2>&1
  rc=$?
  echo "shading-pass view $view: exit $rc, $(python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(r['validation']['messages'], 'validation messages;', r['plan']['view']['reason'])" "$out/view-$view.json" 2>&1)" \
    | tee -a "$out/visibility.md"
done
cat "$out/visibility.md"
