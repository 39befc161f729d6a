// Routes the scheduler places trains on: a path (one destination) or a tree (fan-out: one train forwarded to several
// ports at a branching TSP), with each hop's consumer (Forward or Receive) and timing kind; and the candidate routes
// of a transfer: minimal paths, non-minimal detours, fan-out trees, and the two halves of a staged path.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <unordered_map>
#include <vector>

#include "hop_timing.hpp"
#include "loom/sched/schedule.hpp"
#include "loom/sched/scheduler_config.hpp"
#include "loom/topo/frozen_topology.hpp"
#include "loom/topo/hop_table.hpp"
#include "loom/topo/link_class.hpp"

namespace loom::sched::detail {

// Trains through hops whose per-vector pattern is not periodic are evaluated vector by vector: keep them short.
inline constexpr std::int64_t kSlowPathTrainCap = 256;

struct RouteHop {
    topo::ChannelId channel = 0;
    std::int32_t parent = -1;  // the hop that brings the train to this hop's sender; -1: the route's source sends
    topo::VertexId to = 0;
    bool leaf = false;         // the consumer at `to` is a Receive (a destination or a staging point)
    std::uint8_t pace = 0;     // the channel's link class: its serialization is Network::fast_pace[pace]
    PortMask out_ports = 0;    // !leaf: the ports the Forward at `to` sends on
    std::int32_t kind = 0;     // HopTiming kind
    // The route bounds' offset of this hop from the train's start (Scheduler::completion_bound): S(1) + latency of
    // every hop before it in `hops`. Kept here, beside what a search reads anyway, as every bound of the route asks
    // for it (worked out per call, it read each earlier hop's channel record).
    Time bound_offset;
};

struct Route {
    topo::VertexId src = 0;
    PortMask src_ports = 0;      // the ports the Send at the source sends on
    std::vector<RouteHop> hops;  // every hop after its parent
    bool minimal = true;
    std::int64_t max_train = std::numeric_limits<std::int64_t>::max();
    // Lower bound of one vector's latency from the start of its train at the source to its arrival at each leaf
    // (serialization of one vector and latency of every hop), by leaf. For a relay, counted from the transfer's
    // source through the routes that feed it.
    std::vector<std::pair<topo::VertexId, Time>> leaf_latency;
    // Fan-out relay: the route (index in the same list) that delivers the tensor to this route's source, a
    // destination that sends it on from its memory once it is all there; -1 when the source is the transfer's.
    std::int32_t feeder = -1;
};

// What fanout_routes() knows about one TSP during a call. Indexed by vertex and kept across calls (a call
// allocates nothing per TSP of the system); only the TSPs a call touches are reset, by the next call.
struct FanoutVertex {
    bool in_tree = false;  // in the union tree (src, or reached by a channel of `order`)
    bool dst = false;      // one of the call's destinations
    std::int32_t route_of_root = -1;  // index of the route rooted here, if any
    std::int32_t hop_route = -1;      // (route, hop) reaching this TSP
    std::int32_t hop_index = -1;
    Time latency;  // single-vector latency from src through the union tree
};
struct FanoutScratch {
    std::vector<FanoutVertex> vertex;
    std::vector<topo::VertexId> touched;  // vertices whose entry differs from the default
    std::vector<topo::ChannelId> order;   // union-tree channels in the order they joined
};

// What route finding keeps across the transfers of one compile: hop counts between every two TSPs, so that no
// candidate path costs a search of the whole system, and the candidate routes of every point-to-point pair asked
// about (collectives send between the same pairs many times). Only derived data: answers never depend on it.
struct RouteCache {
    explicit RouteCache(const topo::FrozenTopology& t) : hops(t) {}
    topo::HopTable hops;
    FanoutScratch fanout;
    // Point-to-point candidates by (src << 32 | dst), for the SchedulerConfig fields they depend on (`key`).
    std::unordered_map<std::uint64_t, std::vector<Route>> pairs;
    // Routes of pairs the scheduler is done with (Scheduler::release_pair()), their vectors kept: a pair's new
    // candidates reuse them (any field may hold anything: path_route() sets every one) instead of two new vectors
    // each, and a released pair frees none.
    std::vector<Route> spare;
    std::array<std::int32_t, 3> key{-1, -1, -1};  // max_paths, allow_nonminimal, nonminimal_via
};

// The machine as the scheduler sees it: topology, the pace of every link class, the hop arithmetic.
struct Network {
    Network(const topo::FrozenTopology& t, const std::array<Serializer, topo::kLinkClassCount>& paces, HopTiming& hop,
            std::int64_t max_train)
        : topo(t), pace(paces), timing(hop), max_train_vectors(max_train) {
        for (std::size_t i = 0; i < pace.size(); ++i) fast_pace[i] = Pace(pace[i]);
    }

    const topo::FrozenTopology& topo;
    std::array<Serializer, topo::kLinkClassCount> pace;
    HopTiming& timing;
    std::int64_t max_train_vectors = 0;  // SchedulerConfig::max_train_vectors (0: none)
    // Made on first use; derived data only, so a const Network may fill it.
    mutable std::unique_ptr<RouteCache> cache;

    const Serializer& channel(topo::ChannelId c) const {
        return pace[topo::index_of(topo.channel(c).link_class)];
    }
    // The same serialization without a division per call (hop_timing.hpp).
    std::array<Pace, topo::kLinkClassCount> fast_pace;
    const Pace& fast(topo::ChannelId c) const { return fast_pace[topo::index_of(topo.channel(c).link_class)]; }
    RouteCache& routes() const {
        if (!cache) cache = std::make_unique<RouteCache>(topo);
        return *cache;
    }
};

// Finishes a route whose hops (channel, parent, to, leaf) are set: ports, kinds, train cap, leaf latencies.
void finish_route(const Network& net, Route& r);

// A path as a route; its last hop is the leaf.
Route path_route(const Network& net, const std::vector<topo::ChannelId>& channels, topo::VertexId src, bool minimal);
// The same into `r`, whatever it held (its vectors' room is reused).
void path_route(const Network& net, const std::vector<topo::ChannelId>& channels, topo::VertexId src, bool minimal,
                Route& r);

// Candidate routes of a point-to-point transfer: minimal paths (at most max_paths), then non-minimal ones up to
// max_paths in all when allowed. The routes kept in net's RouteCache: valid until the cache is cleared (a call with
// other SchedulerConfig fields), so copy them (a caller that copies into vectors it keeps allocates nothing).
const std::vector<Route>& point_to_point_routes(const Network& net, topo::VertexId src, topo::VertexId dst,
                                                const SchedulerConfig& cfg);

// Fan-out: one tree from src that reaches every destination, each channel once, cut into routes so that every
// destination is a leaf (a TSP cannot both receive a train and forward it: rule 4 gives each vector to one
// instruction). Destinations join the tree in order, each through the minimal path (among at most
// max(max_paths, 16)) that adds the fewest hops: the path's part after the last TSP already in the tree is
// attached there. A destination inside the tree (one that others are reached through) ends the route that reaches
// it and becomes the source of a relay route (`feeder` set) that sends the tensor on from its memory. Routes come
// feeders first; no two share a channel, so no vector crosses a channel twice.
std::vector<Route> fanout_routes(const Network& net, topo::VertexId src, const std::vector<topo::VertexId>& dsts,
                                 const SchedulerConfig& cfg);

// The two halves of a path route split at the TSP hop `at` arrives at (0 <= at < hops - 1): the first ends with a
// Receive there (staging), the second starts with a Send from there.
std::pair<Route, Route> split_route(const Network& net, const Route& path, std::size_t at);

}  // namespace loom::sched::detail
