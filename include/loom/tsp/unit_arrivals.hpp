// When the units of a train arrive over one link, as a receiving chip computes them from the run's description:
// the link's own rule (net::ScheduledLink::arrival_after), without reading the link's full timing and noise
// (192 bytes, several cache lines per run at 10,440 TSPs) when the link has neither jitter nor FEC errors.
#pragma once

#include <algorithm>
#include <cstdint>

#include "loom/base/link_timing.hpp"
#include "loom/base/units.hpp"
#include "loom/net/error_model.hpp"
#include "loom/net/scheduled_port.hpp"

namespace loom::tsp {

class UnitArrivals {
public:
    UnitArrivals() = default;
    // `view` (which must outlive this) times the link of `timing`, the timing it was made with.
    UnitArrivals(const net::ScheduledLink& view, const LinkTiming& timing)
        : view_(&view),
          latency_(timing.latency()),
          plain_(timing.jitter == Time::zero() && net::ErrorModel(timing, view.stream()).error_free()) {}

    // view.arrival_after(sent, index, floor): the arrival of the unit whose last bit left at `sent`, with
    // link-wide index `index`, no earlier than `floor`.
    Time arrival_after(Time sent, std::uint64_t index, Time floor) const {
        if (plain_) return std::max(sent + latency_, floor);
        return view_->arrival_after(sent, index, floor);
    }
    // No jitter and no FEC errors: a unit arrives at max(sent + latency, floor).
    bool plain() const { return plain_; }
    const net::ScheduledLink& view() const { return *view_; }

private:
    const net::ScheduledLink* view_ = nullptr;
    Time latency_;
    bool plain_ = false;
};

}  // namespace loom::tsp
