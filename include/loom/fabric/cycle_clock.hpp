// The router clock of the dynamically routed network: cycle numbers to exact edge times and back, with a
// multiply-only fast path when the period is a whole number of picoseconds (1 GHz: 1000 ps).
#pragma once

#include <cstdint>

#include "loom/base/clock_domain.hpp"
#include "loom/base/units.hpp"

namespace loom::fabric {

// Every event of the fabric happens on an edge of this clock (edge 0 at time 0). A non-integer period is handled
// exactly by ClockDomain (edge n at floor(n * 10^12 / f) ps).
class CycleClock {
public:
    explicit CycleClock(Frequency f);
    // A clock of an exact whole period in ps (> 0), for rates whose period is no whole number of ps at any integer
    // frequency in Hz (a 328-byte flit at 100 Gbps: 26,240 ps, 38.11 MHz). frequency() is then the nearest Hz,
    // for reports only.
    explicit CycleClock(Time period);

    Frequency frequency() const { return domain_.nominal(); }
    // Time of edge `cycle`, in ps.
    std::int64_t edge_ps(std::int64_t cycle) const {
        return period_ps_ > 0 ? cycle * period_ps_ : domain_.edge(cycle).count();
    }
    // The last edge at or before `ps` (the current cycle of an event, which is always on an edge).
    std::int64_t cycle_at(std::int64_t ps) const {
        return period_ps_ > 0 ? ps / period_ps_ : domain_.edge_at_or_before(Time::ps(ps));
    }
    // The first edge at or after `ps`.
    std::int64_t cycle_at_or_after(std::int64_t ps) const {
        return period_ps_ > 0 ? (ps + period_ps_ - 1) / period_ps_ : domain_.edge_at_or_after(Time::ps(ps));
    }
    // The shortest time `cycles` cycles can take between two edges: a link of that many cycles has this minimum
    // latency (floor(cycles * period)).
    Time min_span(std::int64_t cycles) const;
    // The period rounded up, for reports.
    Time period_ceil() const { return period_ps_ > 0 ? Time::ps(period_ps_) : domain_.period_ceil(); }

private:
    ClockDomain domain_;
    std::int64_t period_ps_ = 0;  // exact period when it is a whole number of ps, else 0
};

}  // namespace loom::fabric
