#!/usr/bin/env bash
# CI's sanitizer step (docs/robustness.md): an ASan + UBSan build (preset `sanitize`, build-asan/)
# of the CPU tests and the demo. Runs every CPU test, one short headless render on lavapipe, and
# one run that fails an allocation on purpose, so the error path's unwinding is checked too.
# Then the fuzz target (preset `fuzz`, clang, build-fuzz/: loader and tinygltf instrumented)
# replays every seed and every kept regression, and the ASan demo loads each of them on lavapipe
# (tools/replay_scenes.sh: exit 0 with at most one warning per image, or exit 3 with one line).
# Leak checking is on; tools/lsan.supp hides leaks inside the Vulkan driver and loader only.
set -euo pipefail
cd "$(dirname "$0")/.."

cmake --preset sanitize >/dev/null
cmake --build --preset sanitize --target unit-tests subgroup-demo

export ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:check_initialization_order=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export LSAN_OPTIONS=suppressions=$PWD/tools/lsan.supp:print_suppressions=0

# The Vulkan loader unloads lavapipe when the instance is destroyed, before LeakSanitizer looks:
# the driver's process-lifetime allocations then look leaked and their stacks name no module, so
# no suppression can match them. Preloading the driver (after the ASan runtime, which must come
# first) keeps it mapped: those allocations stay reachable and our own leaks are still reported.
lavapipe=$(sed -n 's/.*"library_path": *"\([^"]*\)".*/\1/p' /usr/share/vulkan/icd.d/lvp_icd*.json | head -n 1)
asan_runtime=$(ldd build-asan/subgroup-demo | awk '/libasan/ {print $3}')
demo() { LD_PRELOAD="$asan_runtime $lavapipe" build-asan/subgroup-demo "$@"; }

echo "== sanitize: CPU tests"
build-asan/tests/unit-tests --gtest_brief=1

# Runs the demo; its exit code must be $1 and its last line must contain $2.
expect_exit() {
    local want=$1 needle=$2 code
    shift 2
    set +e
    demo "$@" > "$out/run.txt" 2>&1
    code=$?
    set -e
    tail -n 1 "$out/run.txt"
    if [ "$code" -ne "$want" ] || ! tail -n 1 "$out/run.txt" | grep -qF -- "$needle"; then
        echo "sanitize: demo $* exited $code, expected $want with '$needle'" >&2
        tail -n 60 "$out/run.txt" >&2
        exit 1
    fi
}
out=build-asan/sanitize-run
mkdir -p "$out"

echo "== sanitize: headless renders on lavapipe (passes at auto, then every fallback)"
expect_exit 0 "triangles visible" --headless --size 160x90 --frames 3 --warmup 1 --lights 300 \
    --screenshot "$out/frame.png" --report "$out/report.json"
expect_exit 0 "triangles visible" --headless --size 160x90 --frames 2 --warmup 1 --lights 300 \
    --cull fallback --light-cull fallback --mip fallback

echo "== sanitize: error paths: a bad scene (exit 3), broken textures (exit 0), a failed allocation (exit 1)"
expect_exit 3 "error: bad scene" --headless --size 64x64 --scene tests/fuzz-corpus/broken_cycle.gltf
expect_exit 0 "triangles visible" --headless --size 64x64 --frames 2 --warmup 1 \
    --scene tests/fuzz-corpus/broken_textures.gltf
SGD_FAULT=oom@1048575 expect_exit 1 "out of device memory allocating" --headless --size 64x64 --frames 2 --warmup 1

echo "== sanitize: the fuzz target replays the seed corpus and the regressions"
step=$SECONDS
tools/setup.sh fuzz
cmake --build --preset fuzz
scenes=(tests/fuzz-corpus/* tests/data/fuzz-regressions/*)
build-fuzz/fuzz-scene "${scenes[@]}" > "$out/fuzz-replay.txt" 2>&1 || {
    echo "sanitize: fuzz-scene failed on a seed or a regression" >&2
    tail -n 60 "$out/fuzz-replay.txt" >&2
    exit 1
}
grep -o 'Running [0-9]* inputs' "$out/fuzz-replay.txt"
echo "fuzz target build and replay: $((SECONDS - step)) s"
step=$SECONDS

echo "== sanitize: the demo loads each of them (exit 0, one warning per bad image, or exit 3)"
SGD_REPLAY_PRELOAD="$asan_runtime $lavapipe" tools/replay_scenes.sh build-asan/subgroup-demo "${scenes[@]}" \
    > "$out/replay.txt" 2>&1 || {
    cat "$out/replay.txt" >&2
    exit 1
}
tail -n 1 "$out/replay.txt"
echo "demo replay: $((SECONDS - step)) s"
echo "sanitizer run passed"
