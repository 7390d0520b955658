#!/usr/bin/env bash
# Issue 26 on a GPU, in one device call: the resolve pass's quad mip against the compute downsample,
# the exposure reduction subgroup against fallback, the all-subgroup frame against all-fallback, at
# 1920x1080 and 3840x2160 with --instances 5 --lights 4096; then repeated 4K runs: every mip must be
# the CPU box filter of its own frame (--mip-dump's mip_check), the subgroup and forward mips must
# equal the compute fallback's mip of the same frame in the same run (mip_check.fallback_mismatched),
# and the dumps are also compared across processes with the fallback run's (which also needs the
# frame itself to be the same from run to run).
# Usage: tools/gpu_resolve.sh BUILD_DIR [OUT [repeats ARGS...]]   (OUT defaults to $OUT; docs/benchmarks.md,
# issue 26). With `repeats`, only the repeated 4K runs, each with ARGS added (e.g. `--cull off`, to
# hold the frame itself the same from run to run).
set -uo pipefail
demo=${1:-build}/subgroup-demo
out=${2:-${OUT:-out-resolve}}
only_repeats=0; repeat_args=()
if [ "${3:-}" = repeats ]; then only_repeats=1; repeat_args=("${@:4}"); fi
scene=assets/default_scene.gltf
mkdir -p "$out/runs"
log="$out/log.txt"
start=$(date +%s)
say() { echo "$*" | tee -a "$log"; }

say "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
common=(--headless --scene $scene --instances 5 --lights 4096 --frames 120 --warmup 20)
sizes="1920x1080 3840x2160"; [ $only_repeats = 1 ] && sizes=""
for size in $sizes; do
  for cfg in "mip-subgroup:--mip subgroup" "mip-off:--mip off" "mip-fallback:--mip fallback" "mip-forward:--mip forward" \
             "exposure-subgroup:--exposure subgroup" "exposure-fallback:--exposure fallback" \
             "all-subgroup:--cull subgroup --light-cull subgroup --mip subgroup --light-loop subgroup --exposure subgroup --ray-trace subgroup" \
             "all-fallback:--cull fallback --light-cull fallback --mip fallback --light-loop fallback --exposure fallback --ray-trace fallback"; do
    name=${cfg%%:*}; args=${cfg#*:}
    # shellcheck disable=SC2086
    $demo "${common[@]}" --size $size $args --report "$out/runs/$size-$name.json" > /dev/null 2>> "$log" \
      || say "FAILED: $size $name"
  done
  say "$size done at $(( $(date +%s) - start )) s"
done

# Repeated 4K runs. Each run's mip is checked against the CPU box filter of the same frame (report
# outputs.mip_check); the dumps are compared across processes with the fallback run's.
repeats=20
identical_sub=0; identical_fwd=0; exact_runs=0; frames_equal=0; done_runs=0; same_run_equal=0
for i in $(seq 1 $repeats); do
  [ $(( $(date +%s) - start )) -gt 480 ] && { say "repeats stopped after $done_runs runs (time)"; break; }
  for v in subgroup forward fallback; do
    $demo --headless --scene $scene --instances 5 --lights 4096 --size 3840x2160 --frames 2 --warmup 1 --mip $v \
      "${repeat_args[@]}" --mip-dump "$out/rep-$v.png" --screenshot "$out/rep-$v-frame.png" --report "$out/rep-$v.json" > /dev/null 2>> "$log" \
      || say "FAILED: repeat $i $v"
  done
  exact=$(python3 -c "import json,sys; print(all(json.load(open(f'$out/rep-{v}.json'))['outputs']['mip_check']['mismatched'] == 0 for v in ('subgroup', 'forward', 'fallback')))")
  [ "$exact" = True ] && exact_runs=$((exact_runs + 1)) || say "repeat $i: a mip differs from the box filter of its own frame"
  same=$(python3 -c "import json,sys; print(all(json.load(open(f'$out/rep-{v}.json'))['outputs']['mip_check']['fallback_mismatched'] == 0 for v in ('subgroup', 'forward')))")
  [ "$same" = True ] && same_run_equal=$((same_run_equal + 1)) || say "repeat $i: a quad mip differs from the fallback's mip of its own frame"
  cmp -s "$out/rep-subgroup.png" "$out/rep-fallback.png" && identical_sub=$((identical_sub + 1))
  cmp -s "$out/rep-forward.png" "$out/rep-fallback.png" && identical_fwd=$((identical_fwd + 1))
  cmp -s "$out/rep-subgroup-frame.png" "$out/rep-fallback-frame.png" && cmp -s "$out/rep-forward-frame.png" "$out/rep-fallback-frame.png" \
    && frames_equal=$((frames_equal + 1))
  done_runs=$i
done
say "4K repeats: all three mips equal to the box filter of their own frame in $exact_runs of $done_runs runs"
say "4K repeats: subgroup and forward mips identical to the fallback's mip of the same frame in $same_run_equal of $done_runs runs"
say "4K repeats: subgroup dump identical to fallback in $identical_sub of $done_runs, forward in $identical_fwd of $done_runs; frames identical in $frames_equal of $done_runs"

python3 - "$out" <<'PY' | tee -a "$log"
import json, os, sys
out = sys.argv[1]
def load(size, name):
    path = f"{out}/runs/{size}-{name}.json"
    return json.load(open(path)) if os.path.exists(path) else None
def ms(r, key):
    t = r and r["timings_ms"].get(key)
    return t["median"] if t else None
summary = {}
for size in ["1920x1080", "3840x2160"]:
    r = {n: load(size, n) for n in ["mip-subgroup", "mip-off", "mip-fallback", "mip-forward", "exposure-subgroup",
                                    "exposure-fallback", "all-subgroup", "all-fallback"]}
    s = {}
    try:
        # Without the mip: the same resolve pass in the mip-fallback run (plain shader, the same
        # measured exposure); mip-off also fixes the exposure, which changes the pass (both reported).
        s["resolve_with_mip"] = ms(r["mip-subgroup"], "resolve"); s["resolve_without_mip"] = ms(r["mip-fallback"], "resolve")
        s["resolve_mip_off"] = ms(r["mip-off"], "resolve")
        s["mip_added_by_resolve"] = s["resolve_with_mip"] - s["resolve_without_mip"]
        s["mip_fallback"] = ms(r["mip-fallback"], "mip")
        s["mip_added_over_fallback"] = s["mip_added_by_resolve"] / s["mip_fallback"]
        s["forward_with_forward_mip"] = ms(r["mip-forward"], "forward"); s["forward_mip_off"] = ms(r["mip-off"], "forward")
        s["mip_fixup_forward"] = ms(r["mip-forward"], "mip_fixup")
        s["exposure_subgroup"] = ms(r["exposure-subgroup"], "exposure"); s["exposure_fallback"] = ms(r["exposure-fallback"], "exposure")
        s["exposure_subgroup_over_fallback"] = s["exposure_subgroup"] / s["exposure_fallback"]
        s["frame_all_subgroup"] = ms(r["all-subgroup"], "frame"); s["frame_all_fallback"] = ms(r["all-fallback"], "frame")
        s["all_fallback_over_all_subgroup"] = s["frame_all_fallback"] / s["frame_all_subgroup"]
        s["exposure_values"] = {n: (r[n] or {}).get("counters", {}).get("exposure") for n in r}
        s["device"] = r["mip-subgroup"]["device"]["name"]
    except Exception as e:
        s["error"] = repr(e)
    summary[size] = s
print(json.dumps(summary, indent=1))
json.dump(summary, open(f"{out}/summary.json", "w"), indent=1)
PY
tar -czf "$out/runs.tar.gz" -C "$out" runs && rm -rf "$out/runs"
rm -f "$out"/rep-*
say "total $(( $(date +%s) - start )) s"
