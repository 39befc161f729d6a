#include <catch2/catch.hpp>

#include <vector>

#include "loom/topo/hop_counts.hpp"
#include "loom/topo/tsp_topology.hpp"

using loom::topo::all_pairs_hops;
using loom::topo::build_tsp_topology;
using loom::topo::FrozenTopology;
using loom::topo::HopSummary;
using loom::topo::PortAssignment;
using loom::topo::TspKind;
using loom::topo::TspTopologyConfig;

namespace {

FrozenTopology build(TspKind kind, PortAssignment assignment, std::int32_t racks = 145) {
    TspTopologyConfig c;
    c.kind = kind;
    c.racks = racks;
    c.port_assignment = assignment;
    return build_tsp_topology(c);
}

// Reference: one plain BFS per vertex.
std::vector<std::int64_t> brute_histogram(const loom::topo::Adjacency& g) {
    std::vector<std::int64_t> hist(1, 0);
    for (std::int32_t s = 0; s < g.size(); ++s)
        for (std::int32_t d : loom::topo::hops_from(g, s)) {
            if (d <= 0) continue;
            if (hist.size() <= static_cast<std::size_t>(d)) hist.resize(static_cast<std::size_t>(d) + 1, 0);
            ++hist[static_cast<std::size_t>(d)];
        }
    return hist;
}

double mean(const std::vector<std::int64_t>& hist) {
    std::int64_t pairs = 0;
    std::int64_t sum = 0;
    for (std::size_t h = 0; h < hist.size(); ++h) {
        pairs += hist[h];
        sum += hist[h] * static_cast<std::int64_t>(h);
    }
    return static_cast<double>(sum) / static_cast<double>(pairs);
}

}  // namespace

TEST_CASE("Bit-parallel all-pairs hop counts agree with one BFS per vertex") {
    for (auto assignment : {PortAssignment::RoundRobin, PortAssignment::Blocked}) {
        for (auto kind : {TspKind::Node, TspKind::System264, TspKind::Rack, TspKind::Multirack}) {
            // 5 racks = 360 TSPs: more than one 256-source sweep.
            const FrozenTopology t = build(kind, assignment, 5);
            const HopSummary h = all_pairs_hops(t.adjacency());
            CHECK(h.histogram == brute_histogram(t.adjacency()));
            CHECK(h.connected);
            CHECK(h.pairs == std::int64_t{t.num_vertices()} * (t.num_vertices() - 1));
            const HopSummary n = all_pairs_hops(t.node_adjacency());
            if (t.num_nodes() > 1) CHECK(n.histogram == brute_histogram(t.node_adjacency()));
        }
    }
}

TEST_CASE("Hop counts only count endpoint pairs but route through every vertex") {
    // A path 0 - 1 - 2 where 1 is not an endpoint.
    loom::topo::Adjacency g{{0, 1, 3, 4}, {1, 0, 2, 1}};
    const HopSummary h = all_pairs_hops(g, {true, false, true});
    CHECK(h.pairs == 2);
    CHECK(h.diameter == 2);
    CHECK(h.average == 2.0);
    CHECK(h.histogram == std::vector<std::int64_t>{0, 0, 2});
    // Disconnected endpoints are reported.
    loom::topo::Adjacency split{{0, 0, 0}, {}};
    CHECK_FALSE(all_pairs_hops(split).connected);
}

TEST_CASE("One node: every TSP pair is one hop and there is one node") {
    const FrozenTopology t = build(TspKind::Node, PortAssignment::RoundRobin);
    const HopSummary h = loom::topo::vertex_hops(t);
    CHECK(h.diameter == 1);
    CHECK(h.average == 1.0);
    const HopSummary n = loom::topo::node_hops(t);
    CHECK(n.diameter == 0);
    CHECK(n.pairs == 0);
}

// The 264-TSP system. 1 hop: 7 local + 4 global neighbours, all distinct: 264 x 11 = 2904 pairs. Every pair in
// different nodes is at most local-global-local = 3 hops (the two nodes share exactly one link), and pairs whose
// TSPs both miss that link need all 3. The node graph is complete: node diameter 1.
TEST_CASE("The 264-TSP system has TSP diameter 3 and node diameter 1 with both port assignments") {
    const FrozenTopology rr = build(TspKind::System264, PortAssignment::RoundRobin);
    const HopSummary h = loom::topo::vertex_hops(rr);
    CHECK(h.diameter == 3);
    CHECK(h.histogram == std::vector<std::int64_t>{0, 2'904, 15'972, 50'556});
    CHECK(h.average == Approx(186'516.0 / 69'432.0));
    const FrozenTopology bl = build(TspKind::System264, PortAssignment::Blocked);
    const HopSummary b = loom::topo::vertex_hops(bl);
    CHECK(b.diameter == 3);
    CHECK(b.histogram == std::vector<std::int64_t>{0, 2'904, 15'456, 51'072});
    for (const FrozenTopology* t : {&rr, &bl}) {
        const HopSummary n = loom::topo::node_hops(*t);
        CHECK(n.diameter == 1);
        CHECK(n.average == 1.0);
    }
}

// One rack. Round robin: each TSP has 7 local and 2 in-rack neighbours (72 x 9 = 648 one-hop pairs). Blocked:
// TSPs 0-3 hold all 16 in-rack ports with both links of a node pair on one TSP pair, so each has 7 + 2 distinct
// neighbours, and TSPs 4-7 only their 7 local ones: 36 x 9 + 36 x 7 = 576. Local, in-rack, local always
// reaches: diameter 3.
TEST_CASE("A rack has TSP diameter 3 and node diameter 1 with both port assignments") {
    const HopSummary rr = loom::topo::vertex_hops(build(TspKind::Rack, PortAssignment::RoundRobin));
    CHECK(rr.diameter == 3);
    CHECK(rr.histogram == std::vector<std::int64_t>{0, 648, 1'944, 2'520});
    CHECK(rr.average == Approx(12'096.0 / 5'112.0));
    const HopSummary bl = loom::topo::vertex_hops(build(TspKind::Rack, PortAssignment::Blocked));
    CHECK(bl.diameter == 3);
    CHECK(bl.histogram == std::vector<std::int64_t>{0, 576, 1'032, 3'504});
    CHECK(loom::topo::node_hops(build(TspKind::Rack, PortAssignment::Blocked)).diameter == 1);
}

// The largest system, 10,440 TSPs. TSP-level diameter 7 with both assignments (as the reference found for every
// assignment tried): when neither endpoint holds the right port, a route takes local, in-rack, local (to the
// TSP holding the one link to the destination rack), rack-to-rack, local, in-rack, local. The node-level diameter
// is 3 (in-rack, rack-to-rack, in-rack): the node graph's own hops. The paper's "at most 5 hops" matches neither
// count; it is the TSP-level 7 less the two local hops inside intermediate nodes, i.e. hops between 32-port
// virtual routers plus the first and last local hop.
// 1-hop pairs: round robin gives every TSP 11 distinct neighbours (10,440 x 11); blocked puts both links
// between two nodes on one TSP pair, so in-rack TSPs have 9 distinct neighbours (10,440 x 10 on average).
TEST_CASE("The largest system has TSP diameter 7 and node diameter 3 with both port assignments") {
    const FrozenTopology rr = build(TspKind::Multirack, PortAssignment::RoundRobin);
    const HopSummary h = loom::topo::vertex_hops(rr);
    CHECK(h.diameter == 7);
    CHECK(h.connected);
    CHECK(h.histogram ==
          std::vector<std::int64_t>{0, 114'840, 678'472, 3'689'938, 16'074'060, 42'241'542, 39'031'034, 7'153'274});
    CHECK(h.average == Approx(mean(h.histogram)));
    CHECK(h.average == Approx(5.2513).epsilon(1e-4));
    const HopSummary n = loom::topo::node_hops(rr);
    CHECK(n.diameter == 3);
    CHECK(n.histogram == std::vector<std::int64_t>{0, 31'320, 364'530, 1'305'870});

    const FrozenTopology bl = build(TspKind::Multirack, PortAssignment::Blocked);
    const HopSummary b = loom::topo::vertex_hops(bl);
    CHECK(b.diameter == 7);
    CHECK(b.histogram ==
          std::vector<std::int64_t>{0, 104'400, 457'080, 2'071'344, 5'561'856, 20'572'032, 27'337'368, 52'879'080});
    CHECK(b.average == Approx(6.1158).epsilon(1e-4));
    const HopSummary bn = loom::topo::node_hops(bl);
    CHECK(bn.diameter == 3);
    CHECK(bn.histogram == std::vector<std::int64_t>{0, 31'320, 351'360, 1'319'040});
}

TEST_CASE("Spare TSPs are not endpoints of the hop statistics") {
    TspTopologyConfig c;
    c.kind = TspKind::Rack;
    c.spare_nodes_per_rack = 1;
    const HopSummary h = loom::topo::vertex_hops(build_tsp_topology(c));
    CHECK(h.pairs == 64 * 63);
    CHECK(h.diameter == 3);
    const HopSummary n = loom::topo::node_hops(build_tsp_topology(c));
    CHECK(n.pairs == 8 * 7);
}
