// Report keys the README and docs/ name (`counters.light_list_overflow`, `plan.view`, ...) against
// a real report of this build: a key the docs name and the report lacks is drift. Keys are the
// backticked dotted paths whose first part is a top-level key of the headless report; a path is
// there when each part exists, or a part on the way is null (nothing of it in this run, e.g.
// `counters.ray_trace` without ray tracing). --compare's own keys (`ratios`, `runs`) are not
// checked here: that report takes minutes on lavapipe.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "gpu/harness.h"

namespace {

// Dotted tokens in the docs that are not report keys although they start like one.
const std::map<std::string, std::string> kNotReportKeys = {
    {"frame.tiles.z", "a shader's FrameUniforms member (light-lists.md)"},
    {"plan.tint", "architecture.md's example of adding a pass"},
    {"timings_ms.tint", "architecture.md's example of adding a pass"},
    {"renderer.passes.tint", "architecture.md's example of adding a pass"},
};

bool has_path(const nlohmann::json& report, const std::string& path) {
    const nlohmann::json* at = &report;
    std::istringstream parts(path);
    for (std::string part; std::getline(parts, part, '.');) {
        if (at->is_null()) return true;
        if (!at->is_object() || !at->contains(part)) return false;
        at = &(*at)[part];
    }
    return true;
}

}  // namespace

TEST(DocsMatchReport, EveryReportKeyTheDocsNameIsInAReport) {
    REQUIRE_DRAWING();
    std::string dir = test_dir("docs-report");
    // The active-lanes view and the mip dump add the keys only they write.
    DemoRun run = run_demo({"--headless", "--size", "64x32", "--frames", "1", "--warmup", "0", "--view", "active-lanes",
                            "--view-stage", "compute", "--mip-dump", dir + "/mip.png", "--report", dir + "/r.json"});
    ASSERT_EQ(run.exit_code, 0) << run.output;
    nlohmann::json report = read_json(dir + "/r.json");
    ASSERT_TRUE(report.is_object());

    std::vector<std::string> docs = {std::string(SGD_SOURCE_DIR) + "/README.md"};
    for (const auto& entry : std::filesystem::directory_iterator(std::string(SGD_SOURCE_DIR) + "/docs"))
        if (entry.path().extension() == ".md") docs.push_back(entry.path().string());
    std::regex token("`([a-z_]+)((\\.[a-z_]+)+)`");
    std::regex file_name("\\.(png|json|md|svg|h|cpp|glsl|vert|frag|comp|geom|tesc|tese|task|mesh|gltf|glb)$");  // `frame.png`
    int checked = 0;
    for (const std::string& doc : docs) {
        std::ifstream file(doc);
        std::stringstream text;
        text << file.rdbuf();
        std::string s = text.str();
        for (std::sregex_iterator it(s.begin(), s.end(), token), end; it != end; ++it) {
            std::string top = (*it)[1], path = top + std::string((*it)[2]);
            if (!report.contains(top) || kNotReportKeys.count(path) || std::regex_search(path, file_name)) continue;
            ++checked;
            EXPECT_TRUE(has_path(report, path)) << std::filesystem::path(doc).filename().string() << " names `" << path
                                                << "`, which the report does not have";
        }
    }
    EXPECT_GT(checked, 10) << "the docs name report keys; the scan found too few";
}
