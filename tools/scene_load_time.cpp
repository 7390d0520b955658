// scene-load-time: how long the loader takes on a scene file (docs/scenes.md's load-cost table).
//
//   scene-load-time [--runs N] [--lod] [--mips] FILE...
//
// Loads each file N times (default 7) with load_scene(), the demo's own path (file read, JSON
// checks, tinygltf, decompression, dequantization, texture decoding), and prints the median and
// the fastest wall-clock time with the scene's counts. With --lod each run also builds the LOD
// chain (build_lod_chain, as the demo does at start-up, docs/lod.md), timed apart as well; with
// --mips every texture's mip chain (build_mip_chain, as the upload does, scene/texture_mips.h).
// Nothing else is timed: no Vulkan (the upload itself is the report's scene.texture_ms).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "scene/lod.h"
#include "scene/scene.h"
#include "scene/texture_mips.h"

int main(int argc, char** argv) {
    int runs = 7;
    bool lod = false, mips = false;
    std::vector<std::string> files;
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg == "--runs" && i + 1 < argc) runs = std::max(1, std::atoi(argv[++i]));
        else if (arg == "--lod") lod = true;
        else if (arg == "--mips") mips = true;
        else files.push_back(arg);
    }
    if (files.empty()) {
        std::fprintf(stderr, "usage: %s [--runs N] [--lod] [--mips] FILE...\n", argv[0]);
        return 2;
    }
    for (const std::string& file : files) {
        std::vector<double> ms, lod_ms, mip_ms;
        uint64_t mip_bytes = 0;
        Scene scene;
        auto since = [](auto start) { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count(); };
        try {
            for (int r = 0; r < runs; ++r) {
                auto start = std::chrono::steady_clock::now();
                scene = load_scene(file);
                auto lod_start = std::chrono::steady_clock::now();
                if (lod) build_lod_chain(scene), lod_ms.push_back(since(lod_start));
                auto mip_start = std::chrono::steady_clock::now();
                if (mips) {
                    mip_bytes = 0;
                    for (const Texture& t : scene.textures) mip_bytes += build_mip_chain(t).rgba.size();
                    mip_ms.push_back(since(mip_start));
                }
                ms.push_back(since(start));
            }
        } catch (const SceneError& e) {
            std::printf("%s: error: %s\n", file.c_str(), e.what());
            continue;
        }
        std::sort(ms.begin(), ms.end());
        std::sort(lod_ms.begin(), lod_ms.end());
        std::sort(mip_ms.begin(), mip_ms.end());
        if (mips)
            std::printf("%s: mip chains of %zu textures (%.1f MiB with their mips) alone: median %.1f ms, fastest %.1f ms; "
                        "the load below includes them\n",
                        file.c_str(), scene.textures.size(), double(mip_bytes) / (1 << 20), mip_ms[mip_ms.size() / 2], mip_ms[0]);
        if (lod)
            std::printf("%s: LOD chain alone: median %.1f ms, fastest %.1f ms; the load below includes it\n", file.c_str(),
                        lod_ms[lod_ms.size() / 2], lod_ms[0]);
        std::printf("%s: median %.1f ms, fastest %.1f ms over %d runs; %llu triangles, %zu vertices, %zu textures, %zu warnings\n",
                    file.c_str(), ms[ms.size() / 2], ms[0], runs, (unsigned long long)scene.triangle_count(),
                    scene.vertices.size(), scene.textures.size(), scene.warnings.size());
    }
    return 0;
}
