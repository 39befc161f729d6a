// Exact per-vector times of a train computed by stepping, for the train-mode executor: serialization of
// consecutive units with additions only, and core-clock edges in 64-bit arithmetic where the products fit. Both
// give exactly what LinkTiming::serialization and ClockDomain give (tests compare them), only cheaper.
#pragma once

#include <cstdint>

#include "loom/base/clock_domain.hpp"
#include "loom/base/link_timing.hpp"
#include "loom/base/units.hpp"

namespace loom::tsp {

// serialization(k) = ceil(k * wire_bits * 10^12 / rate) for k, k + 1, ...: one 128-bit division at the start,
// then a quotient and remainder advanced by additions.
class SerialStepper {
public:
    SerialStepper() = default;
    // Positioned at k >= 0.
    SerialStepper(const LinkTiming& timing, std::int64_t k);
    Time value() const { return Time::ps(q_ + (r_ != 0 ? 1 : 0)); }
    void next() {
        q_ += step_q_;
        r_ += step_r_;
        if (r_ >= rate_) {
            ++q_;
            r_ -= rate_;
        }
    }

private:
    std::int64_t q_ = 0, r_ = 0;            // k * N = q * rate + r, 0 <= r < rate (N = bits * 10^12)
    std::int64_t step_q_ = 0, step_r_ = 0;  // N = step_q * rate + step_r
    std::int64_t rate_ = 1;
};

// A ClockDomain's edges in 64-bit arithmetic while n x num and t x den fit (always, at a clock without offset:
// 900 MHz is 10^4 / 9 ps), falling back to the ClockDomain itself otherwise.
class FastClock {
public:
    explicit FastClock(const ClockDomain& clock);
    const ClockDomain& domain() const { return clock_; }

    Time edge(std::int64_t n) const {
        if (n >= 0 && n <= n_max_) return clock_.phase() + Time::ps(n * num_ / den_);
        return clock_.edge(n);
    }
    std::int64_t edge_at_or_after(Time t) const {
        const std::int64_t rel = (t - clock_.phase()).count();
        if (rel <= 0) return 0;
        if (rel <= rel_max_) return (rel * den_ + num_ - 1) / num_;
        return clock_.edge_at_or_after(t);
    }
    // The core edge a vector arriving at `t` is usable at: the first edge at or after t, plus `extra` edges.
    Time available(Time t, std::int64_t extra) const { return edge(edge_at_or_after(t) + extra); }

private:
    ClockDomain clock_;
    std::int64_t num_ = 1, den_ = 1;  // period = num / den ps, reduced
    std::int64_t n_max_ = -1;         // edge(n) in 64 bits for 0 <= n <= n_max
    std::int64_t rel_max_ = 0;        // edge_at_or_after(t) in 64 bits for t - phase <= rel_max
};

}  // namespace loom::tsp
