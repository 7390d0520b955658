#!/usr/bin/env bash
# The default command (every pass auto, every feature on) on a GPU, this build against a baseline
# build, at 3840x2160 with --instances 5 --lights 4096: untuned (--no-tuning) and tuned (--tune at
# that size first, each build into a cache folder of its own), each pair alternated twice so that
# clock drift falls on both. A pass on by default must pay for itself: the new build's frame must
# not be slower than the baseline's. Writes OUT/default-frame.md and OUT/log.txt (about 4 minutes
# on an H100).
# Usage (repository root): tools/gpu_default_frame.sh NEW_BUILD_DIR BASE_BUILD_DIR [OUT]
set -uo pipefail
new=$1/subgroup-demo
base=$2/subgroup-demo
out=${3:-${OUT:-out-default-frame}}
mkdir -p "$out"
log="$out/log.txt"
echo "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)" | tee "$log"
size=${SIZE:-3840x2160}
common=(--headless --scene assets/default_scene.gltf --size $size --instances 5 --lights 4096
        --frames ${FRAMES:-100} --warmup ${WARMUP:-10})
run() {  # tag, binary, cache folder, then options
  local tag=$1 demo=$2 cache=$3; shift 3
  XDG_CACHE_HOME="$out/cache-$cache" $demo "${common[@]}" "$@" --report "$out/$tag.json" > /dev/null 2>> "$log" \
    || echo "FAILED: $tag" | tee -a "$log"
}
for round in 1 2; do
  run "untuned-base-$round" $base base --no-tuning
  run "untuned-new-$round" $new new --no-tuning
done
for which in base new; do
  demo=$([ $which = base ] && echo $base || echo $new)
  XDG_CACHE_HOME="$out/cache-$which" $demo --tune --out "$out/tune-$which" --scene assets/default_scene.gltf --size $size \
    --instances 5 --lights 4096 --frames 40 --warmup 8 >> "$log" 2>&1 || echo "FAILED: --tune $which" | tee -a "$log"
done
for round in 1 2; do
  run "tuned-base-$round" $base base
  run "tuned-new-$round" $new new
done
python3 - "$out" > "$out/default-frame.md" <<'PY'
import json, sys, statistics
out = sys.argv[1]
def frame(tag):
    try: return json.load(open(f"{out}/{tag}.json"))["timings_ms"]["frame"]["median"]
    except Exception: return None
print("| default command | baseline ms (2 runs) | this build ms (2 runs) | this / baseline |")
print("| --- | ---: | ---: | ---: |")
for kind in ("untuned", "tuned"):
    b = [frame(f"{kind}-base-{r}") for r in (1, 2)]
    n = [frame(f"{kind}-new-{r}") for r in (1, 2)]
    if None in b + n: print(f"| {kind} | failed | | |"); continue
    print(f"| {kind} | {b[0]:.3f}, {b[1]:.3f} | {n[0]:.3f}, {n[1]:.3f} | {statistics.mean(n) / statistics.mean(b):.3f}x |")
PY
cat "$out/default-frame.md"
