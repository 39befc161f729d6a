#include "loom/sim/event_queue.hpp"

namespace loom::sim {

const char* to_string(QueueKind kind) {
    switch (kind) {
        case QueueKind::Calendar: return "calendar";
        case QueueKind::Heap: return "heap";
        case QueueKind::TwoLevel: return "two_level";
        case QueueKind::Radix: return "radix";
    }
    return "?";
}

std::optional<QueueKind> parse_queue_kind(std::string_view text) {
    if (text == "calendar") return QueueKind::Calendar;
    if (text == "heap") return QueueKind::Heap;
    if (text == "two_level") return QueueKind::TwoLevel;
    if (text == "radix") return QueueKind::Radix;
    return std::nullopt;
}

}  // namespace loom::sim
