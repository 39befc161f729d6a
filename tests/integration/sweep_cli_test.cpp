// `loom sweep`, interrupts and what every --out holds, through the real binary: exit codes, the first line of
// stderr, and the files a rerun finds.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "cli_harness.hpp"

using loom_cli::loom;
using loom_cli::loom_interrupted;
using loom_cli::scratch;
using loom_cli::slurp;
using loom_cli::write;
namespace fs = std::filesystem;
using Json = nlohmann::json;

namespace {

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }
bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// A small PHOLD base config in `dir`.
fs::path small_base(const fs::path& dir, int seed = 1, const std::string& end_time = "20us") {
    const fs::path p = dir / "base.json";
    write(p, "{\"model\": \"phold\", \"seed\": " + std::to_string(seed) + ", \"end_time\": \"" + end_time +
                 "\", \"phold\": {\"lps\": 64, \"population\": 4}}");
    return p;
}

fs::path sweep_file(const fs::path& dir, const std::string& axes, const std::string& report = "[\"/stats/phold/events_handled\"]",
                    const std::string& extra = "") {
    const fs::path p = dir / "s.sweep.json";
    write(p, "{\"base\": \"base.json\", \"axes\": " + axes + ", \"report\": " + report + extra + "}");
    return p;
}

}  // namespace

TEST_CASE("A sweep whose points all succeed exits 0 and writes every point's config beside its stats") {
    const auto d = scratch("sweep-ok");
    small_base(d);
    const auto s = sweep_file(d, R"([{"path": "phold.lps", "values": [32, 64]}])");
    const auto r = loom("sweep " + s.string() + " --quiet --out " + (d / "out").string());
    INFO(r.err);
    CHECK(r.code == 0);
    CHECK(r.err.empty());
    const auto config = Json::parse(slurp(d / "out/points/p0001/config.json"));
    CHECK(config.at("phold").at("lps") == 64);
    CHECK(fs::exists(d / "out/points/p0001/stats.json"));
}

TEST_CASE("A sweep with a bad-input point runs every point, prints one line per failure and exits 2") {
    const auto d = scratch("sweep-bad-point");
    small_base(d);
    const auto s = sweep_file(d, R"([{"path": "phold.lps", "values": [32, 0, 64]}])");
    const auto r = loom("sweep " + s.string() + " --quiet --out " + (d / "out").string());
    INFO(r.err);
    CHECK(r.code == 2);
    CHECK(starts_with(r.first_err(), "loom: sweep point p0001 (phold.lps=0): bad_input: /phold/lps:"));
    CHECK(fs::exists(d / "out/points/p0002/stats.json"));
    CHECK(contains(slurp(d / "out/points.csv"), "bad_input"));
}

TEST_CASE("A sweep with a point that fails a model check exits 3") {
    const auto d = scratch("sweep-model-check");
    write(d / "s.sweep.json", "{\"base\": \"" LOOM_SOURCE_DIR "/configs/tsp/schedule-node.json\", \"command\": "
                              "\"schedule\", \"axes\": [{\"path\": \"scheduler.jitter_allowance\", \"values\": "
                              "[\"2ns\"]}, {\"path\": \"links.in_node.jitter\", \"values\": [\"0ps\", \"5ns\"]}]}");
    const auto r = loom("sweep " + (d / "s.sweep.json").string() + " -j 2 --quiet --out " + (d / "out").string());
    INFO(r.err);
    CHECK(r.code == 3);
    CHECK(starts_with(r.first_err(),
                      "loom: sweep point p0001 (scheduler.jitter_allowance=\"2ns\" links.in_node.jitter=\"5ns\"): "
                      "model_check_failed: "));
}

TEST_CASE("A sweep rerun after its base config changed runs every point again") {
    const auto d = scratch("sweep-cache");
    small_base(d, 1);
    const auto s = sweep_file(d, R"([{"path": "phold.lps", "values": [32]}])");
    const std::string cmd = "sweep " + s.string() + " --progress --out " + (d / "out").string();
    REQUIRE(loom(cmd).code == 0);
    const auto first = slurp(d / "out/points/p0000/stats.json");
    const auto cached = loom(cmd);
    CHECK(cached.first_err() == "sweep: p0000 cached (1/1 done, 0 failed)");
    small_base(d, 2);  // another seed
    const auto rerun = loom(cmd);
    CHECK(rerun.code == 0);
    CHECK(rerun.first_err() == "sweep: p0000 ok (1/1 done, 0 failed)");
    CHECK(slurp(d / "out/points/p0000/stats.json") != first);
}

TEST_CASE("A misspelled axis path stops the sweep before any point runs") {
    const auto d = scratch("sweep-bad-axis");
    small_base(d);
    const auto s = sweep_file(d, R"([{"path": "phold.lsp", "values": [32]}])");
    const auto r = loom("sweep " + s.string() + " --quiet --out " + (d / "out").string());
    CHECK(r.code == 2);
    CHECK(r.first_err() == "loom: " + s.string() +
                               ": /axes/0/path: 'phold.lsp' is not a parameter of model 'phold': 'phold' has no key "
                               "'lsp' (see loom list)");
    CHECK_FALSE(fs::exists(d / "out/points"));
}

TEST_CASE("A report pointer outside the stats document stops the sweep before any point runs") {
    const auto d = scratch("sweep-bad-pointer");
    small_base(d);
    const auto s = sweep_file(d, R"([{"path": "phold.lps", "values": [32]}])", R"(["/stat/phold/events_handled"])");
    const auto r = loom("sweep " + s.string() + " --quiet --out " + (d / "out").string());
    CHECK(r.code == 2);
    CHECK(starts_with(r.first_err(), "loom: " + s.string() + ": /report/0: '/stat/phold/events_handled' is not in a "
                                                             "\"run\" stats document"));
    CHECK_FALSE(fs::exists(d / "out/points"));
}

TEST_CASE("A report pointer to a stats group the model does not have stops the sweep after its first point") {
    const auto d = scratch("sweep-bad-group");
    small_base(d);
    const auto s = sweep_file(d, R"([{"path": "phold.lps", "values": [32, 64]}])", R"(["/stats/phld/events_handled"])");
    const auto r = loom("sweep " + s.string() + " --quiet --out " + (d / "out").string());
    CHECK(r.code == 2);
    CHECK(r.first_err() == "loom: " + s.string() +
                               ": /report/0: '/stats/phld/events_handled' is not in the stats document of p0000 (no "
                               "/stats/phld)");
    CHECK_FALSE(fs::exists(d / "out/points/p0001"));
}

TEST_CASE("A relative trace file in a config resolves against the config's folder") {
    const auto d = scratch("relative-trace");
    write(d / "t.jsonl", "{\"time\": \"10ns\", \"src\": 0, \"dst\": 5, \"bytes\": 640}\n");
    auto config = Json::parse(slurp(fs::path(LOOM_SOURCE_DIR) / "configs/dragonfly/small-ur.json"));
    config["traffic"] = {{"pattern", "trace"}, {"trace", "t.jsonl"}};
    write(d / "c.json", config.dump());
    const auto r = loom("run " + (d / "c.json").string() + " --quiet --out " + (d / "out").string());
    INFO(r.err);
    CHECK(r.code == 0);
    const auto effective = Json::parse(slurp(d / "out/config.json"));
    CHECK(effective.at("traffic").at("trace") == (d / "t.jsonl").string());
}

TEST_CASE("Every --out holds the effective config beside stats.json") {
    const auto d = scratch("out-config");
    REQUIRE(loom("run configs/bench/phold.json --set phold.lps=64 --set end_time=5us --quiet --out " + d.string())
                .code == 0);
    const auto config = Json::parse(slurp(d / "config.json"));
    CHECK(config.at("phold").at("lps") == 64);
    CHECK(config.at("end_time") == "5us");
    // The build identity (`loom --version`) stays out of the stats document: results compare across builds.
    const std::string version = loom("--version").out;
    const std::string id = version.substr(version.find("(git ") + 5);
    const std::string stats = slurp(d / "stats.json");
    CHECK(!stats.empty());
    CHECK_FALSE(contains(stats, id.substr(0, id.find(')'))));
}

TEST_CASE("SIGINT stops a run cleanly with exit 130 and --out holds the statistics so far marked interrupted") {
    const auto d = scratch("interrupt-run");
    const auto r = loom_interrupted("run configs/bench/phold.json --set end_time=1s --quiet --out " + d.string(),
                                    "INT", 1.0);
    INFO(r.err);
    CHECK(r.code == 130);
    CHECK(starts_with(r.first_err(), "loom: interrupted"));
    const auto stats = Json::parse(slurp(d / "stats.json"));
    CHECK(stats.at("stop_reason") == "interrupted");
    CHECK(stats.at("stats").at("kernel").at("events_handled").get<std::int64_t>() > 0);
    CHECK(fs::exists(d / "config.json"));
}

TEST_CASE("SIGTERM stops a schedule's dynamic comparison with exit 130") {
    // 100,000 dynamic runs per routing function: minutes of work unless stopped.
    const auto r = loom_interrupted("schedule configs/tsp/collectives/allreduce-node.json --compare dynamic "
                                    "--seeds 100000 --quiet", "TERM", 1.0);
    INFO(r.err);
    CHECK(r.code == 130);
    CHECK(starts_with(r.first_err(), "loom: interrupted"));
}

TEST_CASE("An interrupted sweep keeps its finished points, writes no partial one and resumes on the next call") {
    const auto d = scratch("interrupt-sweep");
    small_base(d);
    // Point 0 is quick, point 1 runs for minutes unless stopped.
    const auto s = sweep_file(d, R"([{"path": "end_time", "values": ["20us", "10s"]}, {"path": "phold.lps", "values": [1024]}])");
    const std::string cmd = "sweep " + s.string() + " --progress --out " + (d / "out").string();
    const auto r = loom_interrupted(cmd, "INT", 1.5);
    INFO(r.err);
    CHECK(r.code == 130);
    // The estimate of the time left follows the words checked here.
    CHECK(starts_with(r.first_err(), "sweep: p0000 ok (1/2 done, 0 failed"));
    CHECK(contains(r.err, "loom: interrupted; rerun the same command to resume the sweep"));
    CHECK(fs::exists(d / "out/points/p0000/stats.json"));
    CHECK_FALSE(fs::exists(d / "out/points/p0001/stats.json"));
    CHECK(contains(slurp(d / "out/points.csv"), "interrupted"));
    // The next call finds point 0 done and starts point 1 again (interrupted once more here).
    const auto again = loom_interrupted(cmd, "INT", 1.0);
    CHECK(again.code == 130);
    CHECK(again.first_err() == "sweep: p0000 cached (1/2 done, 0 failed)");
}
