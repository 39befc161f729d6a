#include "loom/tsp/train_arithmetic.hpp"

#include <limits>

#include "loom/base/assert.hpp"

namespace loom::tsp {
namespace {
__extension__ using i128 = __int128;
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

i128 gcd(i128 a, i128 b) {
    while (b != 0) {
        const i128 t = a % b;
        a = b;
        b = t;
    }
    return a;
}
}  // namespace

SerialStepper::SerialStepper(const LinkTiming& timing, std::int64_t k) : rate_(timing.rate.bits_per_s()) {
    LOOM_ASSERT(k >= 0 && rate_ > 0, "SerialStepper: needs k >= 0 and a positive rate");
    const i128 n = static_cast<i128>(timing.unit_wire.bits()) * 1'000'000'000'000LL;
    const i128 kn = n * k;
    if (kn <= kMax) {  // the usual case (k below ~3500 units of 328 bytes): 64-bit divisions
        const auto n64 = static_cast<std::int64_t>(n), kn64 = static_cast<std::int64_t>(kn);
        step_q_ = n64 / rate_;
        step_r_ = n64 % rate_;
        q_ = kn64 / rate_;
        r_ = kn64 % rate_;
        return;
    }
    step_q_ = static_cast<std::int64_t>(n / rate_);
    step_r_ = static_cast<std::int64_t>(n % rate_);
    q_ = static_cast<std::int64_t>(kn / rate_);
    r_ = static_cast<std::int64_t>(kn % rate_);
}

FastClock::FastClock(const ClockDomain& clock) : clock_(clock) {
    // The same reduced rational as ClockDomain: period = 10^21 / (f * (10^9 + ppb)) ps.
    i128 num = static_cast<i128>(1'000'000'000'000'000'000LL) * 1000;
    i128 den = static_cast<i128>(clock.nominal().hertz()) * (1'000'000'000LL + clock.offset_ppb());
    const i128 g = gcd(num, den);
    num /= g;
    den /= g;
    if (num > kMax || den > kMax) return;  // no fast path: every call falls back
    num_ = static_cast<std::int64_t>(num);
    den_ = static_cast<std::int64_t>(den);
    n_max_ = kMax / num_;
    rel_max_ = (kMax - num_) / den_;
    // Checked against the domain once, so a divergence is a loud bug rather than a silent timing error.
    for (std::int64_t n : {std::int64_t{0}, std::int64_t{1}, std::int64_t{12'345}, std::int64_t{1'000'000'007}}) {
        LOOM_ASSERT(edge(n) == clock_.edge(n), "FastClock disagrees with ClockDomain::edge");
        const Time t = clock_.edge(n) + Time::ps(1);
        LOOM_ASSERT(edge_at_or_after(t) == clock_.edge_at_or_after(t),
                    "FastClock disagrees with ClockDomain::edge_at_or_after");
    }
}

}  // namespace loom::tsp
