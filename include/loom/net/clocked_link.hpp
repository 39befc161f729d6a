// The sending end of a link in a cycle-clocked model (the fabric's channels, flits one way and credits back):
// no queue, one unit per cycle, a fixed latency in cycles, and optionally the noise of the link's
// base::LinkTiming, the same model as net::ScheduledLink's: per unit a jitter draw (rounded up to a cycle edge)
// and an FEC outcome; a unit FEC cannot correct is sent again by link-level retry, arriving `replay` cycles
// later and holding the link as long (go-back-N: the units behind it wait), so units never overtake one
// another. Draws are stateless in (link stream, unit number), as on every link of net/.
#pragma once

#include <algorithm>
#include <cstdint>

#include "loom/base/clock_domain.hpp"
#include "loom/base/link_timing.hpp"
#include "loom/net/error_model.hpp"

namespace loom::net {

// What noise did to the units of one or more links (their owner sums them into its statistics).
struct NoiseCounts {
    std::int64_t corrected = 0;  // units FEC corrected (no time lost)
    std::int64_t retried = 0;    // units sent again by link-level retry
};

// The noise of one link direction: its draws and where they stand. Owned by the sending component, which passes
// it to its ClockedLink's calls when the link is noisy (nullptr otherwise), so a clean link costs one
// predictable branch.
class LinkNoise {
public:
    LinkNoise() = default;
    // `timing`'s jitter, bit error rate and FEC; a retry costs `replay` cycles; `clock` (which must outlive
    // the noise) turns jitter into cycles.
    LinkNoise(const LinkTiming& timing, std::uint64_t stream, std::int64_t replay, const ClockDomain& clock);
    // Whether `timing` has any noise (else a link needs no LinkNoise).
    static bool any(const LinkTiming& timing) { return timing.jitter > Time::zero() || timing.bit_error_rate > 0.0; }

    // The arrival of the next unit, due at `arrive` on a clean link; a retry adds `replay` to `busy_until`
    // too when the unit holds the link (nullptr: it does not, e.g. a credit riding the reverse direction).
    std::int64_t disturb(std::int64_t arrive, std::int64_t* busy_until, NoiseCounts& counts);
    std::uint64_t units() const { return units_; }

private:
    ErrorModel errors_;
    const ClockDomain* clock_ = nullptr;
    std::uint64_t stream_ = 0;
    Time jitter_;
    std::int64_t replay_ = 0;  // cycles a retried unit loses
    std::uint64_t units_ = 0;  // units sent so far (the draws' index)
    std::int64_t last_ = -1;   // arrival cycle of the previous unit
};

// One link direction of a clocked model: the units it carries (flits), one per cycle, and the signals sent
// beside them in the same direction (credits for the flits coming the other way), which take no cycle of the
// link but share its latency and have noise of their own draws. Plain data of 16 bytes (it lives in its owner's
// per-port arrays, two of which a router's forwarding touches per flit): the noise of the units and of the
// signals (LinkNoise, nullptr on a clean link) is the sender's, passed to each call, the same every time.
class ClockedLink {
public:
    void set_latency(std::int64_t cycles) { latency_ = static_cast<std::int32_t>(cycles); }

    // Sends a unit ready at cycle `ready`: it leaves when the link is free (one unit per cycle) and the
    // function returns its arrival cycle.
    [[gnu::always_inline]] std::int64_t send(std::int64_t ready, NoiseCounts& counts, LinkNoise* noise = nullptr) {
        const std::int64_t depart = std::max(ready, next_free_);
        next_free_ = depart + 1;
        const std::int64_t arrive = depart + latency_;
        if (noise != nullptr) [[unlikely]] return noise->disturb(arrive, &next_free_, counts);
        return arrive;
    }
    // Arrival of a signal sent at cycle `at` beside the units (it takes no cycle of the link): the latency and
    // the signals' noise.
    [[gnu::always_inline]] std::int64_t signal(std::int64_t at, NoiseCounts& counts, LinkNoise* noise = nullptr) {
        const std::int64_t arrive = at + latency_;
        if (noise != nullptr) [[unlikely]] return noise->disturb(arrive, nullptr, counts);
        return arrive;
    }

    std::int64_t latency() const { return latency_; }
    std::int64_t free_at() const { return next_free_; }  // first cycle the link can take another unit

private:
    std::int64_t next_free_ = 0;
    std::int32_t latency_ = 0;  // cycles
};
static_assert(sizeof(ClockedLink) == 16);

}  // namespace loom::net
