// The Ananta model through the `loom` command: the demo's summary, determinism across processes, validation
// messages with JSON pointers.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "cli_harness.hpp"

using namespace loom_cli;

namespace {
const std::string kDemo = "configs/ananta/demo.json";
}

TEST_CASE("loom run of the Ananta demo prints Mux load, VIP throughput, setup latency and drops first") {
    const Run r = loom("run " + kDemo + " --quiet");
    REQUIRE(r.code == 0);
    CHECK(r.out.rfind("ananta: 4 Muxes, 16 hosts, 1 VIPs", 0) == 0);
    for (const char* s : {"setup latency: p50", "mux load (packets forwarded):", "vip web (100.64.0.1):", "drops:",
                          "ecmp change at 1500ms: ananta.tor0"})
        CHECK(r.out.find(s) != std::string::npos);
}

TEST_CASE("Two processes running the Ananta demo write byte-identical stats.json") {
    const auto a = scratch("ananta-a"), b = scratch("ananta-b");
    REQUIRE(loom("run " + kDemo + " --quiet --out " + a.string()).code == 0);
    REQUIRE(loom("run " + kDemo + " --quiet --out " + b.string()).code == 0);
    const std::string sa = slurp(a / "stats.json");
    CHECK(sa == slurp(b / "stats.json"));
    const auto doc = nlohmann::json::parse(sa);
    const auto& s = doc.at("stats").at("ananta");
    for (const char* k : {"muxes", "mux_load", "vips", "connections", "drops", "packets", "ecmp_changes", "epochs"})
        CHECK(s.contains(k));
    CHECK(s.at("connections").at("failed") == 0);
}

TEST_CASE("loom validate rejects an Ananta config with a DIP on a missing host, naming its JSON pointer") {
    const auto d = scratch("ananta-bad");
    write(d / "bad.json", R"({"model": "ananta", "end_time": "1s", "network": {"racks": 1, "hosts_per_rack": 2},
        "vips": [{"dips": [{"host": 2}]}]})");
    const Run r = loom("validate " + (d / "bad.json").string());
    CHECK(r.code == 2);
    CHECK(r.first_err().find("/vips/0/dips/0/host: host 2 does not exist (the network has 2 hosts)") !=
          std::string::npos);
}

TEST_CASE("An Ananta run with --perf reports packet hops and their rate") {
    const Run r = loom("run " + kDemo + " --quiet --perf");
    REQUIRE(r.code == 0);
    CHECK(r.err.find("packet_hops=") != std::string::npos);
    CHECK(r.err.find("packet_hops_per_s=") != std::string::npos);
}

TEST_CASE("The BGP experiment configs run, print their result table and write byte-identical stats.json twice") {
    for (const std::string name : {"mux-failure-ci", "bgp-cascade-ci"}) {
        const std::string cfg = "configs/ananta/" + name + ".json";
        const auto a = scratch(name + "-a"), b = scratch(name + "-b");
        const Run r = loom("run " + cfg + " --quiet --out " + a.string());
        REQUIRE(r.code == 0);
        CHECK(r.out.find("  bgp: ") != std::string::npos);
        CHECK(r.out.find("bgp messages: ") != std::string::npos);
        REQUIRE(loom("run " + cfg + " --quiet --out " + b.string()).code == 0);
        CHECK(slurp(a / "stats.json") == slurp(b / "stats.json"));
    }
    const Run m = loom("run configs/ananta/mux-failure-ci.json --quiet");
    CHECK(m.out.find("mux1 graceful down at 1.000 s: removed after") != std::string::npos);
    CHECK(m.out.find("mux2 silent down at 1.000 s: removed after 29.000 s (hold_expired)") != std::string::npos);
}

TEST_CASE("The BGP sweeps give the same points under -j 2 as under -j 1") {
    for (const std::string name : {"mux-failure", "bgp-cascade"}) {
        const auto a = scratch(name + "-sweep-a"), b = scratch(name + "-sweep-b");
        const std::string sweep = "sweep configs/ananta/" + name + ".sweep.json --quiet --out ";
        REQUIRE(loom(sweep + a.string() + " -j 1").code == 0);
        REQUIRE(loom(sweep + b.string() + " -j 2").code == 0);
        CHECK(slurp(a / "points.csv") == slurp(b / "points.csv"));
    }
}

// ---- the control plane's studies ----

namespace {
const char* const kControlStudies[] = {"manager-availability", "snat-latency", "snat-fairness", "stale-primary",
                                       "vip-config-snat-storm", "syn-flood"};
}

TEST_CASE("Every control-plane study's CI config runs, exits 0, prints the control-plane lines and is byte-identical twice") {
    for (const char* study : kControlStudies) {
        const std::string cfg = std::string("configs/ananta/") + study + "-ci.json";
        INFO(cfg);
        const auto a = scratch(std::string("cp-") + study + "-a"), b = scratch(std::string("cp-") + study + "-b");
        const Run r = loom("run " + cfg + " --quiet --out " + a.string());
        REQUIRE(r.code == 0);
        CHECK(r.out.find("  control plane: 5 replicas") != std::string::npos);
        REQUIRE(loom("run " + cfg + " --quiet --out " + b.string()).code == 0);
        CHECK(slurp(a / "stats.json") == slurp(b / "stats.json"));
        CHECK(loom("validate " + std::string("configs/ananta/") + study + "-paper.json").code == 0);
    }
}

TEST_CASE("A control-plane sweep gives the same points with two jobs as with one") {
    const auto d = scratch("cp-sweep");
    const std::string s = "configs/ananta/stale-primary-ci.sweep.json";
    REQUIRE(loom("sweep " + s + " --quiet --out " + (d / "one").string()).code == 0);
    REQUIRE(loom("sweep " + s + " -j 2 --quiet --out " + (d / "two").string()).code == 0);
    CHECK(slurp(d / "one" / "points.csv") == slurp(d / "two" / "points.csv"));
    CHECK(slurp(d / "one" / "points.jsonl") == slurp(d / "two" / "points.jsonl"));
}

TEST_CASE("loom validate names the JSON pointer of a bad control-plane parameter") {
    const auto d = scratch("cp-bad");
    write(d / "bad.json", R"({"model": "ananta", "end_time": "1s", "network": {"racks": 1, "hosts_per_rack": 2},
        "vips": [{"dips": [{"host": 0}]}], "control_plane": {"enabled": true, "replicas": 3, "initial_primary": 4},
        "scenario": [{"at": "1s", "action": "replica_freeze", "replica": 3}]})");
    const Run r = loom("validate " + (d / "bad.json").string());
    CHECK(r.code == 2);
    CHECK(r.err.find("/control_plane/initial_primary: expected -1 or a replica in 0..2, got 4") != std::string::npos);
}
