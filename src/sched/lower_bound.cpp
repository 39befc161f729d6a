#include "lower_bound.hpp"

#include <algorithm>
#include <utility>

namespace loom::sched::detail {
namespace {

__extension__ using i128 = __int128;

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

}  // namespace

Time transfer_duration_bound(const Network& net, const workload::Transfer& x, std::int64_t n,
                             const std::vector<Route>& candidates) {
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
    for (topo::VertexId d : x.dsts) {
        Time z = Time::max();
        for (const Route& r : candidates) {
            for (const auto& [leaf, lat] : r.leaf_latency) {
                if (leaf == d) z = std::min(z, lat);
            }
        }
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

void set_lower_bound(const Network& net, const workload::TransferSet& set, Bytes unit,
                     const std::vector<Time>& duration_bounds, Schedule& s) {
    const topo::FrozenTopology& topology = net.topo;
    const ClockDomain& clock = net.timing.clock();
    {
        std::vector<Time> busy(static_cast<std::size_t>(topology.num_channels()));
        for (const Reservation& r : s.reservations) busy[r.channel] += r.end - r.start;
        for (std::size_t c = 0; c < busy.size(); ++c) {
            if (busy[c] > s.bound.busiest_link) {
                s.bound.busiest_link = busy[c];
                s.bound.busiest_channel = static_cast<std::int32_t>(c);
            }
        }
    }
    {
        const std::size_t V = static_cast<std::size_t>(topology.num_vertices());
        std::vector<std::int64_t> sent(V, 0);
        std::vector<std::int64_t> received(V, 0);
        for (const workload::Transfer& x : set.transfers) {
            const std::int64_t n = x.vectors(unit);
            sent[static_cast<std::size_t>(x.src)] += n;
            for (topo::VertexId d : x.dsts) received[static_cast<std::size_t>(d)] += n;
        }
        for (topo::VertexId v = 0; v < topology.num_vertices(); ++v) {
            // Every channel of a TSP goes both ways, so its total rate is the same for sending and receiving.
            i128 rate = 0;
            std::int64_t wire_bits = 0;
            for (topo::ChannelId c : topology.out_channels(v)) {
                rate += net.channel(c).rate();
                wire_bits = net.channel(c).wire_bits();
            }
            const auto vi = static_cast<std::size_t>(v);
            const std::int64_t vectors = std::max(sent[vi], received[vi]);
            if (rate == 0 || vectors == 0) continue;
            const i128 num = static_cast<i128>(vectors) * wire_bits * 1'000'000'000'000LL;
            const Time t = Time::ps(static_cast<std::int64_t>((num + rate - 1) / rate));
            if (t > s.bound.tsp_bandwidth) {
                s.bound.tsp_bandwidth = t;
                s.bound.busiest_tsp = v;
            }
        }
    }
    {
        // Longest chain: each transfer starts no earlier than its earliest time and its dependencies' bound plus
        // compute_before, and takes at least its duration bound; it completes a core cycle after the transfers it
        // is ordered `after` at the earliest (its consumer issues later and writes no earlier than its issue).
        const std::vector<std::size_t> order = workload::topological_order(set);
        std::vector<Time> finish(set.transfers.size());
        std::vector<std::pair<workload::TransferId, std::size_t>> ids;
        for (std::size_t i = 0; i < set.transfers.size(); ++i) ids.emplace_back(set.transfers[i].id, i);
        std::sort(ids.begin(), ids.end());
        for (std::size_t i : order) {
            const workload::Transfer& x = set.transfers[i];
            Time start = x.earliest;
            for (workload::TransferId d : x.deps) {
                const auto it = std::lower_bound(ids.begin(), ids.end(), std::make_pair(d, std::size_t{0}));
                start = std::max(start, finish[it->second] + x.compute_before);
            }
            finish[i] = start + duration_bounds[i];
            for (workload::TransferId d : x.after) {
                const auto it = std::lower_bound(ids.begin(), ids.end(), std::make_pair(d, std::size_t{0}));
                finish[i] = std::max(finish[i], finish[it->second] + clock.period_floor());
            }
            s.bound.dependency_chain = std::max(s.bound.dependency_chain, finish[i]);
        }
    }
    s.lower_bound = std::max({s.bound.busiest_link, s.bound.tsp_bandwidth, s.bound.dependency_chain});
}

}  // namespace loom::sched::detail
