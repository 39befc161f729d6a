#include "loom/fabric/cycle_clock.hpp"

namespace loom::fabric {

CycleClock::CycleClock(Frequency f) : domain_(f) {
    constexpr std::int64_t kPsPerSecond = 1'000'000'000'000;
    if (kPsPerSecond % f.hertz() == 0) period_ps_ = kPsPerSecond / f.hertz();
}

CycleClock::CycleClock(Time period)
    : domain_(Frequency::hz((1'000'000'000'000 + period.count() / 2) / period.count())), period_ps_(period.count()) {}

Time CycleClock::min_span(std::int64_t cycles) const {
    if (period_ps_ > 0) return Time::ps(cycles * period_ps_);
    // edge(m + n) - edge(m) = floor((m + n) P) - floor(m P) >= floor(n P) = edge(n) - edge(0), for every start m.
    return domain_.edge(cycles) - domain_.edge(0);
}

}  // namespace loom::fabric
