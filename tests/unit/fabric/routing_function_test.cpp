#include <catch2/catch.hpp>

#include <bit>
#include <vector>

#include "loom/base/rng.hpp"
#include "loom/fabric/routing_function.hpp"
#include "loom/topo/dragonfly.hpp"

using namespace loom;
using namespace loom::fabric;

namespace {

struct Walk {
    int hops = 0;
    int crossings = 0;
    int max_class = 0;
    bool nonminimal = false;
};

// Follows a packet hop by hop from router `src` to router `dst`, as routers would.
Walk walk(const RoutingFunction& f, const RoutingTables& rt, topo::VertexId src, topo::VertexId dst, Rng& rng,
          const std::vector<std::int32_t>& occupancy) {
    Walk w;
    RouteState s;
    topo::VertexId at = src;
    while (at != dst && w.hops < 50) {
        const int cls = vc_class(rt.scheme(), s);
        w.max_class = std::max(w.max_class, cls);
        const RouteQuery q{at, dst, std::span<const std::int32_t>(occupancy.data(), static_cast<std::size_t>(rt.ports(at)))};
        const int port = f.route(q, s, rng);
        REQUIRE(rt.neighbor(at, port) >= 0);
        if (rt.crosses(at, port)) ++s.crossings;
        ++s.hops;
        at = rt.neighbor(at, port);
        ++w.hops;
    }
    w.crossings = s.crossings;
    w.nonminimal = s.nonminimal;
    return w;
}

}  // namespace

TEST_CASE("Every routing function reaches every router within its VC classes") {
    const auto t = topo::build_dragonfly(topo::DragonflyConfig{});
    const RoutingTables rt(t);
    const std::vector<std::int32_t> idle(64, 0);
    for (RoutingKind k : {RoutingKind::Minimal, RoutingKind::Valiant, RoutingKind::UgalLocal}) {
        const auto f = make_routing_function(RoutingConfig{k, 0}, rt);
        Rng rng(3);
        int nonminimal = 0;
        for (topo::VertexId s = 0; s < rt.routers(); ++s) {
            for (topo::VertexId d = 0; d < rt.routers(); ++d) {
                if (s == d) continue;
                const Walk w = walk(*f, rt, s, d, rng, idle);
                CHECK(w.max_class < f->classes());
                CHECK(w.crossings <= f->classes() - 1);
                if (k == RoutingKind::Minimal) CHECK(w.hops == rt.hops(rt.distance(s, d)));
                nonminimal += w.nonminimal;
            }
        }
        INFO(routing_name(k));
        if (k == RoutingKind::Valiant) CHECK(nonminimal > 1000);
        if (k != RoutingKind::Valiant) CHECK(nonminimal == 0);  // UGAL on idle queues is minimal
    }
}

TEST_CASE("UGAL-L leaves the minimal route when its first queue is long enough") {
    const auto t = topo::build_dragonfly(topo::DragonflyConfig{});
    const RoutingTables rt(t);
    const auto f = make_routing_function(RoutingConfig{RoutingKind::UgalLocal, 0}, rt);
    // Router 0 to a router of group 5: the minimal first hop is the only minimal port.
    const topo::VertexId dst = 5 * 4 + 2;
    const int min_port = std::countr_zero(rt.minimal_ports(0, dst));
    REQUIRE(std::popcount(rt.minimal_ports(0, dst)) == 1);
    std::vector<std::int32_t> busy(64, 0);
    busy[static_cast<std::size_t>(min_port)] = 1000;
    Rng rng(9);
    int away = 0;
    for (int i = 0; i < 200; ++i) {
        RouteState s;
        const RouteQuery q{0, dst, std::span<const std::int32_t>(busy.data(), static_cast<std::size_t>(rt.ports(0)))};
        const int port = f->route(q, s, rng);
        if (s.nonminimal) {
            ++away;
            CHECK(s.intermediate >= 0);
            CHECK(s.intermediate != 0);
            CHECK(s.intermediate != 5);
        }
        if (s.nonminimal) CHECK(port != min_port);
        if (!s.nonminimal) CHECK(port == min_port);
    }
    // Every draw leaves but the destination's own group and a group reached through the same busy port (6 or 7
    // of the 8 other groups).
    CHECK(away > 120);
    CHECK(routing_name(RoutingKind::UgalLocal) == "ugal_l");
}
