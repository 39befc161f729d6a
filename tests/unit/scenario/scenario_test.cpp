#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "loom/scenario/scenario.hpp"
#include "loom/stats/table.hpp"

namespace {

struct Report {
    std::int64_t sim_ps;
    std::uint64_t events;
    double events_per_s;
    double eta_s;
};

// 1024 processes x 16 tokens for 20 us: about 3 million events, so the kernel's progress check point (every
// 2^20 events) is reached a few times.
loom::scenario::Json phold_config() {
    return loom::scenario::Json{
        {"model", "phold"},
        {"end_time", "20us"},
        {"phold", {{"lps", 1024}, {"population", 16}, {"lookahead", "10ns"}, {"mean_delay", "100ns"}}}};
}

}  // namespace

TEST_CASE("A run with an end time reports progress with simulated time, events per second and an ETA") {
    std::vector<Report> reports;
    loom::scenario::RunOptions options;
    options.progress = [&reports](std::int64_t sim_ps, std::uint64_t events, double rate, double eta) {
        reports.push_back(Report{sim_ps, events, rate, eta});
    };
    loom::scenario::run(phold_config(), options);
    REQUIRE(reports.size() >= 2);
    for (std::size_t i = 0; i < reports.size(); ++i) {
        const Report& r = reports[i];
        CHECK(r.sim_ps > 0);
        CHECK(r.sim_ps <= 20'000'000);
        CHECK(r.events > 0);
        CHECK(r.events_per_s > 0);
        CHECK(r.eta_s >= 0);
        if (i > 0) {
            CHECK(r.sim_ps >= reports[i - 1].sim_ps);
            CHECK(r.events > reports[i - 1].events);
        }
    }
}

TEST_CASE("A run without a progress callback completes and returns its perf line") {
    const loom::scenario::RunResult result = loom::scenario::run(phold_config());
    CHECK(result.perf.find("events=") == 0);
}

TEST_CASE("A run renders its CSV only when printed or written, with the same text either way") {
    loom::scenario::Json config = phold_config();
    config["end_time"] = "1us";
    const loom::scenario::RunResult result = loom::scenario::run(config);
    CHECK(result.report.csv.empty());
    REQUIRE(result.report.csv_from_stats);
    const std::string expected = loom::stats::render_csv(result.report.document.at("stats"));
    CHECK(expected.rfind("path,name,value\n", 0) == 0);
    CHECK(loom::scenario::render(result.report, loom::scenario::Format::Csv) == expected);

    const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                          ("loom_scenario_test_csv-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    loom::scenario::prepare_out_dir(dir.string());
    loom::scenario::write_report(dir.string(), result.report);
    std::ifstream f(dir / "report.csv", std::ios::binary);
    std::stringstream written;
    written << f.rdbuf();
    CHECK(written.str() == expected);
    std::filesystem::remove_all(dir);
}
