#include "paxos_harness.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <deque>

#include <fmt/format.h>

namespace loom::ananta::paxos::test {

namespace {

enum class EventKind : std::uint8_t { Deliver, Timer, WriteDone, Chaos, Recover, Heal, Resubmit };

struct Event {
    Time at;
    std::uint64_t seq = 0;
    EventKind kind = EventKind::Deliver;
    ReplicaId replica = 0;
    std::uint64_t incarnation = 0;
    std::uint64_t arg = 0;  // timer generation, write token, late-value index or message pool slot
    TimerKind timer = TimerKind::Election;
};

struct Later {
    bool operator()(const Event& a, const Event& b) const {
        return a.at != b.at ? a.at > b.at : a.seq > b.seq;
    }
};

struct PendingWrite {
    std::uint64_t token;
    DurableRecord record;
};

struct Node {
    std::optional<Replica> replica;
    std::uint64_t incarnation = 0;
    DurableState disk;
    std::deque<PendingWrite> writes;
    Time last_write_done;
    std::array<std::uint64_t, kTimerKinds> timer_generation{};
    Slot next_commit = 0;  // the slot this incarnation's next CommitAction must carry
    int side = 0;          // partition side
    bool stays_down = false;
};

struct Late {
    Value value;
    Time submitted;
    std::uint64_t committed_by = 0;  // bit per replica
    bool done = false;
};

std::string show(Ballot b) { return fmt::format("({},{})", b.round, b.replica); }

class Sim {
public:
    explicit Sim(const RunSpec& spec)
        : spec_(spec), rng_(derive(spec.seed, std::string_view("paxos.net"))), nodes_(spec.config.replicas),
          loss_(spec.loss), duplicate_(spec.duplicate) {}

    RunResult go() {
        const Time end = spec_.faults_until + spec_.settle;
        for (ReplicaId r = 0; r < nodes_.size(); ++r) recover(r);
        push(Time::zero(), EventKind::Chaos, 0, 0);
        push(spec_.faults_until, EventKind::Heal, 0, 0);
        for (std::uint32_t i = 0; i < spec_.late_values; ++i) {
            Late late;
            late.value = make_value();
            late.submitted = spec_.faults_until + Time::ms(1) * i;
            late_.push_back(late);
            push(late.submitted, EventKind::Resubmit, 0, i);
        }
        while (!queue_.empty() && result_.violations.size() < 5) {
            const Event e = queue_.top();
            if (e.at > end) break;
            queue_.pop();
            now_ = e.at;
            ++result_.events;
            dispatch(e);
            if (spec_.config.leader_lease && !spec_.config.unsafe_ignore_ballots) check_one_leader();
        }
        now_ = end;
        final_checks();
        return result_;
    }

private:
    void dispatch(const Event& e) {
        Node& node = nodes_[e.replica];
        switch (e.kind) {
            case EventKind::Deliver: {
                const Message m = pool_[e.arg];
                free_.push_back(static_cast<std::uint32_t>(e.arg));
                if (!node.replica) return;
                node.replica->handle(m, now_, actions_);
                apply(e.replica);
                return;
            }
            case EventKind::Timer: {
                if (!node.replica || e.incarnation != node.incarnation) return;
                const auto k = static_cast<std::size_t>(e.timer);
                if (e.arg != node.timer_generation[k]) return;
                Message t;
                t.type = MessageType::Timeout;
                t.timer = e.timer;
                t.from = t.to = e.replica;
                node.replica->handle(t, now_, actions_);
                apply(e.replica);
                return;
            }
            case EventKind::WriteDone: {
                if (!node.replica || e.incarnation != node.incarnation) return;
                if (node.writes.empty() || node.writes.front().token != e.arg) {
                    violation("harness: write completions out of order");
                    return;
                }
                applied(e.replica, node.writes.front().record);
                node.writes.pop_front();
                Message d;
                d.type = MessageType::DurableDone;
                d.token = e.arg;
                d.from = d.to = e.replica;
                node.replica->handle(d, now_, actions_);
                apply(e.replica);
                return;
            }
            case EventKind::Chaos: chaos(); return;
            case EventKind::Recover:
                if (node.replica || e.incarnation != node.incarnation || node.stays_down) return;
                recover(e.replica);
                return;
            case EventKind::Heal: heal(); return;
            case EventKind::Resubmit: resubmit(static_cast<std::size_t>(e.arg)); return;
        }
    }

    void push(Time at, EventKind kind, ReplicaId r, std::uint64_t arg, TimerKind timer = TimerKind::Election) {
        Event e;
        e.at = at;
        e.seq = seq_++;
        e.kind = kind;
        e.replica = r;
        e.incarnation = nodes_[r].incarnation;
        e.arg = arg;
        e.timer = timer;
        queue_.push(e);
    }

    Time draw(Time lo, Time hi) { return Time::ps(rng_.uniform_int(lo.count(), hi.count())); }

    // Turns replica r's actions into network, timer and disk events, and checks its commits.
    void apply(ReplicaId r) {
        Node& node = nodes_[r];
        for (const SendAction& s : actions_.sends) transmit(s.message);
        for (const TimerAction& t : actions_.timers) {
            const auto k = static_cast<std::size_t>(t.kind);
            const std::uint64_t generation = ++node.timer_generation[k];
            if (t.cancel) continue;
            push(std::max(t.at, now_), EventKind::Timer, r, generation, t.kind);
        }
        for (const DurableWriteAction& w : actions_.writes) {
            const Time done = std::max(node.last_write_done, now_ + draw(spec_.write_min, spec_.write_max));
            node.last_write_done = done;
            node.writes.push_back(PendingWrite{w.token, w.record});
            push(done, EventKind::WriteDone, r, w.token);
        }
        for (const CommitAction& c : actions_.commits) committed(r, c);
        result_.leader_changes += actions_.leadership.size();
        actions_.clear();
    }

    void transmit(const Message& m) {
        if (nodes_[m.from].side != nodes_[m.to].side) return;
        if (loss_ > 0 && rng_.bernoulli(loss_)) return;
        const int copies = duplicate_ > 0 && rng_.bernoulli(duplicate_) ? 2 : 1;
        for (int i = 0; i < copies; ++i) {
            std::uint32_t slot;
            if (free_.empty()) {
                slot = static_cast<std::uint32_t>(pool_.size());
                pool_.push_back(m);
            } else {
                slot = free_.back();
                free_.pop_back();
                pool_[slot] = m;
            }
            push(now_ + draw(spec_.delay_min, spec_.delay_max), EventKind::Deliver, m.to, slot);
        }
    }

    // ---- checker ----

    void violation(std::string what) {
        if (result_.violations.size() < 5)
            result_.violations.push_back(fmt::format("t={}ps: {}", now_.count(), what));
    }

    // A write reached replica r's disk: count durable acceptances, and whatever a quorum accepted is chosen.
    void applied(ReplicaId r, const DurableRecord& record) {
        nodes_[r].disk.apply(record);
        if (record.kind != RecordKind::Accept) return;
        auto [it, fresh] = votes_.try_emplace({record.slot, record.ballot}, record.value, 0);
        if (!fresh && !(it->second.first == record.value))
            violation(fmt::format("ballot {} carried two values for slot {}", show(record.ballot), record.slot));
        it->second.second |= std::uint64_t{1} << r;
        if (static_cast<std::uint32_t>(std::popcount(it->second.second)) < spec_.config.quorum()) return;
        const auto [c, first] = chosen_.try_emplace(record.slot, record.value);
        if (!first && !(c->second == record.value))
            violation(fmt::format("two values chosen for slot {} (ids {} and {})", record.slot, c->second.id,
                                  record.value.id));
    }

    void committed(ReplicaId r, const CommitAction& c) {
        Node& node = nodes_[r];
        if (c.slot != node.next_commit)
            violation(fmt::format("replica {} committed slot {} after {}", r, c.slot, node.next_commit));
        node.next_commit = c.slot + 1;
        const auto ch = chosen_.find(c.slot);
        if (ch == chosen_.end())
            violation(fmt::format("replica {} committed slot {} that no quorum accepted", r, c.slot));
        else if (!(ch->second == c.value))
            violation(fmt::format("replica {} committed id {} at slot {}, chosen was id {}", r, c.value.id,
                                  c.slot, ch->second.id));
        const auto [it, first] = committed_.try_emplace(c.slot, c.value);
        if (!first && !(it->second == c.value))
            violation(fmt::format("replica {} committed id {} at slot {}, others committed id {}", r,
                                  c.value.id, c.slot, it->second.id));
        for (Late& late : late_) {
            if (late.done || !(late.value == c.value)) continue;
            late.committed_by |= std::uint64_t{1} << r;
            if ((late.committed_by & live_mask()) == live_mask()) {
                late.done = true;
                ++result_.late_committed;
                result_.worst_late_commit = std::max(result_.worst_late_commit, now_ - late.submitted);
            }
        }
    }

    void check_one_leader() {
        int leaders = 0;
        for (const Node& n : nodes_)
            if (n.replica && n.replica->is_leader(now_)) ++leaders;
        if (leaders > 1) violation(fmt::format("{} replicas hold the lease at once", leaders));
    }

    void final_checks() {
        const Slot end = committed_.empty() ? 0 : committed_.rbegin()->first + 1;
        result_.commits = committed_.size();
        for (ReplicaId r = 0; r < nodes_.size(); ++r) {
            const Node& n = nodes_[r];
            if (!n.replica) continue;
            if (n.replica->commit_index() < end)
                violation(fmt::format("replica {} knows {} of {} committed slots after settling", r,
                                      n.replica->commit_index(), end));
        }
        for (std::size_t i = 0; i < late_.size(); ++i)
            if (!late_[i].done) violation(fmt::format("late value {} never committed everywhere", i));
    }

    std::uint64_t live_mask() const {
        std::uint64_t m = 0;
        for (ReplicaId r = 0; r < nodes_.size(); ++r)
            if (!nodes_[r].stays_down) m |= std::uint64_t{1} << r;
        return m;
    }

    // ---- faults and the client ----

    void crash(ReplicaId r) {
        Node& node = nodes_[r];
        node.replica.reset();
        ++node.incarnation;
        // Writes in flight: some prefix reached the disk, the rest is lost.
        const std::uint64_t kept = rng_.uniform(node.writes.size() + 1);
        for (std::uint64_t i = 0; i < kept; ++i) applied(r, node.writes[i].record);
        node.writes.clear();
        node.next_commit = 0;
    }

    void recover(ReplicaId r) {
        Node& node = nodes_[r];
        node.replica.emplace(spec_.config, r, node.disk);
        node.replica->start(now_, actions_);
        apply(r);
    }

    Value make_value() {
        Value v;
        v.id = next_value_id_++;
        for (std::size_t i = 0; i < kValueBytes; ++i) v.data[i] = static_cast<std::uint8_t>(mix64(v.id + i));
        return v;
    }

    ReplicaId random_live() {
        std::vector<ReplicaId> live;
        for (ReplicaId r = 0; r < nodes_.size(); ++r)
            if (nodes_[r].replica) live.push_back(r);
        return live.empty() ? kNoReplica : live[rng_.uniform(live.size())];
    }

    void chaos() {
        const auto n = static_cast<std::uint64_t>(nodes_.size());
        if (rng_.bernoulli(spec_.p_crash)) {
            const auto r = static_cast<ReplicaId>(rng_.uniform(n));
            if (nodes_[r].replica) {
                crash(r);
                push(now_ + draw(spec_.down_min, spec_.down_max), EventKind::Recover, r, 0);
            }
        }
        if (rng_.bernoulli(spec_.p_partition)) {
            const bool heal_all = rng_.uniform(3) == 0;
            for (Node& node : nodes_) node.side = heal_all ? 0 : static_cast<int>(rng_.uniform(2));
        }
        if (rng_.bernoulli(spec_.p_campaign)) {
            const ReplicaId r = random_live();
            if (r != kNoReplica) {
                nodes_[r].replica->campaign(now_, actions_);
                apply(r);
            }
        }
        if (rng_.bernoulli(spec_.p_propose)) {
            // Whoever believes it leads (a deposed one included): the case that makes dueling dangerous.
            std::vector<ReplicaId> believers;
            for (ReplicaId r = 0; r < nodes_.size(); ++r)
                if (nodes_[r].replica && nodes_[r].replica->role() == Role::Leader) believers.push_back(r);
            const ReplicaId r = believers.empty() ? random_live() : believers[rng_.uniform(believers.size())];
            if (r != kNoReplica) {
                nodes_[r].replica->propose(make_value(), now_, actions_);
                apply(r);
            }
        }
        if (now_ + spec_.chaos_tick < spec_.faults_until) push(now_ + spec_.chaos_tick, EventKind::Chaos, 0, 0);
    }

    void heal() {
        loss_ = 0;
        duplicate_ = 0;
        for (Node& node : nodes_) node.side = 0;
        std::vector<ReplicaId> order(nodes_.size());
        for (ReplicaId r = 0; r < nodes_.size(); ++r) order[r] = r;
        for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng_.uniform(i)]);
        for (std::uint32_t i = 0; i < spec_.stay_down && i < order.size(); ++i) {
            nodes_[order[i]].stays_down = true;
            if (nodes_[order[i]].replica) crash(order[i]);
        }
        for (ReplicaId r = 0; r < nodes_.size(); ++r)
            if (!nodes_[r].replica && !nodes_[r].stays_down) recover(r);
    }

    void resubmit(std::size_t i) {
        Late& late = late_[i];
        if (late.done) return;
        for (ReplicaId r = 0; r < nodes_.size(); ++r) {
            if (!nodes_[r].replica || !nodes_[r].replica->is_leader(now_)) continue;
            nodes_[r].replica->propose(late.value, now_, actions_);
            apply(r);
            break;
        }
        push(now_ + spec_.resubmit, EventKind::Resubmit, 0, i);
    }

    RunSpec spec_;
    Rng rng_;
    std::vector<Node> nodes_;
    std::priority_queue<Event, std::vector<Event>, Later> queue_;
    std::vector<Message> pool_;        // messages in flight, referenced by Deliver events
    std::vector<std::uint32_t> free_;  // free pool slots
    std::uint64_t seq_ = 0;
    Time now_;
    Actions actions_;
    double loss_;
    double duplicate_;
    std::map<std::pair<Slot, Ballot>, std::pair<Value, std::uint64_t>> votes_;  // durable acceptances
    std::map<Slot, Value> chosen_;
    std::map<Slot, Value> committed_;
    std::uint64_t next_value_id_ = 1;
    std::vector<Late> late_;
    RunResult result_;
};

}  // namespace

RunSpec random_spec(std::uint64_t seed) {
    Rng rng(derive(seed, std::string_view("paxos.spec")));
    RunSpec s;
    s.seed = seed;
    static constexpr std::uint32_t kSizes[] = {3, 5, 5, 7};
    s.config.replicas = kSizes[rng.uniform(4)];
    s.config.seed = seed;
    s.config.heartbeat_interval = Time::ms(1);
    s.config.election_timeout = Time::ms(5);
    s.config.election_jitter = Time::ms(5);
    s.config.lease_duration = Time::ms(4);
    s.config.leader_lease = rng.bernoulli(0.5);
    s.config.max_inflight = static_cast<std::uint32_t>(1 + rng.uniform(16));
    s.config.catch_up_batch = 8;
    s.loss = 0.3 * rng.uniform01();
    s.duplicate = 0.2 * rng.uniform01();
    s.delay_max = Time::us(200 + static_cast<std::int64_t>(rng.uniform(1300)));
    s.config.depose_on_write_only = !s.config.leader_lease && rng.bernoulli(0.3);
    return s;
}

RunResult run(const RunSpec& spec) { return Sim(spec).go(); }

}  // namespace loom::ananta::paxos::test
