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
        it.remaining = it.flits * static_cast<std::int64_t>(x.dsts.size());
        flits_total_ += it.remaining;
        it.earliest_ps = x.earliest.count();
        it.compute_ps = x.compute_before.count();
        it.deps_left = static_cast<std::int32_t>(x.deps.size());
        for (workload::TransferId d : x.deps) {
            const auto p = position.find(d);
            if (p == position.end())
                throw InternalError(fmt::format("TransferBook: transfer {} depends on unknown transfer {}", x.id, d));
            items_[static_cast<std::size_t>(p->second)].dependents.push_back(static_cast<std::int32_t>(i));
        }
        it.ready_ps = it.earliest_ps;
        if (it.deps_left == 0) it.start_cycle = clock.edge_at_or_after(Time::ps(it.earliest_ps));
        if (static_cast<std::size_t>(x.src) >= by_src_.size()) by_src_.resize(static_cast<std::size_t>(x.src) + 1);
        by_src_[static_cast<std::size_t>(x.src)].push_back(static_cast<std::int32_t>(i));
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

bool TransferBook::deliver(std::int32_t t, std::int32_t flits, std::int64_t cycle, std::int64_t first_start,
                           std::vector<std::int32_t>& released) {
    Item& it = items_[static_cast<std::size_t>(t)];
    it.remaining -= flits;
    if (it.remaining > 0) return false;
    if (it.remaining < 0) throw ModelError(fmt::format("fabric: transfer {} received more flits than it sent", it.id));
    it.done_cycle = cycle;
    ++completed_;
    makespan_cycle_ = std::max(makespan_cycle_, cycle);
    latency_ps_.record(clock_.edge(cycle).count() - clock_.edge(it.start_cycle).count());
    const std::int64_t done_ps = clock_.edge(cycle).count();
    ready_latency_ps_.record(done_ps - it.ready_ps);
    for (std::int32_t d : it.dependents) {
        Item& dep = items_[static_cast<std::size_t>(d)];
        dep.ready_ps = std::max(dep.ready_ps, done_ps + dep.compute_ps);
        if (--dep.deps_left != 0) continue;
        dep.start_cycle = std::max({cycle + 1, first_start, clock_.edge_at_or_after(Time::ps(dep.earliest_ps)),
                                    clock_.edge_at_or_after(Time::ps(done_ps + dep.compute_ps))});
        released.push_back(d);
    }
    return true;
}

}  // namespace loom::fabric
