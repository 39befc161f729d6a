#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <string>

#include "fabric_test_util.hpp"
#include "loom/base/error.hpp"
#include "loom/fabric/monitor.hpp"
#include "loom/scenario/scenario.hpp"
#include "loom/sim/registry.hpp"

using namespace loom;
using namespace loom::fabric;
using loom::fabric::testing::build_run;
using loom::fabric::testing::finish_run;
using loom::fabric::testing::small_config;

namespace {

// Accepted load (flits/cycle/terminal) far past saturation.
double saturation_throughput(const std::string& routing, const std::string& pattern) {
    auto run = build_run(small_config(routing, pattern, 1.0));
    const config::Json stats = finish_run(run);
    INFO(routing << " " << pattern << ": " << stats.dump());
    CHECK(run.model->conservation_problems().empty());
    return stats.at("accepted_flits_per_cycle").get<double>();
}

}  // namespace

TEST_CASE("Under group shift minimal routing saturates at the single global link and Valiant at half the injection") {
    const double minimal = saturation_throughput("minimal", "group_shift");
    const double valiant = saturation_throughput("valiant", "group_shift");
    const double ugal = saturation_throughput("ugal_l", "group_shift");
    // 8 terminals per group share the one global link to the next group: 1/8.
    CHECK(minimal == Approx(0.125).epsilon(0.08));
    // Every packet crosses two global links; a group has as many global links as terminals: 1/2.
    CHECK(valiant > 0.42);
    CHECK(valiant < 0.52);
    CHECK(std::abs(ugal - valiant) <= 0.1 * valiant);
}

TEST_CASE("Under uniform random traffic UGAL-L saturates within 10% of minimal routing") {
    const double minimal = saturation_throughput("minimal", "uniform");
    const double ugal = saturation_throughput("ugal_l", "uniform");
    CHECK(minimal > 0.8);
    CHECK(std::abs(ugal - minimal) <= 0.1 * minimal);
}

namespace {

// Drives the network far past saturation until `end_ns` (the monitor never gives up) and checks that flits keep
// arriving to the end and that every flit and credit is accounted for.
void overload(config::Json cfg, std::int64_t end_ns) {
    cfg["traffic"]["rate"] = 1.0;
    cfg["traffic"]["measurement"]["max_warmup_samples"] = 1000000;
    cfg["traffic"]["measurement"]["warmup_threshold"] = 0.0;  // never steady: run to the end time
    auto run = build_run(cfg);
    config::Json stats;
    REQUIRE_NOTHROW(stats = finish_run(run, Time::ns(end_ns)));
    INFO(cfg.dump());
    CHECK(stats.at("status") == "incomplete");
    CHECK(run.model->conservation_problems().empty());
    const auto& samples = run.model->monitor().samples();
    REQUIRE(samples.size() >= 10);
    // Still delivering at the end (4-flit buffers on 100-cycle global links deliver the least, about 700 a sample).
    for (std::size_t k = samples.size() - 10; k < samples.size(); ++k) CHECK(samples[k].flits_ejected > 300);
    const std::int64_t injected = stats.at("flits_injected");
    const std::int64_t ejected = stats.at("flits_ejected");
    const std::int64_t in_network = stats.at("flits_in_network");
    CHECK(injected == ejected + in_network);
    CHECK(in_network > 0);
}

}  // namespace

TEST_CASE("Far past saturation under uniform traffic no routing function deadlocks, loses a flit or a credit") {
    for (const char* routing : {"minimal", "valiant", "ugal_l"}) overload(small_config(routing, "uniform"), 20'000);
}

TEST_CASE("Far past saturation under group shift no routing function deadlocks, loses a flit or a credit") {
    for (const char* routing : {"minimal", "valiant", "ugal_l"}) overload(small_config(routing, "group_shift"), 20'000);
}

TEST_CASE("Buffers shorter than a packet, iSLIP and fractional speed-up stay deadlock-free past saturation") {
    config::Json cfg = small_config("ugal_l", "uniform");
    cfg["fabric"]["vc_buffer_flits"] = 4;
    cfg["fabric"]["vcs"] = 4;
    cfg["fabric"]["sw_allocator"] = "islip";
    cfg["fabric"]["alloc_iterations"] = 2;
    cfg["fabric"]["internal_speedup"] = 1.5;
    overload(cfg, 15'000);
    cfg["routing"]["function"] = "valiant";
    cfg["fabric"]["vcs"] = 3;
    cfg["fabric"]["internal_speedup"] = 1.0;
    overload(cfg, 15'000);
}

TEST_CASE("The same config and seed give byte-identical stats documents") {
    const config::Json cfg = small_config("ugal_l", "uniform", 0.4);
    const std::string a = scenario::run(cfg).report.document.dump();
    const std::string b = scenario::run(cfg).report.document.dump();
    CHECK(a == b);
    config::Json other = cfg;
    other["seed"] = 2;
    CHECK(scenario::run(other).report.document.dump() != a);
}

TEST_CASE("A routing function that needs more VCs than configured is rejected at /fabric/vcs") {
    config::Json cfg = small_config("valiant");
    cfg["fabric"]["vcs"] = 2;
    try {
        scenario::validate(cfg);
        FAIL("accepted");
    } catch (const ConfigError& e) {
        REQUIRE(e.messages().size() == 1);
        CHECK(e.messages()[0] ==
              "/fabric/vcs: valiant routing needs 3 virtual channels on this dragonfly topology (one class per global "
              "hop taken, plus one), got 2");
    }
    cfg["routing"]["function"] = "minimal";
    CHECK_NOTHROW(scenario::validate(cfg));
}

TEST_CASE("Every fabric config problem is reported at once with its JSON pointer") {
    config::Json cfg = small_config();
    cfg["fabric"]["vc_bufer_flits"] = 8;
    cfg["traffic"]["rate"] = -1;
    cfg["topology"]["g"] = 20;
    try {
        scenario::validate(cfg);
        FAIL("accepted");
    } catch (const ConfigError& e) {
        const auto& m = e.messages();
        REQUIRE(m.size() == 3);
        CHECK(m[0].rfind("/topology/g: ", 0) == 0);
        CHECK(m[1].rfind("/fabric/vc_bufer_flits: unknown key", 0) == 0);
        CHECK(m[2].rfind("/traffic/rate: ", 0) == 0);
    }
}

TEST_CASE("A trace file runs to completion through the scenario layer") {
    const std::string path = std::string(LOOM_BINARY_DIR) + "/fabric_trace_test.jsonl";
    {
        std::ofstream out(path);
        out << "{\"time\": \"10ns\", \"src\": 0, \"dst\": 71, \"bytes\": 160}\n"
            << "{\"time\": 20000, \"src\": 5, \"dst\": 6, \"bytes\": 32}\n";
    }
    config::Json cfg = small_config();
    cfg["traffic"]["pattern"] = "trace";
    cfg["traffic"]["trace"] = path;
    const auto result = scenario::run(cfg);
    const config::Json& f = result.report.document.at("stats").at("fabric");
    CHECK(f.at("status") == "complete");
    CHECK(f.at("packets_ejected") == 2);
    CHECK(f.at("packet_latency").at("count") == 2);
    CHECK(result.perf.find(" flit_hops=") != std::string::npos);
    std::remove(path.c_str());
    cfg["traffic"]["trace"] = "/nonexistent.jsonl";
    CHECK_THROWS_WITH(scenario::validate(cfg), Catch::Contains("/traffic/trace: /nonexistent.jsonl: cannot open"));
}

TEST_CASE("The fabric model lists its four sections and three component types") {
    const config::Json schema = scenario::list_schema();
    const config::Json& m = schema.at("models").at("fabric");
    std::vector<std::string> keys;
    for (const auto& s : m.at("sections")) keys.push_back(s.at("key"));
    CHECK(keys == std::vector<std::string>{"topology", "fabric", "routing", "traffic"});
    CHECK(m.at("components").size() == 3);
}
