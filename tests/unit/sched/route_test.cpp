#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <tuple>

#include "loom/base/clock_domain.hpp"
#include "loom/topo/paths.hpp"
#include "loom/topo/tsp_topology.hpp"
#include "route.hpp"
#include "sched_fixtures.hpp"

using loom::sched::SchedulerConfig;
using loom::sched::detail::HopTiming;
using loom::sched::detail::Network;
using loom::sched::detail::Route;
using loom::Serializer;
using loom::topo::FrozenTopology;
namespace fx = loom::sched::test;

namespace {

struct Machine {
    explicit Machine(FrozenTopology topo, std::int64_t max_train = 0)
        : t(std::move(topo)),
          timing(loom::ClockDomain(loom::Frequency::mhz(900)), 178, 0, 4, loom::Time::zero()),
          net{t, paces(), timing, max_train} {}
    static std::array<Serializer, loom::topo::kLinkClassCount> paces() {
        std::array<Serializer, loom::topo::kLinkClassCount> p;
        for (auto c : loom::topo::kAllLinkClasses)
            p[loom::topo::index_of(c)] = Serializer(loom::topo::LinkClassTiming{}.timing(c));
        return p;
    }
    FrozenTopology t;
    HopTiming timing;
    Network net;
};

// The TSPs a route's hops reach, and a check that each hop leaves its parent's TSP.
std::vector<loom::topo::VertexId> reached(const FrozenTopology& t, const Route& r) {
    std::vector<loom::topo::VertexId> out;
    for (const auto& h : r.hops) {
        const auto from = h.parent < 0 ? r.src : r.hops[static_cast<std::size_t>(h.parent)].to;
        CHECK(t.channel(h.channel).src == from);
        CHECK(t.channel(h.channel).dst == h.to);
        out.push_back(h.to);
    }
    return out;
}

}  // namespace

TEST_CASE("Point-to-point candidates are the minimal path first, then longer detours, up to max_paths") {
    Machine m(fx::system264());
    SchedulerConfig cfg;
    const auto routes = loom::sched::detail::point_to_point_routes(m.net, 0, 13, cfg);
    REQUIRE(routes.size() == 8);
    CHECK(routes[0].minimal);
    const auto minimal_hops = routes[0].hops.size();
    for (std::size_t i = 1; i < routes.size(); ++i) {
        CHECK_FALSE(routes[i].minimal);
        CHECK(routes[i].hops.size() > minimal_hops);
    }
    for (const Route& r : routes) {
        const auto v = reached(m.t, r);
        CHECK(v.back() == 13);
        CHECK(std::set<loom::topo::VertexId>(v.begin(), v.end()).size() == v.size());
        REQUIRE(r.leaf_latency.size() == 1);
        CHECK(r.hops.back().leaf);
        CHECK(std::count_if(r.hops.begin(), r.hops.end(), [](const auto& h) { return h.leaf; }) == 1);
    }
    cfg.allow_nonminimal = false;
    CHECK(loom::sched::detail::point_to_point_routes(m.net, 0, 13, cfg).size() == 1);
}

TEST_CASE("Detours inside one node turn at another TSP of the node") {
    Machine m(fx::node_of(8));
    const auto routes = loom::sched::detail::point_to_point_routes(m.net, 0, 1, SchedulerConfig{});
    REQUIRE(routes.size() == 7);  // the direct link and six 2-hop detours
    CHECK(routes[0].hops.size() == 1);
    std::set<loom::topo::VertexId> via;
    for (std::size_t i = 1; i < routes.size(); ++i) {
        REQUIRE(routes[i].hops.size() == 2);
        via.insert(routes[i].hops[0].to);
    }
    CHECK(via == std::set<loom::topo::VertexId>{2, 3, 4, 5, 6, 7});
}

TEST_CASE("Fan-out trees make every destination a leaf and share the path to another node") {
    Machine m(fx::system264());
    const std::vector<loom::topo::VertexId> dsts{9, 10, 11, 3};
    const auto trees = loom::sched::detail::fanout_routes(m.net, 0, dsts, SchedulerConfig{});
    REQUIRE_FALSE(trees.empty());
    std::multiset<loom::topo::VertexId> leaves;
    std::size_t hops = 0;
    for (const Route& r : trees) {
        reached(m.t, r);
        hops += r.hops.size();
        for (const auto& h : r.hops) {
            if (h.leaf) {
                leaves.insert(h.to);
                CHECK(h.out_ports == 0);
            } else {
                CHECK(h.out_ports != 0);
                CHECK(std::find(dsts.begin(), dsts.end(), h.to) == dsts.end());
            }
        }
    }
    CHECK(leaves == std::multiset<loom::topo::VertexId>{3, 9, 10, 11});
    // Separate paths would take at least 3 hops to each of 9, 10, 11 and 1 to 3: sharing saves hops.
    CHECK(hops < 10);
}

TEST_CASE("A path split for staging ends in a Receive at the split and restarts with a Send there") {
    Machine m(fx::chain3());
    const Route path = loom::sched::detail::path_route(m.net, {m.t.channel_at(0, 0), m.t.channel_at(1, 1)}, 0, true);
    const auto [first, second] = loom::sched::detail::split_route(m.net, path, 0);
    REQUIRE(first.hops.size() == 1);
    CHECK(first.hops[0].leaf);
    CHECK(first.hops[0].to == 1);
    CHECK(second.src == 1);
    REQUIRE(second.hops.size() == 1);
    CHECK(second.hops[0].parent == -1);
    CHECK(second.src_ports == 0b10);
    CHECK(second.hops[0].to == 2);
}

TEST_CASE("A fan-out through one of its destinations is relayed from that destination's memory") {
    Machine m(fx::chain3());
    const auto routes = loom::sched::detail::fanout_routes(m.net, 0, {2, 1}, SchedulerConfig{});
    REQUIRE(routes.size() == 2);
    CHECK(routes[0].src == 0);
    CHECK(routes[0].feeder == -1);
    REQUIRE(routes[0].hops.size() == 1);
    CHECK(routes[0].hops[0].leaf);
    CHECK(routes[0].hops[0].to == 1);
    CHECK(routes[1].src == 1);
    CHECK(routes[1].feeder == 0);
    REQUIRE(routes[1].hops.size() == 1);
    CHECK(routes[1].hops[0].to == 2);
    // The relay's leaf latency counts from TSP 0: two hops of 26240 + 497750 ps.
    REQUIRE(routes[1].leaf_latency.size() == 1);
    CHECK(routes[1].leaf_latency[0].second == loom::Time::ps(2 * (fx::kVectorPs + fx::kLatencyPs)));
}

namespace {

bool same_routes(const std::vector<Route>& a, const std::vector<Route>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (a[i].src != b[i].src || a[i].src_ports != b[i].src_ports || a[i].minimal != b[i].minimal ||
            a[i].max_train != b[i].max_train || a[i].leaf_latency != b[i].leaf_latency || a[i].feeder != b[i].feeder ||
            a[i].hops.size() != b[i].hops.size())
            return false;
        for (std::size_t h = 0; h < a[i].hops.size(); ++h) {
            const auto& x = a[i].hops[h];
            const auto& y = b[i].hops[h];
            if (x.channel != y.channel || x.parent != y.parent || x.to != y.to || x.leaf != y.leaf ||
                x.out_ports != y.out_ports || x.kind != y.kind || x.pace != y.pace || x.bound_offset != y.bound_offset)
                return false;
        }
    }
    return true;
}

}  // namespace

TEST_CASE("Point-to-point candidates asked again come from the cache and equal those of a fresh network") {
    Machine m(fx::system264());
    SchedulerConfig cfg;
    const auto first = loom::sched::detail::point_to_point_routes(m.net, 0, 13, cfg);
    REQUIRE(m.net.cache);
    CHECK(m.net.cache->pairs.size() == 1);
    CHECK(same_routes(loom::sched::detail::point_to_point_routes(m.net, 0, 13, cfg), first));
    CHECK(m.net.cache->pairs.size() == 1);
    // Another configuration does not reuse the answers of the first.
    cfg.max_paths = 3;
    const auto three = loom::sched::detail::point_to_point_routes(m.net, 0, 13, cfg);
    CHECK(three.size() == 3);
    Machine fresh(fx::system264());
    CHECK(same_routes(three, loom::sched::detail::point_to_point_routes(fresh.net, 0, 13, cfg)));
    cfg.max_paths = 8;
    CHECK(same_routes(loom::sched::detail::point_to_point_routes(m.net, 0, 13, cfg), first));
}

TEST_CASE("Candidates made from the cache's spare routes equal those of a fresh network") {
    Machine m(fx::system264());
    SchedulerConfig cfg;
    Machine fresh(fx::system264());
    // The same pairs asked in the same order (hop kinds are numbered as first met), without spares.
    loom::sched::detail::point_to_point_routes(fresh.net, 5, 200, cfg);
    fresh.net.routes().pairs.clear();
    const auto want = loom::sched::detail::point_to_point_routes(fresh.net, 0, 13, cfg);
    const auto want_short = loom::sched::detail::point_to_point_routes(fresh.net, 13, 14, cfg);
    // Spares as a released pair leaves them, each field changed: more hops and leaves than any candidate needs,
    // another source, a feeder, a train cap.
    auto& cache = m.net.routes();
    const auto other = loom::sched::detail::point_to_point_routes(m.net, 5, 200, cfg);
    REQUIRE(other.size() == want.size());
    for (Route r : other) {
        r.src = 77;
        r.src_ports = 0xffff;
        r.minimal = !r.minimal;
        r.max_train = 3;
        r.feeder = 4;
        for (int k = 0; k < 12; ++k) r.hops.push_back(r.hops.front());
        for (auto& hop : r.hops) {
            hop.out_ports = 0x5a5a;
            hop.kind = 99;
            hop.pace = 7;
            hop.bound_offset = loom::Time::ps(12345);
        }
        r.leaf_latency.assign(5, {9, loom::Time::ps(1)});
        cache.spare.push_back(std::move(r));
    }
    cache.pairs.clear();
    const std::size_t spares = cache.spare.size();
    CHECK(same_routes(loom::sched::detail::point_to_point_routes(m.net, 0, 13, cfg), want));
    CHECK(cache.spare.size() + want.size() == spares);
    // Fewer spares than candidates: the rest are new routes.
    CHECK(same_routes(loom::sched::detail::point_to_point_routes(m.net, 13, 14, cfg), want_short));
    CHECK(cache.spare.size() + want.size() + std::min(want_short.size(), spares - want.size()) == spares);
}

TEST_CASE("A hop's route-bound offset is S(1) + latency of every hop before it, also in the halves of a split") {
    Machine m(fx::system264());
    SchedulerConfig cfg;
    auto routes = loom::sched::detail::point_to_point_routes(m.net, 0, 13, cfg);
    const Route& path = routes.back();  // a detour: several hops, link classes mixed
    REQUIRE(path.hops.size() >= 3);
    const auto check = [&m](const Route& r) {
        loom::Time offset;
        for (const auto& hop : r.hops) {
            CHECK(hop.pace == loom::topo::index_of(m.t.channel(hop.channel).link_class));
            CHECK(hop.bound_offset == offset);
            offset += m.net.fast(hop.channel).one() + m.net.fast(hop.channel).latency();
        }
        CHECK(r.hops.front().bound_offset == loom::Time::zero());
    };
    check(path);
    const auto [first, second] = loom::sched::detail::split_route(m.net, path, 1);
    check(first);
    check(second);
    CHECK(second.hops.front().bound_offset == loom::Time::zero());
    CHECK(path.hops.back().bound_offset > loom::Time::zero());
}

TEST_CASE("A path's route equals the one finish_route() makes of its hops, hop kinds numbered alike") {
    const auto two_racks = [] {
        loom::topo::TspTopologyConfig c;
        c.kind = loom::topo::TspKind::Multirack;
        c.racks = 2;
        return loom::topo::build_tsp_topology(c);
    };
    for (const std::int64_t max_train : {std::int64_t{0}, std::int64_t{5}}) {
        for (const bool racks : {false, true}) {
            const auto make = [&] { return racks ? two_racks() : fx::system264(); };
            // Two machines, each meeting the same paths in the same order: kinds are numbered as first met.
            Machine by_path(make(), max_train);
            Machine by_hops(make(), max_train);
            loom::topo::HopTable hops(by_path.t);
            std::mt19937 rng(7 + static_cast<unsigned>(max_train));
            std::uniform_int_distribution<loom::topo::VertexId> pick(0, by_path.t.num_vertices() - 1);
            std::size_t paths = 0;
            for (int pair = 0; pair < 300; ++pair) {
                const auto s = pick(rng);
                const auto d = pick(rng);
                if (s == d) continue;
                auto candidates = loom::topo::minimal_paths(by_path.t, hops, s, d, 4);
                for (auto& p : loom::topo::nonminimal_paths(by_path.t, hops, s, d, loom::topo::Via::Node, 4))
                    candidates.push_back(std::move(p));
                for (const auto& p : candidates) {
                    Route spare;  // a used route: path_route() sets every field
                    spare.hops.resize(20);
                    spare.leaf_latency.assign(3, {1, loom::Time::ps(2)});
                    spare.feeder = 3;
                    loom::sched::detail::path_route(by_path.net, p.channels, s, pair % 2 == 0, spare);
                    Route want;
                    want.src = s;
                    want.minimal = pair % 2 == 0;
                    for (std::size_t i = 0; i < p.channels.size(); ++i) {
                        loom::sched::detail::RouteHop h;
                        h.channel = p.channels[i];
                        h.parent = static_cast<std::int32_t>(i) - 1;
                        h.to = by_hops.t.channel(p.channels[i]).dst;
                        h.leaf = i + 1 == p.channels.size();
                        want.hops.push_back(h);
                    }
                    loom::sched::detail::finish_route(by_hops.net, want);
                    REQUIRE(same_routes({spare}, {want}));
                    ++paths;
                }
            }
            CHECK(paths > 500);  // the route comparisons check the kind ids too
        }
    }
}

namespace {

// fanout_routes() as it was written with std::maps (kept as the reference for the flat per-TSP arrays).
std::vector<Route> reference_fanout_routes(const Network& net, loom::topo::VertexId src,
                                           const std::vector<loom::topo::VertexId>& dsts, const SchedulerConfig& cfg) {
    using loom::topo::ChannelId;
    using loom::topo::VertexId;
    const FrozenTopology& t = net.topo;
    std::map<VertexId, ChannelId> via{{src, loom::topo::kNoChannel}};
    std::vector<ChannelId> order;
    const auto k = static_cast<std::size_t>(std::max(cfg.max_paths, 16));
    for (VertexId d : dsts) {
        if (via.count(d)) continue;
        const auto candidates = loom::topo::minimal_paths(t, net.routes().hops, src, d, k);
        if (candidates.empty()) return {};
        std::size_t best = 0;
        std::size_t best_from = 0;
        std::size_t best_len = std::numeric_limits<std::size_t>::max();
        for (std::size_t i = 0; i < candidates.size(); ++i) {
            const auto& path = candidates[i].channels;
            std::size_t from = 0;
            for (std::size_t j = 0; j < path.size(); ++j) {
                if (via.count(t.channel(path[j]).dst)) from = j + 1;
            }
            if (path.size() - from < best_len) {
                best = i;
                best_from = from;
                best_len = path.size() - from;
            }
        }
        const auto& path = candidates[best].channels;
        for (std::size_t j = best_from; j < path.size(); ++j) {
            via[t.channel(path[j]).dst] = path[j];
            order.push_back(path[j]);
        }
    }
    auto is_dst = [&](VertexId v) { return std::find(dsts.begin(), dsts.end(), v) != dsts.end(); };
    std::map<VertexId, loom::Time> latency{{src, loom::Time::zero()}};
    for (ChannelId c : order) {
        const Serializer& s = net.channel(c);
        latency[t.channel(c).dst] = latency.at(t.channel(c).src) + s(1) + s.latency();
    }
    std::vector<Route> out;
    std::map<VertexId, std::int32_t> route_of_root;
    std::map<VertexId, std::pair<std::int32_t, std::int32_t>> hop_of;
    auto root_route = [&](VertexId root, std::int32_t feeder) {
        auto it = route_of_root.find(root);
        if (it != route_of_root.end()) return it->second;
        Route r;
        r.src = root;
        r.minimal = true;
        r.feeder = feeder;
        out.push_back(std::move(r));
        const auto index = static_cast<std::int32_t>(out.size()) - 1;
        route_of_root[root] = index;
        return index;
    };
    root_route(src, -1);
    for (ChannelId c : order) {
        const VertexId from = t.channel(c).src;
        std::int32_t r = 0;
        std::int32_t parent = -1;
        if (from == src) {
            r = route_of_root.at(src);
        } else if (is_dst(from)) {
            r = root_route(from, hop_of.at(from).first);
        } else {
            std::tie(r, parent) = hop_of.at(from);
        }
        loom::sched::detail::RouteHop h;
        h.channel = c;
        h.parent = parent;
        h.to = t.channel(c).dst;
        out[static_cast<std::size_t>(r)].hops.push_back(h);
        hop_of[h.to] = {r, static_cast<std::int32_t>(out[static_cast<std::size_t>(r)].hops.size()) - 1};
    }
    for (Route& r : out) {
        std::vector<bool> has_child(r.hops.size(), false);
        for (const auto& h : r.hops) {
            if (h.parent >= 0) has_child[static_cast<std::size_t>(h.parent)] = true;
        }
        for (std::size_t i = 0; i < r.hops.size(); ++i) r.hops[i].leaf = !has_child[i];
        loom::sched::detail::finish_route(net, r);
        for (auto& [leaf, lat] : r.leaf_latency) lat = latency.at(leaf);
    }
    return out;
}

}  // namespace

TEST_CASE("Fan-out routes from the flat per-TSP arrays equal the map-based reference on random multicast sets") {
    // Two networks meet the same trees in the same order, so their hop kind ids must agree too; the new one is
    // asked many times, so a call that left stale per-TSP state would differ.
    Machine m(fx::system264());
    Machine ref(fx::system264());
    std::mt19937 rng(20261208);
    const auto n = m.t.num_vertices();
    std::uniform_int_distribution<loom::topo::VertexId> vertex(0, n - 1);
    std::uniform_int_distribution<int> count(1, 40);
    std::uniform_int_distribution<int> near(0, 15);
    std::size_t relays = 0;
    for (int round = 0; round < 400; ++round) {
        const auto src = vertex(rng);
        std::vector<loom::topo::VertexId> dsts;
        const int want = count(rng);
        // Half the sets stay near the source (its node and rack), where trees pass through destinations.
        const bool local = round % 2 == 0;
        while (static_cast<int>(dsts.size()) < want) {
            const auto d = local ? (src - src % 16 + near(rng)) % n : vertex(rng);
            if (d != src) dsts.push_back(d);  // repeats allowed: a repeated destination is skipped
        }
        SchedulerConfig cfg;
        cfg.max_paths = round % 3 == 0 ? 24 : 8;
        const auto got = loom::sched::detail::fanout_routes(m.net, src, dsts, cfg);
        const auto expect = reference_fanout_routes(ref.net, src, dsts, cfg);
        REQUIRE_FALSE(expect.empty());
        REQUIRE(same_routes(got, expect));
        relays += got.size() - 1;
    }
    CHECK(relays > 0);  // relay routes were compared, not only single trees
}
