// Clock-edge arithmetic for one clock domain with an exact rational period, so that edge n is computed
// directly from n (never by accumulating rounded periods) and no drift builds up over 10^9 cycles. This is the
// only clock arithmetic of the project: the TSP executor, the scheduler and the fabric all call it.
#pragma once

#include <cstdint>

#include "loom/base/int128.hpp"
#include "loom/base/units.hpp"

namespace loom {

// A free-running clock: edge n (n >= 0) is at phase + floor(n * period), where the period is the exact
// rational num / den ps (reduced): 10^12 / (f * (1 + offset)) for a frequency, or a whole number of ps. At
// 900 MHz with no offset, edge n is at floor(n * 10^4 / 9) ps. Edge indices are positions on the clock
// (std::int64_t); a number of cycles between two edges is a Cycles.
//
// Fast paths: while n * num and (t - phase) * den fit 64 bits (always for a clock without offset over any
// simulated time; 10^4 / 9 at 900 MHz, 1000 / 1 at 1 GHz) edges and their inverses take one 64-bit multiply and
// at most one 64-bit division; beyond that the same rules are evaluated in 128 bits.
class ClockDomain {
public:
    // `offset_ppb` is the frequency offset in parts per billion (+1000 = 1 ppm fast); real oscillators are
    // within about ±100 ppm. `phase` is the time of edge 0.
    explicit ClockDomain(Frequency nominal, std::int64_t offset_ppb = 0, Time phase = Time::zero());
    // A clock of an exact whole period in ps (> 0), edge 0 at time 0, for rates whose period is no whole number
    // of ps at any integer frequency in Hz (a 328-byte flit at 100 Gbps: 26,240 ps, 38.11 MHz). nominal() is
    // then the nearest Hz, for reports only.
    static ClockDomain with_period(Time period);

    Frequency nominal() const { return nominal_; }
    std::int64_t offset_ppb() const { return offset_ppb_; }
    Time phase() const { return phase_; }
    // The exact period num / den ps, reduced (den > 0).
    i128 period_num() const { return num_; }
    i128 period_den() const { return den_; }

    // Time of edge n.
    Time edge(std::int64_t n) const {
        // A whole period (1 GHz: 1000 ps) is exact for every n whose edge fits 64 bits: no range check.
        if (den64_ == 1) return phase_ + Time::ps(n * num64_);
        if (n >= 0 && n <= n_max_) return phase_ + Time::ps(den64_ == 1 ? n * num64_ : n * num64_ / den64_);
        return edge_wide(n);
    }
    // Index of the first edge at or after t (edges before `phase` do not exist: returns >= 0).
    std::int64_t edge_at_or_after(Time t) const {
        const std::int64_t rel = (t - phase_).count();
        if (rel <= 0) return 0;
        if (den64_ == 1) return (rel - 1) / num64_ + 1;
        // floor(n num / den) >= rel  <=>  n >= rel den / num
        if (rel <= rel_max_) return (rel * den64_ + num64_ - 1) / num64_;
        return edge_at_or_after_wide(t);
    }
    // Index of the last edge at or before t, or -1 if t is before edge 0.
    std::int64_t edge_at_or_before(Time t) const {
        const std::int64_t rel = (t - phase_).count();
        if (rel < 0) return -1;
        if (den64_ == 1) return rel / num64_;
        // floor(n num / den) <= rel  <=>  n num < (rel + 1) den  <=>  n <= ((rel + 1) den - 1) / num
        if (rel < rel_max_) return ((rel + 1) * den64_ - 1) / num64_;
        return edge_at_or_before_wide(t);
    }
    // Time of the first edge at or after t.
    Time next_edge(Time t) const { return edge(edge_at_or_after(t)); }
    // Time of the edge `extra` cycles after the first edge at or after t.
    Time next_edge(Time t, Cycles extra) const { return edge(edge_at_or_after(t) + extra.count()); }
    // Duration of `n` cycles starting at edge `from` (exact: edge(from + n) - edge(from)).
    Time span(std::int64_t from, Cycles n) const { return edge(from + n.count()) - edge(from); }
    // The shortest time `n` cycles take between two edges, floor(n * period): for every m,
    // edge(m + n) - edge(m) = floor((m + n) P) - floor(m P) >= floor(n P).
    Time min_span(Cycles n) const { return edge(n.count()) - phase_; }
    // Rounded-down and rounded-up period in ps, for estimates, lower bounds and display (never for edges).
    Time period_floor() const;
    Time period_ceil() const;

private:
    ClockDomain() = default;
    void reduce(i128 num, i128 den);
    Time edge_wide(std::int64_t n) const;
    std::int64_t edge_at_or_after_wide(Time t) const;
    std::int64_t edge_at_or_before_wide(Time t) const;

    Frequency nominal_;
    std::int64_t offset_ppb_ = 0;
    Time phase_;
    i128 num_ = 1;  // period = num_ / den_ picoseconds, reduced
    i128 den_ = 1;
    std::int64_t num64_ = 1, den64_ = 0;  // num_, den_ when both fit 64 bits, else den64_ = 0
    std::int64_t n_max_ = -1;             // edge(n) in 64 bits for 0 <= n <= n_max_
    std::int64_t rel_max_ = 0;            // inverses in 64 bits for t - phase below about rel_max_
};

}  // namespace loom
