#include "gpu/street.h"

#include <gtest/gtest.h>

#include <cstdio>

#include "app/run.h"
#include "run/options.h"

const Scene& street_grid() {
    static const Scene grid = [] {
        Options options;
        options.instances = 2;
        return load_requested_scene(options);
    }();
    return grid;
}

Camera step_down_the_street(Camera c, float fraction) {
    const glm::vec3 forward = glm::normalize(c.target - c.position);
    const glm::vec3 right = glm::normalize(glm::cross(forward, glm::vec3(0.0f, 1.0f, 0.0f)));
    const glm::vec3 step = fraction * glm::length(c.target - c.position) * (right + 0.5f * forward);
    c.position += step;
    c.target += step;
    return c;
}

StreetWords expect_street_words_of_one_rasterization(const Context& ctx, Renderer& occluded, Renderer& reference, uint32_t frames,
                                                     const char* what, const std::function<uint32_t(Renderer&)>& late,
                                                     const std::function<void(uint32_t, uint32_t)>& each_frame) {
    const Scene& grid = street_grid();
    const VkExtent2D size = occluded.extent();
    Camera view = camera_for(CameraView::street, grid.bounds_min, grid.bounds_max, grid.grid);
    StreetWords result;
    std::string first;
    for (uint32_t i = 0; i < frames; ++i) {
        for (Renderer* r : {&occluded, &reference}) {
            VkCommandBuffer cmd = begin_one_shot(ctx);
            r->record(cmd, 0, i, view);
            end_one_shot(ctx, cmd);
        }
        std::vector<uint64_t> words = occluded.read_raster_words(), expected = reference.read_raster_words();
        if (words.size() != size_t(size.width) * size.height || expected.size() != words.size()) {
            ADD_FAILURE() << "frame " << i << ": " << words.size() << " and " << expected.size() << " words for "
                          << size.width << "x" << size.height << " pixels";
            return result;
        }
        uint32_t readmitted = late(occluded);
        result.with_late += readmitted > 0;
        result.readmitted += readmitted;
        if (each_frame) each_frame(i, readmitted);
        int differ = 0, covered = 0;
        for (size_t p = 0; p < words.size(); ++p) {
            covered += words[p] != 0;
            differ += words[p] != expected[p];
        }
        EXPECT_GT(covered, int(words.size() / 4)) << "frame " << i;
        if (differ == 0) ++result.identical;
        else if (first.empty())
            first = "frame " + std::to_string(i) + " (" + std::to_string(readmitted) + " " + what + " re-admitted): " +
                    std::to_string(differ) + " words differ";
        view = step_down_the_street(view, 0.012f);
    }
    EXPECT_EQ(result.identical, frames) << first;
    EXPECT_GE(result.with_late, 3u) << "too few frames re-admitted " << what << ": the late phase's words were hardly tested";
    return result;
}
