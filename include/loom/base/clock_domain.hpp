// Clock-edge arithmetic for one clock domain with an exact rational period, so that edge n is computed
// directly from n (never by accumulating rounded periods) and no drift builds up over 10^9 cycles.
#pragma once

#include <cstdint>

#include "loom/base/units.hpp"

namespace loom {

// A free-running clock: edge n (n >= 0) is at phase + floor(n * period), where the period is the exact
// rational 10^12 / (f * (1 + offset)) ps. At 900 MHz with no offset, edge n is at floor(n * 10^4 / 9) ps.
class ClockDomain {
public:
    // `offset_ppb` is the frequency offset in parts per billion (+1000 = 1 ppm fast); real oscillators are
    // within about ±100 ppm. `phase` is the time of edge 0.
    explicit ClockDomain(Frequency nominal, std::int64_t offset_ppb = 0, Time phase = Time::zero());

    Frequency nominal() const { return nominal_; }
    std::int64_t offset_ppb() const { return offset_ppb_; }
    Time phase() const { return phase_; }

    // Time of edge n.
    Time edge(std::int64_t n) const;
    // Index of the first edge at or after t (edges before `phase` do not exist: returns >= 0).
    std::int64_t edge_at_or_after(Time t) const;
    // Index of the last edge at or before t, or -1 if t is before edge 0.
    std::int64_t edge_at_or_before(Time t) const;
    // Time of the first edge at or after t.
    Time next_edge(Time t) const { return edge(edge_at_or_after(t)); }
    // Duration of `n` cycles starting at edge `from` (exact: edge(from + n) - edge(from)).
    Time span(std::int64_t from, std::int64_t n) const { return edge(from + n) - edge(from); }
    // Rounded-up period in ps, for display and for lower bounds only (never for edge arithmetic).
    Time period_ceil() const;

private:
    __extension__ using i128 = __int128;
    Frequency nominal_;
    std::int64_t offset_ppb_;
    Time phase_;
    i128 num_;  // period = num_ / den_ picoseconds, reduced
    i128 den_;
};

}  // namespace loom
