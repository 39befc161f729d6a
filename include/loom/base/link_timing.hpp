// LinkTiming: the one description of a link's timing that planning (scheduler, analytic bounds) and simulation
// (packet engine) share: rate, framing, the parts of its latency, jitter and bit error rate.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "loom/base/units.hpp"

namespace loom {

// One named contribution to a link's fixed latency (SerDes and FEC, cable, clock crossing, ...).
struct LatencyPart {
    std::string name;
    Time value;
};

// Timing of a unidirectional link that carries fixed-size units (a TSP vector, a flit, a packet).
// A train of k units started at `start` occupies the sender until unit k's last bit is out, at
// start + ceil(k * wire_bits * 10^12 / rate) ps: computed from the train's start, never by adding rounded
// per-unit times. Unit k (1-based) arrives `latency()` after its last bit left.
struct LinkTiming {
    Bandwidth rate;                     // raw line rate (all lanes), bits per second
    Bytes unit_payload{320};            // payload bytes per unit
    Bytes unit_wire{328};               // bytes on the wire per unit, framing included
    std::vector<LatencyPart> latency_parts;  // fixed latency, by part
    Time jitter{};                      // extra delay per unit, drawn in [0, jitter] (0: deterministic)
    double bit_error_rate = 0.0;        // raw BER before FEC
    std::int32_t fec_correctable_bits = 0;  // bit errors per unit FEC corrects; more is uncorrectable
    Time replay_latency{};              // extra delay of a unit the FEC cannot correct (it is sent again)

    // Sum of the latency parts: last bit out of the sender -> last bit in at the receiver.
    Time latency() const;
    // Time to serialize k units back to back (exact, rounded up once for the whole train): Serializer::time.
    Time serialization(std::int64_t k) const;
    // When unit k (1-based) of a train started at `start` has fully left the sender.
    Time unit_sent(Time start, std::int64_t k) const { return start + serialization(k); }
    // When unit k (1-based) of a train started at `start` has fully arrived (no jitter).
    Time unit_arrival(Time start, std::int64_t k) const { return start + serialization(k) + latency(); }
    // Payload throughput in bytes per second (after framing), for bounds and reports.
    double payload_bytes_per_s() const;
    // Checks the invariants (rate > 0, 0 < payload <= wire, parts >= 0, latency >= 1 ps, jitter >= 0,
    // 0 <= BER < 1); throws InputError naming `where` and the field otherwise.
    void validate(const std::string& where) const;
};

}  // namespace loom
