#!/usr/bin/env bash
# The shading-time quad mip's GPU table (docs/quad-mip.md, docs/benchmarks.md): --mip off / forward /
# fallback, interleaved, two rounds, at three settings; its cost is forward(--mip forward) minus
# forward(--mip off) plus the edge fix-up, against the compute downsample; checks that the forward
# and fallback mip dumps are identical files. (The resolve pass's mip, --mip subgroup, is measured by
# tools/gpu_resolve.sh: its cost is in the resolve pass, not in forward.)
# Usage: tools/mip_bench.sh OUTDIR   (then tools/mip_bench.sh OUTDIR --summary)
set -u
out=$1; demo=${DEMO:-./build/subgroup-demo}
if [ "${2:-}" = --summary ]; then
  python3 - "$out" <<'PY'
import json, sys
d = sys.argv[1]
def t(r, k): v = r["timings_ms"].get(k); return v["median"] if v else 0.0
print("| size / instances / lights | round | forward off | forward, --mip forward | forward fallback | added us | fix-up us | total us | downsample us | total / downsample | edge list: entries / distinct / texels |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for cfg in ("1920x1080-1-0", "1920x1080-5-4096", "3840x2160-5-4096"):
    for rd in (1, 2):
        off, sg, fb = (json.load(open(f"{d}/t{rd}-{cfg}-{m}.json")) for m in ("off", "forward", "fallback"))
        added = t(sg, "forward") - t(off, "forward"); fix = t(sg, "mip_fixup"); ds = t(fb, "mip"); c = sg["counters"]
        texels = (sg["frame"]["width"] // 2) * (sg["frame"]["height"] // 2)
        print(f"| {cfg.replace('-', ' / ')} | {rd} | {t(off, 'forward'):.3f} | {t(sg, 'forward'):.3f} | {t(fb, 'forward'):.3f} | "
              f"{added * 1e3:.1f} | {fix * 1e3:.1f} | {(added + fix) * 1e3:.1f} | {ds * 1e3:.1f} | {(added + fix) / ds:.1f}x | "
              f"{c['mip_edge_appends']} / {c['mip_edge_appends'] - c['mip_edge_duplicates']} / {texels} |")
PY
  exit 0
fi
mkdir -p "$out"
for round in 1 2; do
  for cfg in "1920x1080 1 0" "1920x1080 5 4096" "3840x2160 5 4096"; do set -- $cfg
    for mip in off forward fallback; do
      dump=""; [ $mip != off ] && dump="--mip-dump $out/$mip-mip.png"
      $demo --headless --size $1 --instances $2 --lights $3 --frames 120 --warmup 20 --mip $mip $dump \
        --report "$out/t$round-$1-$2-$3-$mip.json" > /dev/null
    done
    cmp -s "$out/forward-mip.png" "$out/fallback-mip.png" && echo "round $round $cfg: mip dumps identical" \
      || echo "round $round $cfg: mip dumps DIFFER"
  done
done
