#!/usr/bin/env bash
# Issue 34 on a GPU (docs/occlusion.md): the depth pyramid's two builds and two-phase occlusion
# culling, at 1920x1080 and 3840x2160 with --instances 5 --lights 4096, one run each.
#  1. The pyramid: timings_ms.pyramid of --occlusion subgroup against fallback (target: fallback /
#     subgroup >= 1.3), and the 4K chain against reading the depth buffer once at the copy
#     bandwidth --bandwidth-probe measures (W * H * 4 bytes / copy_bandwidth_gbps; target <= 2x).
#  2. Both cameras, both geometry paths: the frame with --occlusion off / subgroup / fallback,
#     the triangles removed, the frame-time ratio (targets: street <= 0.75x with >= 50% removed,
#     overview <= 1.03x) and whether the screenshots are byte-identical (they must be).
#     (The meshlet path builds the pyramid but does not cull by it yet: expect 0 removed there.)
# Usage: tools/gpu_occlusion.sh BUILD_DIR [OUT]   (OUT defaults to $OUT)
set -uo pipefail
demo=${1:-build}/subgroup-demo
out=${2:-${OUT:-out-occlusion}}
scene=assets/default_scene.gltf
mkdir -p "$out"
echo "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)" | tee "$out/log.txt"
common="--headless --scene $scene --instances 5 --lights 4096 --frames 60 --warmup 10"
for size in 1920x1080 3840x2160; do
  for camera in overview street; do
    for geometry in indexed meshlet; do
      for occlusion in off subgroup fallback; do
        tag="$size-$camera-$geometry-$occlusion"
        extra=""; [ "$occlusion" = subgroup ] && extra="--bandwidth-probe"
        $demo $common --size $size --camera $camera --geometry $geometry --occlusion $occlusion $extra \
          --report "$out/$tag.json" --screenshot "$out/$tag.png" > /dev/null 2>> "$out/log.txt" \
          || echo "FAILED: $tag" | tee -a "$out/log.txt"
      done
    done
  done
done
python3 - "$out" > "$out/occlusion.md" <<'PY'
import json, sys, filecmp, os
out = sys.argv[1]
def load(tag):
    try: return json.load(open(f"{out}/{tag}.json"))
    except Exception: return None
print("| size | camera | geometry | pyramid ms subgroup | fallback | fallback / subgroup | 4K chain / depth read | "
      "frame off ms | frame subgroup ms | ratio | triangles off | removed | identical |")
print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
for size in ["1920x1080", "3840x2160"]:
    w, h = map(int, size.split("x"))
    for camera in ["overview", "street"]:
        for geometry in ["indexed", "meshlet"]:
            base = f"{size}-{camera}-{geometry}"
            off, sub, fb = load(base + "-off"), load(base + "-subgroup"), load(base + "-fallback")
            if not (off and sub and fb):
                print(f"| {size} | {camera} | {geometry} | failed |"); continue
            ps, pf = sub["timings_ms"]["pyramid"]["median"], fb["timings_ms"]["pyramid"]["median"]
            gbps = sub.get("bandwidth", {}).get("copy_bandwidth_gbps")
            chain = f"{ps / (w * h * 4 / (gbps * 1e9) * 1e3):.2f}x" if gbps else "n/a"
            fo, fs = off["timings_ms"]["frame"]["median"], sub["timings_ms"]["frame"]["median"]
            to, ts = off["counters"]["triangles_visible"], sub["counters"]["triangles_visible"]
            same = all(filecmp.cmp(f"{out}/{base}-off.png", f"{out}/{base}-{v}.png", shallow=False) for v in ["subgroup", "fallback"])
            print(f"| {size} | {camera} | {geometry} | {ps:.4f} | {pf:.4f} | {pf / ps:.2f}x | {chain} | {fo:.3f} | {fs:.3f} | "
                  f"{fs / fo:.3f}x | {to:,} | {(to - ts) / max(to, 1):.1%} | {'yes' if same else 'NO'} |")
PY
cat "$out/occlusion.md"
