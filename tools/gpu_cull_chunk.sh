#!/usr/bin/env bash
# Issue 41 on a GPU, the cull pass's chunk (docs/culling.md, "Several triangles per invocation"):
# the cull pass's median ms for both variants, --instances 5 --lights 4096, group 64, at 1920x1080
# and 3840x2160 with --lod off and auto, for each BUILD_DIR given (an executable with its shaders/:
# e.g. the loop of eight triangles as it is and with [[unroll]]) and each look-back spin limit
# (the default, then SGD_CULL_LOOKBACK=spin@N for each N in SPINS). About 3 minutes on an H200.
# Usage: tools/gpu_cull_chunk.sh OUT BUILD_DIR...   Results: OUT/chunk.md.
set -uo pipefail
out=$1; shift
mkdir -p "$out"
scene=(--scene assets/default_scene.gltf --instances 5 --lights 4096)
echo "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)" > "$out/chunk.md"
echo >> "$out/chunk.md"
echo "| build | size | --lod | spin | subgroup ms | fallback ms | fallback / subgroup | look-back fallbacks (subgroup, fallback) |" >> "$out/chunk.md"
echo "| --- | --- | --- | --- | ---: | ---: | ---: | --- |" >> "$out/chunk.md"
for build in "$@"; do
  for size in 1920x1080 3840x2160; do
    for lod in off auto; do
      for spin in default ${SPINS:-64 256}; do
        for variant in subgroup fallback; do
          tag="$out/$(basename $build)-$size-$lod-$spin-$variant"
          if [ "$spin" = default ]; then knob=(); else knob=(env SGD_CULL_LOOKBACK=spin@$spin); fi
          "${knob[@]}" $build/subgroup-demo --headless "${scene[@]}" --size $size --frames 60 --warmup 10 --cull $variant \
            --lod $lod --report "$tag.json" > /dev/null 2>> "$out/log.txt" || echo "FAILED: $tag" >> "$out/log.txt"
        done
        python3 - "$out/$(basename $build)-$size-$lod-$spin" "$(basename $build)" $size $lod $spin >> "$out/chunk.md" <<'PY'
import json, sys
try:
    s = json.load(open(sys.argv[1] + "-subgroup.json")); f = json.load(open(sys.argv[1] + "-fallback.json"))
except Exception as e:
    print(f"| {' | '.join(sys.argv[2:])} | failed: {e} |"); sys.exit()
sm, fm = s["timings_ms"]["cull"]["median"], f["timings_ms"]["cull"]["median"]
print(f"| {' | '.join(sys.argv[2:])} | {sm:.4f} | {fm:.4f} | {fm / sm:.3f}x | "
      f"{s['counters'].get('cull_lookback_fallbacks')}, {f['counters'].get('cull_lookback_fallbacks')} |")
PY
      done
    done
  done
done
cat "$out/chunk.md"
