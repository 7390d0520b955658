#!/usr/bin/env bash
# Runs the demo: the interactive window when there is a display, else a headless render of the
# default scene into out/ (screenshot, half-resolution mip, report) and the capability table.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
    exec build/subgroup-demo "$@"
fi
mkdir -p out
build/subgroup-demo --info
# A CPU device (lavapipe) takes seconds a frame at 1280x720: render what there is to see (the frame,
# its mip, the report) from a few frames, without the first run's measurement of the device (about
# 90 s there, docs/comparison.md "The first run"). Timings worth reading need a GPU and more frames.
frames=(--frames 20 --warmup 5)
if ! build/subgroup-demo --list-devices | grep -qv '(cpu,'; then
    frames=(--frames 2 --warmup 1 --no-tuning)
    echo "CPU Vulkan device only: 2 frames, planned by capabilities (timings say nothing about a GPU, and the"
    echo "first run's measurement takes a minute or more here; on a GPU, try --frames 200 --warmup 20)"
fi
build/subgroup-demo --headless "${frames[@]}" --screenshot out/frame.png --mip-dump out/mip.png --report out/report.json "$@"
echo "wrote out/frame.png, out/mip.png and out/report.json (no display: headless run; see README)"
