#!/usr/bin/env bash
# Runs the demo headless on scene files (default: the fuzz corpus and the fuzz regressions) and
# checks the contract for hostile input (docs/robustness.md): each run exits 0, with at most one
# warning line per image (a texture problem is one warning, never more), or exits 3 with one error
# line, `error: bad scene: ...`, as its last line. Nothing else: no crash, no sanitizer report, no
# other code. A scene that loads but has nothing to draw (src/app/run.cpp) is refused after its
# load warnings were printed: those may precede the error line, each a `warning:` line.
# Usage: tools/replay_scenes.sh [DEMO] [FILE...]     (DEMO default build/subgroup-demo)
# SGD_REPLAY_PRELOAD, if set, is the LD_PRELOAD for the demo (tools/sanitize.sh: ASan, lavapipe).
set -uo pipefail
cd "$(dirname "$0")/.."
demo=${1:-build/subgroup-demo}
shift || true
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(tests/fuzz-corpus/* tests/data/fuzz-regressions/*)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
failed=0
for f in "${files[@]}"; do
    LD_PRELOAD=${SGD_REPLAY_PRELOAD:-} "$demo" --headless --scene "$f" --size 64x64 --frames 1 --warmup 0 \
        >"$out/stdout" 2>"$out/stderr"
    code=$?
    lines=$(wc -l <"$out/stderr")
    texture=$(grep -c '^warning: image [0-9]' "$out/stderr")
    per_image=$(grep -o '^warning: image [0-9]*' "$out/stderr" | sort | uniq -c | awk '$1 > 1' | wc -l)
    verdict=ok
    case $code in
    0) { [ "$per_image" -eq 0 ] && ! grep -qv '^warning: ' "$out/stderr"; } || verdict=FAIL ;;
    3) { [ "$(grep -c '^error: ' "$out/stderr")" -eq 1 ] && tail -n 1 "$out/stderr" | grep -q '^error: bad scene: ' &&
         [ "$per_image" -eq 0 ] && ! grep -v '^error: ' "$out/stderr" | grep -qv '^warning: '; } || verdict=FAIL ;;
    *) verdict=FAIL ;;
    esac
    last=$(grep '^warning: image [0-9]\|^error: ' "$out/stderr" | tail -n 1)
    printf '%-4s exit %d  %d line(s), %d texture warning(s)  %-46s %s\n' "$verdict" "$code" "$lines" "$texture" "$f" \
        "${last:0:150}"
    if [ "$verdict" != ok ]; then
        failed=$((failed + 1))
        tail -n 30 "$out/stderr" >&2
    fi
done
echo "replay: ${#files[@]} files, $failed failed"
[ "$failed" -eq 0 ]
