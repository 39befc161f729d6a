// The Ananta Manager's staged processing: per-stage queues served by one pool of workers, each item taking its
// stage's service time; with priorities on, a free worker takes the queued item of the highest-priority class
// (VIP configuration outranks SNAT), otherwise the one queued first. Pure arithmetic on times, no simulator.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "loom/base/assert.hpp"
#include "loom/base/units.hpp"

namespace loom::ananta {

// Published stage names (Patel et al. §4): validation, VIP configuration, SNAT management, host-agent
// management, Mux-pool management; health relay and overload isolation are our names for the remaining work.
enum class ManagerStage : std::uint8_t { Validation, VipConfiguration, SnatManagement, HostAgent, MuxPool, Health, Overload };
inline constexpr std::size_t kManagerStages = 7;

enum class WorkClass : std::uint8_t { VipConfig, Snat, Health, Overload };
inline constexpr std::size_t kWorkClasses = 4;

// Contract: enqueue(), pop_done() and resume() are called in non-decreasing time order, and every completion at
// or before t is popped before anything is enqueued at t. A worker freed by pop_done() stays idle until the
// caller has enqueued the item's follow-up work and called resume(at) (or enqueued anything), so it chooses
// among exactly the items queued by then. Items are identified by the caller's 64-bit id.
class StageScheduler {
public:
    struct Done {
        ManagerStage stage = ManagerStage::Validation;
        std::uint64_t item = 0;
        Time at;
    };

    StageScheduler(std::array<Time, kManagerStages> service, std::array<std::int64_t, kWorkClasses> priority,
                   bool priorities, std::int64_t workers)
        : service_(service), priority_(priority), priorities_(priorities), workers_(workers) {
        LOOM_ASSERT(workers > 0, "the manager needs a worker");
    }

    void enqueue(ManagerStage stage, WorkClass cls, std::uint64_t item, Time now) {
        const std::int64_t prio = priorities_ ? priority_[static_cast<std::size_t>(cls)] : 0;
        queues_[static_cast<std::size_t>(stage)].emplace(Key{prio, seq_++}, item);
        dispatch(now);
    }

    // The earliest completion at or before `now` (ties in start order); its worker waits for resume().
    std::optional<Done> pop_done(Time now) {
        auto it = running_.begin();
        if (it == running_.end() || it->first.first > now) return std::nullopt;
        const Done d{it->second.first, it->second.second, it->first.first};
        running_.erase(it);
        return d;
    }
    // Idle workers take queued items at `now`.
    void resume(Time now) { dispatch(now); }

    std::optional<Time> next_completion() const {
        if (running_.empty()) return std::nullopt;
        return running_.begin()->first.first;
    }
    std::size_t queued(ManagerStage stage) const { return queues_[static_cast<std::size_t>(stage)].size(); }
    std::size_t busy() const { return running_.size(); }
    void clear() {
        for (auto& q : queues_) q.clear();
        running_.clear();
    }

private:
    using Key = std::pair<std::int64_t, std::uint64_t>;  // (priority, enqueue order)

    void dispatch(Time now) {
        while (static_cast<std::int64_t>(running_.size()) < workers_) {
            std::size_t best = kManagerStages;
            for (std::size_t s = 0; s < kManagerStages; ++s)
                if (!queues_[s].empty() && (best == kManagerStages || queues_[s].begin()->first < queues_[best].begin()->first))
                    best = s;
            if (best == kManagerStages) return;
            const auto item = queues_[best].begin()->second;
            queues_[best].erase(queues_[best].begin());
            running_.emplace(std::make_pair(now + service_[best], seq_++),
                             std::make_pair(static_cast<ManagerStage>(best), item));
        }
    }

    std::array<Time, kManagerStages> service_;
    std::array<std::int64_t, kWorkClasses> priority_;
    bool priorities_;
    std::int64_t workers_;
    std::uint64_t seq_ = 0;
    std::array<std::map<Key, std::uint64_t>, kManagerStages> queues_;
    std::map<std::pair<Time, std::uint64_t>, std::pair<ManagerStage, std::uint64_t>> running_;  // (finish, order)
};

}  // namespace loom::ananta
