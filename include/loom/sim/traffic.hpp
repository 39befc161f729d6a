// Exact, nearly free accounting of what crosses a link or channel: each end keeps a count and the sum of the
// times it saw, from which the number in flight and its time average over a run follow without any update
// at times when nothing is sent or received.
#pragma once

#include <cstdint>

#include "loom/base/units.hpp"

namespace loom::sim {

// One end's tally: how many events it sent (or received) and the sum of the send (receive) times in ps,
// kept modulo 2^64 (16 bytes, so a port's tallies share its cache line with its other hot fields). The sums
// themselves may wrap; only their combination below must fit, see Occupancy.
struct TrafficTally {
    std::uint64_t count = 0;
    std::uint64_t time_sum = 0;  // modulo 2^64

    // Two scalar adds to memory. The empty asm between them keeps g++'s SLP vectorizer from pairing them into
    // one 128-bit add, which builds the (1, t) pair in a vector register first: six instructions instead of
    // three, on every send and every arrival.
    void note(std::int64_t t) {
        time_sum += static_cast<std::uint64_t>(t);
        asm("");
        ++count;
    }
    TrafficTally& operator+=(const TrafficTally& o) {
        count += o.count;
        time_sum += o.time_sum;
        return *this;
    }
};

// Events in flight between the sending and receiving tallies of one link or channel at time `end`, and their
// time average over [0, end]. Exact integer area: sum over received events of (receive - send) plus, for those
// still in flight, (end - send), which equals received.time_sum + end * in_flight - sent.time_sum, evaluated
// modulo 2^64 and exact while the true area (average in flight x end) is below 2^63 ps, e.g. a million events
// in flight on average for 9.2 s of simulated time. Requires every counted receipt to be at or before `end`
// (true whenever `end` is the simulator's current time).
struct Occupancy {
    std::int64_t in_flight = 0;
    double average = 0;  // 0 when end == 0
};
Occupancy occupancy(const TrafficTally& sent, const TrafficTally& received, Time end);

}  // namespace loom::sim
