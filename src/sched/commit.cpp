// Committing the chosen plan of one transfer: vector numbers and addresses for its trains, staging memory, its
// timing summary, and its bookings into the reservation table.
#include <algorithm>
#include <tuple>

#include "loom/base/assert.hpp"
#include "scheduler_impl.hpp"

namespace loom::sched::detail {

void Scheduler::commit(std::size_t i, Time ready) {
    const workload::Transfer& x = set_.transfers[i];
    const ClockDomain& clock = timing_.clock();
    // Vector numbers go to trains in order of their Send (then route): a staged second half carries its first
    // half's vectors. Every tree of a fan-out carries the whole tensor, so each tree numbers its trains from 0.
    const bool fanout = x.dsts.size() > 1;
    auto group = [&](const Train& t) { return fanout ? t.route : 0; };
    std::vector<std::int32_t>& order = commit_order_;
    order.clear();
    for (std::size_t t = 0; t < overlay_.trains.size(); ++t) {
        if (!overlay_.trains[t].staged_second) order.push_back(static_cast<std::int32_t>(t));
    }
    std::sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) {
        const Train& ta = overlay_.trains[static_cast<std::size_t>(a)];
        const Train& tb = overlay_.trains[static_cast<std::size_t>(b)];
        return std::make_tuple(group(ta), ta.plan.m0, ta.route, a) < std::make_tuple(group(tb), tb.plan.m0, tb.route, b);
    });
    std::vector<std::int32_t>& used = commit_used_;
    used.assign(num_candidates(), -1);
    auto route_id = [&](std::int32_t r) {
        auto& u = used[static_cast<std::size_t>(r)];
        if (u < 0) {
            // A point-to-point pair's candidates are the same every time: one copy of each serves every transfer.
            const bool shared = pair_ != kNoPair && static_cast<std::size_t>(r) < pair_routes_;
            std::int32_t* id = nullptr;
            if (shared) {
                std::vector<std::int32_t>& ids = pair_state_->route_ids;
                if (ids.size() < pair_routes_) ids.resize(pair_routes_, -1);
                id = &ids[static_cast<std::size_t>(r)];
                if (*id >= 0) return u = *id;
            }
            u = static_cast<std::int32_t>(used_routes_.size());
            used_routes_.push_back(cand(r));
            if (id != nullptr) *id = u;
        }
        return u;
    };
    TransferTiming tt;
    tt.transfer = x.id;
    tt.ready = ready;
    tt.first_issue = Time::max();
    tt.vectors = static_cast<std::uint32_t>(x.vectors(unit_));
    std::vector<std::int32_t>& routes_seen = commit_routes_seen_;
    routes_seen.clear();
    auto emit = [&](const Train& t, std::int64_t first_vector, std::int64_t send_address, std::int64_t receive_address) {
        CommittedTrain ct;
        ct.transfer = static_cast<std::uint32_t>(i);
        ct.route = route_id(t.route);
        ct.m0 = t.plan.m0;
        ct.n = static_cast<std::uint32_t>(t.plan.n);
        ct.first_vector = static_cast<std::uint32_t>(first_vector);
        ct.send_address = send_address;
        ct.receive_address = receive_address;
        ct.staged_first = t.staged_first;
        for (const HopPlan& hp : t.plan.hops) committed_hops_.emplace_back(hp.k_from, hp.cycle);
        committed_.push_back(ct);
        if (!t.staged_first) {
            tt.last_arrival = std::max(tt.last_arrival, t.plan.completion);
            tt.completion = std::max(tt.completion, t.plan.write_done);
        }
    };
    const std::int64_t staging_base = chip_.memory.count() - cfg_.staging_bytes.count();
    std::int64_t next = 0;
    std::int32_t current_group = order.empty() ? 0 : group(overlay_.trains[static_cast<std::size_t>(order[0])]);
    for (std::int32_t ti : order) {
        const Train& t = overlay_.trains[static_cast<std::size_t>(ti)];
        if (group(t) != current_group) {
            LOOM_ASSERT(next == x.vectors(unit_), "every tree of a fan-out carries every vector once");
            current_group = group(t);
            next = 0;
        }
        const std::int64_t fv = next;
        next += t.plan.n;
        const bool relay = cand(t.route).feeder >= 0;
        // A relay reads the vectors where its source, a destination, has just written them.
        const std::int64_t src_addr = (relay ? x.dst_address : x.src_address) + fv * unit_.count();
        const std::int64_t dst_addr = x.dst_address + fv * unit_.count();
        if (!relay) {
            tt.first_issue = std::min(tt.first_issue, clock.edge(t.plan.m0));
            ++tt.trains;
        }
        if (std::find(routes_seen.begin(), routes_seen.end(), t.route) == routes_seen.end())
            routes_seen.push_back(t.route);
        if (!cand(t.route).minimal)
            tt.nonminimal_vectors += static_cast<std::uint32_t>(t.plan.n);
        if (t.staged_first) {
            const topo::VertexId at = cand(t.route).hops.back().to;
            std::int64_t& used_bytes = staging_used_[static_cast<std::size_t>(at)];
            const std::int64_t buffer = staging_base + used_bytes;
            used_bytes += t.plan.n * unit_.count();
            emit(t, fv, src_addr, buffer);
            emit(overlay_.trains[static_cast<std::size_t>(t.partner)], fv, buffer, dst_addr);
            tt.staged_vectors += static_cast<std::uint32_t>(t.plan.n);
        } else {
            emit(t, fv, src_addr, dst_addr);
        }
    }
    LOOM_ASSERT(next == x.vectors(unit_), "every vector of a transfer is in exactly one train");
    tt.paths = static_cast<std::uint32_t>(routes_seen.size());
    for (const OverlayEntry& e : overlay_.entries) table_.insert(e.channel, e.booking);
    done_[i] = tt.completion;
    timings_[i] = tt;
}

}  // namespace loom::sched::detail
