// IP packets of the Ananta model: a fixed-size, trivially copyable header record (5-tuple, TCP flags and
// segment numbers, size, TTL, DF, an IP-in-IP encapsulation stack) that travels as a link payload and is
// copied into its receiver. MTU enforcement lives here too: the model never fragments.
#pragma once

#include <array>
#include <cstdint>
#include <type_traits>

#include "loom/base/rng.hpp"

namespace loom::ananta {

// An IPv4 address as a host-order integer (10.0.0.1 = 0x0a000001). Loom assigns them; 0 is "none".
using IpAddr = std::uint32_t;
constexpr IpAddr ip(std::uint32_t a, std::uint32_t b, std::uint32_t c, std::uint32_t d) {
    return (a << 24) | (b << 16) | (c << 8) | d;
}

enum class IpProto : std::uint8_t { IpInIp = 4, Tcp = 6, Udp = 17 };

// TCP flag bits as on the wire.
namespace tcp_flag {
inline constexpr std::uint8_t kFin = 0x01;
inline constexpr std::uint8_t kSyn = 0x02;
inline constexpr std::uint8_t kRst = 0x04;
inline constexpr std::uint8_t kPsh = 0x08;
inline constexpr std::uint8_t kAck = 0x10;
}  // namespace tcp_flag

// Header sizes in bytes (no options): an IPv4 header, which is also what IP-in-IP adds, and TCP/UDP.
inline constexpr std::uint32_t kIpHeaderBytes = 20;
inline constexpr std::uint32_t kTcpHeaderBytes = 20;
inline constexpr std::uint32_t kUdpHeaderBytes = 8;
inline constexpr std::uint8_t kDefaultTtl = 64;

// A flow's identity: protocol and both endpoints. Ports are 0 for protocols without them.
struct FiveTuple {
    IpAddr src = 0;
    IpAddr dst = 0;
    std::uint16_t src_port = 0;
    std::uint16_t dst_port = 0;
    IpProto proto = IpProto::Tcp;

    constexpr bool operator==(const FiveTuple&) const = default;
    // The tuple of the opposite direction.
    constexpr FiveTuple reversed() const { return FiveTuple{dst, src, dst_port, src_port, proto}; }
};

// A 64-bit hash of a tuple under `seed`: the same tuple and seed give the same value in every process and on
// every component (Muxes rely on it to pick the same DIP). Not symmetric in the two directions.
// tuple_hash's first step, which depends on the seed alone: a caller hashing many tuples under one seed keeps it
// (tuple_hash_from) instead of mixing the seed again for each.
constexpr std::uint64_t tuple_hash_base(std::uint64_t seed) { return mix64(seed ^ 0x5bd1e9955bd1e995ULL); }
constexpr std::uint64_t tuple_hash_from(const FiveTuple& t, std::uint64_t base) {
    std::uint64_t h = mix64(base ^ t.src);
    h = mix64(h ^ (static_cast<std::uint64_t>(t.dst) << 8) ^ static_cast<std::uint64_t>(t.proto));
    h = mix64(h ^ (static_cast<std::uint64_t>(t.src_port) << 16) ^ t.dst_port);
    return h;
}
constexpr std::uint64_t tuple_hash(const FiveTuple& t, std::uint64_t seed) {
    return tuple_hash_from(t, tuple_hash_base(seed));
}

// For unordered containers keyed by tuple (lookups only: never iterate them to produce output).
struct FiveTupleHasher {
    std::size_t operator()(const FiveTuple& t) const { return static_cast<std::size_t>(tuple_hash(t, 0)); }
};

// One IP-in-IP outer header: addresses and its own TTL (the inner header's TTL is untouched while wrapped).
struct OuterHeader {
    IpAddr src = 0;
    IpAddr dst = 0;
    std::uint8_t ttl = kDefaultTtl;
    constexpr bool operator==(const OuterHeader&) const = default;
};

// One IP packet. `inner` is the original header (5-tuple, TTL, DF); `outer[0..depth)` are IP-in-IP headers,
// outer[depth-1] outermost. `size_bytes` is the whole packet on the wire at the IP layer: payload, transport
// header, inner IP header and 20 bytes per outer header (framing is the link's business).
// TCP segments are numbered, not byte-counted: `seq` is the segment's index, `ack` the next index expected.
struct IpPacket {
    static constexpr std::uint8_t kMaxEncap = 2;

    FiveTuple inner;
    std::uint32_t size_bytes = kIpHeaderBytes + kTcpHeaderBytes;
    std::uint32_t seq = 0;
    std::uint32_t ack = 0;
    std::uint32_t payload_bytes = 0;
    std::uint16_t mss = 0;  // TCP MSS option, on SYN and SYN-ACK only; 0 = absent
    std::uint8_t tcp_flags = 0;
    std::uint8_t ttl = kDefaultTtl;  // inner header's
    bool df = false;                 // don't fragment (inner header's; outer headers copy it)
    std::uint8_t depth = 0;          // number of outer headers
    // 0: an ordinary packet; otherwise a control message of the model, laid out as its own header says
    // (kFastpathRedirect: fastpath_wire.hpp). Fits the padding before `outer`.
    std::uint8_t message = 0;
    std::array<OuterHeader, kMaxEncap> outer{};

    bool operator==(const IpPacket&) const = default;

    bool has(std::uint8_t flag) const { return (tcp_flags & flag) != 0; }
    bool is_syn() const { return inner.proto == IpProto::Tcp && has(tcp_flag::kSyn); }
    bool encapsulated() const { return depth > 0; }
    // Addresses the network routes on: the outermost header's.
    IpAddr wire_src() const { return depth > 0 ? outer[depth - 1].src : inner.src; }
    IpAddr wire_dst() const { return depth > 0 ? outer[depth - 1].dst : inner.dst; }
    std::uint8_t wire_ttl() const { return depth > 0 ? outer[depth - 1].ttl : ttl; }

    // Wraps the packet in an IP-in-IP header src -> dst (+20 bytes). At most kMaxEncap deep (asserted).
    void encapsulate(IpAddr src, IpAddr dst);
    // Removes the outermost header (-20 bytes); the packet must be encapsulated (asserted).
    void decapsulate();
    // One router hop: decrements the outermost TTL; false when it reaches 0 (the packet must be dropped).
    // Inline: every router hop calls it.
    bool decrement_ttl() {
        std::uint8_t& t = depth > 0 ? outer[depth - 1].ttl : ttl;
        if (t <= 1) [[unlikely]] {
            t = 0;
            return false;
        }
        --t;
        return true;
    }
};
static_assert(std::is_trivially_copyable_v<IpPacket>, "IpPacket travels by copy as a link payload");
static_assert(sizeof(IpPacket) <= 64, "IpPacket stays within one cache line");

// Control messages carried as IpPacket::message (0 is an ordinary packet).
inline constexpr std::uint8_t kFastpathRedirect = 1;

// A TCP segment or UDP datagram carrying `payload` bytes, sized with its headers.
IpPacket make_packet(const FiveTuple& tuple, std::uint32_t payload, std::uint8_t tcp_flags = 0);

// The MTU rule: a packet larger than the MTU is dropped whether or not DF is set, because the model does not
// fragment (Ananta's MSS clamping keeps TCP segments small enough after encapsulation). The two outcomes are
// kept apart so a report can say whether the sender asked for DF.
enum class MtuVerdict : std::uint8_t { Fits, DropDf, DropNoFragmentation };
constexpr MtuVerdict check_mtu(const IpPacket& p, std::uint32_t mtu_bytes) {
    if (p.size_bytes <= mtu_bytes) return MtuVerdict::Fits;
    return p.df ? MtuVerdict::DropDf : MtuVerdict::DropNoFragmentation;
}
// The common Ethernet MTU, the default of every Ananta link and component.
inline constexpr std::uint32_t kDefaultMtu = 1500;

}  // namespace loom::ananta
