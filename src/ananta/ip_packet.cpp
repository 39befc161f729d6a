#include "loom/ananta/ip_packet.hpp"

#include "loom/base/assert.hpp"

namespace loom::ananta {

void IpPacket::encapsulate(IpAddr src, IpAddr dst) {
    LOOM_ASSERT(depth < kMaxEncap, "IP-in-IP nested deeper than IpPacket::kMaxEncap");
    outer[depth] = OuterHeader{src, dst, kDefaultTtl};
    ++depth;
    size_bytes += kIpHeaderBytes;
}

void IpPacket::decapsulate() {
    LOOM_ASSERT(depth > 0, "decapsulating a packet that has no outer header");
    --depth;
    outer[depth] = OuterHeader{};
    size_bytes -= kIpHeaderBytes;
}

IpPacket make_packet(const FiveTuple& tuple, std::uint32_t payload, std::uint8_t tcp_flags) {
    IpPacket p;
    p.inner = tuple;
    p.payload_bytes = payload;
    p.tcp_flags = tcp_flags;
    p.size_bytes = kIpHeaderBytes + (tuple.proto == IpProto::Udp ? kUdpHeaderBytes : kTcpHeaderBytes) + payload;
    return p;
}

}  // namespace loom::ananta
