// Why an Ananta packet was dropped: every packet the model creates ends delivered or dropped with one of
// these, so a run can check conservation and report drops by reason.
#pragma once

#include <cstdint>

namespace loom::ananta {

enum class DropReason : std::uint8_t {
    NoRoute,      // no VIP endpoint, NAT rule, SNAT mapping or local VM for the destination
    Mtu,          // larger than the MTU (never fragmented, DF or not)
    QueueFull,    // a link's output queue was full
    MuxOverload,  // a Mux core's queue was full
    FairShare,    // over the tenant's weighted share of an overloaded Mux
    NoFlow,       // mid-connection packet at a Host Agent without that connection (a wrong DIP)
    BlackHoled,   // the VIP was withdrawn
    TtlExpired,
    Count_
};
inline constexpr std::size_t kDropReasonCount = static_cast<std::size_t>(DropReason::Count_);

// "no_route", "mtu", "queue_full", "mux_overload", "fair_share", "no_flow", "black_holed", "ttl_expired".
const char* drop_reason_name(DropReason r);

}  // namespace loom::ananta
