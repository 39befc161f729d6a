#include "loom/fabric/transfer_book.hpp"

#include <algorithm>
#include <unordered_map>

#include <fmt/format.h>

#include "loom/base/error.hpp"

namespace loom::fabric {

std::string_view injection_order_name(InjectionOrder order) {
    return order == InjectionOrder::Random ? "random" : "round_robin";
}

TransferBook::TransferBook(const workload::TransferSet& set, const TransferOptions& options, const ClockDomain& clock)
    : options_(options), clock_(clock) {
    const std::int64_t fb = options.flit_bytes.count();
    const std::int64_t pf = options.packet_flits;
    if (fb <= 0 || pf <= 0) throw InternalError("TransferBook: flit_bytes and packet_flits must be positive");
    std::unordered_map<workload::TransferId, std::int32_t> position;
    position.reserve(set.transfers.size());
    for (std::size_t i = 0; i < set.transfers.size(); ++i)
        position.emplace(set.transfers[i].id, static_cast<std::int32_t>(i));
    items_.resize(set.transfers.size());
    for (std::size_t i = 0; i < set.transfers.size(); ++i) {
        const workload::Transfer& x = set.transfers[i];
        Item& it = items_[i];
        it.id = x.id;
        it.src = x.src;
        it.dsts = x.dsts;
        it.flits = (x.bytes.count() + fb - 1) / fb;
        it.packets = (it.flits + pf - 1) / pf;
        flits_total_ += it.flits * static_cast<std::int64_t>(x.dsts.size());
        it.earliest_ps = x.earliest.count();
        it.compute_ps = x.compute_before.count();
        it.deps = static_cast<std::int32_t>(x.deps.size());
        for (workload::TransferId d : x.deps) {
            const auto p = position.find(d);
            if (p == position.end())
                throw InternalError(fmt::format("TransferBook: transfer {} depends on unknown transfer {}", x.id, d));
            items_[static_cast<std::size_t>(p->second)].dependents.push_back(static_cast<std::int32_t>(i));
        }
        it.ready_ps = it.earliest_ps;
        if (it.deps == 0) it.start_cycle = clock.edge_at_or_after(Time::ps(it.earliest_ps));
        if (static_cast<std::size_t>(x.src) >= by_src_.size()) by_src_.resize(static_cast<std::size_t>(x.src) + 1);
        by_src_[static_cast<std::size_t>(x.src)].push_back(static_cast<std::int32_t>(i));
        for (std::size_t j = 0; j < x.dsts.size(); ++j) {
            const auto d = static_cast<std::size_t>(x.dsts[j]);
            if (std::find(x.dsts.begin(), x.dsts.begin() + static_cast<std::ptrdiff_t>(j), x.dsts[j]) !=
                x.dsts.begin() + static_cast<std::ptrdiff_t>(j))
                continue;  // listed once per vertex
            if (d >= by_dst_.size()) by_dst_.resize(d + 1);
            by_dst_[d].push_back(static_cast<std::int32_t>(i));
        }
    }
}

std::span<const std::int32_t> TransferBook::from(topo::VertexId v) const {
    if (static_cast<std::size_t>(v) >= by_src_.size()) return {};
    return by_src_[static_cast<std::size_t>(v)];
}

std::int32_t TransferBook::packet_flits(std::int32_t t, std::int64_t k) const {
    const Item& it = item(t);
    return static_cast<std::int32_t>(std::min<std::int64_t>(options_.packet_flits, it.flits - k * options_.packet_flits));
}

std::span<const std::int32_t> TransferBook::to(topo::VertexId v) const {
    if (static_cast<std::size_t>(v) >= by_dst_.size()) return {};
    return by_dst_[static_cast<std::size_t>(v)];
}

std::int64_t TransferBook::share_flits(std::int32_t t, topo::VertexId v, std::int32_t local,
                                       std::int32_t terminals) const {
    const Item& it = item(t);
    // Packet k of a copy goes to the vertex's terminal (k + t) mod P.
    const std::int64_t first = ((local - t) % terminals + terminals) % terminals;
    std::int64_t flits = 0;
    for (topo::VertexId d : it.dsts) {
        if (d != v) continue;
        for (std::int64_t k = first; k < it.packets; k += terminals) flits += packet_flits(t, k);
    }
    return flits;
}

void TransferBook::count_shares(const topo::FrozenTopology& topology) {
    for (std::int32_t t = 0; t < size(); ++t) {
        Item& it = items_[static_cast<std::size_t>(t)];
        it.shares = 0;
        for (std::size_t j = 0; j < it.dsts.size(); ++j) {
            if (std::find(it.dsts.begin(), it.dsts.begin() + static_cast<std::ptrdiff_t>(j), it.dsts[j]) !=
                it.dsts.begin() + static_cast<std::ptrdiff_t>(j))
                continue;
            it.shares += static_cast<std::int32_t>(
                std::min<std::int64_t>(topology.vertex(it.dsts[j]).terminals, it.packets));
        }
    }
    for (Item& it : items_) it.dep_shares = 0;
    for (const Item& it : items_)
        for (std::int32_t d : it.dependents) items_[static_cast<std::size_t>(d)].dep_shares += it.shares;
}

std::int64_t TransferBook::start_after(std::int32_t dependent, std::int64_t cycle, std::int64_t now) const {
    const Item& dep = item(dependent);
    const std::int64_t done_ps = clock_.edge(cycle).count();
    return std::max({cycle + 1, std::max(cycle, now) + 1, clock_.edge_at_or_after(Time::ps(dep.earliest_ps)),
                     clock_.edge_at_or_after(Time::ps(done_ps + dep.compute_ps))});
}

void TransferBook::settle(std::span<const Log* const> logs) {
    std::vector<std::int32_t> done_shares(items_.size(), 0);
    for (Item& it : items_) {
        it.done_cycle = -1;
        if (it.deps != 0) it.start_cycle = -1;
        it.ready_ps = it.earliest_ps;
    }
    for (const Log* log : logs) {
        for (const auto& [t, cycle] : log->shares_done) {
            Item& it = items_[static_cast<std::size_t>(t)];
            ++done_shares[static_cast<std::size_t>(t)];
            it.done_cycle = std::max(it.done_cycle, cycle);
        }
        for (const auto& [t, cycle] : log->started) items_[static_cast<std::size_t>(t)].start_cycle = cycle;
    }
    completed_ = 0;
    makespan_cycle_ = 0;
    latency_ps_ = stats::Histogram();
    ready_latency_ps_ = stats::Histogram();
    for (std::size_t t = 0; t < items_.size(); ++t) {
        Item& it = items_[t];
        if (it.shares == 0 || done_shares[t] != it.shares) {
            it.done_cycle = -1;
            continue;
        }
        const std::int64_t done_ps = clock_.edge(it.done_cycle).count();
        for (std::int32_t d : it.dependents) {
            Item& dep = items_[static_cast<std::size_t>(d)];
            dep.ready_ps = std::max(dep.ready_ps, done_ps + dep.compute_ps);
        }
    }
    for (std::size_t t = 0; t < items_.size(); ++t) {
        const Item& it = items_[t];
        if (it.done_cycle < 0) continue;
        ++completed_;
        makespan_cycle_ = std::max(makespan_cycle_, it.done_cycle);
        const std::int64_t done_ps = clock_.edge(it.done_cycle).count();
        latency_ps_.record(done_ps - clock_.edge(it.start_cycle).count());
        ready_latency_ps_.record(done_ps - it.ready_ps);
    }
}

}  // namespace loom::fabric
