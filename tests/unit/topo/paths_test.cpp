#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <set>
#include <vector>

#include "loom/base/error.hpp"
#include "loom/topo/paths.hpp"
#include "loom/topo/dragonfly.hpp"
#include "loom/topo/tsp_topology.hpp"

#include "../../../src/topo/graph_builder.hpp"  // an arbitrary graph for the long-path case

using loom::topo::build_tsp_topology;
using loom::topo::FrozenTopology;
using loom::topo::index_of;
using loom::topo::LinkClass;
using loom::topo::Path;
using loom::topo::TspKind;
using loom::topo::TspTopologyConfig;
using loom::topo::VertexId;
using loom::topo::Via;

namespace {

FrozenTopology rack() {
    TspTopologyConfig c;
    c.kind = TspKind::Rack;
    return build_tsp_topology(c);
}

// TSP t of node n in a single rack.
VertexId tsp(int n, int t) { return 8 * n + t; }

// The vertices a path visits, source first.
std::vector<VertexId> visits(const FrozenTopology& t, const Path& p) {
    std::vector<VertexId> v{p.src};
    for (auto c : p.channels) {
        CHECK(t.channel(c).src == v.back());
        v.push_back(t.channel(c).dst);
    }
    CHECK(v.back() == p.dst);
    return v;
}

}  // namespace

// Round robin in a rack: node n's in-rack demand j = 2 * peer + copy goes to TSP j mod 8 (port 7 + j / 8), and
// the link between nodes 0 and 1 lands on TSP c of both for copy c. So (n0,t0) -> (n1,t0) is direct and
// (n0,t0) -> (n1,t2) has exactly one 2-hop path: in-rack, then local.
TEST_CASE("A rack has exactly one minimal path from node 0 TSP 0 to node 1 TSP 2") {
    const FrozenTopology t = rack();
    const auto paths = loom::topo::minimal_paths(t, tsp(0, 0), tsp(1, 2), 100);
    REQUIRE(paths.size() == 1);
    CHECK(visits(t, paths[0]) == std::vector<VertexId>{tsp(0, 0), tsp(1, 0), tsp(1, 2)});
    const auto counts = loom::topo::class_counts(t, paths[0]);
    CHECK(counts[index_of(LinkClass::InRack)] == 1);
    CHECK(counts[index_of(LinkClass::InNode)] == 1);
}

// (n0,t2) -> (n1,t3): node 0 reaches node 1 only from TSPs 0 and 1 (landing on TSPs 0 and 1), and (n1,t3)'s
// in-rack links go to (n2,t3) and (n6,t3); (n0,t2)'s own in-rack links land on (n2,t0) and (n6,t0). No 2-hop
// path exists, and the 3-hop ones are, in port order at the source (local ports 0, 1, then global ports 7, 8):
TEST_CASE("A rack has four 3-hop minimal paths from node 0 TSP 2 to node 1 TSP 3, in port order") {
    const FrozenTopology t = rack();
    const auto paths = loom::topo::minimal_paths(t, tsp(0, 2), tsp(1, 3), 100);
    REQUIRE(paths.size() == 4);
    CHECK(visits(t, paths[0]) == std::vector<VertexId>{tsp(0, 2), tsp(0, 0), tsp(1, 0), tsp(1, 3)});
    CHECK(visits(t, paths[1]) == std::vector<VertexId>{tsp(0, 2), tsp(0, 1), tsp(1, 1), tsp(1, 3)});
    CHECK(visits(t, paths[2]) == std::vector<VertexId>{tsp(0, 2), tsp(2, 0), tsp(2, 3), tsp(1, 3)});
    CHECK(visits(t, paths[3]) == std::vector<VertexId>{tsp(0, 2), tsp(6, 0), tsp(6, 3), tsp(1, 3)});
    for (const auto& p : paths) CHECK(p.hops() == 3);
    const auto c0 = loom::topo::class_counts(t, paths[0]);
    CHECK(c0[index_of(LinkClass::InNode)] == 2);
    CHECK(c0[index_of(LinkClass::InRack)] == 1);
    const auto c2 = loom::topo::class_counts(t, paths[2]);
    CHECK(c2[index_of(LinkClass::InNode)] == 1);
    CHECK(c2[index_of(LinkClass::InRack)] == 2);
    // The bound keeps the first ones.
    const auto two = loom::topo::minimal_paths(t, tsp(0, 2), tsp(1, 3), 2);
    REQUIRE(two.size() == 2);
    CHECK(two[1].channels == paths[1].channels);
}

TEST_CASE("Parallel links make distinct minimal paths") {
    // Two vertices joined twice: two 1-hop paths, one per link, in port order.
    std::vector<loom::topo::VertexInfo> v(2);
    v[1].node = 1;
    const FrozenTopology t("pair", v, {2, 2},
                           {{0, 0, 1, 0, LinkClass::InRack}, {0, 1, 1, 1, LinkClass::InRack}});
    const auto paths = loom::topo::minimal_paths(t, 0, 1, 10);
    REQUIRE(paths.size() == 2);
    CHECK(paths[0].channels == std::vector<loom::topo::ChannelId>{0});
    CHECK(paths[1].channels == std::vector<loom::topo::ChannelId>{2});
    // src == dst: one empty path.
    CHECK(loom::topo::minimal_paths(t, 1, 1, 10).at(0).hops() == 0);
}

TEST_CASE("Non-minimal paths through one intermediate node are simple, longer than minimal and one per node") {
    const FrozenTopology t = rack();
    const auto paths = loom::topo::nonminimal_paths(t, tsp(0, 0), tsp(1, 2), Via::Node, 100);
    // Seven intermediate nodes (all but 0 and 1), one path each.
    REQUIRE(paths.size() == 7);
    std::set<int> nodes;
    int previous_hops = 0;
    for (const auto& p : paths) {
        const auto v = visits(t, p);
        CHECK(std::set<VertexId>(v.begin(), v.end()).size() == v.size());
        CHECK(p.hops() > 2);
        CHECK(p.hops() >= previous_hops);
        previous_hops = p.hops();
        std::set<int> inner;
        for (std::size_t i = 1; i + 1 < v.size(); ++i)
            if (t.vertex(v[i]).node != 0 && t.vertex(v[i]).node != 1) inner.insert(t.vertex(v[i]).node);
        CHECK(!inner.empty());
        nodes.insert(*inner.begin());
    }
    CHECK(nodes.size() == 7);
    CHECK(loom::topo::nonminimal_paths(t, tsp(0, 0), tsp(1, 2), Via::Node, 3).size() == 3);
}

TEST_CASE("Non-minimal paths through one intermediate rack pass through the third rack") {
    TspTopologyConfig c;
    c.kind = TspKind::Multirack;
    c.racks = 3;
    const FrozenTopology t = build_tsp_topology(c);
    const VertexId src = 0;       // rack 0
    const VertexId dst = 72 + 5;  // rack 1
    const auto paths = loom::topo::nonminimal_paths(t, src, dst, Via::Group, 10);
    REQUIRE(paths.size() == 1);
    const auto v = visits(t, paths[0]);
    bool through_rack2 = false;
    for (VertexId x : v) through_rack2 = through_rack2 || t.vertex(x).rack == 2;
    CHECK(through_rack2);
    CHECK(paths[0].hops() > loom::topo::minimal_paths(t, src, dst, 1).at(0).hops());
    CHECK(loom::topo::class_counts(t, paths[0])[index_of(LinkClass::RackToRack)] == 2);
}

TEST_CASE("Paths between vertices outside the topology are an input error") {
    const FrozenTopology t = rack();
    CHECK_THROWS_AS(loom::topo::minimal_paths(t, 0, 72, 1), loom::InputError);
    CHECK_THROWS_AS(loom::topo::nonminimal_paths(t, -1, 3, Via::Node, 1), loom::InputError);
}

namespace {

// The table-driven searches against the ones that search the graph per call, for every ordered pair.
void check_table_paths(const FrozenTopology& t, std::size_t minimal_limit, std::size_t nonminimal_limit) {
    loom::topo::HopTable hops(t);
    for (VertexId s = 0; s < t.num_vertices(); ++s) {
        for (VertexId d = 0; d < t.num_vertices(); ++d) {
            const auto a = loom::topo::minimal_paths(t, s, d, minimal_limit);
            const auto b = loom::topo::minimal_paths(t, hops, s, d, minimal_limit);
            REQUIRE(a.size() == b.size());
            for (std::size_t i = 0; i < a.size(); ++i) REQUIRE(a[i].channels == b[i].channels);
            for (Via via : {Via::Node, Via::Group}) {
                const auto x = loom::topo::nonminimal_paths(t, s, d, via, nonminimal_limit);
                const auto y = loom::topo::nonminimal_paths(t, hops, s, d, via, nonminimal_limit);
                INFO("pair " << s << " -> " << d << " via " << (via == Via::Node ? "node" : "group"));
                REQUIRE(x.size() == y.size());
                for (std::size_t i = 0; i < x.size(); ++i) REQUIRE(x[i].channels == y[i].channels);
            }
        }
    }
}

}  // namespace

TEST_CASE("Paths from a hop table equal the per-call searches for every pair of a rack and of a node") {
    check_table_paths(rack(), 8, 7);
    check_table_paths(rack(), 100, 100);
    TspTopologyConfig c;
    c.kind = TspKind::Node;
    check_table_paths(build_tsp_topology(c), 8, 7);
}

TEST_CASE("Paths from a hop table equal the per-call searches for every pair of three racks") {
    TspTopologyConfig c;
    c.kind = TspKind::Multirack;
    c.racks = 3;
    check_table_paths(build_tsp_topology(c), 8, 7);
}

TEST_CASE("Paths from a hop table equal the per-call searches for every pair of the 264-TSP system") {
    TspTopologyConfig c;
    c.kind = TspKind::System264;
    check_table_paths(build_tsp_topology(c), 8, 5);
}

TEST_CASE("Paths from a hop table equal the per-call searches on a Dragonfly, by node and by group") {
    loom::topo::DragonflyConfig c;  // p2 a4 h2: 9 groups of 4 routers
    check_table_paths(loom::topo::build_dragonfly(c), 8, 7);
}

TEST_CASE("Non-minimal paths from a hop table equal the per-call search where totals pass 254 hops") {
    // A ladder of two lines of 140 vertices joined by a rung at every step: diameter 140, so a detour's total
    // (hops src -> x -> dst) reaches 280 between the far ends, past what a byte holds.
    loom::topo::detail::GraphBuilder b;
    constexpr int kLength = 140;
    for (int v = 0; v < 2 * kLength; ++v) {
        loom::topo::VertexInfo info;
        info.node = v;
        info.group = (v % kLength) / 10;
        b.add_vertex(info, 3);
    }
    auto at = [](int line, int i) { return line * kLength + i; };
    for (int line = 0; line < 2; ++line)
        for (int i = 0; i + 1 < kLength; ++i) b.add_link(at(line, i), 1, at(line, i + 1), 0, LinkClass::InRack);
    for (int i = 0; i < kLength; ++i) b.add_link(at(0, i), 2, at(1, i), 2, LinkClass::InNode);
    const FrozenTopology t = b.freeze("ladder");
    loom::topo::HopTable hops(t);
    std::size_t far_pairs = 0;  // pairs with a vertex of total 255 or more
    for (const auto& [s, d] : {std::pair{at(0, 0), at(0, kLength - 1)}, std::pair{at(0, 0), at(0, 1)},
                               std::pair{at(1, 3), at(0, 5)}, std::pair{at(0, 70), at(1, 139)},
                               std::pair{at(1, 139), at(0, 0)}}) {
        std::int32_t top = 0;
        for (VertexId x = 0; x < t.num_vertices(); ++x) top = std::max(top, hops.hops(s, x) + hops.hops(x, d));
        if (top >= 255) ++far_pairs;
        for (Via via : {Via::Node, Via::Group}) {
            // Every unit: the far ends' detours too.
            const auto x = loom::topo::nonminimal_paths(t, s, d, via, 1000);
            const auto y = loom::topo::nonminimal_paths(t, hops, s, d, via, 1000);
            INFO("pair " << s << " -> " << d << " via " << (via == Via::Node ? "node" : "group"));
            REQUIRE(x.size() == y.size());
            for (std::size_t i = 0; i < x.size(); ++i) REQUIRE(x[i].channels == y[i].channels);
        }
    }
    CHECK(far_pairs > 0);
}

namespace {

// A connected random graph: `vertices` vertices in nodes of 1-4 (numbered in vertex order, as FrozenTopology
// requires), groups drawn at random (not in vertex order, so the group search sorts its candidates), a random
// spanning tree plus `extra` links (parallel ones allowed), each link on ports drawn at random from its ends' free
// ones (so the lowest port is not the first link made).
FrozenTopology random_graph(std::mt19937& rng, int vertices, int extra) {
    constexpr int kPorts = 24;
    auto draw = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    loom::topo::detail::GraphBuilder b;
    std::vector<std::vector<int>> free_ports(static_cast<std::size_t>(vertices));
    const int groups = draw(1, 5);
    int node = 0;
    for (int v = 0; v < vertices;) {
        const int size = std::min(draw(1, 4), vertices - v);
        for (int k = 0; k < size; ++k, ++v) {
            loom::topo::VertexInfo info;
            info.node = node;
            info.index = k;
            info.group = draw(0, groups - 1);
            b.add_vertex(info, kPorts);
            auto& ports = free_ports[static_cast<std::size_t>(v)];
            for (int p = 0; p < kPorts; ++p) ports.push_back(p);
            std::shuffle(ports.begin(), ports.end(), rng);
        }
        ++node;
    }
    auto link = [&](int a, int c) {
        auto& pa = free_ports[static_cast<std::size_t>(a)];
        auto& pc = free_ports[static_cast<std::size_t>(c)];
        if (a == c || pa.empty() || pc.empty()) return;
        b.add_link(a, pa.back(), c, pc.back(), draw(0, 1) == 0 ? LinkClass::InNode : LinkClass::InRack);
        pa.pop_back();
        pc.pop_back();
    };
    for (int v = 1; v < vertices; ++v) link(v, draw(0, v - 1));
    for (int k = 0; k < extra; ++k) link(draw(0, vertices - 1), draw(0, vertices - 1));
    return b.freeze("random");
}

}  // namespace

TEST_CASE("Non-minimal paths from a hop table equal the per-call search on random graphs and pairs") {
    std::mt19937 rng(20261208);
    std::size_t found = 0;
    for (int graph = 0; graph < 60; ++graph) {
        const int vertices = std::uniform_int_distribution<int>(4, 90)(rng);
        const int extra = std::uniform_int_distribution<int>(0, 2 * vertices)(rng);
        const FrozenTopology t = random_graph(rng, vertices, extra);
        loom::topo::HopTable hops(t);
        for (int pair = 0; pair < 60; ++pair) {
            const auto s = std::uniform_int_distribution<VertexId>(0, t.num_vertices() - 1)(rng);
            const auto d = std::uniform_int_distribution<VertexId>(0, t.num_vertices() - 1)(rng);
            const auto limit = static_cast<std::size_t>(std::uniform_int_distribution<int>(1, 12)(rng));
            for (Via via : {Via::Node, Via::Group}) {
                const auto x = loom::topo::nonminimal_paths(t, s, d, via, limit);
                const auto y = loom::topo::nonminimal_paths(t, hops, s, d, via, limit);
                INFO("graph " << graph << " pair " << s << " -> " << d << " limit " << limit);
                REQUIRE(x.size() == y.size());
                for (std::size_t i = 0; i < x.size(); ++i) REQUIRE(x[i].channels == y[i].channels);
                found += x.size();
            }
        }
    }
    CHECK(found > 1000);  // the graphs have detours to compare, not only empty answers
}
