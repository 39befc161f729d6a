#include "loom/net/drop_queue.hpp"

namespace loom::net {

const char* drop_reason_name(DropReason r) {
    switch (r) {
        case DropReason::QueueFull: return "queue_full";
        case DropReason::NoRoute: return "no_route";
        case DropReason::Uncorrectable: return "uncorrectable";
        case DropReason::Policy: return "policy";
        case DropReason::Count_: break;
    }
    return "unknown";
}

std::uint64_t DropQueue::dropped_total() const {
    std::uint64_t n = 0;
    for (auto d : dropped_) n += d;
    return n;
}

}  // namespace loom::net
