// Runs the real `loom` binary: what a user sees (exit codes, one-line errors, files) is part of the contract.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_harness.hpp"

namespace fs = std::filesystem;

namespace {

struct Result {
    int code = -1;
    std::string out;  // stdout and stderr together
};

// Runs `loom ARGS` from the source folder, capturing both streams.
Result loom(const std::string& args) {
    const std::string cmd = std::string("cd '") + LOOM_SOURCE_DIR + "' && '" + LOOM_EXE + "' " + args + " 2>&1";
    Result r;
    FILE* p = popen(cmd.c_str(), "r");
    REQUIRE(p != nullptr);
    char buf[4096];
    std::size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
    const int status = pclose(p);
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

std::string read(const fs::path& p) {
    std::ifstream f(p);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

using loom_cli::scratch;

const std::string kSmallPhold =
    "configs/bench/phold.json --set phold.lps=64 --set phold.population=4 --set end_time=20us";

}  // namespace

TEST_CASE("loom run prints a stats table and exits 0") {
    const auto r = loom("run " + kSmallPhold);
    CHECK(r.code == 0);
    CHECK(r.out.find("events_handled") != std::string::npos);
}

TEST_CASE("loom run --perf prints the perf line on stderr") {
    const auto r = loom("run " + kSmallPhold + " --perf --quiet");
    CHECK(r.code == 0);
    CHECK(r.out.find("perf: events=") != std::string::npos);
    CHECK(r.out.find("events_per_s=") != std::string::npos);
}

TEST_CASE("A repeated run writes a byte-identical stats.json") {
    const auto a = scratch("det-a"), b = scratch("det-b");
    REQUIRE(loom("run " + kSmallPhold + " --quiet --out " + a.string()).code == 0);
    REQUIRE(loom("run " + kSmallPhold + " --quiet --out " + b.string()).code == 0);
    const std::string sa = read(a / "stats.json");
    CHECK(!sa.empty());
    CHECK(sa == read(b / "stats.json"));
    CHECK(fs::exists(a / "report.txt"));
    CHECK(fs::exists(a / "report.csv"));
    const auto doc = nlohmann::json::parse(sa);
    for (const char* k : {"schema_version", "loom_version", "config_hash", "seed", "sim_time_ps", "stats"})
        CHECK(doc.contains(k));
    // another seed gives another result
    const auto c = scratch("det-c");
    REQUIRE(loom("run " + kSmallPhold + " --set seed=2 --quiet --out " + c.string()).code == 0);
    CHECK(read(c / "stats.json") != sa);
}

TEST_CASE("The --json flag prints the stats document") {
    const auto r = loom("run " + kSmallPhold + " --json --quiet");
    REQUIRE(r.code == 0);
    const auto doc = nlohmann::json::parse(r.out);
    CHECK(doc.at("model") == "phold");
}

TEST_CASE("A bad value names the JSON Pointer and exits 2 without output files") {
    const auto d = scratch("bad-value");
    const auto r = loom("run configs/bench/phold.json --set phold.lps=0 --out " + d.string());
    CHECK(r.code == 2);
    CHECK(r.out.find("/phold/lps") != std::string::npos);
    CHECK_FALSE(fs::exists(d / "stats.json"));
}

TEST_CASE("An unknown key is an error that lists the valid keys") {
    const auto r = loom("validate configs/bench/phold.json --set phold.lsp=3");
    CHECK(r.code == 2);
    CHECK(r.out.find("unknown key 'lsp'") != std::string::npos);
    CHECK(r.out.find("/phold/lsp") != std::string::npos);
}

TEST_CASE("Malformed JSON is reported with line and column") {
    const auto d = scratch("malformed");
    {
        std::ofstream f(d / "bad.json");
        f << "{\n  \"model\": \"phold\",\n  \"seed\": tru\n}\n";
    }
    const auto r = loom("run " + (d / "bad.json").string());
    CHECK(r.code == 2);
    CHECK(r.out.find("bad.json:3:") != std::string::npos);
}

TEST_CASE("A missing config file exits 2 naming the file") {
    const auto r = loom("run configs/does-not-exist.json");
    CHECK(r.code == 2);
    CHECK(r.out.find("does-not-exist.json") != std::string::npos);
}

TEST_CASE("An unwritable --out exits 2 before running") {
    const auto r = loom("run " + kSmallPhold + " --out /proc/loom-cannot-write-here");
    CHECK(r.code == 2);
    CHECK(r.out.find("--out") != std::string::npos);
}

TEST_CASE("A bad flag exits 2") {
    CHECK(loom("run " + kSmallPhold + " --format yaml").code == 2);
    CHECK(loom("run " + kSmallPhold + " --no-such-flag").code == 2);
    CHECK(loom("frobnicate").code == 2);
}

TEST_CASE("loom list shows every model's parameters, and its JSON form is the schema") {
    const auto t = loom("list");
    CHECK(t.code == 0);
    CHECK(t.out.find("phold.lps") != std::string::npos);
    const auto j = loom("list --format json");
    REQUIRE(j.code == 0);
    const auto schema = nlohmann::json::parse(j.out);
    CHECK(schema.at("models").contains("phold"));
}

TEST_CASE("loom --version prints the version") {
    const auto r = loom("--version");
    CHECK(r.code == 0);
    CHECK(r.out.find("loom 0.") != std::string::npos);
}

TEST_CASE("loom topo reports the node preset") {
    const auto r = loom("topo configs/tsp/node.json --json");
    REQUIRE(r.code == 0);
    const auto doc = nlohmann::json::parse(r.out);
    const auto& t = doc.at("stats").at("topology");
    CHECK(t.at("tsps") == 8);
    CHECK(t.at("diameter_hops") == 1);
}

TEST_CASE("A sweep runs every point, writes points.csv and skips finished points on a rerun") {
    const auto d = scratch("sweep");
    {
        std::ofstream f(d / "small.sweep.json");
        f << R"({"base": ")" << LOOM_SOURCE_DIR << R"(/configs/bench/phold.json",
                 "axes": [{"path": "phold.lps", "values": [8, 16]}, {"path": "end_time", "values": ["5us", "10us"]}],
                 "report": ["/stats/phold/events_handled"]})";
    }
    const auto r = loom("sweep " + (d / "small.sweep.json").string() + " -j 2 --quiet --out " + (d / "out").string());
    REQUIRE(r.code == 0);
    const std::string csv = read(d / "out" / "points.csv");
    CHECK(csv.rfind("phold.lps,end_time,/stats/phold/events_handled,status\n", 0) == 0);
    // 4 points + header
    CHECK(std::count(csv.begin(), csv.end(), '\n') == 5);
    CHECK(csv.find(",ok\n") != std::string::npos);
    const auto again = loom("sweep " + (d / "small.sweep.json").string() + " --progress --out " + (d / "out").string());
    CHECK(again.code == 0);
    CHECK(again.out.find("cached") != std::string::npos);
    CHECK(read(d / "out" / "points.csv") == csv);
}

TEST_CASE("loom schedule compiles, verifies and runs a workload and reports its figures") {
    const auto r = loom("schedule configs/tsp/schedule-node.json");
    INFO(r.out);
    CHECK(r.code == 0);
    CHECK(r.out.find("schedule: 64 transfers") != std::string::npos);
    CHECK(r.out.find("efficiency") != std::string::npos);
    CHECK(r.out.find("prediction error    0 ps") != std::string::npos);
    CHECK(r.out.find("transfer latency") != std::string::npos);
}

TEST_CASE("loom schedule --json puts the schedule figures in the stats document") {
    const auto r = loom("schedule configs/tsp/schedule-node.json --json --quiet");
    REQUIRE(r.code == 0);
    const auto doc = nlohmann::json::parse(r.out);
    CHECK(doc.at("command") == "schedule");
    const auto& tsp = doc.at("stats").at("tsp");
    CHECK(tsp.at("schedule").at("prediction_error_ps") == 0);
    CHECK(tsp.at("schedule").at("efficiency").get<double>() > 0.5);
    CHECK(tsp.at("schedule").at("efficiency").get<double>() <= 1.0);
    CHECK(tsp.at("transfer_latency").at("count") == 64);
    CHECK(tsp.at("makespan_cycles").get<std::int64_t>() > 0);
}

TEST_CASE("Link jitter beyond the schedule's allowance fails the run with exit 3 naming link, TSP and time") {
    const auto r = loom("schedule configs/tsp/schedule-node.json --set links.in_node.jitter=5ns "
                        "--set scheduler.jitter_allowance=2ns");
    INFO(r.out);
    CHECK(r.code == 3);
    CHECK(r.out.find("schedule error at sys.node0.tsp") != std::string::npos);
    CHECK(r.out.find("arrived on link sys.node0.tsp") != std::string::npos);
    CHECK(r.out.find("outside its predicted window") != std::string::npos);
    // Within the allowance the same jitter is absorbed.
    const auto ok = loom("schedule configs/tsp/schedule-node.json --set links.in_node.jitter=5ns --quiet");
    CHECK(ok.code == 0);
}

TEST_CASE("loom schedule --trace writes a Perfetto trace naming every link that carried traffic") {
    const fs::path d = scratch("trace");
    const auto r = loom("schedule configs/tsp/schedule-node.json --quiet --trace " + (d / "t.json").string() +
                        " --out " + (d / "out").string());
    REQUIRE(r.code == 0);
    const auto trace = nlohmann::json::parse(read(d / "t.json"));
    std::set<std::string> links;
    std::size_t slices = 0;
    for (const auto& e : trace.at("traceEvents")) {
        if (e.at("ph") == "M" && e.at("name") == "thread_name" && e.at("pid") == 1)
            links.insert(e.at("args").at("name").get<std::string>());
        if (e.at("ph") == "X") ++slices;
    }
    // All 56 directed in-node channels carry traffic in this workload (see its stats: channels_used 56).
    CHECK(links.size() == 56);
    CHECK(slices > 64);
    CHECK(read(d / "out" / "trace.json") == read(d / "t.json"));
}

TEST_CASE("loom schedule refuses a config that is not a TSP workload") {
    const auto r = loom("schedule " + kSmallPhold);
    CHECK(r.code == 2);
    CHECK(r.out.find("/model") != std::string::npos);
    const auto none = loom("schedule configs/tsp/node.json");
    CHECK(none.code == 2);
    CHECK(none.out.find("/workload") != std::string::npos);
}

TEST_CASE("loom run executes a hand-written TSP program and lists every vector's arrival") {
    const auto r = loom("run configs/tsp/programs/relay.json --json --quiet");
    REQUIRE(r.code == 0);
    const auto doc = nlohmann::json::parse(r.out);
    const auto& arrivals = doc.at("stats").at("tsp").at("arrivals");
    REQUIRE(arrivals.size() == 8);
    CHECK(arrivals.back().at("arrival_ps") == 1'326'043);
}

TEST_CASE("loom schedule --compare dynamic prints the comparison table and writes it to stats.json and report.csv") {
    const auto dir = scratch("compare");
    const auto r = loom("schedule configs/tsp/collectives/allreduce-node.json --set workload.collective.bytes=64KiB "
                        "--compare dynamic --seeds 2 --routing min,ugal_l --out '" + dir.string() + "'");
    REQUIRE(r.code == 0);
    CHECK(r.out.find("scheduled vs dynamic") != std::string::npos);
    CHECK(r.out.find("dynamic-minimal") != std::string::npos);
    CHECK(r.out.find("dynamic-ugal_l") != std::string::npos);
    const auto doc = nlohmann::json::parse(read(dir / "stats.json"));
    REQUIRE(doc.contains("comparison"));
    CHECK(doc.at("comparison").at("networks").size() == 3);
    CHECK(doc.at("comparison").at("networks").at(0).at("network") == "scheduled");
    CHECK(read(dir / "report.csv").rfind("network,routing,runs", 0) == 0);
}

TEST_CASE("A bad --compare value exits 2 with a one-line message") {
    const auto r = loom("schedule configs/tsp/collectives/allreduce-node.json --compare static");
    CHECK(r.code == 2);
    CHECK(r.out == "loom: --compare: expected 'dynamic', got 'static'\n");
}

TEST_CASE("loom schedule --brief prints only the summary while --out still writes every statistic") {
    const auto dir = scratch("brief");
    const auto full = loom("schedule configs/tsp/collectives/allreduce-node.json --set workload.collective.bytes=64KiB");
    const auto brief = loom("schedule configs/tsp/collectives/allreduce-node.json --set workload.collective.bytes=64KiB "
                            "--brief --out '" + dir.string() + "'");
    REQUIRE(full.code == 0);
    REQUIRE(brief.code == 0);
    CHECK(brief.out.rfind("schedule: ", 0) == 0);
    CHECK(brief.out.find("efficiency") != std::string::npos);
    CHECK(brief.out.find("sys.node0.tsp0") == std::string::npos);
    CHECK(full.out.find("sys.node0.tsp0") != std::string::npos);
    CHECK(full.out.rfind(brief.out, 0) == 0);
    CHECK(read(dir / "report.txt") == full.out);
}
