#include "loom/ananta/paxos/replica.hpp"

#include <algorithm>
#include <bit>
#include <string>

#include "loom/base/assert.hpp"
#include "loom/base/error.hpp"

namespace loom::ananta::paxos {

namespace {

constexpr Time kNoAck = Time::ps(-1);

std::uint64_t bit(ReplicaId r) { return std::uint64_t{1} << r; }
std::uint32_t members(std::uint64_t mask) { return static_cast<std::uint32_t>(std::popcount(mask)); }
std::size_t index(TimerKind k) { return static_cast<std::size_t>(k); }

}  // namespace

void Config::validate() const {
    auto fail = [](const std::string& what) { throw InputError("paxos: " + what); };
    if (replicas < 1 || replicas > 64) fail("replicas must be in 1..64, got " + std::to_string(replicas));
    if (heartbeat_interval <= Time::zero()) fail("heartbeat_interval must be positive");
    if (election_timeout <= Time::zero()) fail("election_timeout must be positive");
    if (election_jitter < Time::zero()) fail("election_jitter must not be negative");
    if (leader_lease && lease_duration <= lease_margin) fail("lease_duration must exceed lease_margin");
    if (max_inflight < 1) fail("max_inflight must be at least 1");
    if (catch_up_batch < 1) fail("catch_up_batch must be at least 1");
}

Replica::Replica(const Config& config, ReplicaId self, const DurableState& durable)
    : config_(config),
      self_(self),
      rng_(derive(config.seed, std::uint64_t{self})),
      promised_(durable.promised),
      accepted_(durable.accepted),
      max_round_(durable.promised.round),
      lease_acks_(config.replicas, kNoAck) {
    config_.validate();
    if (self >= config_.replicas)
        throw InputError("paxos: replica id " + std::to_string(self) + " out of range");
}

// ---- entry points ----

void Replica::start(Time now, Actions& out) {
    if (config_.leader_lease) {
        // Leases granted before a crash are forgotten: refuse every Prepare until any of them has lapsed.
        lease_ballot_ = Ballot{};
        lease_until_ = now + config_.lease_duration;
    }
    leader_deadline_ = now + config_.election_timeout + jitter();
    arm(TimerKind::Election, leader_deadline_, out);
}

void Replica::handle(const Message& message, Time now, Actions& out) {
    dispatch(message, now, out);
    drain(now, out);
}

Actions Replica::handle(const Message& message, Time now) {
    Actions out;
    handle(message, now, out);
    return out;
}

ProposeResult Replica::propose(const Value& value, Time now, Actions& out) {
    if (!is_leader(now)) return ProposeResult::NotLeader;
    queued_.push_back(value);
    fill_pipeline(out);
    drain(now, out);
    return ProposeResult::Accepted;
}

void Replica::campaign(Time now, Actions& out) {
    if (role_ == Role::Leader) return;
    begin_campaign(now, out);
    drain(now, out);
}

bool Replica::is_leader(Time now) const {
    return role_ == Role::Leader && (!config_.leader_lease || now < lease_expiry_);
}

AcceptedEntry Replica::accepted(Slot slot) const {
    return slot < accepted_.size() ? accepted_[slot] : AcceptedEntry{};
}

const Value* Replica::decided(Slot slot) const {
    return slot < learned_.size() && learned_[slot].known ? &learned_[slot].value : nullptr;
}

void Replica::dispatch(const Message& m, Time now, Actions& out) {
    switch (m.type) {
        case MessageType::Prepare: on_prepare(m, now, out); break;
        case MessageType::Promise: on_promise(m, now, out); break;
        case MessageType::Nack: on_nack(m, now, out); break;
        case MessageType::Accept: on_accept(m, now, out); break;
        case MessageType::Accepted: on_accepted(m, now, out); break;
        case MessageType::Decide: on_decide(m, now, out); break;
        case MessageType::Heartbeat: on_heartbeat(m, now, out); break;
        case MessageType::HeartbeatAck: on_heartbeat_ack(m, now, out); break;
        case MessageType::CatchUp: on_catch_up(m, now, out); break;
        case MessageType::Timeout: on_timeout(m, now, out); break;
        case MessageType::DurableDone: on_durable_done(m, now, out); break;
    }
}

void Replica::drain(Time now, Actions& out) {
    while (!inbox_.empty()) {
        const Message m = inbox_.front();
        inbox_.pop_front();
        dispatch(m, now, out);
    }
    const bool leader = is_leader(now);
    if (leader != reported_leader_) {
        reported_leader_ = leader;
        out.leadership.push_back(LeadershipAction{leader, ballot_});
    }
}

// ---- acceptor ----

void Replica::on_prepare(const Message& m, Time now, Actions& out) {
    observe(m.ballot);
    const bool broken = config_.unsafe_ignore_ballots;
    const bool lease_blocks = config_.leader_lease && now < lease_until_ && m.ballot != lease_ballot_;
    if (!broken && (lease_blocks || m.ballot < promised_)) {
        Message nack = make(MessageType::Nack, m.from);
        nack.refused = m.type;
        nack.ballot = promised_;
        nack.slot = m.slot;
        send_after_writes(nack, out);
        return;
    }
    if (m.ballot != promised_) {
        promised_ = m.ballot;
        persist(DurableRecord{RecordKind::Promise, m.ballot, 0, Value{}}, out);
    }
    Message promise = make(MessageType::Promise, m.from);
    promise.ballot = m.ballot;
    promise.slot = m.slot;
    promise.log_index = accepted_.size();
    promise.commit = commit_index_;
    for (std::size_t i = 0; i < kWindow; ++i) promise.entries[i] = accepted(m.slot + i);
    send_after_writes(promise, out);
    if (m.from != self_) {
        superseded(m.ballot, false, now, out);
        // An election is under way: give the candidate time before campaigning against it.
        if (role_ == Role::Follower) leader_deadline_ = now + config_.election_timeout + jitter();
    }
}

void Replica::on_accept(const Message& m, Time now, Actions& out) {
    observe(m.ballot);
    if (!config_.unsafe_ignore_ballots && m.ballot < promised_) {
        Message nack = make(MessageType::Nack, m.from);
        nack.refused = m.type;
        nack.ballot = promised_;
        nack.slot = m.slot;
        send_after_writes(nack, out);
        return;
    }
    if (m.ballot > promised_) promised_ = m.ballot;
    const AcceptedEntry entry{m.ballot, m.value};
    if (accepted(m.slot) != entry) {
        if (accepted_.size() <= m.slot) accepted_.resize(m.slot + 1);
        accepted_[m.slot] = entry;
        persist(DurableRecord{RecordKind::Accept, m.ballot, m.slot, m.value}, out);
    }
    Message reply = make(MessageType::Accepted, m.from);
    reply.ballot = m.ballot;
    reply.slot = m.slot;
    send_after_writes(reply, out);
    if (m.from != self_) {
        superseded(m.ballot, false, now, out);
        if (role_ == Role::Follower) heard_leader(m.from, now);
    }
}

void Replica::on_heartbeat(const Message& m, Time now, Actions& out) {
    observe(m.ballot);
    if (!config_.unsafe_ignore_ballots && m.ballot < promised_) {
        // Tells a deposed leader that can still reach us that it has been superseded.
        Message nack = make(MessageType::Nack, m.from);
        nack.refused = m.type;
        nack.ballot = promised_;
        send_after_writes(nack, out);
        return;
    }
    superseded(m.ballot, false, now, out);
    if (role_ == Role::Follower) heard_leader(m.from, now);
    if (config_.leader_lease) {
        lease_ballot_ = m.ballot;
        lease_until_ = now + config_.lease_duration;
    }
    Message ack = make(MessageType::HeartbeatAck, m.from);
    ack.ballot = m.ballot;
    ack.lease_start = m.lease_start;
    send(ack, out);
    if (m.log_index > commit_index_) {
        Message ask = make(MessageType::CatchUp, m.from);
        ask.slot = commit_index_;
        send(ask, out);
    }
}

// ---- proposer ----

void Replica::begin_campaign(Time now, Actions& out) {
    observe(promised_);
    ballot_ = Ballot{max_round_ + 1, self_};
    max_round_ = ballot_.round;
    role_ = Role::Candidate;
    leader_hint_ = kNoReplica;
    p1_base_ = commit_index_;
    p1_window_ = p1_base_;
    p1_found_.clear();
    p1_retries_ = 0;
    arm(TimerKind::Election, now + config_.heartbeat_interval, out);
    start_window(now, out);
}

void Replica::start_window(Time now, Actions& out) {
    p1_promised_ = 0;
    p1_asked_ = false;
    p1_log_end_ = 0;
    p1_best_ = {};
    // Self first: its promise write is then issued before the Prepares to the others, which wait for it.
    send_prepare(self_, now, out);
    for (ReplicaId r = 0; r < config_.replicas; ++r)
        if (r != self_) send_prepare(r, now, out);
}

void Replica::send_prepare(ReplicaId to, Time now, Actions& out) {
    Message p = make(MessageType::Prepare, to);
    p.ballot = ballot_;
    p.slot = p1_window_;
    if (to == self_)
        on_prepare(p, now, out);
    else
        send_after_writes(p, out);
}

void Replica::on_promise(const Message& m, Time now, Actions& out) {
    observe(m.ballot);
    if (role_ != Role::Candidate || m.ballot != ballot_ || m.slot != p1_window_) return;
    if (p1_promised_ & bit(m.from)) return;
    p1_promised_ |= bit(m.from);
    for (std::size_t i = 0; i < kWindow; ++i)
        if (m.entries[i].ballot > p1_best_[i].ballot) p1_best_[i] = m.entries[i];
    p1_log_end_ = std::max(p1_log_end_, m.log_index);
    if (m.commit > commit_index_ && !p1_asked_) {
        // A lagging candidate learns the committed prefix instead of walking it window by window.
        p1_asked_ = true;
        Message ask = make(MessageType::CatchUp, m.from);
        ask.slot = commit_index_;
        send(ask, out);
    }
    if (members(p1_promised_) < config_.quorum()) return;

    LOOM_ASSERT(p1_found_.size() == p1_window_ - p1_base_, "paxos: phase 1 windows out of order");
    p1_found_.insert(p1_found_.end(), p1_best_.begin(), p1_best_.end());
    const Slot end = p1_window_ + kWindow;
    if (p1_log_end_ <= end) {
        // A quorum has nothing accepted at or past p1_log_end_: every slot from there on is free for ballot_.
        next_slot_ = std::max(p1_window_, p1_log_end_);
        become_leader(now, out);
    } else {
        // Slots below the commit index are chosen and known here: phase 1 need not ask about them.
        p1_window_ = std::max(end, commit_index_);
        p1_found_.resize(p1_window_ - p1_base_);
        p1_retries_ = 0;
        start_window(now, out);
    }
}

void Replica::on_nack(const Message& m, Time now, Actions& out) {
    observe(m.ballot);
    superseded(m.ballot, m.refused != MessageType::Heartbeat, now, out);
}

void Replica::superseded(Ballot b, bool by_refused_write, Time now, Actions& out) {
    if (role_ == Role::Follower || !(ballot_ < b)) return;
    if (role_ == Role::Leader && config_.depose_on_write_only && !config_.leader_lease && !by_refused_write) return;
    step_down(now, out);
}

void Replica::become_leader(Time now, Actions& out) {
    role_ = Role::Leader;
    leader_hint_ = self_;
    disarm(TimerKind::Election, out);
    std::fill(lease_acks_.begin(), lease_acks_.end(), kNoAck);
    lease_expiry_ = Time::zero();
    // Re-propose what phase 1 found (the highest-ballot value of each slot), no-ops in the holes. Slots this
    // replica knows to be chosen need no proposal: followers learn them by catch-up.
    for (Slot s = p1_base_; s < next_slot_; ++s) {
        if (decided(s)) continue;
        const AcceptedEntry& found = p1_found_[s - p1_base_];
        open_slot(s, found.empty() ? Value::noop() : found.value, out);
    }
    p1_found_.clear();
    send_heartbeats(now, out);
    arm(TimerKind::Heartbeat, now + config_.heartbeat_interval, out);
}

void Replica::step_down(Time now, Actions& out) {
    role_ = Role::Follower;
    inflight_.clear();
    queued_.clear();
    p1_found_.clear();
    p1_promised_ = 0;
    lease_expiry_ = Time::zero();
    disarm(TimerKind::Heartbeat, out);
    disarm(TimerKind::Lease, out);
    leader_deadline_ = now + config_.election_timeout + jitter();
    arm(TimerKind::Election, leader_deadline_, out);
}

void Replica::open_slot(Slot slot, const Value& value, Actions& out) {
    inflight_[slot] = Proposal{value, 0};
    Message a = make(MessageType::Accept, kNoReplica);
    a.ballot = ballot_;
    a.slot = slot;
    a.value = value;
    a.log_index = commit_index_;
    broadcast(a, false, out);
}

void Replica::fill_pipeline(Actions& out) {
    while (!queued_.empty() && inflight_.size() < config_.max_inflight) {
        open_slot(next_slot_++, queued_.front(), out);
        queued_.pop_front();
    }
}

void Replica::on_accepted(const Message& m, Time /*now*/, Actions& out) {
    if (role_ != Role::Leader || m.ballot != ballot_) return;
    const auto it = inflight_.find(m.slot);
    if (it == inflight_.end()) return;
    it->second.acks |= bit(m.from);
    if (members(it->second.acks) < config_.quorum()) return;
    const Value value = it->second.value;
    inflight_.erase(it);
    learn(m.slot, value, out);
    Message d = make(MessageType::Decide, kNoReplica);
    d.ballot = ballot_;
    d.slot = m.slot;
    d.value = value;
    for (ReplicaId r = 0; r < config_.replicas; ++r) {
        if (r == self_) continue;
        d.to = r;
        send(d, out);
    }
    fill_pipeline(out);
}

void Replica::send_heartbeats(Time now, Actions& out) {
    Message h = make(MessageType::Heartbeat, kNoReplica);
    h.ballot = ballot_;
    h.log_index = commit_index_;
    h.lease_start = now;
    for (ReplicaId r = 0; r < config_.replicas; ++r) {
        if (r == self_) continue;
        h.to = r;
        send(h, out);
    }
    if (config_.leader_lease) {
        lease_ballot_ = ballot_;
        lease_until_ = now + config_.lease_duration;
        lease_acks_[self_] = now;
        update_lease(out);
    }
}

void Replica::on_heartbeat_ack(const Message& m, Time /*now*/, Actions& out) {
    if (role_ != Role::Leader || m.ballot != ballot_ || !config_.leader_lease) return;
    lease_acks_[m.from] = std::max(lease_acks_[m.from], m.lease_start);
    update_lease(out);
}

void Replica::update_lease(Actions& out) {
    std::vector<Time> acks = lease_acks_;
    const std::size_t k = config_.quorum() - 1;
    std::nth_element(acks.begin(), acks.begin() + static_cast<std::ptrdiff_t>(k), acks.end(),
                     [](Time a, Time b) { return a > b; });
    if (acks[k] < Time::zero()) return;
    // Every replica of that quorum received its heartbeat no earlier than it was sent.
    const Time expiry = acks[k] + config_.lease_duration - config_.lease_margin;
    if (expiry > lease_expiry_) {
        lease_expiry_ = expiry;
        arm(TimerKind::Lease, expiry, out);
    }
}

void Replica::on_timeout(const Message& m, Time now, Actions& out) {
    const std::size_t k = index(m.timer);
    if (!timer_armed_[k] || now < timer_at_[k]) return;  // stale
    timer_armed_[k] = false;
    switch (m.timer) {
        case TimerKind::Election:
            if (role_ == Role::Follower) {
                if (now < leader_deadline_)
                    arm(TimerKind::Election, leader_deadline_, out);
                else
                    begin_campaign(now, out);
            } else if (role_ == Role::Candidate) {
                if (++p1_retries_ <= config_.prepare_retries) {
                    for (ReplicaId r = 0; r < config_.replicas; ++r)
                        if (!(p1_promised_ & bit(r))) send_prepare(r, now, out);
                    arm(TimerKind::Election, now + config_.heartbeat_interval, out);
                } else {
                    // Give up this ballot and back off a random time: two proposers that keep preempting
                    // each other separate after a few rounds.
                    role_ = Role::Follower;
                    p1_found_.clear();
                    leader_deadline_ = now + jitter();
                    arm(TimerKind::Election, leader_deadline_, out);
                }
            }
            break;
        case TimerKind::Heartbeat:
            if (role_ != Role::Leader) break;
            send_heartbeats(now, out);
            for (const auto& [slot, p] : inflight_) {
                Message a = make(MessageType::Accept, kNoReplica);
                a.ballot = ballot_;
                a.slot = slot;
                a.value = p.value;
                a.log_index = commit_index_;
                for (ReplicaId r = 0; r < config_.replicas; ++r) {
                    if (r == self_ || (p.acks & bit(r))) continue;
                    a.to = r;
                    send(a, out);
                }
            }
            arm(TimerKind::Heartbeat, now + config_.heartbeat_interval, out);
            break;
        case TimerKind::Lease:
            break;  // drain() reports the lapse
    }
}

// ---- learner ----

void Replica::on_decide(const Message& m, Time /*now*/, Actions& out) {
    observe(m.ballot);
    learn(m.slot, m.value, out);
}

void Replica::on_catch_up(const Message& m, Time /*now*/, Actions& out) {
    const Slot end = std::min<Slot>(learned_.size(), m.slot + config_.catch_up_batch);
    for (Slot s = m.slot; s < end; ++s) {
        if (!learned_[s].known) continue;
        Message d = make(MessageType::Decide, m.from);
        d.slot = s;
        d.value = learned_[s].value;
        send(d, out);
    }
}

void Replica::learn(Slot slot, const Value& value, Actions& out) {
    if (learned_.size() <= slot) learned_.resize(slot + 1);
    if (learned_[slot].known) return;
    learned_[slot] = Learned{true, value};
    while (commit_index_ < learned_.size() && learned_[commit_index_].known) {
        out.commits.push_back(CommitAction{commit_index_, learned_[commit_index_].value});
        ++commit_index_;
    }
}

void Replica::on_durable_done(const Message& m, Time /*now*/, Actions& out) {
    if (m.token >= next_token_) return;  // not issued by this incarnation
    done_token_ = std::max(done_token_, m.token);
    while (!deferred_.empty() && deferred_.front().token <= done_token_) {
        const Message msg = deferred_.front().message;
        deferred_.pop_front();
        send(msg, out);
    }
}

// ---- plumbing ----

void Replica::send(Message m, Actions& out) {
    if (m.to == self_)
        inbox_.push_back(m);
    else
        out.sends.push_back(SendAction{m});
}

void Replica::send_after_writes(Message m, Actions& out) {
    if (next_token_ - 1 > done_token_)
        deferred_.push_back(Deferred{next_token_ - 1, m});
    else
        send(m, out);
}

void Replica::broadcast(Message m, bool after_writes, Actions& out) {
    for (ReplicaId r = 0; r < config_.replicas; ++r) {
        m.to = r;
        if (after_writes)
            send_after_writes(m, out);
        else
            send(m, out);
    }
}

void Replica::persist(const DurableRecord& record, Actions& out) {
    out.writes.push_back(DurableWriteAction{next_token_++, record});
}

void Replica::arm(TimerKind kind, Time at, Actions& out) {
    timer_at_[index(kind)] = at;
    timer_armed_[index(kind)] = true;
    out.timers.push_back(TimerAction{kind, false, at});
}

void Replica::disarm(TimerKind kind, Actions& out) {
    if (!timer_armed_[index(kind)]) return;
    timer_armed_[index(kind)] = false;
    out.timers.push_back(TimerAction{kind, true, Time{}});
}

void Replica::observe(Ballot b) { max_round_ = std::max(max_round_, b.round); }

void Replica::heard_leader(ReplicaId leader, Time now) {
    leader_hint_ = leader;
    leader_deadline_ = now + config_.election_timeout + jitter();
}

Time Replica::jitter() {
    const std::int64_t span = config_.election_jitter.count();
    return span > 0 ? Time::ps(static_cast<std::int64_t>(rng_.uniform(static_cast<std::uint64_t>(span))))
                    : Time::zero();
}

Message Replica::make(MessageType type, ReplicaId to) const {
    Message m;
    m.type = type;
    m.from = self_;
    m.to = to;
    return m;
}

}  // namespace loom::ananta::paxos
