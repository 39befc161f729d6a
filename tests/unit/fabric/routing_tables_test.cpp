#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>

#include "loom/fabric/routing_tables.hpp"
#include "loom/topo/dragonfly.hpp"

using namespace loom;
using namespace loom::fabric;

namespace {

// A ring of n routers, one terminal each (kind "ring": hop-index VC classes).
topo::FrozenTopology ring(int n) {
    std::vector<topo::VertexInfo> v(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
        v[static_cast<std::size_t>(i)].group = i / 2;
        v[static_cast<std::size_t>(i)].node = i;
    }
    std::vector<topo::LinkSpec> links;
    for (int i = 0; i < n; ++i) links.push_back({i, 0, (i + 1) % n, 1, topo::LinkClass::InRack});
    return topo::FrozenTopology("ring", v, std::vector<std::int32_t>(static_cast<std::size_t>(n), 2), links);
}

}  // namespace

TEST_CASE("Dragonfly tables order routes by global hops first and need 2 and 3 VC classes") {
    const auto t = topo::build_dragonfly(topo::DragonflyConfig{});  // p=2 a=4 h=2 g=9
    const RoutingTables rt(t);
    CHECK(rt.scheme() == VcClassScheme::GlobalHops);
    CHECK(rt.routers() == 36);
    CHECK(rt.groups() == 9);
    CHECK(rt.minimal_classes() == 2);
    CHECK(rt.intermediate_classes() == 3);
    // Inside a group: one local hop.
    CHECK(rt.hops(rt.distance(0, 3)) == 1);
    CHECK(rt.crossings(rt.distance(0, 3)) == 0);
    CHECK(std::popcount(rt.minimal_ports(0, 3)) == 1);
    for (topo::VertexId v = 0; v < 36; ++v) {
        for (topo::VertexId d = 0; d < 36; ++d) {
            const auto x = rt.distance(v, d);
            CHECK(rt.crossings(x) == (t.vertex(v).group != t.vertex(d).group ? 1 : 0));
            CHECK(rt.hops(x) <= 3);
            CHECK((rt.minimal_ports(v, d) == 0) == (v == d));
        }
    }
    // Toward another group the route leaves through the global port when the router has one to it.
    const std::uint64_t to_g = rt.group_ports(0, 1);
    REQUIRE(std::popcount(to_g) == 1);
    const int q = std::countr_zero(to_g);
    CHECK(rt.crosses(0, q) == (rt.group_of(rt.neighbor(0, q)) == 1));
    CHECK(rt.group_ports(0, 0) == 0);
}

TEST_CASE("Tables on other topologies count hops and need one VC class per hop of the longest route") {
    const auto t = ring(6);
    const RoutingTables rt(t);
    CHECK(rt.scheme() == VcClassScheme::HopIndex);
    CHECK(rt.hops(rt.distance(0, 3)) == 3);
    CHECK(std::popcount(rt.minimal_ports(0, 3)) == 2);  // both ways round are minimal
    CHECK(std::popcount(rt.minimal_ports(0, 2)) == 1);
    CHECK(rt.minimal_classes() == 3);
    // Through a group: up to 2 hops to reach a pair, then up to 3: 5.
    CHECK(rt.intermediate_classes() == 5);
}

TEST_CASE("Tables whose routers have more (ports, distance) pairs than a palette holds keep the distances") {
    // A ring of 600: router 0 reaches the others at 300 distances, one way round or the other, more than the 254
    // pairs its palette holds, so the rest come from the distance matrix; both must agree with the ring.
    constexpr int n = 600;
    const auto t = ring(n);
    const RoutingTables rt(t);
    for (topo::VertexId v : {0, 17, 599}) {
        for (topo::VertexId d = 0; d < n; ++d) {
            const int ahead = (d - v + n) % n;
            const int hops = std::min(ahead, n - ahead);
            REQUIRE(rt.hops(rt.distance(v, d)) == hops);
            const std::uint64_t ports = rt.minimal_ports(v, d);
            if (hops == 0) {
                CHECK(ports == 0);
            } else {
                CHECK(std::popcount(ports) == (ahead == n - ahead ? 2 : 1));
            }
        }
    }
}

TEST_CASE("Dragonfly distances from the palettes are the hop counts of minimal routes") {
    const auto t = topo::build_dragonfly(topo::DragonflyConfig{});  // p=2 a=4 h=2 g=9
    const RoutingTables rt(t);
    // Walk a minimal route from every router to every other: its length is the distance's hop count.
    for (topo::VertexId v = 0; v < rt.routers(); ++v) {
        for (topo::VertexId d = 0; d < rt.routers(); ++d) {
            int walked = 0, crossed = 0;
            for (topo::VertexId u = v; u != d; ++walked) {
                REQUIRE(walked < 8);
                const int q = std::countr_zero(rt.minimal_ports(u, d));
                crossed += rt.crosses(u, q) ? 1 : 0;
                u = rt.neighbor(u, q);
            }
            CHECK(rt.hops(rt.distance(v, d)) == walked);
            CHECK(rt.crossings(rt.distance(v, d)) == crossed);
        }
    }
}
