// scene-load-time: how long the loader takes on a scene file (docs/scenes.md's load-cost table).
//
//   scene-load-time [--runs N] FILE...
//
// Loads each file N times (default 7) with load_scene(), the demo's own path (file read, JSON
// checks, tinygltf, decompression, dequantization, texture decoding), and prints the median and
// the fastest wall-clock time with the scene's counts. Nothing else is timed: no Vulkan.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "scene/scene.h"

int main(int argc, char** argv) {
    int runs = 7;
    std::vector<std::string> files;
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg == "--runs" && i + 1 < argc) runs = std::max(1, std::atoi(argv[++i]));
        else files.push_back(arg);
    }
    if (files.empty()) {
        std::fprintf(stderr, "usage: %s [--runs N] FILE...\n", argv[0]);
        return 2;
    }
    for (const std::string& file : files) {
        std::vector<double> ms;
        Scene scene;
        try {
            for (int r = 0; r < runs; ++r) {
                auto start = std::chrono::steady_clock::now();
                scene = load_scene(file);
                ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
            }
        } catch (const SceneError& e) {
            std::printf("%s: error: %s\n", file.c_str(), e.what());
            continue;
        }
        std::sort(ms.begin(), ms.end());
        std::printf("%s: median %.1f ms, fastest %.1f ms over %d runs; %llu triangles, %zu vertices, %zu textures, %zu warnings\n",
                    file.c_str(), ms[ms.size() / 2], ms[0], runs, (unsigned long long)scene.triangle_count(),
                    scene.vertices.size(), scene.textures.size(), scene.warnings.size());
    }
    return 0;
}
