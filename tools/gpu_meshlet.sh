#!/bin/bash
# The meshlet path on a GPU (docs/meshlets.md, docs/benchmarks.md), in one go:
#  1. correctness at 1920x1080, --instances 5 --lights 4096, under --validate: indexed --cull off
#     and --cull subgroup, meshlet --cull subgroup / fallback / off; images compared pixel by pixel
#     with the indexed --cull off frame, triangles_visible with the compute cull's;
#  2. timings, 1920x1080 and 3840x2160, same scene: indexed (compute cull + indirect draws) and
#     meshlet subgroup / fallback / off, each 200 frames (30 warm-up), per-pass GPU timestamps;
#  3. the task and mesh debug views at 960x540.
# Usage: tools/gpu_meshlet.sh OUTDIR [DEMO]   (DEMO default build/subgroup-demo). Writes into OUTDIR:
# meshlet-results.tar.gz (reports, log, summary), views.tar (view PNGs), and two 1080p frames.
set -u
out=$1; demo=${2:-build/subgroup-demo}
work=$(mktemp -d); mkdir -p "$out" "$work/views"
log=$work/log.txt
# Ray tracing off: it would add the same pass to both geometry paths (docs/ray-tracing.md).
scene=(--scene assets/default_scene.gltf --instances 5 --lights 4096 --ray-trace off)
run() { echo "+ $*" >> "$log"; "$demo" "$@" >> "$log" 2>&1; echo "exit $?" >> "$log"; }

"$demo" --info --geometry meshlet >> "$log" 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv >> "$log" 2>&1

# 1. Correctness under validation (2 frames).
check=(--headless --validate --size 1920x1080 --frames 2 --warmup 1 "${scene[@]}")
run "${check[@]}" --geometry indexed --cull off --screenshot "$work/indexed-off.png" --report "$work/check-indexed-off.json"
run "${check[@]}" --geometry indexed --cull subgroup --report "$work/check-indexed-subgroup.json"
for c in subgroup fallback off; do
  run "${check[@]}" --geometry meshlet --cull $c --screenshot "$work/meshlet-$c.png" --report "$work/check-meshlet-$c.json"
done

# 2. Timings.
for size in 1920x1080 3840x2160; do
  time=(--headless --size $size --frames 200 --warmup 30 "${scene[@]}")
  run "${time[@]}" --geometry indexed --cull auto --report "$work/time-$size-indexed.json"
  for c in subgroup fallback off; do
    run "${time[@]}" --geometry meshlet --cull $c --report "$work/time-$size-meshlet-$c.json"
  done
  run "${time[@]}" --geometry indexed --cull off --report "$work/time-$size-indexed-off.json"
done

# 3. Views.
for stage in task mesh; do
  for view in lane-id first-last-lane active-lanes; do
    run --headless --size 960x540 --frames 2 --warmup 1 --scene assets/default_scene.gltf --geometry meshlet \
        --view $view --view-stage $stage --screenshot "$work/views/$stage-$view.png"
  done
done

# Summary: images against indexed --cull off, counts, validation, frame times and ratios.
python3 - "$work" > "$work/summary.txt" 2>&1 <<'PY'
import json, sys, struct, zlib, glob, os
w = sys.argv[1]
def png(path):
    d = open(path, 'rb').read(); i = 8; idat = b''
    while i < len(d):
        n, = struct.unpack('>I', d[i:i+4]); t = d[i+4:i+8]; c = d[i+8:i+8+n]; i += 12 + n
        if t == b'IHDR': width, height = struct.unpack('>II', c[:8])
        elif t == b'IDAT': idat += c
    raw = zlib.decompress(idat); stride = width * 4; rows = []; prev = bytearray(stride); p = 0
    for y in range(height):
        f = raw[p]; line = bytearray(raw[p+1:p+1+stride]); p += 1 + stride
        if f == 1:
            for x in range(4, stride): line[x] = (line[x] + line[x-4]) & 255
        elif f == 2:
            for x in range(stride): line[x] = (line[x] + prev[x]) & 255
        elif f == 3:
            for x in range(stride): line[x] = (line[x] + ((line[x-4] if x >= 4 else 0) + prev[x]) // 2) & 255
        elif f == 4:
            for x in range(stride):
                a = line[x-4] if x >= 4 else 0; b = prev[x]; c = prev[x-4] if x >= 4 else 0
                pa, pb, pc = abs(b-c), abs(a-c), abs(a+b-2*c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line)); prev = line
    return b''.join(rows)
ref = png(f'{w}/indexed-off.png')
culled = json.load(open(f'{w}/check-indexed-subgroup.json'))['counters']['triangles_visible']
print('compute cull triangles_visible (1080p):', culled)
for c in ['subgroup', 'fallback', 'off']:
    img = png(f'{w}/meshlet-{c}.png'); diff = big = 0
    for i in range(0, len(ref), 4):
        d = max(abs(ref[i+k] - img[i+k]) for k in range(3))
        diff += d > 0; big += d > 1
    r = json.load(open(f'{w}/check-meshlet-{c}.json'))
    k = r['counters']
    print(f'meshlet {c}: pixels differing from indexed --cull off {diff} (more than one step {big}); '
          f'triangles_visible {k["triangles_visible"]} (equal to compute cull: {k["triangles_visible"] == culled}); '
          f'meshlets {k["meshlets_visible"]} of {k["meshlets_in"]}; validation messages {r["validation"]["messages"]}')
for f in sorted(glob.glob(f'{w}/check-*.json')):
    print(os.path.basename(f), 'validation', json.load(open(f))['validation'])
for size in ['1920x1080', '3840x2160']:
    t = {}
    for name in ['indexed', 'indexed-off', 'meshlet-subgroup', 'meshlet-fallback', 'meshlet-off']:
        try: r = json.load(open(f'{w}/time-{size}-{name}.json'))
        except Exception as e: print(size, name, 'missing', e); continue
        t[name] = r['timings_ms']
        print(size, name, ' '.join(f'{k} {v["median"]:.3f}' for k, v in r['timings_ms'].items()),
              'visible', r['counters']['triangles_visible'], 'meshlets', r['counters'].get('meshlets_visible'), r['scene'].get('meshlet_build_ms'))
    if 'indexed' in t and 'meshlet-subgroup' in t:
        print(size, 'meshlet frame / indexed frame: %.3f' % (t['meshlet-subgroup']['frame']['median'] / t['indexed']['frame']['median']))
    if 'meshlet-subgroup' in t and 'meshlet-fallback' in t:
        print(size, 'meshlet cull fallback / subgroup (depth pass, where it culls): %.3f' %
              (t['meshlet-fallback']['depth']['median'] / t['meshlet-subgroup']['depth']['median']))
PY
cat "$work/summary.txt"
tar -C "$work" -czf "$out/meshlet-results.tar.gz" log.txt summary.txt $(cd "$work" && ls *.json)
tar -C "$work" -cf "$out/views.tar" views
cp "$work/indexed-off.png" "$out/indexed-off-1080p.png"
cp "$work/meshlet-subgroup.png" "$out/meshlet-subgroup-1080p.png"
