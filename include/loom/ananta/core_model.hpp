// The Mux's per-core capacity as a pure queueing calculation: each flow is pinned to one core by hash, each
// core serves its packets first come first served at a fixed packet and bit rate, behind a bounded queue; an
// arrival that finds the queue full is dropped (a Mux-overload drop).
#pragma once

#include <cstdint>
#include <vector>

#include "loom/ananta/small_ring.hpp"
#include "loom/base/units.hpp"

namespace loom::ananta {

struct CoreLimits {
    std::int32_t cores = 1;
    std::int64_t packets_per_s = 1;  // per core
    Bandwidth bandwidth;             // per core; zero = no bit-rate limit
    std::int64_t queue_packets = 0;  // waiting room per core, the packet in service not counted
};

struct CoreDecision {
    bool accepted = false;
    std::uint32_t core = 0;
    Time departure;  // when the core has finished the packet (accepted only)
};

// A packet's service time is the larger of 1/packets_per_s and its bits over the bandwidth, each rounded up
// to whole picoseconds. Arrivals must be offered in non-decreasing time order.
class CoreModel {
public:
    explicit CoreModel(const CoreLimits& limits);

    // The core `flow_hash` pins a flow to (a different mix of the hash than the Mux's DIP choice, so the two
    // are independent).
    std::uint32_t core_of(std::uint64_t flow_hash) const;
    Time service_time(std::uint32_t bytes) const;
    CoreDecision offer(std::uint64_t flow_hash, std::uint32_t bytes, Time arrival);
    // Packets on `core` at `now` (in service or waiting), counting those offered so far.
    std::size_t backlog(std::uint32_t core, Time now) const;

    std::uint64_t accepted() const { return accepted_; }
    std::uint64_t dropped() const { return dropped_; }
    const CoreLimits& limits() const { return limits_; }

private:
    CoreLimits limits_;
    Time packet_time_;
    // A core's departures after the last arrival offered, increasing: a small ring (24 bytes).
    using Ring = SmallRing<Time, 4>;
    std::vector<Ring> departures_;  // per core
    std::uint64_t accepted_ = 0;
    std::uint64_t dropped_ = 0;
};

}  // namespace loom::ananta
