// Replicated sweeps through the real binary: the summaries against hand arithmetic on the replications' own
// stats documents, determinism over threads, and a resumed sweep's summaries against an uninterrupted one's.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_harness.hpp"

using loom_cli::loom;
using loom_cli::scratch;
using loom_cli::slurp;
using loom_cli::write;
namespace fs = std::filesystem;
using Json = nlohmann::json;

namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// A small PHOLD sweep of two points, three replications each, in `dir`.
fs::path replicated_sweep(const fs::path& dir, int replications = 3) {
    write(dir / "base.json", R"({"model": "phold", "seed": 5, "end_time": "20us", "phold": {"lps": 64, "population": 4}})");
    const fs::path s = dir / "r.sweep.json";
    write(s, R"({"base": "base.json", "axes": [{"path": "phold.lps", "values": [32, 64]}],
                "report": ["/stats/phold/events_handled", "/seed"], "replications": )" +
                 std::to_string(replications) + "}");
    return s;
}

std::vector<std::string> split(const std::string& line) {
    std::vector<std::string> cells(1);
    for (char c : line) {
        if (c == ',') {
            cells.emplace_back();
        } else {
            cells.back() += c;
        }
    }
    return cells;
}

}  // namespace

TEST_CASE("A replicated sweep reports each value's mean, sd and 95% interval over its replications, as by hand") {
    const auto d = scratch("sweep-replications");
    const auto s = replicated_sweep(d);
    const auto r = loom("sweep " + s.string() + " --quiet --out " + (d / "out").string());
    INFO(r.err);
    REQUIRE(r.code == 0);
    // The replications' own documents: r000 keeps the point's seed, the others have seeds of their own.
    std::vector<double> events;
    std::vector<std::int64_t> seeds;
    for (const char* rep : {"r000", "r001", "r002"}) {
        const auto doc = Json::parse(slurp(d / "out/points/p0001" / rep / "stats.json"));
        events.push_back(doc.at("stats").at("phold").at("events_handled").get<double>());
        seeds.push_back(doc.at("seed").get<std::int64_t>());
    }
    CHECK(seeds[0] == 5);
    CHECK(seeds[1] != 5);
    CHECK(seeds[2] != seeds[1]);
    // By hand: mean, sample sd (n - 1), half-width t_{0.975,2} = 4.303 times sd / sqrt(3).
    const double mean = (events[0] + events[1] + events[2]) / 3;
    const double ss = (events[0] - mean) * (events[0] - mean) + (events[1] - mean) * (events[1] - mean) +
                      (events[2] - mean) * (events[2] - mean);
    const double sd = std::sqrt(ss / 2);
    const double half = 4.303 * sd / std::sqrt(3.0);
    CHECK(sd > 0);  // the seeds differ, so do the runs

    const std::string csv = slurp(d / "out/points.csv");
    const std::string header = csv.substr(0, csv.find('\n'));
    CHECK(header == "phold.lps,/stats/phold/events_handled,/stats/phold/events_handled:sd,"
                    "/stats/phold/events_handled:ci95,/stats/phold/events_handled:n,/seed,/seed:sd,/seed:ci95,/seed:n,"
                    "status");
    std::vector<std::string> lines;
    for (std::size_t at = 0, next; (next = csv.find('\n', at)) != std::string::npos; at = next + 1)
        lines.push_back(csv.substr(at, next - at));
    REQUIRE(lines.size() == 3);
    const auto row = split(lines[2]);
    REQUIRE(row.size() == 10);
    CHECK(row[0] == "64");
    CHECK(std::stod(row[1]) == Approx(mean).epsilon(1e-12));
    CHECK(std::stod(row[2]) == Approx(sd).epsilon(1e-12));
    CHECK(std::stod(row[3]) == Approx(half).epsilon(1e-12));
    CHECK(row[4] == "3");
    CHECK(row[9] == "ok");

    const std::string jsonl = slurp(d / "out/points.jsonl");
    const auto line = Json::parse(jsonl.substr(jsonl.find('\n') + 1, jsonl.rfind('\n') - jsonl.find('\n') - 1));
    const auto& v = line.at("report").at("/stats/phold/events_handled");
    CHECK(v.at("n") == 3);
    CHECK(v.at("mean").get<double>() == Approx(mean).epsilon(1e-12));
    CHECK(v.at("ci95_low").get<double>() == Approx(mean - half).epsilon(1e-12));
    CHECK(v.at("ci95_high").get<double>() == Approx(mean + half).epsilon(1e-12));
    CHECK(v.at("values").size() == 3);
    CHECK(line.at("replications").at(1).at("seed") == seeds[1]);
    CHECK(line.at("replications").at(1).at("status") == "ok");
    CHECK(contains(r.out, "2 points x 3 replications, 0 failed"));
}

TEST_CASE("A replicated sweep writes the same summaries with 2 threads as with 1") {
    const auto d = scratch("sweep-replications-threads");
    const auto s = replicated_sweep(d);
    REQUIRE(loom("sweep " + s.string() + " --quiet --out " + (d / "one").string()).code == 0);
    REQUIRE(loom("sweep " + s.string() + " -j 2 --quiet --out " + (d / "two").string()).code == 0);
    CHECK(slurp(d / "one/points.csv") == slurp(d / "two/points.csv"));
    CHECK(slurp(d / "one/points.jsonl") == slurp(d / "two/points.jsonl"));
    CHECK(slurp(d / "one/points/p0000/r002/stats.json") == slurp(d / "two/points/p0000/r002/stats.json"));
}

TEST_CASE("A sweep resumed after losing some runs reruns only those and writes the summaries of an uninterrupted one") {
    const auto d = scratch("sweep-resume");
    const auto s = replicated_sweep(d, 2);
    REQUIRE(loom("sweep " + s.string() + " --quiet --out " + (d / "full").string()).code == 0);
    const std::string cmd = "sweep " + s.string() + " -j 2 --progress --out " + (d / "part").string();
    REQUIRE(loom(cmd).code == 0);
    // What an interrupted call leaves: some runs written, one never finished, no summaries.
    fs::remove_all(d / "part/points/p0001/r001");
    fs::remove(d / "part/points.csv");
    fs::remove(d / "part/points.jsonl");
    const auto resumed = loom(cmd);
    INFO(resumed.err);
    CHECK(resumed.code == 0);
    CHECK(contains(resumed.err, "sweep: p0000/r000 cached"));
    CHECK(contains(resumed.err, "sweep: p0001/r000 cached"));
    CHECK(contains(resumed.err, "sweep: p0001/r001 ok"));
    CHECK(slurp(d / "part/points.csv") == slurp(d / "full/points.csv"));
    CHECK(slurp(d / "part/points.jsonl") == slurp(d / "full/points.jsonl"));
}

TEST_CASE("A sweep prints no progress when stderr is not a terminal unless asked") {
    const auto d = scratch("sweep-progress");
    const auto s = replicated_sweep(d, 1);
    const auto silent = loom("sweep " + s.string() + " --out " + (d / "a").string());
    CHECK(silent.code == 0);
    CHECK(silent.err.empty());
    const auto shown = loom("sweep " + s.string() + " --progress --out " + (d / "b").string());
    CHECK(shown.code == 0);
    // The estimate of the time left ("eta 0s") depends on the machine: only its start is checked.
    CHECK(shown.first_err().rfind("sweep: p0000 ok (1/2 done, 0 failed, eta ", 0) == 0);
    CHECK(contains(shown.err, "sweep: p0001 ok (2/2 done, 0 failed)"));
    // Progress never reaches the files.
    CHECK_FALSE(contains(slurp(d / "b/points.csv"), "done"));
}
