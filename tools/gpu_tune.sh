#!/usr/bin/env bash
# Tuned auto on a GPU (docs/benchmarks.md, "Tuned auto"): at 1920x1080 and 3840x2160 with
# --instances 5 --lights 4096, `--tune` measures each pass's subgroup path against its fallback,
# writes the tuning file, then renders all-subgroup, all-fallback and tuned auto in rounds and
# prints whether tuned auto is at least as fast as the faster of the two, within the 95% interval.
# Then --info shows the plan with each choice's source. The tuning cache is OUT/cache (the user's
# is left alone). Usage: tools/gpu_tune.sh BUILD_DIR [OUT]   (OUT defaults to $OUT, else out-tune)
set -uo pipefail
demo=${1:-build}/subgroup-demo
out=${2:-${OUT:-out-tune}}
mkdir -p "$out"
export XDG_CACHE_HOME="$out/cache"
log="$out/log.txt"
say() { echo "$*" | tee -a "$log"; }
say "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
status=0
for size in 1920x1080 3840x2160; do
  dir="$out/$size"
  mkdir -p "$dir"
  say "== --tune at $size"
  start=$(date +%s)
  $demo --tune --out "$dir" --size $size --instances 5 --lights 4096 --frames 60 --warmup 10 2>> "$log" | tee -a "$log" \
    || { say "FAILED: --tune at $size"; status=1; continue; }
  $demo --info --report "$dir/info.json" 2>&1 | sed -n '/^pass /,/^$/p;/^tuning/p' | tee -a "$log"
  say "$size: $(( $(date +%s) - start )) s"
  grep -q "tuned auto is SLOWER" "$log" && status=1
done
say "results: $out/*/tune.json (check.ratio, check.ratio_ci95, check.verdict: faster or level passes)"
exit $status
