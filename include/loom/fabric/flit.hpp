// Flits as they travel between routers and terminals: a 32-bit event argument naming the packet, the virtual
// channel, and whether the flit is the packet's head and/or tail. The packet field of a head flit is the handle
// of its record's chunk (FlitLink::push_record): of the line it travels on, and in a router's
// buffer of the line it came in on until it is routed, then of the line it will leave on. Body and tail flits
// follow their head on the same VC without interleaving, so receivers find their packet by VC (their packet
// field is not read).
#pragma once

#include <cstdint>

namespace loom::fabric {

// Bits: 31..6 packet handle, 5..2 VC, 1 head, 0 tail. So at most 16 VCs and 2^26 (67 million) packets held by
// one router or line at once (checked). A credit's event argument is just its VC.
struct Flit {
    static constexpr std::uint32_t kMaxVcs = 16;
    static constexpr std::uint32_t kMaxPackets = std::uint32_t{1} << 26;
    static constexpr std::uint32_t kPacketMask = kMaxPackets - 1;

    std::uint32_t packet = 0;
    std::uint32_t vc = 0;
    bool head = false;
    bool tail = false;

    static constexpr std::uint32_t encode(std::uint32_t packet, std::uint32_t vc, bool head, bool tail) {
        return (packet << 6) | (vc << 2) | (head ? 2u : 0u) | (tail ? 1u : 0u);
    }
    static constexpr Flit decode(std::uint32_t arg) {
        return Flit{arg >> 6, (arg >> 2) & 0xfu, (arg & 2u) != 0, (arg & 1u) != 0};
    }
    static constexpr std::uint32_t vc_of(std::uint32_t arg) { return (arg >> 2) & 0xfu; }
    static constexpr std::uint32_t packet_of(std::uint32_t arg) { return arg >> 6; }
    static constexpr bool is_head(std::uint32_t arg) { return (arg & 2u) != 0; }
    static constexpr bool is_tail(std::uint32_t arg) { return (arg & 1u) != 0; }
    // The same flit on another VC (each hop allocates its own output VC).
    static constexpr std::uint32_t with_vc(std::uint32_t arg, std::uint32_t vc) {
        return (arg & ~(0xfu << 2)) | (vc << 2);
    }
    // The same flit naming another packet handle (kept modulo 2^26).
    static constexpr std::uint32_t with_packet(std::uint32_t arg, std::uint32_t packet) {
        return (arg & 0x3fu) | (packet << 6);
    }
};

}  // namespace loom::fabric
