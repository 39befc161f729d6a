// A Fastpath redirect as it travels through the data-center run: an IpPacket with message kFastpathRedirect.
// Its own IP header is outer[0] (the Mux -> the source VIP, or the Mux -> a host) so routers route it like any
// packet; the redirected connection's tuple is `inner`; the two DIPs ride in seq (source) and ack
// (destination) and the destination DIP's port in mss. Hosts are not carried: the address plan gives a DIP's host.
#pragma once

#include <optional>

#include "loom/ananta/fastpath.hpp"
#include "loom/ananta/ip_packet.hpp"

namespace loom::ananta {

// The packet of a redirect (kFastpathRedirectBytes on the wire, TTL 64).
IpPacket redirect_packet(const FastpathRedirect& r);
// The redirect a packet carries, hosts filled from the address plan; nullopt when it is not a redirect.
std::optional<FastpathRedirect> read_redirect(const IpPacket& p);
bool is_redirect(const IpPacket& p);

}  // namespace loom::ananta
