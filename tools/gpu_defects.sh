#!/usr/bin/env bash
# Issue 43 on a GPU: the defects only a GPU shows.
#   1. Every debug view in every stage: 3 views x 14 stages at 640x360, --validate, indexed
#      geometry (twelve of them exited 5 with SYNC-HAZARD-READ-AFTER-WRITE on `counters`), then
#      --atlas. Per run: exit code, validation messages (the report's count) and hazard lines.
#   2. --compare at 1920x1080 and 3840x2160 with --instances 5 --lights 4096: the difference
#      panel (report.json's `differences` and `run_to_run`), which read 17-26 pixels for the cull
#      pair and run to run; every cell must read 0.
# Writes $OUT/defects.md (the tables), $OUT/views.tsv, $OUT/compare-SIZE/report.json and
# compare.png, $OUT/atlas.png and $OUT/log.txt. About 6 minutes on an H100.
# Usage (repository root, build/ carried): tools/gpu_defects.sh [BUILD_DIR [OUT]]   (OUT defaults to $OUT)
set -uo pipefail
build=${1:-build}
out=${2:-${OUT:-out-defects}}
demo="$build/subgroup-demo"
scene=assets/default_scene.gltf
mkdir -p "$out"
log="$out/log.txt"
# The Vulkan loader, validation layers and drivers this build was made against (as the other runs).
for f in .gl/*.deb; do [ -f "$f" ] && dpkg -x "$f" /; done
ldconfig 2> /dev/null
start=$SECONDS
echo "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)" | tee "$log"
echo "commit: $(git rev-parse --short HEAD 2>/dev/null)" | tee -a "$log"

# 1. The 42 view runs, six at a time (each is small; the validation layer is the CPU's work).
views=$out/views
mkdir -p "$views"
view_run() {  # view_run VIEW STAGE: one validated run, "view stage exit messages hazards" on stdout
  local tag="$1-$2"
  "$demo" --headless --no-tuning --scene "$scene" --size 640x360 --frames 2 --warmup 1 --validate --geometry indexed \
    --view "$1" --view-stage "$2" --report "$views/$tag.json" > "$views/$tag.out" 2>&1
  local rc=$?
  local messages
  messages=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['validation']['messages'])" "$views/$tag.json" 2> /dev/null)
  printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$rc" "${messages:-none}" "$(grep -c 'SYNC-HAZARD' "$views/$tag.out")"
}
export -f view_run
export demo scene views
stages="vertex tess-control tess-eval geometry fragment compute task mesh raygen any-hit closest-hit miss intersection callable"
for view in lane-id first-last-lane active-lanes; do
  for stage in $stages; do echo "$view $stage"; done
done | xargs -P 6 -n 2 bash -c 'view_run "$0" "$1"' > "$out/views.tsv"
echo "views done in $((SECONDS - start)) s" | tee -a "$log"

"$demo" --atlas "$out/atlas.png" --no-tuning --scene "$scene" --size 640x360 --validate > "$out/atlas.out" 2>&1
atlas_rc=$?
atlas_messages=$(grep -c -E "validation (error|warning):" "$out/atlas.out")
echo "atlas: exit $atlas_rc, $atlas_messages validation lines, $((SECONDS - start)) s" | tee -a "$log"

# 2. The comparison's difference panel at both sizes (few frames: only the images matter here).
for size in 1920x1080 3840x2160; do
  d="$out/compare-$size"
  "$demo" --compare --out "$d" --scene "$scene" --size $size --instances 5 --lights 4096 --frames 6 --warmup 2 \
    > "$d.out" 2>&1 || echo "FAILED: compare $size (exit $?)" | tee -a "$log"
  find "$d" -name '*.png' ! -name compare.png -delete  # the screenshots: too many to bring back at 4K
  echo "compare $size done, $((SECONDS - start)) s" | tee -a "$log"
done

python3 - "$out" "$atlas_rc" "$atlas_messages" > "$out/defects.md" <<'PY'
import csv, json, sys
out, atlas_rc, atlas_messages = sys.argv[1], sys.argv[2], sys.argv[3]
rows = list(csv.reader(open(f"{out}/views.tsv"), delimiter="\t"))
bad = [r for r in rows if r[2] != "0" or r[3] != "0" or r[4] != "0"]
print(f"## Debug views: {len(rows)} runs (640x360, --validate, indexed), {len(rows) - len(bad)} clean\n")
print("| view | stage | exit | validation messages | SYNC-HAZARD lines |")
print("| --- | --- | ---: | ---: | ---: |")
for r in sorted(rows):
    print("| " + " | ".join(r) + " |")
print(f"\n--atlas: exit {atlas_rc}, {atlas_messages} validation lines\n")
print("## --compare difference panel (--instances 5 --lights 4096)\n")
print("| size | pair | differing pixels |")
print("| --- | --- | ---: |")
for size in ("1920x1080", "3840x2160"):
    try:
        r = json.load(open(f"{out}/compare-{size}/report.json"))
    except Exception as e:
        print(f"| {size} | no report.json ({e}) | |"); continue
    for d in r["differences"]:
        print(f"| {size} | {d['subgroup_run']} vs {d['fallback_run']} | {d['differing_pixels']} |")
    print(f"| {size} | run to run ({r['run_to_run']['run']} twice) | {r['run_to_run']['differing_pixels']} |")
PY
cat "$out/defects.md" | tee -a "$log"
echo "done in $((SECONDS - start)) s" | tee -a "$log"
