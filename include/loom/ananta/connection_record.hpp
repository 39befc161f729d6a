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

// Layout: the tuple and `established` (what a sender's segments, ACKs and timers read) last, so that they end
// next to the fields TcpConnection keeps after its record, in the one cache line a connection's packet or timer
// reads.
struct ConnectionRecord {
    std::uint64_t id = 0;
    Time opened = kNever;       // first SYN (or first datagram)
    Time finished = kNever;     // completed or failed
    std::uint64_t segments_received = 0; // data segments (or datagrams) received, duplicates included
    IpAddr mux = 0;                      // filled from the Mux's view
    IpAddr dip = 0;                      // filled from the Host Agent's view
    std::uint64_t segments_sent = 0;     // data segments, retransmissions included
    std::uint64_t bytes_delivered = 0;   // payload acknowledged (TCP sender) or received (receiver)
    ConnectionOutcome outcome = ConnectionOutcome::Open;
    std::uint32_t retransmissions = 0;
    FiveTuple tuple;            // as the opener sent it
    Time established = kNever;  // handshake done on this side

    bool established_at_all() const { return established != kNever; }
    Time setup_latency() const { return established_at_all() ? established - opened : kNever; }
};

}  // namespace loom::ananta
