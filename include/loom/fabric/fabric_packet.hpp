// The record of one packet in the dynamically routed network: what the terminals and routers need beyond the
// common packet header (destination router, cycle stamps, flit count, routing state, measurement mark).
#pragma once

#include <cstdint>

#include "loom/fabric/routing_function.hpp"
#include "loom/net/packet.hpp"

namespace loom::fabric {

// Payload of net::Packet (header.src / header.dst are terminal ids, header.bytes = flits x flit_bytes).
struct FabricPacket {
    topo::VertexId dest_router = 0;
    std::int32_t flits = 1;
    std::int64_t created_cycle = 0;   // generated at the source terminal
    std::int64_t injected_cycle = 0;  // head flit left the source terminal
    std::int64_t channel_cycles = 0;  // latency of the router-to-router channels taken so far
    RouteState route;
    bool marked = false;  // generated inside the measurement window
    std::int32_t transfer = -1;  // closed-loop transfers: position of the packet's transfer, else -1
};

using PacketPool = net::PacketPool<FabricPacket>;
// A packet's record as it travels, one cache line: in a pool chunk held by the line carrying its head flit
// (FlitLink::push_record), filled by the sender; the receiver reads and updates it there from the head's arrival
// on (it is the receiver's copy) and copies it into a chunk of the next line when the head is routed, or releases it
// when the tail is ejected.
struct alignas(64) FabricRecord {
    std::uint64_t id = 0;                 // source terminal << 40 | the packets it made before (unique in a run)
    std::uint32_t src = 0, dst = 0;       // terminals
    FabricPacket payload;
};
static_assert(sizeof(FabricRecord) <= 64, "a packet's record is one cache line");

// What the packet observer sees when a packet's tail reaches its destination terminal.
struct PacketSummary {
    std::uint64_t id = 0;
    std::int32_t src = 0, dst = 0;  // terminals
    std::int32_t flits = 0;
    std::int64_t created_cycle = 0, injected_cycle = 0, ejected_cycle = 0;
    std::int32_t hops = 0;       // router-to-router hops
    std::int32_t crossings = 0;  // group-crossing hops (global hops on a Dragonfly)
    std::int64_t channel_cycles = 0;  // summed latency of the router-to-router channels taken
    bool nonminimal = false;
    bool marked = false;
};

}  // namespace loom::fabric
