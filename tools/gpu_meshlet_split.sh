#!/usr/bin/env bash
# Issue 41 on a GPU: why the meshlet path's subgroup compaction loses to its fallback. The depth
# pre-pass runs the task shader (meshlet culling, compacted into the payload) and the mesh shader
# (triangle culling, compacted into the primitive outputs); its subgroup pipeline uses both stages'
# subgroup shaders. SGD_MESHLET_FALLBACK_STAGE=task|mesh (diagnosis only, src/vk/fault_injection.h)
# swaps one stage's shader for its fallback, so the four pairings split the difference between the
# stages. At 1920x1080 and 3840x2160, --instances 5 --lights 4096 --geometry meshlet --occlusion
# off, 60 frames after 10 warm-up, two rounds alternated. Writes OUT/meshlet-split.md and OUT/log.txt
# (about 2 minutes on an H100).
# Usage (repository root, the build carried): tools/gpu_meshlet_split.sh [BUILD_DIR [OUT]]
set -uo pipefail
demo=${1:-build}/subgroup-demo
out=${2:-${OUT:-out-meshlet-split}}
mkdir -p "$out"
log="$out/log.txt"
echo "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)" | tee "$log"
common=(--headless --scene assets/default_scene.gltf --instances 5 --lights 4096 --geometry meshlet --occlusion off
        --no-tuning --frames ${FRAMES:-60} --warmup ${WARMUP:-10})
for size in ${SIZES:-1920x1080 3840x2160}; do
  for round in 1 2; do
    for pairing in subgroup task-fallback mesh-fallback fallback; do
      cull=subgroup; stage=
      case $pairing in fallback) cull=fallback ;; task-fallback) stage=task ;; mesh-fallback) stage=mesh ;; esac
      SGD_MESHLET_FALLBACK_STAGE=$stage $demo "${common[@]}" --size $size --cull $cull \
        --report "$out/$size-$pairing-$round.json" --screenshot "$out/$size-$pairing-$round.png" > /dev/null 2>> "$log" \
        || echo "FAILED: $size $pairing $round" | tee -a "$log"
    done
  done
done
python3 - "$out" ${SIZES:-1920x1080 3840x2160} > "$out/meshlet-split.md" <<'PY'
import json, sys, filecmp, statistics
out, sizes = sys.argv[1], sys.argv[2:]
names = {"subgroup": "task subgroup, mesh subgroup", "task-fallback": "task fallback, mesh subgroup",
         "mesh-fallback": "task subgroup, mesh fallback", "fallback": "task fallback, mesh fallback"}
print("| size | pairing | depth ms (2 runs) | depth / both-fallback | frame ms | meshlets kept | triangles kept | frame as both-fallback's |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |")
for size in sizes:
    def load(p, r):
        try: return json.load(open(f"{out}/{size}-{p}-{r}.json"))
        except Exception: return None
    base = [load("fallback", r) for r in (1, 2)]
    if not all(base): print(f"| {size} | failed |"); continue
    base_depth = statistics.mean(r["timings_ms"]["depth"]["median"] for r in base)
    for p in names:
        runs = [load(p, r) for r in (1, 2)]
        if not all(runs): print(f"| {size} | {names[p]} | failed |"); continue
        depth = [r["timings_ms"]["depth"]["median"] for r in runs]
        same = filecmp.cmp(f"{out}/{size}-{p}-1.png", f"{out}/{size}-fallback-1.png", shallow=False)
        c = runs[0]["counters"]
        print(f"| {size} | {names[p]} | {depth[0]:.3f}, {depth[1]:.3f} | {statistics.mean(depth) / base_depth:.3f}x | "
              f"{runs[0]['timings_ms']['frame']['median']:.3f} | {c['meshlets_visible']:,} | {c['triangles_visible']:,} | "
              f"{'yes' if same else 'NO'} |")
PY
cat "$out/meshlet-split.md"
