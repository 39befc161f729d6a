// The Ananta dynamics experiments through the `loom` command: each -ci config runs with exit 0 and prints its
// result table, twice byte-identical; the -paper configs validate; the hashing sweep writes the same points.csv
// with -j 1 and -j 2; bad parameters exit 2 naming their JSON pointer.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "cli_harness.hpp"

using namespace loom_cli;

namespace {
struct Experiment {
    const char* name;
    const char* line;  // a line of the result table
};
const Experiment kExperiments[] = {
    {"fastpath", "traffic a_to_b (fastpath on):"},
    {"health", "Muxes stop choosing it after"},
    {"hashing", "hash study (vip web, 10 DIPs"},
};
}  // namespace

TEST_CASE("Every Ananta dynamics experiment runs, prints its table, and is byte-identical run twice") {
    for (const Experiment& e : kExperiments) {
        const std::string config = std::string("configs/ananta/") + e.name + "-ci.json";
        INFO(config);
        const auto a = scratch(std::string("dyn-a-") + e.name), b = scratch(std::string("dyn-b-") + e.name);
        const Run ra = loom("run " + config + " --quiet --out " + a.string());
        REQUIRE(ra.code == 0);
        CHECK(ra.out.find(e.line) != std::string::npos);
        REQUIRE(loom("run " + config + " --quiet --out " + b.string()).code == 0);
        CHECK(slurp(a / "stats.json") == slurp(b / "stats.json"));
        CHECK(slurp(a / "report.txt") == slurp(b / "report.txt"));
    }
}

TEST_CASE("The paper-size Ananta dynamics configs and the hashing sweep validate") {
    for (const char* name : {"fastpath-paper", "health-paper", "hashing-paper"}) {
        const Run r = loom(std::string("validate configs/ananta/") + name + ".json");
        INFO(name << ": " << r.err);
        CHECK(r.code == 0);
    }
}

TEST_CASE("The hashing sweep writes the same points.csv with one and with two jobs") {
    const auto d = scratch("dyn-sweep");
    write(d / "h.sweep.json",
          R"({"base": ")" + std::string(LOOM_SOURCE_DIR) + R"(/configs/ananta/hashing-ci.json", "command": "run",
              "axes": [{"path": "mux.maglev_table_size", "values": [11, 127, 65537]}],
              "report": ["/stats/ananta/hash_study/pool/removed/disrupted_share",
                         "/stats/ananta/hash_study/measured/max_over_mean", "/stats/ananta/connections/failed"]})");
    const Run one = loom("sweep " + (d / "h.sweep.json").string() + " --quiet -j 1 --out " + (d / "j1").string());
    REQUIRE(one.code == 0);
    const Run two = loom("sweep " + (d / "h.sweep.json").string() + " --quiet -j 2 --out " + (d / "j2").string());
    REQUIRE(two.code == 0);
    const std::string csv = slurp(d / "j1" / "points.csv");
    CHECK(csv == slurp(d / "j2" / "points.csv"));
    CHECK(csv.find("65537") != std::string::npos);
    CHECK(csv.find("bad_input") == std::string::npos);
}

TEST_CASE("Bad Ananta dynamics parameters exit 2 naming their JSON pointer") {
    const Run a = loom("validate configs/ananta/health-ci.json --set health.timeout=1s");
    CHECK(a.code == 2);
    CHECK(a.err.find("/health/timeout: expected at most interval") != std::string::npos);
    const Run b = loom("validate configs/ananta/hashing-ci.json --set mux.maglev_table_size=100");
    CHECK(b.code == 2);
    CHECK(b.err.find("/mux/maglev_table_size: expected a prime table size") != std::string::npos);
    const Run c = loom("validate configs/ananta/fastpath-ci.json --set fastpath.enabled=maybe");
    CHECK(c.code == 2);
    CHECK(c.first_err().find("/fastpath/enabled") != std::string::npos);
}
