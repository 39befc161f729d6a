// Emission: the committed trains as a Schedule — per-TSP instruction lists in issue order, link reservations and
// predicted runs — with its lower bound and per-transfer timings.
#include <algorithm>
#include <tuple>
#include <utility>

#include "lower_bound.hpp"
#include "scheduler_impl.hpp"

namespace loom::sched::detail {

Schedule Scheduler::build() {
    const ClockDomain& clock = timing_.clock();
    Schedule s;
    s.jitter_allowance = jitter_;

    struct Keyed {
        std::int64_t cycle;
        Time tie;  // consumers: first arrival (their port's order); sends: train start
        Instruction ins;
    };
    // Every buffer sized exactly before it is filled (and, when large, backed by huge pages: huge_pages.hpp).
    std::vector<std::vector<Keyed, HugePageAllocator<Keyed>>> per_tsp(static_cast<std::size_t>(topo_.num_vertices()));
    std::vector<std::size_t> per_tsp_count(per_tsp.size(), 0);
    std::size_t hop_count = 0;
    // Reservations go straight into their channel's range: channel c's at [channel_from[c], channel_from[c + 1]).
    const auto channels = static_cast<std::size_t>(topo_.num_channels());
    std::vector<std::size_t> channel_from(channels + 1, 0);
    // Predicted runs likewise into their transfer's range, the transfers in id order: the transfer at position i
    // has rank[i] among the ids, its runs at [run_from[rank[i]], run_from[rank[i] + 1]). With unique ids (always,
    // after input checks; else one sort of the whole array as before) the ranges in order, each sorted, are the one
    // sorted order of the runs. Trains are committed in order of their transfers' readiness, not of their ids: one
    // sort of every run was a twentieth of the compile at 1,152 TSPs.
    const std::size_t num_transfers = set_.transfers.size();
    std::vector<std::uint32_t> rank(num_transfers);
    bool ids_unique = true;
    {
        const auto id_at = [&](std::size_t i) { return set_.transfers[i].id; };
        bool in_order = true;
        for (std::size_t i = 1; i < num_transfers && in_order; ++i) in_order = id_at(i - 1) < id_at(i);
        for (std::size_t i = 0; i < num_transfers; ++i) rank[i] = static_cast<std::uint32_t>(i);
        if (!in_order) {
            std::vector<std::uint32_t> order(rank);
            std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return id_at(a) < id_at(b); });
            for (std::size_t k = 0; k < num_transfers; ++k) {
                if (k > 0 && id_at(order[k - 1]) == id_at(order[k])) ids_unique = false;
                rank[order[k]] = static_cast<std::uint32_t>(k);
            }
        }
    }
    std::vector<std::size_t> run_from(num_transfers + 1, 0);
    committed_.for_each([&](const CommittedTrain& ct) {
        const Route& route = used_routes_[static_cast<std::size_t>(ct.route)];
        hop_count += route.hops.size();
        run_from[std::size_t{rank[ct.transfer]} + 1] += route.hops.size();
        for (const RouteHop& hop : route.hops) ++channel_from[static_cast<std::size_t>(hop.channel) + 1];
        ++per_tsp_count[static_cast<std::size_t>(route.src)];
        for (const RouteHop& hop : route.hops) ++per_tsp_count[static_cast<std::size_t>(hop.to)];
    });
    for (std::size_t v = 0; v < per_tsp.size(); ++v) per_tsp[v].reserve(per_tsp_count[v]);
    for (std::size_t c = 0; c < channels; ++c) channel_from[c + 1] += channel_from[c];
    std::vector<std::size_t> channel_next(channel_from.begin(), channel_from.end() - 1);
    s.reservations.reserve(hop_count);
    advise_huge_pages(s.reservations.data(), s.reservations.capacity() * sizeof(Reservation));
    s.reservations.resize(hop_count);
    s.predicted.reserve(hop_count);
    advise_huge_pages(s.predicted.data(), s.predicted.capacity() * sizeof(PredictedRun));
    s.predicted.resize(hop_count);
    for (std::size_t k = 0; k < num_transfers; ++k) run_from[k + 1] += run_from[k];
    std::vector<std::size_t> run_next(run_from.begin(), run_from.end() - 1);
    std::size_t hop_offset = 0;  // ct's first hop in committed_hops_
    committed_.for_each([&](const CommittedTrain& ct) {
        const Route& route = used_routes_[static_cast<std::size_t>(ct.route)];
        const workload::Transfer& x = set_.transfers[ct.transfer];
        const auto fv = static_cast<std::uint32_t>(ct.first_vector);
        const auto count = static_cast<std::uint32_t>(ct.n);
        Instruction send;
        send.cycle = ct.m0;
        send.op = Op::Send;
        send.out_ports = route.src_ports;
        send.transfer = x.id;
        send.first_vector = fv;
        send.count = count;
        send.address = ct.send_address;
        per_tsp[static_cast<std::size_t>(route.src)].push_back(
            {ct.m0, clock.edge(ct.m0 + chip_.issue_cycles), send});
        for (std::size_t h = 0; h < route.hops.size(); ++h) {
            const RouteHop& hop = route.hops[h];
            const auto [k_from, cycle] = committed_hops_[hop_offset + h];
            const Serializer& ser = net_.channel(hop.channel);
            const topo::Channel& ch = topo_.channel(hop.channel);
            const Time start = clock.edge(k_from);
            s.reservations[channel_next[static_cast<std::size_t>(hop.channel)]++] =
                Reservation{static_cast<std::uint32_t>(hop.channel), start, start + ser(ct.n), x.id, fv, count};
            const bool final_destination = hop.leaf && !ct.staged_first;
            s.predicted[run_next[rank[ct.transfer]]++] = {
                x.id, static_cast<std::uint32_t>(hop.to), static_cast<std::uint32_t>(hop.channel), fv, count, 0, start,
                final_destination};
            if (final_destination) s.makespan = std::max(s.makespan, start + ser(ct.n) + ser.latency());
            Instruction in;
            in.cycle = cycle;
            // A summing transfer's final consumer adds the vectors to memory: a storing Reduce, timed as a Receive.
            const bool sum = final_destination && x.combine == workload::Combine::Sum;
            in.op = hop.leaf ? (sum ? Op::Reduce : Op::Receive) : Op::Forward;
            in.in_port = static_cast<std::uint8_t>(ch.dst_port);
            in.out_ports = hop.leaf ? PortMask{0} : hop.out_ports;
            in.transfer = x.id;
            in.first_vector = fv;
            in.count = count;
            in.address = hop.leaf ? ct.receive_address : 0;
            per_tsp[static_cast<std::size_t>(hop.to)].push_back({cycle, start + ser(1) + ser.latency(), in});
        }
        hop_offset += route.hops.size();
    });
    // The committed trains and their routes are all in the lists now.
    committed_.clear();
    committed_hops_.clear();
    std::vector<Route>().swap(used_routes_);
    for (std::size_t v = 0; v < per_tsp.size(); ++v) {
        auto& list = per_tsp[v];
        if (list.empty()) continue;
        std::sort(list.begin(), list.end(), [](const Keyed& a, const Keyed& b) {
            return std::tie(a.cycle, a.tie, a.ins.transfer, a.ins.first_vector, a.ins.op) <
                   std::tie(b.cycle, b.tie, b.ins.transfer, b.ins.first_vector, b.ins.op);
        });
        TspProgram p;
        p.tsp = static_cast<std::uint32_t>(v);
        p.instructions.reserve(list.size());
        advise_huge_pages(p.instructions.data(), p.instructions.capacity() * sizeof(Instruction));
        for (const Keyed& k : list) p.instructions.push_back(k.ins);
        s.programs.push_back(std::move(p));
        std::vector<Keyed, HugePageAllocator<Keyed>>().swap(list);
    }
    // Reservations by (channel, start): no two share both (bookings on a channel never overlap), so the order is
    // the one sorted order whatever the method. Each was written into its channel's range above; each range is
    // sorted by start alone (a channel's bookings stay in cache where one sort of the whole array went to memory).
    for (std::size_t c = 0; c < channels; ++c) {
        std::sort(s.reservations.begin() + static_cast<std::ptrdiff_t>(channel_from[c]),
                  s.reservations.begin() + static_cast<std::ptrdiff_t>(channel_from[c + 1]),
                  [](const Reservation& a, const Reservation& b) { return a.start < b.start; });
    }
    // Predicted runs by (transfer, first vector, train start, channel): unique too (a channel's trains never
    // overlap). A transfer's trains are committed in the order of their first vector, with their hops in order of
    // their start, so a transfer's range usually comes sorted already: then there is nothing to do.
    const auto run_order = [](const PredictedRun& a, const PredictedRun& b) {
        return std::tie(a.transfer, a.first_vector, a.train_start, a.channel) <
               std::tie(b.transfer, b.first_vector, b.train_start, b.channel);
    };
    if (ids_unique) {
        for (std::size_t k = 0; k < num_transfers; ++k) {
            const auto from = s.predicted.begin() + static_cast<std::ptrdiff_t>(run_from[k]);
            const auto to = s.predicted.begin() + static_cast<std::ptrdiff_t>(run_from[k + 1]);
            if (!std::is_sorted(from, to, run_order)) std::sort(from, to, run_order);
        }
    } else if (!std::is_sorted(s.predicted.begin(), s.predicted.end(), run_order)) {
        std::sort(s.predicted.begin(), s.predicted.end(), run_order);
    }

    set_lower_bound(net_, set_, unit_, duration_lb_, s);
    std::vector<Time>().swap(duration_lb_);

    s.transfers = std::move(timings_);
    // Transfer ids are unique: already sorted (transfers in id order, as without dependencies), nothing to do.
    const auto by_id = [](const TransferTiming& a, const TransferTiming& b) { return a.transfer < b.transfer; };
    if (!std::is_sorted(s.transfers.begin(), s.transfers.end(), by_id))
        std::sort(s.transfers.begin(), s.transfers.end(), by_id);
    return s;
}

}  // namespace loom::sched::detail
