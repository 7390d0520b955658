#!/usr/bin/env bash
# Renders the comparison matrix (--compare: one screenshot per configuration) with two builds and
# compares every configuration's frame pixel for pixel. For changes that must not change a frame
# (the frame graph's barriers, a pass recorded in another place): run it on lavapipe at the lane
# widths the suite uses.
#
#   tools/compare_builds.sh BASE_BUILD_DIR THIS_BUILD_DIR [OUT_DIR] [-- extra subgroup-demo options]
#   LP_NATIVE_VECTOR_WIDTH=256 tools/compare_builds.sh /tmp/base build   # 8 lanes on lavapipe
#
# Each build dir holds subgroup-demo and its shaders/. Prints one line per configuration (same or
# DIFFERENT) and exits 1 if any frame differs or a configuration is missing from either side.
set -uo pipefail
base=${1:?base build dir}; this=${2:?this build dir}; out=${3:-$(mktemp -d /tmp/compare-builds.XXXXXX)}
shift $(( $# >= 3 ? 3 : $# )); [ "${1:-}" = "--" ] && shift
mkdir -p "$out"
size=${SGD_COMPARE_SIZE:-320x180}
for which in base this; do
  [ $which = base ] && dir=$base || dir=$this
  "$dir/subgroup-demo" --compare --out "$out/$which" --no-tuning --size "$size" --frames 2 --warmup 1 "$@" \
    > "$out/$which.log" 2>&1 || { echo "$which build: --compare failed (see $out/$which.log)"; exit 1; }
done
python3 - "$out/base" "$out/this" <<'EOF'
import os, sys, zlib, struct
def pixels(path):  # the PNG's decompressed image data (the demo writes one IDAT stream, no metadata that varies)
    data = open(path, 'rb').read()
    pos, idat = 8, b''
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        if kind == b'IHDR': header = data[pos + 8:pos + 8 + n]
        if kind == b'IDAT': idat += data[pos + 8:pos + 8 + n]
        pos += 12 + n
    return header, zlib.decompress(idat)
base, this = sys.argv[1], sys.argv[2]
names = lambda d: {f for f in os.listdir(d) if f.endswith('.png') and f != 'compare.png'}
b, t = names(base), names(this)
bad = 0
for name in sorted(b | t):
    if name not in b or name not in t:
        print(f'{name[:-4]:32} missing in {"base" if name not in b else "this"}'); bad += 1; continue
    same = pixels(os.path.join(base, name)) == pixels(os.path.join(this, name))
    print(f'{name[:-4]:32} {"same" if same else "DIFFERENT"}'); bad += not same
print(f'{len(b | t)} configurations, {bad} differ or missing')
sys.exit(1 if bad else 0)
EOF
