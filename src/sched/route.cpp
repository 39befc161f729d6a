#include "route.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "loom/base/assert.hpp"
#include "loom/base/error.hpp"
#include "loom/topo/paths.hpp"

namespace loom::sched::detail {
namespace {

PortMask port_bit(const topo::FrozenTopology& t, topo::VertexId v, std::int32_t port) {
    if (port < 0 || port >= 16)
        throw InputError(fmt::format("TSP {} ({}): port {} does not fit the schedule's 16-port masks", v,
                                     t.vertex_name(v), port));
    return static_cast<PortMask>(1u << static_cast<unsigned>(port));
}

bool simple(const topo::FrozenTopology& t, topo::VertexId src, const std::vector<topo::ChannelId>& path) {
    std::vector<topo::VertexId> seen{src};
    for (topo::ChannelId c : path) seen.push_back(t.channel(c).dst);
    std::sort(seen.begin(), seen.end());
    return std::adjacent_find(seen.begin(), seen.end()) == seen.end();
}

// Detours through one intermediate TSP x (any vertex but the endpoints): a minimal path to x, then a minimal path
// to dst, strictly longer than minimal and visiting no TSP twice; by total hops, then x.
std::vector<std::vector<topo::ChannelId>> via_tsp_paths(const topo::FrozenTopology& t, topo::HopTable& hops,
                                                        topo::VertexId src, topo::VertexId dst, std::size_t limit) {
    std::vector<std::vector<topo::ChannelId>> out;
    if (limit == 0) return out;
    const auto from_src = hops.row(src);
    const auto to_dst = hops.row(dst);
    const std::int32_t minimal = hops.hops(dst, src);
    if (minimal < 0) return out;
    std::vector<std::pair<std::int32_t, topo::VertexId>> candidates;
    for (topo::VertexId x = 0; x < t.num_vertices(); ++x) {
        const auto xi = static_cast<std::size_t>(x);
        if (x == src || x == dst || from_src[xi] == topo::HopTable::kUnreachable ||
            to_dst[xi] == topo::HopTable::kUnreachable)
            continue;
        const std::int32_t total = from_src[xi] + to_dst[xi];
        if (total > minimal) candidates.emplace_back(total, x);
    }
    std::sort(candidates.begin(), candidates.end());
    std::size_t attempts = 0;
    for (const auto& [total, x] : candidates) {
        if (out.size() >= limit || attempts++ >= 4 * limit) break;
        auto first = topo::minimal_paths(t, hops, src, x, 1);
        auto second = topo::minimal_paths(t, hops, x, dst, 1);
        if (first.empty() || second.empty()) continue;
        std::vector<topo::ChannelId> p = first[0].channels;
        p.insert(p.end(), second[0].channels.begin(), second[0].channels.end());
        if (simple(t, src, p)) out.push_back(std::move(p));
    }
    return out;
}

}  // namespace

void finish_route(const Network& net, Route& r) {
    const topo::FrozenTopology& t = net.topo;
    const std::size_t n = r.hops.size();
    LOOM_ASSERT(n > 0, "a route has at least one hop");
    // Scratch kept between calls (hundreds of thousands of routes are finished in a large compile): every hop's
    // children, in hop order, as one list (children of h at child_list[child_at[h] .. child_at[h + 1])).
    thread_local std::vector<std::uint32_t> child_at, child_list, child_fill;
    thread_local std::vector<Time> latency;
    thread_local std::vector<const Serializer*> outs;
    child_at.assign(n + 1, 0);
    for (std::size_t h = 0; h < n; ++h)
        if (r.hops[h].parent >= 0 && static_cast<std::size_t>(r.hops[h].parent) < h)
            ++child_at[static_cast<std::size_t>(r.hops[h].parent) + 1];
    for (std::size_t h = 0; h < n; ++h) child_at[h + 1] += child_at[h];
    child_list.resize(n);
    child_fill.assign(child_at.begin(), child_at.end() - 1);
    r.src_ports = 0;
    for (std::size_t h = 0; h < n; ++h) {
        const RouteHop& hop = r.hops[h];
        const topo::Channel& ch = t.channel(hop.channel);
        if (hop.parent < 0) {
            LOOM_ASSERT(ch.src == r.src, "a root hop leaves the route's source");
            r.src_ports |= port_bit(t, ch.src, ch.src_port);
        } else {
            LOOM_ASSERT(static_cast<std::size_t>(hop.parent) < h, "a hop comes after its parent");
            LOOM_ASSERT(r.hops[static_cast<std::size_t>(hop.parent)].to == ch.src, "a hop leaves its parent's TSP");
            child_list[child_fill[static_cast<std::size_t>(hop.parent)]++] = static_cast<std::uint32_t>(h);
        }
    }
    latency.assign(n, Time::zero());
    Time bound_offset;
    for (RouteHop& hop : r.hops) {
        hop.pace = static_cast<std::uint8_t>(topo::index_of(t.channel(hop.channel).link_class));
        hop.bound_offset = bound_offset;
        const Pace& s = net.fast_pace[hop.pace];
        bound_offset += s.one() + s.latency();
    }
    r.leaf_latency.clear();
    r.max_train = std::numeric_limits<std::int64_t>::max();
    for (std::size_t h = 0; h < n; ++h) {
        RouteHop& hop = r.hops[h];
        const Serializer& in = net.channel(hop.channel);
        outs.clear();
        hop.out_ports = 0;
        LOOM_ASSERT(hop.leaf == (child_at[h] == child_at[h + 1]), "exactly the hops without onward hops are leaves");
        for (std::uint32_t i = child_at[h]; i < child_at[h + 1]; ++i) {
            const std::size_t c = child_list[i];
            const topo::Channel& ch = t.channel(r.hops[c].channel);
            hop.out_ports |= port_bit(t, ch.src, ch.src_port);
            outs.push_back(&net.channel(r.hops[c].channel));
        }
        hop.kind = net.timing.kind(&in, outs);
        if (!net.timing.hop_kind(hop.kind).periodic) r.max_train = std::min(r.max_train, kSlowPathTrainCap);
        // Under the contract a Forward issues forward_cycles before its train starts, and the train may start as
        // soon as the vector is available: forwarding itself adds no time to the bound.
        const Time before = hop.parent < 0 ? Time::zero() : latency[static_cast<std::size_t>(hop.parent)];
        const Pace& p = net.fast_pace[hop.pace];  // in's S(1) and latency, without a division
        latency[h] = before + p.one() + p.latency();
        if (hop.leaf) r.leaf_latency.emplace_back(hop.to, latency[h]);
    }
    if (net.max_train_vectors > 0) r.max_train = std::min(r.max_train, net.max_train_vectors);
}

Route path_route(const Network& net, const std::vector<topo::ChannelId>& channels, topo::VertexId src, bool minimal) {
    Route r;
    path_route(net, channels, src, minimal, r);
    return r;
}

void path_route(const Network& net, const std::vector<topo::ChannelId>& channels, topo::VertexId src, bool minimal,
                Route& r) {
    // Every field as a new Route's, then what finish_route() would set, in one pass: on a path every hop but the
    // last has one child, the next hop, so no child lists are needed, and each channel record is read once (a
    // large compile finishes hundreds of thousands of candidate paths). The same values and the same order of
    // HopTiming::kind() registrations and port checks as finish_route() (tests compare the two).
    const topo::FrozenTopology& t = net.topo;
    const std::size_t n = channels.size();
    LOOM_ASSERT(n > 0, "a route has at least one hop");
    r.src = src;
    r.minimal = minimal;
    r.feeder = -1;
    r.hops.resize(n);
    r.src_ports = 0;
    r.max_train = std::numeric_limits<std::int64_t>::max();
    r.leaf_latency.clear();
    thread_local std::vector<const Serializer*> outs;
    Time offset;  // S(1) + latency of the hops before
    topo::VertexId from = src;
    const topo::Channel* ch = &t.channel(channels[0]);
    LOOM_ASSERT(ch->src == src, "a root hop leaves the route's source");
    r.src_ports = port_bit(t, ch->src, ch->src_port);
    for (std::size_t i = 0; i < n; ++i) {
        RouteHop& h = r.hops[i];
        h.channel = channels[i];
        h.parent = static_cast<std::int32_t>(i) - 1;
        h.to = ch->dst;
        h.leaf = i + 1 == n;
        h.pace = static_cast<std::uint8_t>(topo::index_of(ch->link_class));
        h.bound_offset = offset;
        const Pace& p = net.fast_pace[h.pace];
        offset += p.one() + p.latency();
        outs.clear();
        h.out_ports = 0;
        if (!h.leaf) {
            const topo::Channel* next = &t.channel(channels[i + 1]);
            LOOM_ASSERT(next->src == h.to, "a hop leaves its parent's TSP");
            h.out_ports = port_bit(t, next->src, next->src_port);
            outs.push_back(&net.pace[topo::index_of(next->link_class)]);
            ch = next;
        }
        h.kind = net.timing.kind(&net.pace[h.pace], outs);
        if (!net.timing.hop_kind(h.kind).periodic) r.max_train = std::min(r.max_train, kSlowPathTrainCap);
        from = h.to;
    }
    r.leaf_latency.emplace_back(from, offset);
    if (net.max_train_vectors > 0) r.max_train = std::min(r.max_train, net.max_train_vectors);
}

namespace {

// path_route() into a spare route of the cache when there is one.
void add_path_route(const Network& net, const std::vector<topo::ChannelId>& channels, topo::VertexId src,
                    bool minimal, std::vector<Route>& out) {
    std::vector<Route>& spare = net.routes().spare;
    if (spare.empty()) {
        out.push_back(path_route(net, channels, src, minimal));
        return;
    }
    out.push_back(std::move(spare.back()));
    spare.pop_back();
    path_route(net, channels, src, minimal, out.back());
}

std::vector<Route> find_point_to_point_routes(const Network& net, topo::VertexId src, topo::VertexId dst,
                                              const SchedulerConfig& cfg) {
    const auto k = static_cast<std::size_t>(std::max(cfg.max_paths, 1));
    std::vector<Route> out;
    topo::HopTable& hops = net.routes().hops;
    for (const topo::Path& p : topo::minimal_paths(net.topo, hops, src, dst, k)) {
        add_path_route(net, p.channels, src, true, out);
    }
    if (!cfg.allow_nonminimal || out.empty() || out.size() >= k) return out;
    const std::size_t room = k - out.size();
    NonminimalVia via = cfg.nonminimal_via;
    if (via == NonminimalVia::Auto) via = net.topo.num_nodes() > 1 ? NonminimalVia::Node : NonminimalVia::Tsp;
    if (via == NonminimalVia::Tsp) {
        for (auto& p : via_tsp_paths(net.topo, hops, src, dst, room)) add_path_route(net, p, src, false, out);
    } else {
        const topo::Via v = via == NonminimalVia::Node ? topo::Via::Node : topo::Via::Group;
        for (const topo::Path& p : topo::nonminimal_paths(net.topo, hops, src, dst, v, room)) {
            add_path_route(net, p.channels, src, false, out);
        }
    }
    return out;
}

}  // namespace

const std::vector<Route>& point_to_point_routes(const Network& net, topo::VertexId src, topo::VertexId dst,
                                                const SchedulerConfig& cfg) {
    RouteCache& cache = net.routes();
    const std::array<std::int32_t, 3> key{cfg.max_paths, cfg.allow_nonminimal ? 1 : 0,
                                          static_cast<std::int32_t>(cfg.nonminimal_via)};
    if (key != cache.key) {
        cache.pairs.clear();
        cache.key = key;
    }
    const std::uint64_t pair = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(src)) << 32) |
                               static_cast<std::uint32_t>(dst);
    const auto it = cache.pairs.find(pair);
    if (it != cache.pairs.end()) return it->second;
    return cache.pairs.emplace(pair, find_point_to_point_routes(net, src, dst, cfg)).first->second;
}

std::vector<Route> fanout_routes(const Network& net, topo::VertexId src, const std::vector<topo::VertexId>& dsts,
                                 const SchedulerConfig& cfg) {
    const topo::FrozenTopology& t = net.topo;
    // Per-TSP state in flat arrays reused across calls (the calls are many and the trees small next to the
    // system); the previous call's entries are reset first, so an early return leaves nothing to clean.
    FanoutScratch& sc = net.routes().fanout;
    if (sc.vertex.size() != static_cast<std::size_t>(t.num_vertices()))
        sc.vertex.assign(static_cast<std::size_t>(t.num_vertices()), FanoutVertex{});
    for (topo::VertexId v : sc.touched) sc.vertex[static_cast<std::size_t>(v)] = FanoutVertex{};
    sc.touched.clear();
    sc.order.clear();
    auto at = [&](topo::VertexId v) -> FanoutVertex& { return sc.vertex[static_cast<std::size_t>(v)]; };
    auto touch = [&](topo::VertexId v) -> FanoutVertex& {
        FanoutVertex& e = at(v);
        if (!e.in_tree && !e.dst) sc.touched.push_back(v);
        return e;
    };
    for (topo::VertexId d : dsts) touch(d).dst = true;
    // The union tree: every TSP in it, reached by the channels of `order` (parents first).
    touch(src).in_tree = true;
    std::vector<topo::ChannelId>& order = sc.order;
    const auto k = static_cast<std::size_t>(std::max(cfg.max_paths, 16));
    for (topo::VertexId d : dsts) {
        if (at(d).in_tree) continue;  // already reached on the way to another destination
        const auto candidates = topo::minimal_paths(t, net.routes().hops, src, d, k);
        if (candidates.empty()) return {};
        // The part of each candidate after its last TSP in the tree; the shortest such part joins.
        std::size_t best = 0;
        std::size_t best_from = 0;
        std::size_t best_len = std::numeric_limits<std::size_t>::max();
        for (std::size_t i = 0; i < candidates.size(); ++i) {
            const auto& path = candidates[i].channels;
            std::size_t from = 0;  // first channel of the new part
            for (std::size_t j = 0; j < path.size(); ++j) {
                if (at(t.channel(path[j]).dst).in_tree) from = j + 1;
            }
            if (path.size() - from < best_len) {
                best = i;
                best_from = from;
                best_len = path.size() - from;
            }
        }
        const auto& path = candidates[best].channels;
        for (std::size_t j = best_from; j < path.size(); ++j) {
            touch(t.channel(path[j]).dst).in_tree = true;
            order.push_back(path[j]);
        }
    }
    // Single-vector latency through the union tree, for the lower bound.
    at(src).latency = Time::zero();
    for (topo::ChannelId c : order) {
        const Serializer& s = net.channel(c);
        at(t.channel(c).dst).latency = at(t.channel(c).src).latency + s(1) + s.latency();
    }
    // Cut at destinations: the route of a channel is the one rooted at the nearest destination (or src) above it.
    std::vector<Route> out;
    auto root_route = [&](topo::VertexId root, std::int32_t feeder) {
        FanoutVertex& e = at(root);
        if (e.route_of_root >= 0) return e.route_of_root;
        Route r;
        r.src = root;
        r.minimal = true;
        r.feeder = feeder;
        out.push_back(std::move(r));
        e.route_of_root = static_cast<std::int32_t>(out.size()) - 1;
        return e.route_of_root;
    };
    root_route(src, -1);
    for (topo::ChannelId c : order) {
        const topo::VertexId from = t.channel(c).src;
        const topo::VertexId to = t.channel(c).dst;
        const FanoutVertex& f = at(from);
        LOOM_ASSERT(f.in_tree, "a union-tree channel leaves a TSP already in the tree");
        std::int32_t r = 0;
        std::int32_t parent = -1;
        if (from == src) {
            r = f.route_of_root;
        } else if (f.dst) {
            r = root_route(from, f.hop_route);  // a relay from that destination
        } else {
            r = f.hop_route;
            parent = f.hop_index;
        }
        RouteHop h;
        h.channel = c;
        h.parent = parent;
        h.to = to;
        auto& hops = out[static_cast<std::size_t>(r)].hops;
        hops.push_back(h);
        FanoutVertex& e = at(to);
        e.hop_route = r;
        e.hop_index = static_cast<std::int32_t>(hops.size()) - 1;
    }
    // Leaves are the hops nothing continues from within their route (destinations, by construction).
    for (Route& r : out) {
        std::vector<bool> has_child(r.hops.size(), false);
        for (const RouteHop& h : r.hops) {
            if (h.parent >= 0) has_child[static_cast<std::size_t>(h.parent)] = true;
        }
        for (std::size_t i = 0; i < r.hops.size(); ++i) {
            r.hops[i].leaf = !has_child[i];
            LOOM_ASSERT(r.hops[i].leaf == at(r.hops[i].to).dst, "fan-out routes end exactly at destinations");
        }
        finish_route(net, r);
        for (auto& [leaf, lat] : r.leaf_latency) lat = at(leaf).latency;
    }
    return out;
}

std::pair<Route, Route> split_route(const Network& net, const Route& path, std::size_t at) {
    LOOM_ASSERT(at + 1 < path.hops.size(), "a staging split needs hops on both sides");
    Route first;
    first.src = path.src;
    first.minimal = path.minimal;
    for (std::size_t i = 0; i <= at; ++i) {
        RouteHop h = path.hops[i];
        h.leaf = i == at;
        first.hops.push_back(h);
    }
    Route second;
    second.src = path.hops[at].to;
    second.minimal = path.minimal;
    for (std::size_t i = at + 1; i < path.hops.size(); ++i) {
        RouteHop h = path.hops[i];
        h.parent = i == at + 1 ? -1 : h.parent - static_cast<std::int32_t>(at + 1);
        second.hops.push_back(h);
    }
    finish_route(net, first);
    finish_route(net, second);
    return {std::move(first), std::move(second)};
}

}  // namespace loom::sched::detail
