#include <catch2/catch.hpp>

#include <vector>

#include "loom/base/error.hpp"
#include "loom/topo/dragonfly.hpp"
#include "loom/topo/hop_counts.hpp"
#include "loom/topo/hop_table.hpp"
#include "loom/topo/tsp_topology.hpp"

using loom::topo::FrozenTopology;
using loom::topo::HopTable;
using loom::topo::TspKind;
using loom::topo::TspTopologyConfig;
using loom::topo::VertexId;

namespace {

FrozenTopology tsp_system(TspKind kind, std::int32_t racks = 3) {
    TspTopologyConfig c;
    c.kind = kind;
    c.racks = racks;
    return build_tsp_topology(c);
}

// Every row of the table against one plain breadth-first search from that vertex.
void check_against_bfs(const FrozenTopology& t) {
    HopTable table(t);
    for (VertexId s = 0; s < t.num_vertices(); ++s) {
        const std::vector<std::int32_t> bfs = loom::topo::hops_from(t.adjacency(), s);
        const auto row = table.row(s);
        REQUIRE(row.size() == bfs.size());
        for (std::size_t v = 0; v < bfs.size(); ++v) {
            const std::int32_t got = row[v] == HopTable::kUnreachable ? -1 : row[v];
            if (got != bfs[v]) FAIL("row " << s << " vertex " << v << ": table " << got << ", BFS " << bfs[v]);
        }
    }
}

}  // namespace

TEST_CASE("Hop table rows equal a breadth-first search on a node, a rack and the 264-TSP system") {
    check_against_bfs(tsp_system(TspKind::Node));
    check_against_bfs(tsp_system(TspKind::Rack));
    check_against_bfs(tsp_system(TspKind::System264));
}

TEST_CASE("Hop table rows equal a breadth-first search on three racks, across batches of 256 sources") {
    const FrozenTopology t = tsp_system(TspKind::Multirack, 3);
    REQUIRE(t.num_vertices() == 216);
    check_against_bfs(t);
    const FrozenTopology five = tsp_system(TspKind::Multirack, 5);  // 360 TSPs: two batches, the second partial
    check_against_bfs(five);
}

TEST_CASE("Hop table rows equal a breadth-first search on a Dragonfly") {
    check_against_bfs(loom::topo::build_dragonfly(loom::topo::DragonflyConfig{}));
}

TEST_CASE("Hop table marks vertices without a path unreachable and computes only the batches asked for") {
    // Two separate pairs: 0-1 and 2-3.
    std::vector<loom::topo::VertexInfo> v(4);
    for (int i = 0; i < 4; ++i) v[static_cast<std::size_t>(i)].node = i;
    const FrozenTopology t("pairs", v, {1, 1, 1, 1},
                           {{0, 0, 1, 0, loom::topo::LinkClass::InRack}, {2, 0, 3, 0, loom::topo::LinkClass::InRack}});
    HopTable table(t);
    CHECK(table.batches_computed() == 0);
    CHECK(table.hops(0, 1) == 1);
    CHECK(table.hops(1, 1) == 0);
    CHECK(table.hops(0, 3) == -1);
    CHECK(table.row(3)[0] == HopTable::kUnreachable);
    CHECK(table.batches_computed() == 1);
    CHECK(table.stored_bytes() == 16);
    CHECK_THROWS_AS(table.row(4), loom::InputError);
}
