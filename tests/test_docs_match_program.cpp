// README and docs/ against the program they describe: the option table against --help, the key
// tables against the window's key table. Each test reads the markdown from the source tree and
// names what one side has and the other lacks, so a new option or key without its docs (or docs
// of one that is gone) fails here. (Report keys named in the docs are checked against a real
// report by the GPU test DocsMatchReport; tools/ scripts named in the docs by Tools.ReferencedFilesExist.)
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "window/hud.h"
#include "run/options.h"
#include "passes/pass_table.h"

namespace {

std::string read_doc(const std::string& relative) {
    std::ifstream file(std::string(SGD_SOURCE_DIR) + "/" + relative);
    EXPECT_TRUE(file) << "cannot read " << relative;
    std::stringstream text;
    text << file.rdbuf();
    return text.str();
}

// The rows of the markdown table whose header row starts with `| first_header |`: each row's
// first cell and the whole row.
struct Row {
    std::string first, line;
};
std::vector<Row> table(const std::string& text, const std::string& first_header) {
    std::istringstream lines(text);
    std::vector<Row> rows;
    bool inside = false;
    for (std::string line; std::getline(lines, line);) {
        if (!inside) {
            inside = line.rfind("| " + first_header + " |", 0) == 0;
            if (inside) std::getline(lines, line);  // the |---| row
            continue;
        }
        if (line.rfind("|", 0) != 0) break;
        size_t end = line.find(" | ", 2);
        rows.push_back({line.substr(2, end == std::string::npos ? std::string::npos : end - 2), line});
    }
    EXPECT_FALSE(rows.empty()) << "no table headed '" << first_header << "'";
    return rows;
}

std::set<std::string> matches(const std::string& text, const std::regex& pattern, int group = 0) {
    std::set<std::string> found;
    for (std::sregex_iterator it(text.begin(), text.end(), pattern), end; it != end; ++it) found.insert((*it)[group]);
    return found;
}

std::string missing_from(const std::set<std::string>& have, const std::set<std::string>& need) {
    std::string list;
    for (const std::string& n : need)
        if (!have.count(n)) list += (list.empty() ? "" : ", ") + n;
    return list;
}

// The modes: README shows them as commands ("Running it"), not as rows of the option table.
const std::set<std::string> kModes = {"--headless", "--info", "--compare", "--out", "--atlas", "--list-devices",
                                      "--help", "--version"};

}  // namespace

TEST(DocsMatchProgram, ReadmeOptionTableIsHelpsOptions) {
    std::string readme = read_doc("README.md");
    std::set<std::string> in_table;
    for (const Row& row : table(readme, "option"))
        for (const std::string& o : matches(row.first, std::regex("--[a-z][a-z-]*"))) in_table.insert(o);
    std::set<std::string> in_help, options;
    for (const std::string& o : known_options()) (kModes.count(o) ? in_help : options).insert(o);
    EXPECT_EQ(missing_from(in_table, options), "") << "in --help, not in README's option table";
    std::set<std::string> all(options);
    all.insert(in_help.begin(), in_help.end());
    EXPECT_EQ(missing_from(all, in_table), "") << "in README's option table, not in --help";
    for (const std::string& mode : in_help)
        EXPECT_TRUE(readme.find("subgroup-demo " + mode) != std::string::npos ||
                    std::regex_search(readme, std::regex("subgroup-demo .*# .*" + mode + "\\b")))
            << mode << ": no README command shows it";
}

// A pass option's row lists exactly the requests the pass offers (`--mip`: auto, subgroup, forward, ...).
TEST(DocsMatchProgram, ReadmePassRowsListTheOfferedVariants) {
    for (const Row& row : table(read_doc("README.md"), "option")) {
        std::set<std::string> names = matches(row.first, std::regex("--([a-z][a-z-]*)"), 1);
        std::set<std::string> listed = matches(row.line.substr(row.first.size()),
                                               std::regex("`(auto|subgroup|forward|fallback|off)`"), 1);
        for (const PassInfo& pass : kPasses) {
            if (!names.count(std::string(pass.name))) continue;
            std::set<std::string> offered;
            for (Request r : {Request::automatic, Request::subgroup, Request::forward, Request::fallback, Request::off})
                if (offers(pass, r)) offered.insert(std::string(request_name(r)));
            EXPECT_EQ(listed, offered) << "README's row for --" << pass.name;
        }
    }
}

// The window's keys: each pass's key (the pass table) and the others (the HUD's key help, the
// table press() dispatches). Keys are letters, digits, F-keys, Space and Esc; mouse controls are
// words and not compared.
std::set<std::string> window_keys() {
    std::set<std::string> keys;
    for (const PassInfo& pass : kPasses) keys.insert(std::string(1, char(pass.window_key)));
    std::regex key("^([A-Z0-9]|F[0-9]+|Space|Esc)$");
    for (const KeyHelp& help : key_help()) {
        std::string text = std::regex_replace(help.keys, std::regex("\\(.*\\)"), "");
        std::istringstream words(std::regex_replace(text, std::regex("/"), " "));
        for (std::string w; words >> w;)
            if (std::regex_match(w, key)) keys.insert(w);
    }
    return keys;
}

std::set<std::string> documented_keys(const std::string& doc, const std::string& header) {
    std::set<std::string> keys;
    for (const Row& row : table(read_doc(doc), header))
        for (const std::string& k : matches(row.first, std::regex("`(Shift\\+)?([A-Z0-9]|F[0-9]+|Space|Esc)`"), 2))
            keys.insert(k);
    return keys;
}

TEST(DocsMatchProgram, KeyTablesAreTheWindowsKeys) {
    std::set<std::string> code = window_keys();
    ASSERT_TRUE(code.count("6")) << "the oracle itself: six passes, keys 1-6";
    for (auto [doc, header] : {std::pair{"README.md", "key"}, std::pair{"docs/controls.md", "key"}}) {
        std::set<std::string> documented = documented_keys(doc, header);
        EXPECT_EQ(missing_from(documented, code), "") << "window keys missing from " << doc;
        EXPECT_EQ(missing_from(code, documented), "") << "keys in " << doc << " that the window does not have";
    }
}

// Each pass key's row names its pass, so a renumbered table cannot pass with the wrong pass.
TEST(DocsMatchProgram, ControlsRowOfEachPassKeyNamesThePass) {
    std::vector<Row> rows = table(read_doc("docs/controls.md"), "key");
    for (const PassInfo& pass : kPasses) {
        std::string key = "`" + std::string(1, char(pass.window_key)) + "`";
        auto row = std::find_if(rows.begin(), rows.end(), [&](const Row& r) { return r.first.find(key) != std::string::npos; });
        ASSERT_NE(row, rows.end()) << key;
        EXPECT_NE(row->line.find(std::string(pass.name)), std::string::npos) << row->line;
    }
}
