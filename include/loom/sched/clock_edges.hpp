// Division-free clock-edge arithmetic for the per-vector checks of the verifier and the executor (FixedDivisor is
// the planner's too, in hop_timing.hpp): rule 3 (available_at) asks for edge_at_or_after and edge of one core clock
// for every vector at every hop, two 64-bit divisions by the same two numbers (the period's numerator and
// denominator) each time. Here they are multiplies by precomputed reciprocals, with the same answers as
// ClockDomain's.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>

#include "loom/base/clock_domain.hpp"
#include "loom/base/int128.hpp"
#include "loom/base/units.hpp"

namespace loom::sched {

// x / d for 0 <= x < 2^64 and a divisor fixed in advance, by a multiply instead of a 64-bit division: with
// m = floor((2^64 - 1) / d), the product's high half is floor(x / d) or one less, and one comparison corrects it.
// Exact.
class FixedDivisor {
public:
    FixedDivisor() = default;
    explicit FixedDivisor(std::uint64_t d) : d_(d), m_(~std::uint64_t{0} / d) {}
    std::uint64_t operator()(std::uint64_t x) const {
        __extension__ using u128 = unsigned __int128;
        std::uint64_t q = static_cast<std::uint64_t>((static_cast<u128>(x) * m_) >> 64);
        if (x - q * d_ >= d_) ++q;
        return q;
    }

private:
    std::uint64_t d_ = 1;
    std::uint64_t m_ = ~std::uint64_t{0};
};

// ClockDomain's edge, edge_at_or_after and next_edge for one clock, the same values: where ClockDomain takes its
// 64-bit path (period num / den ps with both fitting 64 bits, products that fit 64 bits) by FixedDivisor, elsewhere
// by the ClockDomain itself. Any phase, any period.
class ClockEdges {
public:
    explicit ClockEdges(const ClockDomain& clock) : phase_(clock.phase()), clock_(clock) {
        constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
        const i128 num = clock.period_num(), den = clock.period_den();
        if (num <= 0 || den <= 0 || num > kMax || den > kMax) return;  // every query goes to the ClockDomain
        num_ = static_cast<std::int64_t>(num);
        den_ = static_cast<std::int64_t>(den);
        by_num_ = FixedDivisor(static_cast<std::uint64_t>(num_));
        by_den_ = FixedDivisor(static_cast<std::uint64_t>(den_));
        // n * num and rel * den + num - 1 fit 64 bits, and so does the edge's time, phase + floor(n num / den).
        n_fast_ = kMax / num_;
        if (phase_ > Time::zero()) n_fast_ = std::min(n_fast_, (kMax - phase_.count()) / num_);
        rel_fast_ = (kMax - num_) / den_;
    }

    const ClockDomain& clock() const { return clock_; }
    Time edge(std::int64_t n) const {
        if (n >= 0 && n <= n_fast_)
            return phase_ + Time::ps(static_cast<std::int64_t>(by_den_(static_cast<std::uint64_t>(n * num_))));
        return clock_.edge(n);
    }
    // Index of the first edge at or after t (0 for t at or before the phase).
    std::int64_t edge_at_or_after(Time t) const {
        const std::int64_t rel = (t - phase_).count();
        if (rel <= 0) return 0;
        if (rel <= rel_fast_)
            return static_cast<std::int64_t>(by_num_(static_cast<std::uint64_t>(rel * den_ + num_ - 1)));
        return clock_.edge_at_or_after(t);
    }
    Time next_edge(Time t, Cycles extra) const { return edge(edge_at_or_after(t) + extra.count()); }

private:
    // The fast path's constants first (72 bytes, read per query), the clock last (read past the fast range).
    Time phase_;
    std::int64_t num_ = 1;  // the period num_ / den_ ps when both fit 64 bits
    std::int64_t den_ = 1;
    FixedDivisor by_num_;
    FixedDivisor by_den_;
    std::int64_t n_fast_ = -1;   // edge(n) by the reciprocal for 0 <= n <= n_fast_ (n * num fits)
    std::int64_t rel_fast_ = 0;  // edge_at_or_after by the reciprocal for 0 < t - phase <= rel_fast_
    ClockDomain clock_;
};

}  // namespace loom::sched
