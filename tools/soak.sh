#!/usr/bin/env bash
# Soak run of the window: N frames (default 3000) under --validate, pressing every key in turn
# (passes, views, stages, pause, help, F12, camera reset), orbiting, zooming, flying and resizing;
# resident memory is read after a warm-up and at the end and may not grow by more than 1%.
# Exit 0: no growth beyond 1%, 5: validation messages, 1: growth. Uses Xvfb when there is no display.
# Usage: tools/soak.sh [frames] [extra demo options]     (prints the summary line last)
set -euo pipefail
cd "$(dirname "$0")/.."
frames="${1:-3000}"
shift || true
command=(build/subgroup-demo --validate --size 320x180 --soak-frames "$frames" "$@")
if [ -z "${DISPLAY:-}" ]; then
    command=(xvfb-run -a -s "-screen 0 1280x1024x24 -nolisten tcp" "${command[@]}")
fi
"${command[@]}" | grep -v -E '^(frame [0-9]+:|note:|animation |help |camera |swapchain: )'
