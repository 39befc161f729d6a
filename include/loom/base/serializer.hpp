// Serialization of trains of fixed-size units, the one implementation: S(k) = ceil(k * wire_bits * 10^12 / rate)
// ps for the first k units of a train, computed from the train's start (never by adding rounded per-unit times),
// and a stepper that walks S(k), S(k + 1), ... with additions only. LinkTiming::serialization is S.
#pragma once

#include <cstdint>
#include <limits>

#include "loom/base/int128.hpp"
#include "loom/base/units.hpp"

namespace loom {

struct LinkTiming;

// S(k) of one link with its constants taken once (wire bits per unit, rate), plus the link's fixed latency.
class Serializer {
public:
    Serializer() = default;
    explicit Serializer(const LinkTiming& t);
    Serializer(std::int64_t wire_bits, std::int64_t rate_bps, Time latency = Time::zero());

    // S(k), k >= 0.
    Time operator()(std::int64_t k) const { return time(wire_bits_, rate_, k); }
    Time latency() const { return latency_; }
    std::int64_t rate() const { return rate_; }
    std::int64_t wire_bits() const { return wire_bits_; }
    // Same serialization function (same rate and wire size).
    bool same_pace(const Serializer& o) const { return rate_ == o.rate_ && wire_bits_ == o.wire_bits_; }

    // ceil(k * wire_bits * 10^12 / rate): 64-bit while the product fits (trains up to a few thousand units of
    // 328 bytes), else one 128-bit division.
    static Time time(std::int64_t wire_bits, std::int64_t rate, std::int64_t k) {
        const i128 num = static_cast<i128>(k) * wire_bits * 1'000'000'000'000LL;
        if (num >= 0 && num <= std::numeric_limits<std::int64_t>::max() - rate)
            return Time::ps((static_cast<std::int64_t>(num) + rate - 1) / rate);
        return Time::ps(static_cast<std::int64_t>(ceil_div(num, rate)));
    }

private:
    std::int64_t wire_bits_ = 1;
    std::int64_t rate_ = 1;
    Time latency_;
};

// S(k), S(k + 1), ... of one link: one division at the start, then a quotient and remainder advanced by
// additions (gives exactly what Serializer gives; the property tests compare them).
class SerialStepper {
public:
    SerialStepper() = default;
    // Positioned at k >= 0.
    SerialStepper(const Serializer& s, std::int64_t k);
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

}  // namespace loom
