#!/usr/bin/env bash
# Installs the Debian packages subgroup-demo needs, if any are missing, then configures the build.
# Usage: tools/setup.sh [cmake-preset]   (default preset: "default", Release, in build/;
#        "sanitize": ASan+UBSan in build-asan/; "fuzz": clang + libFuzzer in build-fuzz/)
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake ninja-build g++ pkg-config
          libvulkan-dev glslc spirv-tools vulkan-validationlayers vulkan-tools mesa-vulkan-drivers
          libglfw3-dev libglm-dev libstb-dev libtinygltf-dev nlohmann-json3-dev libgtest-dev
          libjpeg62-turbo-dev libpng-dev libmeshoptimizer-dev libdraco-dev libwebp-dev
          xvfb xdotool xauth python3)
# The libFuzzer target (preset `fuzz`, docs/robustness.md) needs clang and its runtime libraries.
# (Regenerating its seeds, tools/make_fuzz_corpus.py, also needs python3-pil and libjpeg-turbo-progs.)
if [ "${1:-default}" = fuzz ]; then
    packages+=(clang libclang-rt-14-dev)
fi
# Mesa 25 from Debian 12's backports: its lavapipe has mesh shaders (subgroups in task and mesh)
# and ray-tracing pipelines, so CI runs the meshlet path and the ray-tracing fallback. On another
# system the distribution's lavapipe is used; the mesh and ray-tracing tests then skip with a
# listed reason (docs/testing.md).
backports=""
if grep -q 'VERSION_CODENAME=bookworm' /etc/os-release 2>/dev/null; then
    backports=bookworm-backports
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
if [ -n "$backports" ] && ! dpkg-query -W -f='${Version}' mesa-vulkan-drivers 2>/dev/null | grep -q '^25'; then
    echo "installing: mesa-vulkan-drivers from $backports (Mesa 25 lavapipe)"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    list=/etc/apt/sources.list.d/$backports.list
    if [ ! -f "$list" ]; then
        mirror=$(tools/bookworm_mirror.sh)
        if [ -z "$mirror" ]; then
            echo "error: no 'bookworm' entry in /etc/apt/sources.list{,.d} to take the backports mirror from;" \
                 "add 'deb MIRROR $backports main' to $list" >&2
            exit 1
        fi
        echo "deb $mirror $backports main" | $sudo tee "$list" >/dev/null
    fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
        -t "$backports" mesa-vulkan-drivers >/dev/null
fi
cmake --preset "${1:-default}" >/dev/null
