// A Mux's packets waiting for their departure time (the core that processed them finishes then): a ring kept
// sorted by departure, earliest first, packets with the same departure in the order they were queued. A new
// departure is placed from the back: every core's departures only grow, so it usually lands last (it passes
// the few later ones another core queued, when it was shorter).
#pragma once

#include <cstdint>

#include "loom/ananta/ip_packet.hpp"
#include "loom/ananta/small_ring.hpp"

namespace loom::ananta {

class DepartureQueue {
public:
    struct Departure {
        std::int64_t at;  // ps
        IpPacket packet;
    };

    bool empty() const { return ring_.empty(); }
    std::size_t size() const { return ring_.size(); }
    // The earliest departure (the first queued among equal ones); the queue must not be empty.
    const Departure& front() const { return ring_.front(); }
    // An emptied queue starts again at the ring's first slot (SmallRing): a Mux seldom holds more than one or
    // two packets.
    void pop() { ring_.pop_front(); }
    void push(std::int64_t at, const IpPacket& p) {
        ring_.insert_from_back(Departure{at, p}, [at](const Departure& d) { return d.at <= at; });
    }

private:
    SmallRing<Departure, 16> ring_;
};

}  // namespace loom::ananta
