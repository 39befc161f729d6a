// The fixed-size vocabulary of the Multi-Paxos core: ballots, log values, the one message type replicas
// exchange (and that adapters feed back for timers and durable writes), and the actions a step returns.
// Everything here is trivially copyable and holds no pointer, so an adapter carries it as a link payload.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "loom/base/units.hpp"

namespace loom::ananta::paxos {

using ReplicaId = std::uint32_t;
using Slot = std::uint64_t;  // log position, 0-based

inline constexpr ReplicaId kNoReplica = 0xffff'ffffU;
// Slots a Promise reports at once: phase 1 walks the log in windows of this many slots.
inline constexpr std::size_t kWindow = 4;
// Bytes of application payload in one log value (a SNAT range grant or a VIP-configuration digest fits).
inline constexpr std::size_t kValueBytes = 48;

// A proposal number: (round, replica), ordered by round then replica, so two proposers never share one.
// Round 0 is "no ballot" (nothing promised, nothing accepted); real ballots start at round 1.
struct Ballot {
    std::uint32_t round = 0;
    ReplicaId replica = 0;
    constexpr bool none() const { return round == 0; }
    constexpr auto operator<=>(const Ballot&) const = default;
};

// One log value. `id` is the application's request id; id 0 is the no-op a new leader writes into a slot
// that phase 1 found empty below the end of the log.
struct Value {
    std::uint64_t id = 0;
    std::array<std::uint8_t, kValueBytes> data{};
    static constexpr Value noop() { return Value{}; }
    constexpr bool is_noop() const { return id == 0; }
    constexpr bool operator==(const Value&) const = default;
};

// What an acceptor holds for one slot: the highest ballot it accepted there and that ballot's value.
struct AcceptedEntry {
    Ballot ballot;  // none(): nothing accepted
    Value value;
    constexpr bool empty() const { return ballot.none(); }
    constexpr bool operator==(const AcceptedEntry&) const = default;
};

enum class MessageType : std::uint8_t {
    Prepare,       // proposer -> all: phase 1a for ballot, window [slot, slot + kWindow)
    Promise,       // acceptor -> proposer: phase 1b; entries[i] = accepted at slot + i, log_index = log end,
                   // commit = the acceptor's commit index
    Nack,          // acceptor -> proposer: rejected; ballot = the acceptor's promised ballot
    Accept,        // leader -> all: phase 2a (ballot, slot, value); log_index = leader's commit index
    Accepted,      // acceptor -> leader: phase 2b for (ballot, slot)
    Decide,        // learner news: value chosen at slot (sent by the leader, or in reply to CatchUp)
    Heartbeat,     // leader -> all: alive at ballot; log_index = commit index; lease_start = send time
    HeartbeatAck,  // follower -> leader: echoes ballot and lease_start (what lease grants count)
    CatchUp,       // learner -> replica: send me Decides for slots from `slot` on
    Timeout,       // adapter -> replica: the timer `timer` armed by a TimerAction has fired
    DurableDone,   // adapter -> replica: the DurableWrite with `token` (and all before it) is on disk
};

enum class TimerKind : std::uint8_t { Election, Heartbeat, Lease };
inline constexpr std::size_t kTimerKinds = 3;

// The one message type. Fields a type does not use are left default. `from`/`to` are replica ids
// (0..replicas-1); an adapter maps them to endpoints.
struct Message {
    MessageType type = MessageType::Prepare;
    TimerKind timer = TimerKind::Election;  // Timeout only
    ReplicaId from = kNoReplica;
    ReplicaId to = kNoReplica;
    Ballot ballot;
    Slot slot = 0;
    Slot log_index = 0;   // Promise: acceptor's log end; Accept, Heartbeat: sender's commit index
    Slot commit = 0;      // Promise: acceptor's commit index (a lagging candidate catches up from it)
    MessageType refused = MessageType::Prepare;  // Nack: the type of the message it answers
    Time lease_start;     // Heartbeat, HeartbeatAck
    std::uint64_t token = 0;  // DurableDone
    Value value;          // Accept, Decide
    std::array<AcceptedEntry, kWindow> entries{};  // Promise
};

static_assert(std::is_trivially_copyable_v<Message>, "a Message travels as a plain link payload");

// A record the replica asks to be made durable before it lets dependent messages out.
// Promise: promised ballot raised to `ballot`. Accept: (ballot, value) accepted at `slot` (and promised >= ballot).
enum class RecordKind : std::uint8_t { Promise, Accept };
struct DurableRecord {
    RecordKind kind = RecordKind::Promise;
    Ballot ballot;
    Slot slot = 0;
    Value value;
};

// ---- actions: what one step asks of its adapter ----

// Deliver `message` to replica `message.to`.
struct SendAction {
    Message message;
};
// Arm timer `kind` to fire at `at` (replacing any armed one of that kind), or cancel it. When it fires, the
// adapter hands the replica Message{type = Timeout, timer = kind}.
struct TimerAction {
    TimerKind kind = TimerKind::Election;
    bool cancel = false;
    Time at;
};
// Write `record` durably; when done, hand the replica Message{type = DurableDone, token}. Writes complete in
// token order; a crash may lose any suffix of the writes not yet completed.
struct DurableWriteAction {
    std::uint64_t token = 0;
    DurableRecord record;
};
// The value at `slot` is chosen. Reported once per slot per incarnation, in slot order without gaps from 0.
struct CommitAction {
    Slot slot = 0;
    Value value;
};
// This replica became (leader = true) or stopped being the leader that may take proposals, at `ballot`.
struct LeadershipAction {
    bool leader = false;
    Ballot ballot;
};

// The actions of one step, grouped by kind (within a kind, in the order produced). Reuse one object across
// steps and clear() it to keep allocation off the hot path.
struct Actions {
    std::vector<SendAction> sends;
    std::vector<TimerAction> timers;
    std::vector<DurableWriteAction> writes;
    std::vector<CommitAction> commits;
    std::vector<LeadershipAction> leadership;
    void clear() {
        sends.clear();
        timers.clear();
        writes.clear();
        commits.clear();
        leadership.clear();
    }
    bool empty() const {
        return sends.empty() && timers.empty() && writes.empty() && commits.empty() && leadership.empty();
    }
};

}  // namespace loom::ananta::paxos
