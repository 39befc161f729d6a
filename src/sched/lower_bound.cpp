#include "lower_bound.hpp"

#include <algorithm>
#include <functional>
#include <string>
#include <utility>

namespace loom::sched::detail {
namespace {

__extension__ using i128 = __int128;

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

}  // namespace

Time fastest_latency(const std::vector<Route>& candidates, topo::VertexId d) {
    Time z = Time::max();
    for (const Route& r : candidates) {
        for (const auto& [leaf, lat] : r.leaf_latency) {
            if (leaf == d) z = std::min(z, lat);
        }
    }
    return z;
}

Time transfer_duration_bound(const Network& net, const workload::Transfer& x, std::int64_t n,
                             const std::vector<Route>& candidates) {
    std::vector<Time> latency;
    latency.reserve(x.dsts.size());
    for (topo::VertexId d : x.dsts) latency.push_back(fastest_latency(candidates, d));
    return transfer_duration_bound(net, x, n, latency);
}

Time transfer_duration_bound(const Network& net, const workload::Transfer& x, std::int64_t n,
                             std::span<const Time> latency) {
    const topo::FrozenTopology& topology = net.topo;
    Time fast = Time::max();
    Time slow;
    for (topo::LinkClass c : topo::kAllLinkClasses) {
        if (topology.link_count(c) == 0) continue;
        const Serializer& s = net.pace[topo::index_of(c)];
        if (s(1) < fast) {
            fast = s(1);
        }
        slow = std::max(slow, s(1));
    }
    // The serializer of the fastest class, for the time n vectors take through P ports.
    const Serializer* fastest = nullptr;
    for (topo::LinkClass c : topo::kAllLinkClasses) {
        if (topology.link_count(c) > 0 && net.pace[topo::index_of(c)](1) == fast) {
            fastest = &net.pace[topo::index_of(c)];
            break;
        }
    }
    Time bound;
    const auto ports_src = static_cast<std::int64_t>(topology.out_channels(x.src).size());
    for (std::size_t i = 0; i < x.dsts.size(); ++i) {
        const topo::VertexId d = x.dsts[i];
        const Time z = latency[i];
        if (z == Time::max() || fastest == nullptr) continue;
        const auto ports_dst = static_cast<std::int64_t>(topology.out_channels(d).size());
        // The last vector leaves the source no earlier than n / P_src vector times after the start, then needs at
        // least the rest of a path's latency; and it arrives no earlier than n / P_dst vector times after the
        // earliest first arrival.
        const Time by_src = (*fastest)(ceil_div(n, std::max<std::int64_t>(ports_src, 1))) + z - slow;
        const Time by_dst = z - fast + (*fastest)(ceil_div(n, std::max<std::int64_t>(ports_dst, 1)));
        bound = std::max({bound, z, by_src, by_dst});
    }
    return bound;
}

namespace {

// The time `vectors` vectors take through links whose rates add up to `rate` bits/s, each vector `wire_bits` on
// the wire (the smallest of the links'), rounded down: a lower bound however the vectors share the links.
Time through(std::int64_t vectors, i128 rate, std::int64_t wire_bits) {
    if (rate <= 0 || vectors <= 0) return Time::zero();
    return Time::ps(static_cast<std::int64_t>(static_cast<i128>(vectors) * wire_bits * 1'000'000'000'000LL / rate));
}

// Links leaving (or entering) a set of TSPs: their total rate and smallest vector size on the wire.
struct Capacity {
    i128 rate = 0;
    std::int64_t wire_bits = 0;
    void add(const Serializer& l) {
        rate += l.rate();
        wire_bits = wire_bits == 0 ? l.wire_bits() : std::min(wire_bits, l.wire_bits());
    }
    Time time(std::int64_t vectors) const { return through(vectors, rate, wire_bits); }
};

// The bytes that must cross the boundary of each unit of a partition of the TSPs (part(v) in [0, units)), per
// direction, over the boundary's links: a transfer sends its tensor out of its source's unit once if any
// destination is elsewhere (a fan-out may branch outside), and into each other unit holding a destination once.
// Adds "<name>_out" and "<name>_in" with the unit that gives the largest value.
template <class Part, class Name>
void cut_terms(const Network& net, const workload::TransferSet& set, Bytes unit, std::int32_t units, Part part,
               Name unit_name, const std::string& name, LowerBoundParts& b) {
    const topo::FrozenTopology& t = net.topo;
    const auto U = static_cast<std::size_t>(units);
    std::vector<Capacity> out(U), in(U);
    for (topo::ChannelId c = 0; c < t.num_channels(); ++c) {
        const topo::Channel& ch = t.channel(c);
        const std::int32_t a = part(ch.src), z = part(ch.dst);
        if (a == z) continue;
        out[static_cast<std::size_t>(a)].add(net.channel(c));
        in[static_cast<std::size_t>(z)].add(net.channel(c));
    }
    std::vector<std::int64_t> leaving(U, 0), entering(U, 0);
    std::vector<std::int32_t> seen;
    for (const workload::Transfer& x : set.transfers) {
        const std::int64_t n = x.vectors(unit);
        const std::int32_t home = part(x.src);
        seen.clear();
        for (topo::VertexId d : x.dsts) {
            const std::int32_t u = part(d);
            if (u == home || std::find(seen.begin(), seen.end(), u) != seen.end()) continue;
            seen.push_back(u);
            entering[static_cast<std::size_t>(u)] += n;
        }
        if (!seen.empty()) leaving[static_cast<std::size_t>(home)] += n;
    }
    BoundTerm o{name + "_out", Time::zero(), ""}, i{name + "_in", Time::zero(), ""};
    for (std::size_t u = 0; u < U; ++u) {
        const Time to = out[u].time(leaving[u]), ti = in[u].time(entering[u]);
        if (to > o.value) o = {o.name, to, unit_name(static_cast<std::int32_t>(u))};
        if (ti > i.value) i = {i.name, ti, unit_name(static_cast<std::int32_t>(u))};
    }
    b.terms.push_back(std::move(o));
    b.terms.push_back(std::move(i));
}

// A member's ports: their total rate and vector size on the wire.
Capacity ports(const Network& net, topo::VertexId v) {
    Capacity c;
    for (topo::ChannelId ch : net.topo.out_channels(v)) c.add(net.channel(ch));
    return c;
}

Time algorithm_bound(const Network& net, const workload::CollectiveLayout& L) {
    using workload::CollectiveKind;
    const auto N = static_cast<std::int64_t>(L.members.size());
    if (N < 2) return Time::zero();
    // Vectors each member must receive, as a fraction num / den (the root's volume for gather and scatter).
    std::int64_t num = 0, den = 1;
    bool root_only = false;
    switch (L.kind) {
        case CollectiveKind::None:
            return Time::zero();
        case CollectiveKind::AllReduce:
            num = 2 * (N - 1) * L.vectors;
            den = N;
            break;
        case CollectiveKind::ReduceScatter:
            num = (N - 1) * L.vectors;
            den = N;
            break;
        case CollectiveKind::AllGather:
        case CollectiveKind::AllToAll:
            num = (N - 1) * L.block;
            break;
        case CollectiveKind::Broadcast:
            num = L.block;
            break;
        case CollectiveKind::Gather:
        case CollectiveKind::Scatter:
            num = (N - 1) * L.block;
            root_only = true;
            break;
    }
    Time latency = Time::max();
    for (topo::ChannelId c = 0; c < net.topo.num_channels(); ++c) latency = std::min(latency, net.channel(c).latency());
    if (latency == Time::max()) latency = Time::zero();
    Time data;
    for (std::int64_t r = 0; r < N; ++r) {
        if (root_only && r != L.root) continue;
        const Capacity c = ports(net, L.members[static_cast<std::size_t>(r)]);
        if (c.rate <= 0) continue;
        const i128 ps = static_cast<i128>(num) * c.wire_bits * 1'000'000'000'000LL / (static_cast<i128>(den) * c.rate);
        data = std::max(data, Time::ps(static_cast<std::int64_t>(ps)));
    }
    return data + latency;
}

}  // namespace

void set_lower_bound(const Network& net, const workload::TransferSet& set, Bytes unit,
                     const std::vector<Time>& duration_bounds, Schedule& s) {
    const topo::FrozenTopology& topology = net.topo;
    const ClockDomain& clock = net.timing.clock();
    LowerBoundParts& b = s.bound;
    {
        // Not a bound: what this schedule put on its busiest channel (link_utilization_max).
        std::vector<Time> busy(static_cast<std::size_t>(topology.num_channels()));
        for (const Reservation& r : s.reservations) busy[r.channel] += r.end - r.start;
        for (std::size_t c = 0; c < busy.size(); ++c) {
            if (busy[c] > b.busiest_link) {
                b.busiest_link = busy[c];
                b.busiest_channel = static_cast<std::int32_t>(c);
            }
        }
    }
    {
        // Each TSP sends its sources' tensors once (a fan-out branches later) and receives each tensor it is a
        // destination of, through its own ports; forwarding for others would only add to that.
        const std::size_t V = static_cast<std::size_t>(topology.num_vertices());
        std::vector<std::int64_t> sent(V, 0);
        std::vector<std::int64_t> received(V, 0);
        for (const workload::Transfer& x : set.transfers) {
            const std::int64_t n = x.vectors(unit);
            sent[static_cast<std::size_t>(x.src)] += n;
            for (topo::VertexId d : x.dsts) received[static_cast<std::size_t>(d)] += n;
        }
        BoundTerm send{"tsp_send", Time::zero(), ""}, receive{"tsp_receive", Time::zero(), ""};
        for (topo::VertexId v = 0; v < topology.num_vertices(); ++v) {
            const Capacity c = ports(net, v);
            const auto vi = static_cast<std::size_t>(v);
            const Time ts = c.time(sent[vi]), tr = c.time(received[vi]);
            if (ts > send.value) send = {send.name, ts, topology.vertex_name(v)};
            if (tr > receive.value) receive = {receive.name, tr, topology.vertex_name(v)};
            if (std::max(ts, tr) > b.tsp_bandwidth) {
                b.tsp_bandwidth = std::max(ts, tr);
                b.busiest_tsp = v;
            }
        }
        b.terms.push_back(std::move(send));
        b.terms.push_back(std::move(receive));
    }
    // Boundaries: every node, every rack, and the balanced cut `loom topo` reports (half the groups, else half the
    // nodes, else half the TSPs).
    if (topology.num_nodes() >= 2)
        cut_terms(net, set, unit, topology.num_nodes(), [&](topo::VertexId v) { return topology.vertex(v).node; },
                  [](std::int32_t u) { return "node" + std::to_string(u); }, "node", b);
    if (topology.num_racks() >= 2)
        cut_terms(net, set, unit, topology.num_racks(), [&](topo::VertexId v) { return topology.vertex(v).rack; },
                  [](std::int32_t u) { return "rack" + std::to_string(u); }, "rack", b);
    {
        std::int32_t units = topology.num_vertices();
        std::function<std::int32_t(topo::VertexId)> key = [](topo::VertexId v) { return v; };
        if (topology.num_groups() >= 2) {
            units = topology.num_groups();
            key = [&](topo::VertexId v) { return topology.vertex(v).group; };
        } else if (topology.num_nodes() >= 2) {
            units = topology.num_nodes();
            key = [&](topo::VertexId v) { return topology.vertex(v).node; };
        }
        const std::int32_t half = units / 2;
        if (units >= 2)
            cut_terms(net, set, unit, 2, [&](topo::VertexId v) { return key(v) < half ? 0 : 1; },
                      [](std::int32_t u) { return std::string(u == 0 ? "first half" : "second half"); }, "cut", b);
    }
    {
        // Longest chain: each transfer starts no earlier than its earliest time and its dependencies' bound plus
        // compute_before, and takes at least its duration bound (minimal-hop zero-load latency and serialization
        // through its ends' ports); it completes a core cycle after the transfers it is ordered `after` at the
        // earliest (its consumer issues later and writes no earlier than its issue). paced_by is left out: it
        // orders a schedule, not the data.
        // Any order that puts a transfer after its dependencies gives the same finishes. A generated set numbers
        // its transfers 0..n-1 in order and lists every dependency before its dependents: then the set's own order
        // is one and ids are positions (workload::topological_order and a search per dependency were a few
        // percent of the compile at 576 TSPs).
        const std::size_t n = set.transfers.size();
        const workload::TransferPositions positions(set);
        bool in_order = positions.dense();
        for (std::size_t i = 0; i < n && in_order; ++i) {
            const workload::Transfer& x = set.transfers[i];
            for (const auto* list : {&x.deps, &x.after, &x.paced_by})
                for (workload::TransferId d : *list) in_order = in_order && d < i;
        }
        std::vector<std::size_t> order;
        if (!in_order) order = workload::topological_order(set);
        const auto position = [&](workload::TransferId d) { return positions.find(d); };
        std::vector<Time> finish(n);
        for (std::size_t k = 0; k < n; ++k) {
            const std::size_t i = in_order ? k : order[k];
            const workload::Transfer& x = set.transfers[i];
            Time start = x.earliest;
            for (workload::TransferId d : x.deps) start = std::max(start, finish[position(d)] + x.compute_before);
            finish[i] = start + duration_bounds[i];
            for (workload::TransferId d : x.after)
                finish[i] = std::max(finish[i], finish[position(d)] + clock.period_floor());
            b.dependency_chain = std::max(b.dependency_chain, finish[i]);
        }
        b.terms.push_back({"dependency_chain", b.dependency_chain, ""});
    }
    s.lower_bound = Time::zero();
    for (const BoundTerm& t : b.terms) {
        if (t.value > s.lower_bound) {
            s.lower_bound = t.value;
            b.binding = t.name;
        }
    }
    if (set.collective) b.algorithm = algorithm_bound(net, *set.collective);
}

}  // namespace loom::sched::detail
