#!/usr/bin/env bash
# Issues 31 and 41 on a GPU: the cull pass, one dispatch with decoupled look-back (docs/culling.md,
# docs/benchmarks.md). In about 8 minutes on an H100, --instances 5 --lights 4096 throughout:
#   1. the cull pass's median ms for both variants at 1920x1080 and 3840x2160, --lod off and auto,
#      --cull-group-size 64 (the default) and 256, with the look-back's fallback count;
#   2. --compare at 1920x1080: the cull ratio and the meshlet cull ratio (task/mesh compaction) with
#      their 95% intervals, the graphics-to-compute probe, the difference panel;
#   3. --tune at 1920x1080 (its own cache): which cull variant tuned auto takes;
#   4. 20 runs of the default command at 3840x2160, each frame and cull dump hashed;
#   5. --compare at 3840x2160, and the meshlet path's per-pass times for its two variants;
#   6. the look-back under the test knob (SGD_CULL_LOOKBACK=late@8, then spin@0): same dump, and
#      how much the fallback costs where it runs.
# Steps after 1 are skipped once the time budget is spent (the log says which). Pipeline statistics
# per stage are not exposed by the demo (only an experiment's fragment count), so step 5 reports
# the meshlet cull's depth-pass times and counters instead.
# Usage: tools/gpu_cull.sh BUILD_DIR [OUT]   (OUT defaults to $OUT). Results: OUT/cull.md.
set -uo pipefail
demo=${1:-build}/subgroup-demo
out=${2:-${OUT:-out-cull}}
scene=(--scene assets/default_scene.gltf --instances 5 --lights 4096)
mkdir -p "$out"
table="$out/cull.md"
log="$out/log.txt"
start=$(date +%s)
budget=${GPU_CULL_BUDGET_S:-450}
say() { echo "$*" | tee -a "$log"; }
elapsed() { echo $(( $(date +%s) - start )); }
in_budget() { [ "$(elapsed)" -lt "$budget" ] || { say "skipped (time, $(elapsed) s): $*"; return 1; }; }
say "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
say "commit: $(git rev-parse --short HEAD 2>/dev/null)"

# 1. Per-pass times.
{
  echo "## 1. cull pass, median ms (60 frames, 10 warm-up)"
  echo
  echo "| size | --lod | --cull-group-size | subgroup ms | fallback ms | fallback / subgroup | triangles kept | look-back fallbacks (subgroup, fallback) | frame ms (subgroup) |"
  echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
} > "$table"
for size in 1920x1080 3840x2160; do
  for lod in off auto; do
    for group in 64 256; do
      for variant in subgroup fallback; do
        $demo --headless "${scene[@]}" --size $size --frames 60 --warmup 10 --cull $variant --cull-group-size $group \
          --lod $lod --report "$out/$size-$lod-$group-$variant.json" > /dev/null 2>> "$log" \
          || say "FAILED: $size $lod $group $variant"
      done
      python3 - "$out/$size-$lod-$group" "$size" "$lod" "$group" >> "$table" <<'PY'
import json, sys
try:
    s = json.load(open(sys.argv[1] + "-subgroup.json")); f = json.load(open(sys.argv[1] + "-fallback.json"))
except Exception as e:
    print(f"| {sys.argv[2]} | {sys.argv[3]} | {sys.argv[4]} | failed: {e} |"); sys.exit()
sm, fm = s["timings_ms"]["cull"]["median"], f["timings_ms"]["cull"]["median"]
print(f"| {sys.argv[2]} | {sys.argv[3]} | {sys.argv[4]} | {sm:.4f} | {fm:.4f} | {fm / sm:.3f}x | "
      f"{s['counters']['triangles_visible']:,} | {s['counters'].get('cull_lookback_fallbacks')}, "
      f"{f['counters'].get('cull_lookback_fallbacks')} | {s['timings_ms']['frame']['median']:.3f} |")
PY
    done
  done
done
say "step 1 done at $(elapsed) s"

# The ratios of a --compare report: cull, meshlet_cull (the task/mesh compaction), with intervals.
compare_summary() {
  python3 - "$1/report.json" "$2" >> "$table" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except Exception as e:
    print(f"\n--compare {sys.argv[2]}: failed ({e})"); sys.exit()
print(f"\n## --compare {sys.argv[2]}\n\n| ratio | fallback ms | subgroup ms | speed-up | 95% interval | verdict |\n| --- | ---: | ---: | ---: | --- | --- |")
for key, d in r.get("ratio_details", {}).items():
    ci = d.get("ratio_ci95")
    ratio = d.get("ratio")
    print(f"| {key} | {d.get('fallback_ms')} | {d.get('subgroup_ms')} | "
          f"{'%.3fx' % ratio if ratio else 'n/a'} | {ci} | {d.get('verdict')} |")
probe = r.get("probe") or {}
print(f"\nprobe: {json.dumps(probe)}")
print(f"difference panel (pixels): {[(d.get('subgroup_run'), d.get('fallback_run'), d.get('differing_pixels')) for d in r.get('differences', [])]}")
print(f"run to run: {r.get('run_to_run')}")
PY
}

# 2. --compare at 1080p.
if in_budget "compare 1920x1080"; then
  $demo --compare "${scene[@]}" --size 1920x1080 --frames 40 --warmup 8 --out "$out/compare-1920x1080" \
    > "$out/compare-1920x1080.log" 2>&1 || say "FAILED: compare 1920x1080"
  compare_summary "$out/compare-1920x1080" 1920x1080
  say "step 2 done at $(elapsed) s"
fi

# 3. --tune at 1080p, in a cache of its own; --info then shows what tuned auto chose for the cull.
if in_budget "tune"; then
  export XDG_CACHE_HOME="$out/cache"
  $demo --tune --out "$out/tune" "${scene[@]}" --size 1920x1080 --frames 60 --warmup 10 > "$out/tune.log" 2>&1 \
    || say "FAILED: --tune"
  { echo; echo "## --tune at 1920x1080: the plan tuned auto makes"; echo; echo '```'
    $demo --info 2>&1 | sed -n '/^pass /,/^$/p;/^tuning/p'; echo '```'; } >> "$table"
  unset XDG_CACHE_HOME
  say "step 3 done at $(elapsed) s"
fi

# 4. 20 runs of the default command at 4K: one frame, one cull dump? (The fallback count may vary.)
if in_budget "20 runs"; then
  hashes="$out/repeat-hashes.txt"
  : > "$hashes"
  for i in $(seq 1 20); do
    in_budget "repeat run $i" || break
    $demo --headless "${scene[@]}" --size 3840x2160 --frames 4 --warmup 1 --screenshot "$out/frame.png" \
      --cull-dump "$out/cull.txt" --report "$out/repeat.json" > /dev/null 2>> "$log" || { say "FAILED: repeat $i"; continue; }
    fallbacks=$(python3 -c "import json; print(json.load(open('$out/repeat.json'))['counters']['cull_lookback_fallbacks'])")
    echo "$(md5sum < "$out/frame.png" | cut -c1-32) $(md5sum < "$out/cull.txt" | cut -c1-32) $fallbacks" >> "$hashes"
  done
  { echo; echo "## 20 runs of the default command at 3840x2160"; echo
    echo "$(wc -l < "$hashes") runs: $(cut -d' ' -f1 "$hashes" | sort -u | wc -l) distinct frame(s), $(cut -d' ' -f2 "$hashes" | sort -u | wc -l) distinct cull dump(s); look-back fallbacks per run: $(cut -d' ' -f3 "$hashes" | tr '\n' ' ')"; } >> "$table"
  say "step 4 done at $(elapsed) s"
fi

# 5. --compare at 4K, and the meshlet path's depth pass (where its cull runs) for both variants.
if in_budget "compare 3840x2160"; then
  $demo --compare "${scene[@]}" --size 3840x2160 --frames 40 --warmup 8 --out "$out/compare-3840x2160" \
    > "$out/compare-3840x2160.log" 2>&1 || say "FAILED: compare 3840x2160"
  compare_summary "$out/compare-3840x2160" 3840x2160
  say "step 5a done at $(elapsed) s"
fi
if in_budget "meshlet per-pass"; then
  { echo; echo "## meshlet path (task/mesh compaction), median ms, 60 frames"; echo
    echo "| size | variant | depth ms (task + mesh cull and draw) | forward ms | frame ms | meshlets kept / in | triangles kept |"
    echo "| --- | --- | ---: | ---: | ---: | --- | ---: |"; } >> "$table"
  for size in 1920x1080 3840x2160; do
    for variant in subgroup fallback; do
      $demo --headless "${scene[@]}" --ray-trace off --size $size --frames 60 --warmup 10 --geometry meshlet --cull $variant \
        --report "$out/meshlet-$size-$variant.json" > /dev/null 2>> "$log" || say "FAILED: meshlet $size $variant"
      python3 - "$out/meshlet-$size-$variant.json" $size $variant >> "$table" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except Exception as e:
    print(f"| {sys.argv[2]} | {sys.argv[3]} | failed: {e} |"); sys.exit()
t, c = r["timings_ms"], r["counters"]
print(f"| {sys.argv[2]} | {sys.argv[3]} | {t['depth']['median']:.3f} | {t['forward']['median']:.3f} | "
      f"{t['frame']['median']:.3f} | {c.get('meshlets_visible')} / {c.get('meshlets_in')} | {c['triangles_visible']:,} |")
PY
    done
  done
  $demo --info --probe > "$out/probe.txt" 2>&1
  { echo; echo "probe (--info --probe):"; grep -i "fragment\|compute" "$out/probe.txt" | tail -3; } >> "$table"
  say "step 5b done at $(elapsed) s"
fi

# 6. The look-back under the test knob: the dump of the natural schedule, and the cost.
if in_budget "late schedule"; then
  { echo; echo "## look-back under SGD_CULL_LOOKBACK (1920x1080, --lod off, group 64), median cull ms"; echo
    echo "| schedule | variant | cull ms | fallbacks | dump as the natural schedule's |"; echo "| --- | --- | ---: | ---: | --- |"; } >> "$table"
  for schedule in none late@8 late@8,spin@0; do
    for variant in subgroup fallback; do
      SGD_CULL_LOOKBACK=$([ $schedule = none ] || echo $schedule) $demo --headless "${scene[@]}" --size 1920x1080 \
        --frames 30 --warmup 5 --lod off --cull $variant --cull-dump "$out/late-$schedule-$variant.txt" \
        --report "$out/late-$schedule-$variant.json" > /dev/null 2>> "$log" || say "FAILED: $schedule $variant"
      same=$(cmp -s "$out/late-none-subgroup.txt" "$out/late-$schedule-$variant.txt" && echo yes || echo NO)
      python3 - "$out/late-$schedule-$variant.json" $schedule $variant $same >> "$table" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except Exception as e:
    print(f"| {sys.argv[2]} | {sys.argv[3]} | failed: {e} |"); sys.exit()
print(f"| {sys.argv[2]} | {sys.argv[3]} | {r['timings_ms']['cull']['median']:.4f} | "
      f"{r['counters']['cull_lookback_fallbacks']} | {sys.argv[4]} |")
PY
    done
  done
fi
say "total $(elapsed) s"
cat "$table"
