#include <catch2/catch.hpp>

#include <vector>

#include "loom/topo/paths.hpp"
#include "loom/topo/route_table.hpp"
#include "loom/topo/tsp_topology.hpp"

using loom::topo::build_tsp_topology;
using loom::topo::ChannelId;
using loom::topo::FrozenTopology;
using loom::topo::RouteTable;
using loom::topo::TspKind;
using loom::topo::TspTopologyConfig;
using loom::topo::VertexId;

namespace {
FrozenTopology build(TspKind kind, std::int32_t racks = 1) {
    TspTopologyConfig c;
    c.kind = kind;
    c.racks = racks;
    return build_tsp_topology(c);
}
}  // namespace

TEST_CASE("Minimal next hops are the first hops of the minimal paths") {
    const FrozenTopology t = build(TspKind::Rack);
    RouteTable routes(t);
    // (n0,t2) -> (n1,t3): first hops on local ports 0 and 1 and global ports 7 and 8 (see paths_test).
    CHECK(routes.hops(2, 11) == 3);
    CHECK(routes.minimal_port_mask(2, 11) == ((1u << 0) | (1u << 1) | (1u << 7) | (1u << 8)));
    std::vector<ChannelId> next;
    routes.minimal_next(2, 11, next);
    REQUIRE(next.size() == 4);
    CHECK(t.channel(next[2]).dst == 16);
    // At the destination there is nowhere to go.
    next.clear();
    routes.minimal_next(11, 11, next);
    CHECK(next.empty());
    CHECK(routes.minimal_port_mask(11, 11) == 0);
}

TEST_CASE("Route table answers match path enumeration for every pair of a small system") {
    const FrozenTopology t = build(TspKind::Rack);
    RouteTable routes(t, 16);  // a small cache forces evictions
    for (VertexId s = 0; s < t.num_vertices(); ++s)
        for (VertexId d = 0; d < t.num_vertices(); d += 3) {
            const auto paths = loom::topo::minimal_paths(t, s, d, 100'000);
            REQUIRE(!paths.empty());
            CHECK(routes.hops(s, d) == paths[0].hops());
            std::vector<ChannelId> expected;
            for (const auto& p : paths)
                if (!p.channels.empty() && (expected.empty() || expected.back() != p.channels[0]))
                    expected.push_back(p.channels[0]);
            std::vector<ChannelId> next;
            routes.minimal_next(s, d, next);
            CHECK(next == expected);
        }
}

TEST_CASE("The route table keeps at most its column budget and recomputes evicted columns identically") {
    const FrozenTopology t = build(TspKind::Multirack, 145);
    RouteTable routes(t, 4);
    const auto first = routes.minimal_port_mask(0, 10'439);
    for (VertexId d = 1; d <= 6; ++d) routes.hops(0, d);
    CHECK(routes.stored_bytes() < 5 * 10'440 + 4 * 10'440);
    CHECK(routes.minimal_port_mask(0, 10'439) == first);
    CHECK(routes.column_computations() == 8);
    CHECK(routes.hops(10'439, 0) == routes.hops(0, 10'439));
    CHECK(routes.hops(0, 10'439) <= 7);
}
