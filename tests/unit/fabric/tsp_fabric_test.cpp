#include <catch2/catch.hpp>

#include <string>

#include "loom/fabric/fabric.hpp"
#include "loom/fabric/tsp_fabric.hpp"
#include "loom/sim/simulator.hpp"
#include "loom/topo/tsp_topology.hpp"
#include "loom/topo/tsp_topology_config.hpp"

using namespace loom;
using namespace loom::fabric;

namespace {

topo::FrozenTopology tsp_topology(const char* json) {
    topo::TspTopologyConfig c;
    config::Errors errors;
    topo::tsp_topology_schema().parse(config::Json::parse(json), "/topology", c, errors);
    errors.throw_if_any();
    return topo::build_tsp_topology(c);
}

}  // namespace

TEST_CASE("On a node the router cycle is one vector on a 100 Gbps link and latencies round up to cycles") {
    const topo::FrozenTopology t = tsp_topology(R"({"kind": "node"})");
    const TspFabricMapping m = map_tsp_system(t, topo::LinkClassTiming{}, topo::ChipConfig{}, TspFabricConfig{}, 1);
    // 328 wire bytes at 4 x 25 Gbps.
    CHECK(m.cycle == Time::ps(26'240));
    CHECK(m.fabric.cycle_period == Time::ps(26'240));
    CHECK_FALSE(m.rates_differ);
    // 480 + 3.75 + 14 = 497.75 ns = 18.97 cycles -> 19.
    CHECK(m.fabric.latency_cycles(topo::LinkClass::InNode) == 19);
    // Forwarding 178 cycles at 900 MHz = 197.78 ns = 7.54 cycles -> 8, split 0/1/1/6.
    CHECK(m.forward_cycles == 8);
    CHECK(m.fabric.pipeline_cycles() == 8);
    CHECK(m.fabric.st_cycles == 6);
    CHECK(m.fabric.vcs == 1);
    CHECK(m.fabric.flit_bytes == Bytes(320));
    CHECK(m.transfer.flit_bytes == Bytes(320));
    // One terminal per wired port: seven in-node links.
    for (topo::VertexId v = 0; v < m.topology.num_vertices(); ++v) CHECK(m.topology.vertex(v).terminals == 7);
}

TEST_CASE("Spare TSPs get no terminal in the dynamic network and the slower class is reported") {
    const topo::FrozenTopology t =
        tsp_topology(R"({"kind": "system264", "nodes": 33, "spare_nodes_per_rack": 1})");
    topo::LinkClassTiming links;
    links.rack_to_rack.lane_rate = Bandwidth::gbps(20);
    TspFabricConfig c;
    c.vcs = 6;
    c.flit_bytes = Bytes(640);
    const TspFabricMapping m = map_tsp_system(t, links, topo::ChipConfig{}, c, 3);
    std::int32_t spares = 0;
    for (topo::VertexId v = 0; v < m.topology.num_vertices(); ++v) {
        const topo::VertexInfo& info = m.topology.vertex(v);
        if (info.spare) {
            ++spares;
            CHECK(info.terminals == 0);
        } else {
            CHECK(info.terminals == 11);
        }
    }
    CHECK(spares == 8);
    CHECK(m.fabric.vcs == 6);
    // 656 wire bytes at the fastest class (in-node, 100 Gbps); the 80 Gbps class runs at that rate.
    CHECK(m.cycle == Time::ps(52'480));
    CHECK(m.rate == Bandwidth::gbps(100));
    CHECK(m.rates_differ);
}

TEST_CASE("A routing list takes names and short names in order without repeats and rejects unknown ones") {
    std::string error;
    const auto kinds = parse_routing_list("min,ugal,valiant,minimal", &error);
    REQUIRE(kinds);
    CHECK(*kinds == std::vector<RoutingKind>{RoutingKind::Minimal, RoutingKind::UgalLocal, RoutingKind::Valiant});
    CHECK_FALSE(parse_routing_list("minimal,adaptive", &error));
    CHECK(error.find("'adaptive'") != std::string::npos);
    CHECK_FALSE(parse_routing_list("", &error));
}

TEST_CASE("A bad routing list in the routing section is reported at its JSON pointer") {
    TspRoutingConfig r;
    config::Errors errors;
    tsp_routing_schema().parse(config::Json::parse(R"({"functions": "minimal,foo"})"), "/routing", r, errors);
    REQUIRE(errors.size() == 1);
    CHECK(errors.messages().front().find("/routing/functions") == 0);
}

TEST_CASE("One vector to a neighbour on the mapped node arrives after terminal, two pipelines and one channel") {
    const topo::FrozenTopology t = tsp_topology(R"({"kind": "node"})");
    const TspFabricMapping m = map_tsp_system(t, topo::LinkClassTiming{}, topo::ChipConfig{}, TspFabricConfig{}, 1);
    workload::TransferSet set;
    workload::Transfer x;
    x.src = 0;
    x.dsts = {3};
    x.bytes = Bytes(320);
    set.transfers = {x};
    sim::Simulator sim;
    config::Errors errors;
    TransferRun run{&set, m.transfer};
    auto model = build(m.topology, m.fabric, RoutingConfig{}, workload::TrafficConfig{}, sim, errors, nullptr, &run);
    errors.throw_if_any();
    sim.init();
    sim.run();
    sim.finish();
    model->finish();
    // Injection 1 + pipeline 8 + in-node channel 19 + pipeline 8 + ejection 1 = 37 cycles of 26.24 ns.
    CHECK(model->transfers()->item(0).done_cycle == 37);
    CHECK(model->summary().at("transfers").at("makespan_ps") == 37 * 26'240);
}
