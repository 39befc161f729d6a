#include "loom/ananta/bgp_wire.hpp"

namespace loom::ananta {

IpPacket bgp_packet(const BgpMessage& m) {
    const bool hello = m.kind == BgpKind::Hello;
    const std::uint32_t headers = kIpHeaderBytes + (hello ? kUdpHeaderBytes : kTcpHeaderBytes);
    const std::uint32_t bytes = wire_bytes(m);
    const FiveTuple t{m.from, m.to, hello ? kBfdSourcePort : kBgpPort, hello ? kBfdPort : kBgpPort,
                      hello ? IpProto::Udp : IpProto::Tcp};
    IpPacket p = make_packet(t, bytes - headers, hello ? std::uint8_t{0} : std::uint8_t(tcp_flag::kPsh | tcp_flag::kAck));
    p.size_bytes = bytes;
    // A session's packets live one hop (RFC 5082's GTSM sends them with TTL 255; any TTL above 1 does).
    p.ttl = 255;
    p.seq = m.prefix.addr;
    p.ack = static_cast<std::uint32_t>(m.kind) | (static_cast<std::uint32_t>(m.prefix.length) << 8) |
            (m.control ? 1U << 16 : 0U);
    return p;
}

std::optional<BgpMessage> bgp_message(const IpPacket& p) {
    if (p.encapsulated()) return std::nullopt;
    const FiveTuple& t = p.inner;
    const bool bgp = t.proto == IpProto::Tcp && t.dst_port == kBgpPort && t.src_port == kBgpPort;
    const bool bfd = t.proto == IpProto::Udp && t.dst_port == kBfdPort;
    if (!bgp && !bfd) return std::nullopt;
    if (!is_router_bgp_address(t.src) && !is_router_bgp_address(t.dst)) return std::nullopt;
    const std::uint32_t kind = p.ack & 255U;
    if (kind > static_cast<std::uint32_t>(BgpKind::Hello)) return std::nullopt;
    BgpMessage m;
    m.kind = static_cast<BgpKind>(kind);
    if ((m.kind == BgpKind::Hello) != bfd) return std::nullopt;
    m.from = t.src;
    m.to = t.dst;
    m.prefix = Prefix{p.seq, static_cast<std::uint8_t>((p.ack >> 8) & 255U)};
    m.control = ((p.ack >> 16) & 1U) != 0;
    return m;
}

}  // namespace loom::ananta
