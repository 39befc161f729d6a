#include "loom/ananta/paxos/durable_state.hpp"

namespace loom::ananta::paxos {

void DurableState::apply(const DurableRecord& record) {
    if (record.ballot > promised) promised = record.ballot;
    if (record.kind == RecordKind::Accept) {
        if (accepted.size() <= record.slot) accepted.resize(record.slot + 1);
        accepted[record.slot] = AcceptedEntry{record.ballot, record.value};
    }
}

AcceptedEntry DurableState::at(Slot slot) const {
    return slot < accepted.size() ? accepted[slot] : AcceptedEntry{};
}

}  // namespace loom::ananta::paxos
