#!/usr/bin/env bash
# Installs the Debian packages subgroup-demo needs, if any are missing, then configures the build.
# Usage: tools/setup.sh [cmake-preset]   (default preset: "default", Release, in build/;
#        "sanitize": ASan+UBSan in build-asan/; "fuzz": clang + libFuzzer in build-fuzz/)
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake ninja-build g++ pkg-config
          libvulkan-dev glslc spirv-tools vulkan-validationlayers vulkan-tools mesa-vulkan-drivers
          libglfw3-dev libglm-dev libstb-dev libtinygltf-dev nlohmann-json3-dev libgtest-dev
          xvfb xdotool xauth python3)
# The libFuzzer target (preset `fuzz`, docs/robustness.md) needs clang and its runtime libraries.
if [ "${1:-default}" = fuzz ]; then
    packages+=(clang libclang-rt-14-dev)
fi
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing: ${missing[*]}"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
cmake --preset "${1:-default}" >/dev/null
