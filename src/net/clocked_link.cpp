#include "loom/net/clocked_link.hpp"

namespace loom::net {

LinkNoise::LinkNoise(const LinkTiming& timing, std::uint64_t stream, std::int64_t replay, const ClockDomain& clock)
    : errors_(timing, stream), clock_(&clock), stream_(stream), jitter_(timing.jitter), replay_(replay) {}

std::int64_t LinkNoise::disturb(std::int64_t arrive, std::int64_t* busy_until, NoiseCounts& counts) {
    const std::uint64_t unit = units_++;
    switch (errors_.outcome(unit)) {
        case FecOutcome::Uncorrectable:
            ++counts.retried;
            arrive += replay_;
            if (busy_until != nullptr) *busy_until += replay_;
            break;
        case FecOutcome::Corrected: ++counts.corrected; break;
        case FecOutcome::Clean: break;
    }
    if (jitter_ > Time::zero()) {
        const Time j = jitter_of(stream_, unit, jitter_);
        if (j > Time::zero()) arrive = clock_->edge_at_or_after(Time::ps(clock_->edge(arrive).count() + j.count()));
    }
    // Never overtaking: a unit that holds the link arrives at least a cycle after the one before it; a signal
    // beside the units (several may share a cycle) no earlier than the one before it.
    arrive = std::max(arrive, busy_until != nullptr ? last_ + 1 : last_);
    last_ = arrive;
    return arrive;
}

}  // namespace loom::net
