// Exact per-hop arithmetic of the schedule's timing contract (schedule.hpp): given the core-clock edge at which a
// train enters a channel, the earliest cycle the consumer at the far end (Forward or Receive) may issue, and how
// full that end's clock-crossing FIFO gets. Results are memoized by clock phase where the arithmetic is periodic,
// so that a train of a million vectors costs no more than one of a few hundred.
#pragma once

#include <array>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "loom/base/clock_domain.hpp"
#include "loom/base/link_timing.hpp"
#include "loom/base/serializer.hpp"
#include "loom/base/units.hpp"
#include "loom/sched/clock_edges.hpp"

namespace loom::sched::detail {

using loom::sched::FixedDivisor;  // clock_edges.hpp

// Serializer::operator() (S(k) = ceil(k * wire_bits * 10^12 / rate)) by a multiply with the rate's reciprocal where
// Serializer takes its 64-bit path, else by Serializer itself: the same values.
class Pace {
public:
    Pace() = default;
    explicit Pace(const Serializer& s);
    Time operator()(std::int64_t k) const {
        if (k >= 0 && k <= k_fast_)
            return Time::ps(static_cast<std::int64_t>(by_rate_(static_cast<std::uint64_t>(k * bits_ps_ + rate_ - 1))));
        return Serializer::time(wire_bits_, rate_, k);
    }
    Time one() const { return one_; }          // S(1)
    Time latency() const { return latency_; }

private:
    std::int64_t wire_bits_ = 1;
    std::int64_t rate_ = 1;
    std::int64_t bits_ps_ = 0;  // wire_bits * 10^12
    std::int64_t k_fast_ = -1;  // k * bits_ps <= INT64_MAX - rate for 0 <= k <= k_fast (Serializer's 64-bit path)
    FixedDivisor by_rate_;
    Time one_;
    Time latency_;
};

// A hop kind: the in-channel's timing and the consumer at its far end.
struct HopKind {
    const Serializer* in = nullptr;
    bool receive = true;
    const Serializer* out_first = nullptr;  // Forward: the out port whose slots start first (fastest)
    const Serializer* out_last = nullptr;   // Forward: the out port whose slots start last (slowest)
    bool periodic = false;                  // results depend on (phase, min(n, period_vectors)) only
    std::int64_t period_vectors = 0;        // vectors after which the per-vector pattern repeats
    std::int64_t n_cap = 0;                 // periodic: trains longer than this are evaluated as this long
    Pace out_last_pace;                     // Forward: *out_last
};

struct HopResult {
    // Forward: the edge index at which the onward train starts (issue cycle + forward_cycles).
    // Receive: the issue cycle.
    std::int64_t k = 0;
    std::int32_t occupancy = 0;  // most vectors of this train in the far end's FIFO at once
};

// Contract rules 3, 5 and 6 for one train of n vectors whose first bit enters the channel at edge k_from:
//  vector i arrives at a_i = edge(k_from) + S_in(i) + L_in, and (allowing jitter J) is available at
//  v_i = edge(edge_at_or_after(a_i + J) + crossing_cycles).
//  Forward: it issues at the first edge m >= 0 with edge(m) >= v_i - S_out_first(i-1) for all i, and the onward
//  train starts at edge k = m + forward_cycles; vector i stays in the FIFO over [a_i, edge(m) + S_out_last(i-1)).
//  Receive: issue at the first cycle m with edge(m) >= v_i - S_in(i-1) for all i; vector i stays in the FIFO
//  over [a_i, max(v_i, edge(m))).
// The occupancy when vector i arrives counts it and every earlier vector still there (leave > a_i). Arrivals
// without jitter enter the FIFO (earliest), availability with it (latest): both bounds are safe.
class HopTiming {
public:
    HopTiming(const ClockDomain& clock, std::int64_t forward_cycles, std::int64_t crossing_cycles,
              std::int32_t fifo_depth, Time jitter_allowance);

    const ClockDomain& clock() const { return clock_; }
    // True when the clock's period num / den ps has a small den (<= 4096, num < 2^40) and edge 0 at time 0: hop
    // results then depend on the phase k mod den of the train's start only, and are memoized by phase.
    bool periodic() const { return den_ > 0; }
    std::int64_t den() const { return den_; }  // only when periodic()
    std::int64_t num() const { return num_; }  // only when periodic()
    std::int64_t phase(std::int64_t k) const {
        if (k >= 0) return k - static_cast<std::int64_t>(by_den_(static_cast<std::uint64_t>(k))) * den_;
        return k % den_;
    }
    // For periodic() and 0 <= k <= the range edge() takes without a division: the number of whole periods in k and
    // its phase (k = periods * den + phase, edge(k) = periods * num + edge(phase)). False elsewhere.
    bool split(std::int64_t k, std::int64_t& periods, std::int64_t& phase) const {
        if (den_ <= 0 || k < 0 || k > n_fast_) return false;
        periods = static_cast<std::int64_t>(by_den_(static_cast<std::uint64_t>(k)));
        phase = k - periods * den_;
        return true;
    }
    // clock().edge(n), edge_at_or_after(t), edge_at_or_before(t) and next_edge(t, extra), the same values without a
    // 64-bit division when periodic() (edge n at floor(n num / den) ps) and the products fit 64 bits.
    Time edge(std::int64_t n) const {
        if (den_ > 0 && n >= 0 && n <= n_fast_)
            return Time::ps(static_cast<std::int64_t>(by_den_(static_cast<std::uint64_t>(n * num_))));
        return clock_.edge(n);
    }
    std::int64_t edge_at_or_after(Time t) const {
        const std::int64_t rel = t.count();
        if (den_ > 0 && rel > 0 && rel <= rel_fast_)
            return static_cast<std::int64_t>(by_num_(static_cast<std::uint64_t>(rel * den_ + num_ - 1)));
        return clock_.edge_at_or_after(t);
    }
    std::int64_t edge_at_or_before(Time t) const {
        const std::int64_t rel = t.count();
        if (den_ > 0 && rel >= 0 && rel <= rel_fast_)
            return static_cast<std::int64_t>(by_num_(static_cast<std::uint64_t>((rel + 1) * den_ - 1)));
        return clock_.edge_at_or_before(t);
    }
    Time next_edge(Time t, std::int64_t extra) const { return edge(edge_at_or_after(t) + extra); }
    Time jitter_allowance() const { return jitter_; }
    Time period_floor() const { return period_floor_; }  // clock().period_floor(), computed once
    std::int64_t forward_cycles() const { return forward_cycles_; }

    // Registers (or finds) the kind of a hop; `outs` is empty for a Receive. Pointers must outlive this object.
    std::int32_t kind(const Serializer* in, const std::vector<const Serializer*>& outs);
    const HopKind& hop_kind(std::int32_t id) const { return kinds_[static_cast<std::size_t>(id)]; }

    HopResult evaluate(std::int32_t kind, std::int64_t k_from, std::int64_t n);

    // Latest time a vector that arrives (without jitter) at `arrival` is available to the core.
    Time available(Time arrival) const;

    std::int64_t memo_entries() const;

private:
    HopResult exact(const HopKind& k, std::int64_t k_from, std::int64_t n, std::int64_t min_k);

    ClockDomain clock_;
    std::int64_t num_ = 0;  // the clock's period when periodic(), else 0
    std::int64_t den_ = 0;
    FixedDivisor by_den_;
    FixedDivisor by_num_;
    std::int64_t n_fast_ = -1;   // edge(n) without a division for 0 <= n <= n_fast_
    std::int64_t rel_fast_ = 0;  // edge_at_or_after/before(t) without a division for 0 <= t <= rel_fast_ ps
    std::int64_t forward_cycles_;
    std::int64_t crossing_cycles_;
    std::int32_t fifo_depth_;
    Time jitter_;
    Time period_floor_;
    std::vector<HopKind> kinds_;
    // kind()'s last answers, direct-mapped by (in, receive, out_first, out_last): the kinds are few but every hop of
    // every route built asks, and the search compared them one by one (1.4 % of the compile at 1,152 TSPs).
    struct KindSlot {
        const Serializer* in = nullptr;  // null: empty
        const Serializer* out_first = nullptr;
        const Serializer* out_last = nullptr;
        bool receive = false;
        std::int32_t id = 0;
    };
    std::array<KindSlot, 64> kind_cache_{};
    // Periodic kinds: by kind, a table indexed phase * (n_cap + 1) + n of (k - k_from, occupancy), occupancy -1
    // while not computed. Other kinds: key kind (16 bits) | phase (20 bits) | n (28 bits).
    std::vector<std::vector<HopResult>> tables_;
    std::unordered_map<std::uint64_t, HopResult> memo_;
    std::vector<Time> leave_;  // scratch
};

// Vectors after which the arrival/availability pattern of a train on `s` repeats on `clock`: the smallest Q, a
// multiple of rate / gcd(bits * 10^12, rate), with Q * bits * 10^12 / rate a multiple of num. 0 if over `limit` or the clock is not periodic.
std::int64_t period_vectors(const Serializer& s, const HopTiming& timing, std::int64_t limit);

}  // namespace loom::sched::detail
