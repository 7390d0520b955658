// docs/ describes the software as it is: the project's own issue and pull-request numbers belong
// to its history (git keeps it), not to the pages. benchmarks.md, the record of what was measured
// when, is the one page that may name them. A reference to another project's tracker names that
// project (owner/name#N), so it reads the same wherever the page is.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>
#include <vector>

namespace {

// Every place in `text` that names an issue or pull request of this project, as "line N: match".
std::string own_issue_numbers(const std::string& text) {
    // "#61" not attached to an owner/name; "issue 64", "Issues 34 and 40", "PR 12", "pull request #3".
    static const std::regex hash(R"(([\w./-]*)#(\d+))");
    static const std::regex words(R"(\b([Ii]ssues?|PRs?|[Pp]ull requests?) #?\d+)");
    std::string found;
    auto note = [&](size_t at, const std::string& what) {
        found += "  line " + std::to_string(1 + std::count(text.begin(), text.begin() + long(at), '\n')) + ": " + what + "\n";
    };
    for (std::sregex_iterator it(text.begin(), text.end(), hash), end; it != end; ++it)
        if ((*it)[1].str().find('/') == std::string::npos) note(size_t(it->position()), it->str());
    for (std::sregex_iterator it(text.begin(), text.end(), words), end; it != end; ++it) note(size_t(it->position()), it->str());
    return found;
}

}  // namespace

TEST(DocsDescribeTheSoftware, TheOracleFindsIssueNumbers) {
    EXPECT_NE(own_issue_numbers("the frame graph (#61) derives"), "");
    EXPECT_NE(own_issue_numbers("Issues 34 and 40. After the depth pre-pass"), "");
    EXPECT_NE(own_issue_numbers("as issue 64 asked"), "");
    EXPECT_NE(own_issue_numbers("merged in PR #12"), "");
    EXPECT_EQ(own_issue_numbers("reported upstream (nothings/stb#1291), fixed by KhronosGroup/Vulkan-ValidationLayers#5321"), "");
    EXPECT_EQ(own_issue_numbers("[the table](benchmarks.md#the-default-frame) and # 3 headings"), "");
}

TEST(DocsDescribeTheSoftware, NoIssueNumbersOutsideBenchmarks) {
    std::filesystem::path root(SGD_SOURCE_DIR);
    std::vector<std::filesystem::path> pages = {root / "README.md"};
    for (const auto& entry : std::filesystem::directory_iterator(root / "docs"))
        if (entry.path().extension() == ".md" && entry.path().filename() != "benchmarks.md") pages.push_back(entry.path());
    ASSERT_GT(pages.size(), 10u) << "docs/ not found under " << root;
    for (const auto& page : pages) {
        std::ifstream file(page);
        ASSERT_TRUE(file) << page;
        std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
        EXPECT_EQ(own_issue_numbers(text), "") << page.filename() << " names the project's issues:";
    }
}
