// One Multi-Paxos replica (proposer, acceptor and learner in one) as a pure state machine:
// handle(message, now) -> actions. It knows no simulator, link or clock; an adapter delivers its messages,
// arms its timers, performs its durable writes and reports their completion back as messages.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <vector>

#include "loom/ananta/paxos/durable_state.hpp"
#include "loom/ananta/paxos/message.hpp"
#include "loom/base/rng.hpp"
#include "loom/base/units.hpp"

namespace loom::ananta::paxos {

// Contract between a Replica and its adapter
// -------------------------------------------
// * Steps. Every input is a Message given to handle(message, now) (peer messages, Timeout, DurableDone), or a
//   call to propose()/campaign(). `now` never decreases between calls on one replica. Each step appends the
//   actions it needs to `out`; the replica never sends to itself through the adapter (it loops those back).
// * Messages may be lost, delayed, duplicated and reordered; safety never depends on delivery. Progress needs a
//   majority (replicas / 2 + 1) of replicas up and connected with bounded delays.
// * Timers: one per TimerKind; a TimerAction replaces the armed one. A stale Timeout (cancelled, or before the
//   armed time) is ignored, so an adapter need not be exact about cancellation.
// * Durability: a DurableWriteAction must reach stable storage before the adapter hands back
//   Message{DurableDone, token}; writes complete in token order, and one DurableDone(token) covers every write
//   with a smaller token. Messages whose content depends on a write (Promise, Accepted, Nack, and the
//   proposer's own Prepare, which must not leave before its self-promise is durable so a ballot is never used
//   twice across a crash) are held inside the replica until then.
// * Crash and recovery: the adapter stops handing messages, drops the replica object and its pending write
//   completions (a crash may lose any suffix of the writes not yet completed), and later constructs a new
//   Replica from the DurableState it applied writes to, then calls start(). Volatile state (role, leader
//   ballot, learned commits, leases granted) is lost; the recovered replica re-learns commits from slot 0 by
//   catch-up, so CommitActions restart at slot 0 in each incarnation.
// * Commits: CommitAction is emitted in slot order without gaps; a committed value never changes (Paxos safety).
//   Slots a new leader found empty are filled with Value::noop() (id 0), which the application skips.
// * Leadership: a replica is leader after phase 1 succeeds for its ballot. Without the lease it stays leader
//   until it sees a higher ballot, so a deposed primary cut off from the others goes on believing it leads
//   (with depose_on_write_only, even one that hears the new leader, until one of its own writes is refused).
//   With the lease, followers that acknowledged a Heartbeat refuse other proposers' Prepares for
//   lease_duration after receiving it, and the leader counts itself leader only until (the quorum-th latest
//   acknowledged heartbeat send time) + lease_duration - lease_margin, so two replicas never both believe
//   they lead (clocks are exact in simulation; lease_margin absorbs drift otherwise). A recovering replica
//   refuses Prepares for lease_duration, since it forgot the leases it granted.
// * Proposals: propose() succeeds only on the leader; a value is not retried by the replica after leadership
//   is lost (it may still be chosen by the next leader, or its slot filled with a no-op): the application
//   resubmits what it has not seen committed.
struct Config {
    std::uint32_t replicas = 5;  // the Ananta manager runs 5 replicas, 3 needed for progress (Patel et al., SIGCOMM'13)
    // Timer values are not given by the Ananta paper. Elections follow the Raft paper's recommendation of a
    // timeout randomized in 150-300 ms (Ongaro and Ousterhout, ATC'14 §9.3); the heartbeat, a third of the
    // shortest timeout, is our choice (that paper asks only that it be well under the election timeout).
    Time heartbeat_interval = Time::ms(50);
    Time election_timeout = Time::ms(150);  // a follower campaigns after this much silence ...
    Time election_jitter = Time::ms(150);   // ... plus a uniform draw in [0, this), also the dueling back-off
    std::uint32_t prepare_retries = 3;      // Prepare resends per ballot (every heartbeat_interval) before a new one
    bool leader_lease = false;              // off: Ananta as published, where a deposed primary can act on
    // With the lease off, how a leader learns it was superseded. false: from any higher ballot it hears of
    // (a Prepare, a Heartbeat or Accept of another leader, a Nack). true: only when one of its own writes (an
    // Accept or Prepare) is refused, as Ananta's stale primary did until it wrote through Paxos.
    bool depose_on_write_only = false;
    // Lease length, kept under election_timeout so a lease lapses before its followers campaign.
    Time lease_duration = Time::ms(120);
    Time lease_margin = Time::zero();       // clock-drift allowance subtracted on the leader's side
    std::uint32_t max_inflight = 64;        // uncommitted slots a leader has open before it queues proposals
    std::uint32_t catch_up_batch = 32;      // Decides sent per CatchUp request
    std::uint64_t seed = 1;                 // jitter stream; each replica derives its own from (seed, id)
    // For tests only: an acceptor that ignores ballots (promises and accepts anything). No adapter exposes it;
    // it exists so the safety checker can be shown to catch a broken acceptor.
    bool unsafe_ignore_ballots = false;

    std::uint32_t quorum() const { return replicas / 2 + 1; }
    // Throws InputError on an unusable configuration (replicas outside 1..64, non-positive intervals).
    void validate() const;
};

enum class Role : std::uint8_t { Follower, Candidate, Leader };

enum class ProposeResult : std::uint8_t { Accepted, NotLeader };

class Replica {
public:
    // A fresh replica (empty `durable`) or one recovering from what survived its crash.
    Replica(const Config& config, ReplicaId self, const DurableState& durable = {});

    // First step of each incarnation: arms the election timer.
    void start(Time now, Actions& out);
    void handle(const Message& message, Time now, Actions& out);
    Actions handle(const Message& message, Time now);
    // Appends `value` to the log if this replica is leader (is_leader(now)); NotLeader otherwise (see
    // leader_hint()). Values beyond max_inflight open slots wait in order inside the leader.
    ProposeResult propose(const Value& value, Time now, Actions& out);
    // Starts an election now with a fresh ballot (what the election timer does); ignored on a leader.
    void campaign(Time now, Actions& out);

    ReplicaId id() const { return self_; }
    Role role() const { return role_; }
    Ballot ballot() const { return ballot_; }  // this replica's proposer ballot (none() if it never ran)
    bool is_leader(Time now) const;
    ReplicaId leader_hint() const { return leader_hint_; }  // the last leader heard from, or kNoReplica
    Slot commit_index() const { return commit_index_; }     // slots [0, commit_index) are committed here
    Ballot promised() const { return promised_; }
    AcceptedEntry accepted(Slot slot) const;
    const Value* decided(Slot slot) const;  // the chosen value if this replica has learned it

private:
    struct Proposal {
        Value value;
        std::uint64_t acks = 0;  // bit per replica that sent Accepted
    };
    struct Learned {
        bool known = false;
        Value value;
    };
    struct Deferred {
        std::uint64_t token;
        Message message;
    };

    void dispatch(const Message& m, Time now, Actions& out);
    void drain(Time now, Actions& out);  // self-addressed messages, then the leadership report

    // acceptor
    void on_prepare(const Message& m, Time now, Actions& out);
    void on_accept(const Message& m, Time now, Actions& out);
    void on_heartbeat(const Message& m, Time now, Actions& out);
    // proposer
    void on_promise(const Message& m, Time now, Actions& out);
    void on_nack(const Message& m, Time now, Actions& out);
    void on_accepted(const Message& m, Time now, Actions& out);
    void on_heartbeat_ack(const Message& m, Time now, Actions& out);
    void on_timeout(const Message& m, Time now, Actions& out);
    // learner
    void on_decide(const Message& m, Time now, Actions& out);
    void on_catch_up(const Message& m, Time now, Actions& out);
    void on_durable_done(const Message& m, Time now, Actions& out);

    void send(Message m, Actions& out);              // to a peer, or looped back to self
    void send_after_writes(Message m, Actions& out);  // held until every write issued so far is durable
    void broadcast(Message m, bool after_writes, Actions& out);  // to every replica, self included
    void persist(const DurableRecord& record, Actions& out);
    void arm(TimerKind kind, Time at, Actions& out);
    void disarm(TimerKind kind, Actions& out);

    void begin_campaign(Time now, Actions& out);
    void start_window(Time now, Actions& out);
    void send_prepare(ReplicaId to, Time now, Actions& out);
    void become_leader(Time now, Actions& out);
    void step_down(Time now, Actions& out);
    void observe(Ballot b);
    void superseded(Ballot b, bool by_refused_write, Time now, Actions& out);
    void heard_leader(ReplicaId leader, Time now);
    void send_heartbeats(Time now, Actions& out);
    void open_slot(Slot slot, const Value& value, Actions& out);
    void fill_pipeline(Actions& out);
    void learn(Slot slot, const Value& value, Actions& out);
    void update_lease(Actions& out);
    Time jitter();
    Message make(MessageType type, ReplicaId to) const;

    Config config_;
    ReplicaId self_;
    Rng rng_;

    // acceptor (mirrors the durable state plus writes still in flight)
    Ballot promised_;
    std::vector<AcceptedEntry> accepted_;
    Ballot lease_ballot_;  // lease granted to this ballot until lease_until_ (none: to nobody)
    Time lease_until_;

    // durability
    std::uint64_t next_token_ = 1;
    std::uint64_t done_token_ = 0;
    std::deque<Deferred> deferred_;

    // learner
    std::vector<Learned> learned_;
    Slot commit_index_ = 0;

    // proposer
    Role role_ = Role::Follower;
    Ballot ballot_;
    std::uint32_t max_round_ = 0;
    ReplicaId leader_hint_ = kNoReplica;
    Time leader_deadline_;  // a follower campaigns when its election timer finds now past this
    // phase 1
    Slot p1_base_ = 0;
    Slot p1_window_ = 0;
    std::uint64_t p1_promised_ = 0;  // bit per replica that promised for the current window
    Slot p1_log_end_ = 0;
    std::array<AcceptedEntry, kWindow> p1_best_{};
    std::vector<AcceptedEntry> p1_found_;  // highest-ballot entry per slot from p1_base_
    std::uint32_t p1_retries_ = 0;
    bool p1_asked_ = false;  // a CatchUp went out during this window
    // phase 2
    Slot next_slot_ = 0;
    std::map<Slot, Proposal> inflight_;
    std::deque<Value> queued_;
    std::vector<Time> lease_acks_;  // per replica: latest acknowledged heartbeat send time (or -1 ps)
    Time lease_expiry_;
    bool reported_leader_ = false;

    std::array<Time, kTimerKinds> timer_at_{};
    std::array<bool, kTimerKinds> timer_armed_{};
    std::deque<Message> inbox_;  // messages to self, handled before the step returns
};

}  // namespace loom::ananta::paxos
