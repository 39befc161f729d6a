// tools/regress (the regression check) and `--perf-json`, each run as a user runs them, in a separate process:
// the counter half against this build's loom and the goldens (what CI runs on every change), a doctored golden
// value, bad input, and the perf document's keys. Nothing here is timed.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

namespace fs = std::filesystem;
using Json = nlohmann::json;

namespace {

struct Run {
    int code = -1;
    std::string out, err;
    std::size_t err_lines() const {
        std::size_t n = 0;
        for (char c : err) n += c == '\n';
        return n;
    }
};

std::string slurp(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

// Named by the process too: checkouts side by side may run these tests at the same time.
fs::path scratch(const std::string& name) {
    const fs::path d = fs::temp_directory_path() / ("loom-regress-test-" + name + "-" + std::to_string(::getpid()));
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
}

// Runs `COMMAND` (a shell command line) from the source folder, stdout and stderr apart.
Run shell(const std::string& command, const fs::path& dir) {
    const fs::path out = dir / "stdout", err = dir / "stderr";
    const std::string cmd = "cd '" + std::string(LOOM_SOURCE_DIR) + "' && " + command + " >'" + out.string() +
                            "' 2>'" + err.string() + "'";
    const int status = std::system(cmd.c_str());
    Run r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = slurp(out);
    r.err = slurp(err);
    return r;
}

std::string regress(const std::string& args) { return "python3 tools/regress " + args; }
const std::string kLoom = std::string("'") + LOOM_EXE + "'";

}  // namespace

TEST_CASE("tools/regress finds the counters of this build equal to the goldens", "[regress]") {
    // The fast cases; golden_tests runs all six, twice each.
    const fs::path dir = scratch("counters");
    const Run r = shell(regress("--counters-only " + kLoom + " --case schedule-node --case compare-node --json '" +
                                (dir / "r.json").string() + "'"),
                        dir);
    INFO(r.out << r.err);
    REQUIRE(r.code == 0);
    CHECK(r.out.find("counters: 2 of 2 golden cases match") != std::string::npos);
    const Json doc = Json::parse(slurp(dir / "r.json"));
    CHECK(doc.at("exit_code") == 0);
    CHECK(doc.at("counters").at("cases").size() == 2);
    fs::remove_all(dir);
}

TEST_CASE("tools/regress exits 3 naming the key when a golden value is doctored", "[regress]") {
    const fs::path dir = scratch("doctored");
    const fs::path goldens = dir / "golden";
    fs::create_directories(goldens);
    const fs::path source = fs::path(LOOM_SOURCE_DIR) / "tests" / "golden";
    fs::copy_file(source / "cases.json", goldens / "cases.json");
    Json golden = Json::parse(slurp(source / "schedule-node.json"));
    REQUIRE(golden.contains("/stats/kernel/events_handled"));
    golden["/stats/kernel/events_handled"] = golden["/stats/kernel/events_handled"].get<std::int64_t>() + 1;
    std::ofstream(goldens / "schedule-node.json") << golden.dump(1) << "\n";

    const Run r = shell(regress("--counters-only " + kLoom + " --case schedule-node --goldens '" + goldens.string() +
                                "' --csv '" + (dir / "r.csv").string() + "'"),
                        dir);
    INFO(r.out << r.err);
    CHECK(r.code == 3);
    CHECK(r.out.find("changed /stats/kernel/events_handled: golden") != std::string::npos);
    CHECK(r.out.find("COUNTER CHANGE") != std::string::npos);
    CHECK(fs::exists(dir / "r.csv"));
    fs::remove_all(dir);
}

TEST_CASE("tools/regress exits 2 with one line for an unknown suite, a bad revision or a bad flag", "[regress]") {
    const fs::path dir = scratch("bad");
    const std::pair<std::string, std::string> cases[] = {
        {kLoom + " " + kLoom + " --suite no-such-suite", "unknown suite 'no-such-suite'"},
        {"no-such-revision-xyz " + kLoom, "'no-such-revision-xyz' is neither a loom binary nor a git revision"},
        {kLoom + " " + kLoom + " --bogus", "unrecognized arguments: --bogus"},
        {kLoom + " " + kLoom + " --runs 0", "--runs: expected an integer >= 1"},
        {"--counters-only " + kLoom + " " + kLoom, "with --counters-only"},
        {"--counters-only " + kLoom + " --case no-such-case", "no golden case 'no-such-case'"},
        {kLoom + " " + kLoom + " --json /no/such/folder/r.json", "--json /no/such/folder/r.json"},
        {kLoom + " " + kLoom + " --no-counters --suite '" + (dir / "empty.json").string() + "'", "at least one config"},
    };
    std::ofstream(dir / "empty.json") << R"({"configs": []})";
    for (const auto& [args, message] : cases) {
        const Run r = shell(regress(args), dir);
        INFO("tools/regress " << args << "\n" << r.err);
        CHECK(r.code == 2);
        CHECK(r.err_lines() == 1);
        CHECK(r.err.rfind("regress: ", 0) == 0);
        CHECK(r.err.find(message) != std::string::npos);
    }
    fs::remove_all(dir);
}

TEST_CASE("loom run --perf-json writes the perf figures as JSON with the documented keys", "[perf-json]") {
    const fs::path dir = scratch("perf-json");
    const fs::path file = dir / "perf.json";
    const Run r = shell(kLoom + " run configs/bench/phold.json --set end_time=2us --quiet --perf --perf-json '" +
                            file.string() + "'",
                        dir);
    INFO(r.err);
    REQUIRE(r.code == 0);
    const Json doc = Json::parse(slurp(file));
    CHECK(doc.at("schema") == "loom-perf");
    CHECK(doc.at("schema_version") == 1);
    CHECK(doc.at("command") == "run");
    CHECK(doc.at("config") == "configs/bench/phold.json");
    CHECK(doc.at("interrupted") == false);
    CHECK(doc.at("build").get<std::string>().rfind("loom ", 0) == 0);
    CHECK(doc.at("peak_rss_bytes").get<std::int64_t>() > 0);
    const Json& perf = doc.at("perf");
    CHECK(perf.at("events").is_number_integer());
    CHECK(perf.at("events").get<std::int64_t>() > 0);
    CHECK(perf.at("wall_s").is_number());
    CHECK(perf.at("events_per_s").is_number());
    CHECK(perf.at("queue").is_string());
    CHECK(perf.at("lps") == 1024);
    // The same figures as the --perf line.
    CHECK(r.err.find("perf: events=" + perf.at("events").dump() + " ") != std::string::npos);
    CHECK(!fs::exists(dir / "perf.json.tmp"));
    fs::remove_all(dir);
}

TEST_CASE("loom schedule --perf-json holds the model's fields", "[perf-json]") {
    const fs::path dir = scratch("perf-json-schedule");
    const fs::path file = dir / "perf.json";
    const Run r = shell(kLoom + " schedule configs/tsp/schedule-node.json --quiet --perf-json '" + file.string() + "'",
                        dir);
    INFO(r.err);
    REQUIRE(r.code == 0);
    CHECK(r.err.find("perf:") == std::string::npos);  // --perf-json alone prints no perf line
    const Json doc = Json::parse(slurp(file));
    CHECK(doc.at("command") == "schedule");
    CHECK(doc.at("perf").at("tsps").is_number_integer());
    CHECK(doc.at("perf").at("mode").is_string());
    fs::remove_all(dir);
}

TEST_CASE("loom --perf-json into a missing folder or with no value exits 2 with one line before running",
          "[perf-json]") {
    const fs::path dir = scratch("perf-json-bad");
    for (const std::string& args : {std::string("run configs/bench/phold.json --perf-json /no/such/folder/p.json"),
                                   std::string("schedule configs/tsp/schedule-node.json --perf-json ''")}) {
        const Run r = shell(kLoom + " " + args, dir);
        INFO("loom " << args << "\n" << r.err);
        CHECK(r.code == 2);
        CHECK(r.err_lines() == 1);
        CHECK(r.err.find("--perf-json") != std::string::npos);
        CHECK(r.out.empty());
    }
    fs::remove_all(dir);
}
