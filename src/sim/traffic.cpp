#include "loom/sim/traffic.hpp"

namespace loom::sim {

Occupancy occupancy(const TrafficTally& sent, const TrafficTally& received, Time end) {
    Occupancy o;
    o.in_flight = static_cast<std::int64_t>(sent.count) - static_cast<std::int64_t>(received.count);
    if (end.count() > 0) {
        const std::uint64_t area = received.time_sum +
                                   static_cast<std::uint64_t>(end.count()) * static_cast<std::uint64_t>(o.in_flight) -
                                   sent.time_sum;
        o.average = static_cast<double>(static_cast<std::int64_t>(area)) / static_cast<double>(end.count());
    }
    return o;
}

}  // namespace loom::sim
