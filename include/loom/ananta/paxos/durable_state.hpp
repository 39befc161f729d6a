// What a Paxos replica keeps across a crash: its promised ballot and what it accepted in each slot.
// The adapter (or a test) owns one per replica as its "disk", applies each completed DurableWrite to it, and
// constructs the recovered replica from it.
#pragma once

#include <vector>

#include "loom/ananta/paxos/message.hpp"

namespace loom::ananta::paxos {

struct DurableState {
    Ballot promised;
    std::vector<AcceptedEntry> accepted;  // indexed by slot; empty() entries in between

    // Applies a completed write: a Promise record raises `promised`; an Accept record sets the slot's entry and
    // raises `promised` to at least its ballot.
    void apply(const DurableRecord& record);
    // The entry at `slot` (an empty one past the end).
    AcceptedEntry at(Slot slot) const;
    bool operator==(const DurableState&) const = default;
};

}  // namespace loom::ananta::paxos
