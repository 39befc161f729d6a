// BGP messages as IP packets of the data-center run: a session's messages are TCP segments to port 179 and
// fast-detection hellos are BFD control packets (UDP 3784), sized as on the wire; and the addresses the ToRs
// speak BGP from.
#pragma once

#include <cstdint>
#include <optional>

#include "loom/ananta/bgp.hpp"
#include "loom/ananta/ip_packet.hpp"

namespace loom::ananta {

inline constexpr std::uint16_t kBgpPort = 179;
inline constexpr std::uint16_t kBfdPort = 3784;
// The BFD source port range starts at 49152 (RFC 5881).
inline constexpr std::uint16_t kBfdSourcePort = 49152;

// ToR r's BGP address, 169.254.r/256.r%256: link-local, never routed (a session spans the one link between a
// Mux and its ToR).
constexpr IpAddr tor_bgp_address(std::uint32_t rack) { return ip(169, 254, (rack >> 8) & 255, rack & 255); }
constexpr bool is_router_bgp_address(IpAddr a) { return (a >> 16) == ((169U << 8) | 254U); }

// The packet carrying `m` (wire_bytes(m) long). The message itself rides in the segment-number fields, which a
// session's packets do not otherwise use in the model: seq = the prefix's address, ack = kind | length << 8.
IpPacket bgp_packet(const BgpMessage& m);
// The message a packet carries, or nullopt when it is not a BGP or BFD packet between a Mux and a router.
std::optional<BgpMessage> bgp_message(const IpPacket& p);

}  // namespace loom::ananta
