// Pinned results (tests/golden/): each case of tests/golden/cases.json runs the real `loom` twice, in two
// processes; the two stats.json must be byte-identical (determinism across processes) and the kept counters
// must equal tests/golden/<name>.json. With LOOM_UPDATE_GOLDENS=1 the golden files are rewritten instead
// (tools/update-goldens.sh) and the changed keys are printed, for the commit message.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace fs = std::filesystem;
using Json = nlohmann::json;

namespace {

std::string read(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

// Runs `loom ARGS --quiet --out DIR` from the source folder; returns the exit code, output kept for messages.
int run_loom(const std::string& args, const fs::path& out, std::string& output) {
    const std::string cmd = std::string("cd '") + LOOM_SOURCE_DIR + "' && '" + LOOM_EXE + "' " + args +
                            " --quiet --out '" + out.string() + "' 2>&1";
    FILE* p = popen(cmd.c_str(), "r");
    if (p == nullptr) return -1;
    char buf[4096];
    std::size_t n;
    output.clear();
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) output.append(buf, n);
    const int status = pclose(p);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Every leaf under `node` as pointer → value (arrays by index).
void flatten(const Json& node, const std::string& at, Json& into) {
    if (node.is_object()) {
        for (const auto& [k, v] : node.items()) flatten(v, at + "/" + k, into);
    } else if (node.is_array()) {
        for (std::size_t i = 0; i < node.size(); ++i) flatten(node[i], at + "/" + std::to_string(i), into);
    } else {
        into[at] = node;
    }
}

// The members of `doc` that `pattern` names ('*' matches any one member), flattened into `into`.
void keep(const Json& doc, const std::vector<std::string>& parts, std::size_t i, const std::string& at, Json& into) {
    if (i == parts.size()) {
        flatten(doc, at, into);
        return;
    }
    if (parts[i] == "*") {
        if (doc.is_object())
            for (const auto& [k, v] : doc.items()) keep(v, parts, i + 1, at + "/" + k, into);
        return;
    }
    if (doc.is_object() && doc.contains(parts[i])) keep(doc.at(parts[i]), parts, i + 1, at + "/" + parts[i], into);
}

Json extract(const Json& doc, const Json& patterns) {
    Json out = Json::object();
    for (const auto& p : patterns) {
        std::vector<std::string> parts;
        std::stringstream s(p.get<std::string>().substr(1));
        for (std::string part; std::getline(s, part, '/');) parts.push_back(part);
        keep(doc, parts, 0, "", out);
    }
    return out;
}

// One line per key that differs: "changed /k: golden → now", "added", "removed".
std::vector<std::string> differences(const Json& golden, const Json& now) {
    std::vector<std::string> lines;
    for (const auto& [k, v] : golden.items()) {
        if (!now.contains(k))
            lines.push_back("removed " + k + " (golden " + v.dump() + ")");
        else if (now.at(k) != v)
            lines.push_back("changed " + k + ": golden " + v.dump() + " -> now " + now.at(k).dump());
    }
    for (const auto& [k, v] : now.items())
        if (!golden.contains(k)) lines.push_back("added " + k + " = " + v.dump());
    return lines;
}

void check_case(const Json& c) {
    const std::string name = c.at("name");
    // Per process: two checkouts (or two ctest runs) on one machine never share a scratch folder.
    const fs::path dir = fs::temp_directory_path() / ("loom-golden-" + std::to_string(::getpid()) + "-" + name);
    fs::remove_all(dir);
    std::string output;
    for (const char* run : {"a", "b"}) {
        const int code = run_loom(c.at("args"), dir / run, output);
        INFO("loom " << c.at("args").get<std::string>() << "\n" << output);
        REQUIRE(code == 0);
    }
    const std::string a = read(dir / "a" / "stats.json"), b = read(dir / "b" / "stats.json");
    REQUIRE(!a.empty());
    CHECK(a == b);  // two processes, one config and seed: byte-identical
    const Json now = extract(Json::parse(a), c.at("keep"));
    REQUIRE(!now.empty());
    const fs::path golden_path = fs::path(LOOM_SOURCE_DIR) / "tests" / "golden" / (name + ".json");
    const char* update = std::getenv("LOOM_UPDATE_GOLDENS");
    const Json golden = fs::exists(golden_path) ? Json::parse(read(golden_path)) : Json::object();
    const auto diff = differences(golden, now);
    if (update != nullptr && std::string(update) == "1") {
        std::ofstream(golden_path, std::ios::binary) << now.dump(1) << "\n";
        std::cout << name << ": " << (diff.empty() ? "unchanged" : std::to_string(diff.size()) + " keys changed")
                  << "\n";
        for (const auto& l : diff) std::cout << "  " << l << "\n";
        fs::remove_all(dir);
        return;
    }
    std::string report;
    for (const auto& l : diff) report += "  " + l + "\n";
    INFO(name << " differs from " << golden_path.string()
              << " (if intended: tools/update-goldens.sh, and list the keys in the commit):\n"
              << report);
    CHECK(diff.empty());
    fs::remove_all(dir);
}

Json cases() {
    return Json::parse(read(fs::path(LOOM_SOURCE_DIR) / "tests" / "golden" / "cases.json")).at("cases");
}

const Json& find_case(const std::string& name) {
    static const Json all = cases();
    for (const auto& c : all)
        if (c.at("name") == name) return c;
    FAIL("no golden case " << name);
    return all;
}

}  // namespace

TEST_CASE("Every golden case in cases.json has a test and a golden file") {
    const std::vector<std::string> tested = {"schedule-node",         "schedule-264",          "allreduce-264",
                                             "alltoall-264",          "compare-node",          "dragonfly-1056-ur",
                                             "ananta-large-ci",       "ananta-mux-failure-ci", "ananta-fastpath-ci",
                                             "ananta-snat-latency-ci"};
    const Json all = cases();
    CHECK(all.size() == tested.size());
    for (const auto& c : all) {
        CHECK(std::find(tested.begin(), tested.end(), c.at("name").get<std::string>()) != tested.end());
        if (std::getenv("LOOM_UPDATE_GOLDENS") == nullptr)
            CHECK(fs::exists(fs::path(LOOM_SOURCE_DIR) / "tests" / "golden" / (c.at("name").get<std::string>() + ".json")));
    }
}

TEST_CASE("Golden schedule-node: the 8-TSP schedule's counters are pinned") { check_case(find_case("schedule-node")); }
TEST_CASE("Golden schedule-264: the 264-TSP schedule's counters are pinned") { check_case(find_case("schedule-264")); }
TEST_CASE("Golden allreduce-264: the 264-TSP all-reduce's counters are pinned") { check_case(find_case("allreduce-264")); }
TEST_CASE("Golden alltoall-264: the 264-TSP all-to-all's counters are pinned") { check_case(find_case("alltoall-264")); }
TEST_CASE("Golden compare-node: scheduled vs dynamic on a node is pinned per seed") { check_case(find_case("compare-node")); }
TEST_CASE("Golden dragonfly-1056-ur: the reference Dragonfly at load 0.5 is pinned") {
    check_case(find_case("dragonfly-1056-ur"));
}
// Ananta: the data plane at scale, BGP with a Mux failure, Fastpath, and SNAT through the replicated manager. The
// state-size counters (/stats/ananta/state) are left out: they measure the implementation, not the model.
TEST_CASE("Golden ananta-large-ci: 1,024 hosts behind 14 Muxes are pinned") { check_case(find_case("ananta-large-ci")); }
TEST_CASE("Golden ananta-mux-failure-ci: graceful and silent Mux failures are pinned") {
    check_case(find_case("ananta-mux-failure-ci"));
}
TEST_CASE("Golden ananta-fastpath-ci: Fastpath redirects are pinned") { check_case(find_case("ananta-fastpath-ci")); }
TEST_CASE("Golden ananta-snat-latency-ci: SNAT through the manager is pinned") {
    check_case(find_case("ananta-snat-latency-ci"));
}
