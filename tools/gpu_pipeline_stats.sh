#!/usr/bin/env bash
# Issue 41 on a GPU: what the driver reports of the cull's and the meshlet compaction's pipelines,
# subgroup against fallback (registers per invocation, shared memory, binary size: whatever the
# device's VK_KHR_pipeline_executable_properties gives). The two variants of each pass run the same
# triangle tests and memory traffic; a variant that needs more registers keeps fewer warps resident,
# which a memory-bound pass feels. SGD_PIPELINE_STATS=FILE (diagnosis only, src/vk/pipeline_stats.h)
# makes every pipeline a run compiles append its statistics to FILE. One frame per run at
# 1920x1080, --instances 5 --lights 4096, both geometry paths, --cull subgroup and fallback.
# Writes OUT/pipeline-stats.md, OUT/*.jsonl and OUT/log.txt (under a minute).
# Usage (repository root, the build carried): tools/gpu_pipeline_stats.sh [BUILD_DIR [OUT]]
set -uo pipefail
demo=${1:-build}/subgroup-demo
out=${2:-${OUT:-out-pipeline-stats}}
mkdir -p "$out"
log="$out/log.txt"
echo "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)" | tee "$log"
common=(--headless --scene assets/default_scene.gltf --instances 5 --lights 4096 --no-tuning --frames 1 --warmup 0
        --size 1920x1080)
for geometry in indexed meshlet; do
  for cull in subgroup fallback; do
    rm -f "$out/$geometry-$cull.jsonl"
    SGD_PIPELINE_STATS="$out/$geometry-$cull.jsonl" $demo "${common[@]}" --geometry $geometry --cull $cull \
      --report "$out/$geometry-$cull.json" > /dev/null 2>> "$log" || echo "FAILED: $geometry $cull" | tee -a "$log"
  done
done
python3 - "$out" > "$out/pipeline-stats.md" <<'PY'
import json, sys, glob, os
out = sys.argv[1]
rows = {}
for path in sorted(glob.glob(f"{out}/*.jsonl")):
    for line in open(path):
        e = json.loads(line)
        name = e["pipeline"]
        if not any(k in name for k in ("cull.comp", "cull_scan", "meshlet_cull", "cull_late", "cull_merge")): continue
        for x in e["executables"]:
            rows[(name, x["name"])] = (x["subgroup_size"], x["statistics"])
keys = sorted({k for _, stats in rows.values() for k in stats})
print("| pipeline | executable | subgroup | " + " | ".join(keys) + " |")
print("| --- | --- | ---: | " + " | ".join("---:" for _ in keys) + " |")
for (name, exe), (sg, stats) in sorted(rows.items()):
    print(f"| {name} | {exe} | {sg} | " + " | ".join(str(stats.get(k, "")) for k in keys) + " |")
if not rows: print("(no statistics: see log.txt)")
PY
cat "$out/pipeline-stats.md"
