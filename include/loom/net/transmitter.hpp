// The serialization state of one link direction: units sent back to back form a train whose unit k leaves at
// train start + ceil(k·bits/rate) (base/LinkTiming), so no rounding accumulates; an idle gap starts a new train.
#pragma once

#include <cstdint>

#include "loom/base/link_timing.hpp"
#include "loom/net/error_model.hpp"

namespace loom::net {

// When one unit (or the last unit of a train) is on the wire and when it arrives, and what FEC made of it.
struct Transmission {
    Time start;           // first bit out (the unit's slot start)
    Time sent;            // last bit out
    Time arrival;         // last bit in at the receiver (latency and jitter included)
    std::uint64_t index;  // link-wide unit index (0-based) of this (last) unit
    FecOutcome fec;       // worst outcome over the units sent
};

// Not a component: the arithmetic under net::OutputPort (through PortEngine) and net::ScheduledLink (the TSP
// executor's links). Deterministic.
class Transmitter {
public:
    Transmitter() = default;
    Transmitter(const LinkTiming& timing, std::uint64_t stream);

    // Sends `k` >= 1 units, the first no earlier than `ready`. If the link is still busy at `ready`, the units
    // join the current train (start when the previous unit's last bit is out); otherwise a new train starts
    // at `ready`. Arrivals never overtake: a unit's arrival is at least the previous unit's.
    // Returns the timing of the last unit; `first_arrival` (if non-null) gets the first unit's arrival.
    Transmission send(Time ready, std::int64_t k = 1, Time* first_arrival = nullptr);

    // Starts a new train of `k` >= 1 units at exactly `start`, timed from `start` even when the link frees at
    // that very instant (a scheduled instruction is its own train: it never continues the previous one, whose
    // single rounding would shift its units). The link must be idle: if free_at() > start nothing is sent and
    // false is returned (the caller reports the double booking). On success `out` is as send() returns it.
    bool start_train(Time start, std::int64_t k, Transmission& out, Time* first_arrival = nullptr);

    // Arrival of unit `k` (1-based) of a train started at `start`, given `first_index` (the link-wide index of
    // the train's unit 1) and `floor` (the arrival of the unit sent just before unit k: arrivals never
    // overtake). Stepping k = 1, 2, ... with floor = the previous result reproduces send()'s arrivals exactly,
    // jitter included, so a receiver can time a train's units from the train's description alone.
    Time unit_arrival(Time start, std::int64_t k, std::uint64_t first_index, Time floor) const;
    // The same given the unit's last-bit-out time `sent` and its link-wide `index` (for callers that step `sent`).
    Time arrival_after(Time sent, std::uint64_t index, Time floor) const;
    // Arrival of the last unit sent so far (Time::zero() before any): the floor of the next train's unit 1.
    Time last_arrival() const { return last_arrival_; }
    // The link's fixed latency (LinkTiming::latency()).
    Time latency() const { return latency_; }
    // FEC outcome of the unit with link-wide index `index` (the draw send() counted).
    FecOutcome outcome(std::uint64_t index) const { return errors_.outcome(index); }
    std::uint64_t stream() const { return stream_; }

    // When the link can start another unit.
    Time free_at() const { return busy_until_; }
    std::uint64_t units_sent() const { return next_index_; }
    Time busy_time() const { return busy_; }  // total serialization time so far
    std::uint64_t corrected() const { return corrected_; }
    std::uint64_t uncorrectable() const { return uncorrectable_; }
    const LinkTiming& timing() const { return timing_; }

private:
    LinkTiming timing_;
    ErrorModel errors_;
    std::uint64_t stream_ = 0;
    Time latency_;
    Time train_start_;
    std::int64_t train_units_ = 0;
    Time busy_until_;
    Time last_arrival_;
    Time busy_;
    std::uint64_t next_index_ = 0;
    std::uint64_t corrected_ = 0, uncorrectable_ = 0;
};

}  // namespace loom::net
