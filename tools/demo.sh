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
build/subgroup-demo --headless --frames 20 --warmup 5 --screenshot out/frame.png --mip-dump out/mip.png --report out/report.json "$@"
echo "wrote out/frame.png, out/mip.png and out/report.json (no display: headless run; see README)"
