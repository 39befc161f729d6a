// A Mux's packets waiting for their departure time (the core that processed them finishes then): a ring kept
// sorted by departure, earliest first, packets with the same departure in the order they were queued. A new
// departure is placed from the back: every core's departures only grow, so it usually lands last (it passes
// the few later ones another core queued, when it was shorter).
#pragma once

#include <cstdint>
#include <vector>

#include "loom/ananta/ip_packet.hpp"

namespace loom::ananta {

class DepartureQueue {
public:
    struct Departure {
        std::int64_t at;  // ps
        IpPacket packet;
    };

    bool empty() const { return size_ == 0; }
    std::size_t size() const { return size_; }
    // The earliest departure (the first queued among equal ones); the queue must not be empty.
    const Departure& front() const { return ring_[head_]; }
    // An emptied queue starts again at the ring's first slot: a Mux seldom holds more than one or two packets,
    // so its departures stay in the ring's first lines instead of walking through all of them.
    void pop() {
        head_ = --size_ == 0 ? 0 : (head_ + 1) & mask_;
    }
    void push(std::int64_t at, const IpPacket& p) {
        if (size_ == ring_.size()) grow();
        std::size_t i = size_;
        while (i > 0) {
            const Departure& prev = ring_[(head_ + i - 1) & mask_];
            if (prev.at <= at) break;
            ring_[(head_ + i) & mask_] = prev;
            --i;
        }
        ring_[(head_ + i) & mask_] = Departure{at, p};
        ++size_;
    }

private:
    void grow() {
        std::vector<Departure> bigger(ring_.empty() ? 16 : 2 * ring_.size());
        for (std::size_t i = 0; i < size_; ++i) bigger[i] = ring_[(head_ + i) & mask_];
        ring_ = std::move(bigger);
        head_ = 0;
        mask_ = ring_.size() - 1;
    }

    std::vector<Departure> ring_;  // power-of-two size
    std::size_t head_ = 0;
    std::size_t size_ = 0;
    std::size_t mask_ = 0;
};

}  // namespace loom::ananta
