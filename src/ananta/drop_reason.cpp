#include "loom/ananta/drop_reason.hpp"

namespace loom::ananta {

const char* drop_reason_name(DropReason r) {
    switch (r) {
        case DropReason::NoRoute: return "no_route";
        case DropReason::Mtu: return "mtu";
        case DropReason::QueueFull: return "queue_full";
        case DropReason::MuxOverload: return "mux_overload";
        case DropReason::FairShare: return "fair_share";
        case DropReason::NoFlow: return "no_flow";
        case DropReason::BlackHoled: return "black_holed";
        case DropReason::TtlExpired: return "ttl_expired";
        case DropReason::Count_: break;
    }
    return "unknown";
}

}  // namespace loom::ananta
