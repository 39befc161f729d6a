// What a run reports about one connection: plain data assembled from what each component saw (the client
// endpoint fills times and outcome, the Mux and Host Agent adapters fill which Mux and DIP) and merged at the
// end of the run.
#pragma once

#include <cstdint>

#include "loom/ananta/ip_packet.hpp"
#include "loom/base/units.hpp"

namespace loom::ananta {

inline constexpr Time kNever = Time::max();

enum class ConnectionOutcome : std::uint8_t { Open, Completed, Failed };

// Layout: what a sender's segments, ACKs and timers read and write (the tuple, established, the counts, the
// outcome) last, in 48 bytes, next to the fields TcpConnection keeps after its record, so that a connection's
// packet or timer reads the fewest cache lines.
struct ConnectionRecord {
    std::uint64_t id = 0;
    Time opened = kNever;       // first SYN (or first datagram)
    Time finished = kNever;     // completed or failed
    std::uint64_t segments_received = 0; // data segments (or datagrams) received, duplicates included
    IpAddr mux = 0;                      // filled from the Mux's view
    IpAddr dip = 0;                      // filled from the Host Agent's view
    FiveTuple tuple;            // as the opener sent it
    Time established = kNever;  // handshake done on this side
    std::uint64_t segments_sent = 0;     // data segments, retransmissions included
    std::uint64_t bytes_delivered = 0;   // payload acknowledged (TCP sender) or received (receiver)
    ConnectionOutcome outcome = ConnectionOutcome::Open;
    std::uint32_t retransmissions = 0;

    bool established_at_all() const { return established != kNever; }
    Time setup_latency() const { return established_at_all() ? established - opened : kNever; }
};

}  // namespace loom::ananta
