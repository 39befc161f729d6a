// The layers of ../shared/DESIGN.md ("Architecture"), checked on every build: each `#include "loom/X/..."` in
// include/loom/<folder>/ and src/<folder>/, and each loom_<target> a folder's CMakeLists links, must be a
// folder that the table (plus the changes recorded in src/README.md) lets that folder use.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

struct Layer {
    int level = 0;
    std::set<std::string> uses;
};
using Table = std::map<std::string, Layer>;

std::string read(const fs::path& p) {
    std::ifstream f(p);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

// shared/DESIGN.md sits beside the checkout (CI, a clone) or beside one of its parents (a worktree).
fs::path design_md() {
    for (fs::path d = fs::path(LOOM_SOURCE_DIR); !d.empty(); d = d.parent_path()) {
        if (fs::exists(d / "shared" / "DESIGN.md")) return d / "shared" / "DESIGN.md";
        if (fs::exists(d.parent_path() / "shared" / "DESIGN.md")) return d.parent_path() / "shared" / "DESIGN.md";
        if (d == d.parent_path()) break;
    }
    return {};
}

std::string trim(std::string s) {
    s.erase(0, s.find_first_not_of(" \t"));
    s.erase(s.find_last_not_of(" \t") + 1);
    return s;
}

// "| 2 | `sim/` | what | base, stats, config, spdlog |" rows; "everything above" = every lower layer.
Table parse_design(const std::string& text) {
    Table t;
    std::map<std::string, std::string> raw;
    const std::regex row(R"(^\| (\d) \| `(?:src/)?([a-z_]+)/` \|.*\| ([^|]+) \|\s*$)");
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        std::smatch m;
        if (!std::regex_match(line, m, row)) continue;
        t[m[2]].level = std::stoi(m[1]);
        raw[m[2]] = m[3];
    }
    for (auto& [folder, uses] : raw) {
        if (uses.find("everything above") != std::string::npos) {
            for (const auto& [other, layer] : t)
                if (layer.level < t[folder].level) t[folder].uses.insert(other);
            continue;
        }
        std::istringstream parts(uses);
        for (std::string part; std::getline(parts, part, ',');)
            if (t.count(trim(part))) t[folder].uses.insert(trim(part));
    }
    return t;
}

// src/README.md records deliberate changes as "**`phold/` (layer 5, uses base, stats, config, sim).**".
void apply_changes(const std::string& text, Table& t) {
    const std::regex change(R"(\*\*`([a-z_]+)/` \(layer (\d), uses ([a-z_, ]+)\))");
    for (auto it = std::sregex_iterator(text.begin(), text.end(), change); it != std::sregex_iterator(); ++it) {
        Layer l;
        l.level = std::stoi((*it)[2]);
        std::istringstream parts((*it)[3].str());
        for (std::string part; std::getline(parts, part, ',');) l.uses.insert(trim(part));
        t[(*it)[1]] = l;
    }
    // Everything-above rows take in folders added by changes on lower layers.
    for (auto& [folder, layer] : t)
        if (folder == "scenario")
            for (const auto& [other, o] : t)
                if (o.level < layer.level) layer.uses.insert(other);
}

Table table() {
    const fs::path design = design_md();
    INFO("shared/DESIGN.md not found beside " << LOOM_SOURCE_DIR);
    REQUIRE(!design.empty());
    Table t = parse_design(read(design));
    apply_changes(read(fs::path(LOOM_SOURCE_DIR) / "src" / "README.md"), t);
    return t;
}

// The folder a file belongs to for the rules: ananta/paxos/ is its own (pure, base only).
std::string owner(const fs::path& rel) {
    auto it = rel.begin();
    std::string first = it->string();
    if (first == "ananta" && std::next(it) != rel.end() && std::next(it)->string() == "paxos") return "paxos";
    return first;
}

std::set<std::string> allowed(const Table& t, const std::string& folder) {
    if (folder == "paxos") return {"base", "paxos"};
    std::set<std::string> ok = t.at(folder).uses;
    ok.insert(folder);
    return ok;
}

}  // namespace

TEST_CASE("The layer table of DESIGN.md is found and names every folder of src") {
    const Table t = table();
    for (const char* f : {"base", "stats", "config", "sim", "topo", "workload", "net", "sched", "fabric", "tsp",
                          "ananta", "scenario", "cli"})
        CHECK(t.count(f) == 1);
    CHECK(t.at("sim").uses == std::set<std::string>{"base", "stats", "config"});
    CHECK(t.at("scenario").uses.count("tsp") == 1);
    for (const auto& d : fs::directory_iterator(fs::path(LOOM_SOURCE_DIR) / "src"))
        if (d.is_directory()) CHECK(t.count(d.path().filename().string()) == 1);
}

TEST_CASE("No include crosses the layers") {
    const Table t = table();
    const std::regex inc(R"(#\s*include\s*[<"]loom/([a-z_]+)/([a-z_]+/)?)");
    std::vector<std::string> bad;
    for (const char* root : {"include/loom", "src"}) {
        const fs::path base = fs::path(LOOM_SOURCE_DIR) / root;
        for (const auto& e : fs::recursive_directory_iterator(base)) {
            const std::string ext = e.path().extension().string();
            if (!e.is_regular_file() || (ext != ".hpp" && ext != ".cpp" && ext != ".h")) continue;
            const fs::path rel = fs::relative(e.path(), base);
            if (std::distance(rel.begin(), rel.end()) < 2) continue;
            const std::string folder = owner(rel);
            if (!t.count(folder) && folder != "paxos") continue;
            const auto ok = allowed(t, folder);
            const std::string text = read(e.path());
            for (auto it = std::sregex_iterator(text.begin(), text.end(), inc); it != std::sregex_iterator(); ++it) {
                std::string used = (*it)[1];
                if (used == "ananta" && (*it)[2] == "paxos/") used = "paxos";
                if (folder == "ananta" && used == "paxos") continue;  // ananta's own pure core
                if (!ok.count(used)) bad.push_back(rel.string() + " includes loom/" + (*it)[1].str() + "/");
            }
        }
    }
    std::string list;
    for (const auto& b : bad) list += "  " + b + "\n";
    INFO("layer crossings (shared/DESIGN.md, Architecture):\n" << list);
    CHECK(bad.empty());
}

TEST_CASE("Each subsystem's CMake target links only the layers below it") {
    const Table t = table();
    const std::regex target(R"(\bloom_([a-z_]+)\b)");
    std::vector<std::string> bad;
    const fs::path src = fs::path(LOOM_SOURCE_DIR) / "src";
    for (const auto& e : fs::recursive_directory_iterator(src)) {
        if (!e.is_regular_file() || e.path().filename() != "CMakeLists.txt") continue;
        const fs::path rel = fs::relative(e.path(), src);
        const std::string folder = owner(rel);
        if (!t.count(folder) && folder != "paxos") continue;
        const auto ok = allowed(t, folder);
        const std::string text = read(e.path());
        for (auto it = std::sregex_iterator(text.begin(), text.end(), target); it != std::sregex_iterator(); ++it) {
            const std::string used = (*it)[1];
            if (used == "warnings" || used == "subsystem" || used == folder) continue;
            if (folder == "ananta" && used == "paxos") continue;
            if (!t.count(used) && used != "paxos") continue;  // not a subsystem target
            if (!ok.count(used)) bad.push_back(rel.string() + " links loom_" + used);
        }
    }
    std::string list;
    for (const auto& b : bad) list += "  " + b + "\n";
    INFO("targets linking across the layers:\n" << list);
    CHECK(bad.empty());
}
