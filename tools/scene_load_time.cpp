// scene-load-time: how long the loader takes on a scene file (docs/scenes.md's load-cost table).
//
//   scene-load-time [--runs N] [--lod] FILE...
//
// Loads each file N times (default 7) with load_scene(), the demo's own path (file read, JSON
// checks, tinygltf, decompression, dequantization, texture decoding), and prints the median and
// the fastest wall-clock time with the scene's counts. With --lod each run also builds the LOD
// chain (build_lod_chain, as the demo does at start-up, docs/lod.md), timed apart as well.
// Nothing else is timed: no Vulkan.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "scene/lod.h"
#include "scene/scene.h"

int main(int argc, char** argv) {
    int runs = 7;
    bool lod = false;
    std::vector<std::string> files;
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg == "--runs" && i + 1 < argc) runs = std::max(1, std::atoi(argv[++i]));
        else if (arg == "--lod") lod = true;
        else files.push_back(arg);
    }
    if (files.empty()) {
        std::fprintf(stderr, "usage: %s [--runs N] [--lod] FILE...\n", argv[0]);
        return 2;
    }
    for (const std::string& file : files) {
        std::vector<double> ms, lod_ms;
        Scene scene;
        auto since = [](auto start) { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count(); };
        try {
            for (int r = 0; r < runs; ++r) {
                auto start = std::chrono::steady_clock::now();
                scene = load_scene(file);
                auto lod_start = std::chrono::steady_clock::now();
                if (lod) build_lod_chain(scene), lod_ms.push_back(since(lod_start));
                ms.push_back(since(start));
            }
        } catch (const SceneError& e) {
            std::printf("%s: error: %s\n", file.c_str(), e.what());
            continue;
        }
        std::sort(ms.begin(), ms.end());
        std::sort(lod_ms.begin(), lod_ms.end());
        if (lod)
            std::printf("%s: LOD chain alone: median %.1f ms, fastest %.1f ms; the load below includes it\n", file.c_str(),
                        lod_ms[lod_ms.size() / 2], lod_ms[0]);
        std::printf("%s: median %.1f ms, fastest %.1f ms over %d runs; %llu triangles, %zu vertices, %zu textures, %zu warnings\n",
                    file.c_str(), ms[ms.size() / 2], ms[0], runs, (unsigned long long)scene.triangle_count(),
                    scene.vertices.size(), scene.textures.size(), scene.warnings.size());
    }
    return 0;
}
