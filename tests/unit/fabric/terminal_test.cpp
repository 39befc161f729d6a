#include <catch2/catch.hpp>

#include <vector>

#include "fabric_test_util.hpp"
#include "loom/fabric/terminal.hpp"
#include "loom/workload/traffic_trace.hpp"

using namespace loom;
using namespace loom::fabric;
using loom::fabric::testing::build_run;
using loom::fabric::testing::finish_run;
using loom::fabric::testing::small_config;

TEST_CASE("A trace message longer than a packet leaves as back-to-back packets of at most packet_flits") {
    config::Json cfg = small_config();
    cfg["traffic"]["pattern"] = "trace";
    cfg["traffic"]["trace"] = "in-memory";
    const workload::TrafficTrace trace({workload::TraceMessage{Time::ns(100), 3, 40, Bytes(400)}});  // 25 flits
    auto run = build_run(cfg, &trace);
    std::vector<PacketSummary> got;
    run.model->set_packet_observer([&](const PacketSummary& p) { got.push_back(p); });
    const config::Json stats = finish_run(run);
    REQUIRE(got.size() == 3);
    CHECK(got[0].flits == 10);
    CHECK(got[1].flits == 10);
    CHECK(got[2].flits == 5);
    for (const auto& p : got) {
        CHECK(p.created_cycle == 100);
        CHECK(p.src == 3);
        CHECK(p.dst == 40);
    }
    // One flit per cycle on the injection channel: each packet starts when the previous one is out.
    CHECK(got[0].injected_cycle == 100);
    CHECK(got[1].injected_cycle == 110);
    CHECK(got[2].injected_cycle == 120);
    CHECK(stats.at("flits_ejected") == 25);
    CHECK(stats.at("packets_ejected") == 3);
    CHECK(stats.at("source_queue_packets") == 0);
}

TEST_CASE("Bernoulli injection offers the configured load in flits per cycle per terminal") {
    auto run = build_run(small_config("minimal", "uniform", 0.3));
    const config::Json stats = finish_run(run);
    REQUIRE(stats.at("status") == "steady");
    CHECK(stats.at("offered_measured_flits_per_cycle").get<double>() == Approx(0.3).epsilon(0.03));
    CHECK(stats.at("accepted_flits_per_cycle").get<double>() == Approx(0.3).epsilon(0.03));
    CHECK(stats.at("link_utilization").at("injection").get<double>() == Approx(0.3).epsilon(0.03));
    CHECK(stats.at("link_utilization").at("ejection").get<double>() == Approx(0.3).epsilon(0.03));
}

TEST_CASE("Total latency includes the source queue and network latency starts at injection") {
    auto run = build_run(small_config("minimal", "uniform", 0.5));
    std::int64_t checked = 0, queued = 0;
    run.model->set_packet_observer([&](const PacketSummary& p) {
        CHECK(p.injected_cycle >= p.created_cycle);
        CHECK(p.ejected_cycle > p.injected_cycle);
        queued += p.injected_cycle > p.created_cycle;
        ++checked;
    });
    const config::Json stats = finish_run(run);
    CHECK(checked > 1000);
    CHECK(queued > 0);
    CHECK(stats.at("packet_latency").at("mean_cycles").get<double>() >=
          stats.at("network_latency").at("mean_cycles").get<double>());
}
