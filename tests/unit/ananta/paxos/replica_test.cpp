#include <catch2/catch.hpp>

#include <vector>

#include "loom/ananta/paxos/replica.hpp"
#include "loom/base/error.hpp"

using namespace loom;
using namespace loom::ananta::paxos;

namespace {

Config small(std::uint32_t n, bool lease = false) {
    Config c;
    c.replicas = n;
    c.heartbeat_interval = Time::ms(1);
    c.election_timeout = Time::ms(5);
    c.election_jitter = Time::ms(5);
    c.lease_duration = Time::ms(4);
    c.leader_lease = lease;
    return c;
}

Value value(std::uint64_t id) {
    Value v;
    v.id = id;
    v.data[0] = static_cast<std::uint8_t>(id);
    return v;
}

void append(Actions& to, const Actions& from) {
    to.sends.insert(to.sends.end(), from.sends.begin(), from.sends.end());
    to.timers.insert(to.timers.end(), from.timers.begin(), from.timers.end());
    to.writes.insert(to.writes.end(), from.writes.begin(), from.writes.end());
    to.commits.insert(to.commits.end(), from.commits.begin(), from.commits.end());
    to.leadership.insert(to.leadership.end(), from.leadership.begin(), from.leadership.end());
}

// Completes every durable write `a` asked for (and those the completions ask for); returns all other actions.
Actions complete_writes(Replica& r, const Actions& a, Time now, DurableState* disk = nullptr) {
    Actions all = a;
    all.writes.clear();
    std::vector<DurableWriteAction> pending = a.writes;
    while (!pending.empty()) {
        if (disk)
            for (const auto& w : pending) disk->apply(w.record);
        Message done;
        done.type = MessageType::DurableDone;
        done.token = pending.back().token;
        done.from = done.to = r.id();
        const Actions b = r.handle(done, now);
        append(all, b);
        pending = b.writes;
    }
    return all;
}

std::vector<Message> sent(const Actions& a, MessageType type) {
    std::vector<Message> out;
    for (const auto& s : a.sends)
        if (s.message.type == type) out.push_back(s.message);
    return out;
}

Message msg(MessageType type, ReplicaId from, ReplicaId to, Ballot b, Slot slot = 0) {
    Message m;
    m.type = type;
    m.from = from;
    m.to = to;
    m.ballot = b;
    m.slot = slot;
    return m;
}

Message promise_from(ReplicaId from, ReplicaId to, Ballot b, Slot log_end = 0) {
    Message m = msg(MessageType::Promise, from, to, b, 0);
    m.log_index = log_end;
    return m;
}

Message timeout(ReplicaId r, TimerKind k) {
    Message m;
    m.type = MessageType::Timeout;
    m.timer = k;
    m.from = m.to = r;
    return m;
}

// Makes `r` leader of an empty log at `now` with promises from replicas 1..quorum-1.
Actions elect(Replica& r, const Config& c, Time now) {
    Actions a;
    r.campaign(now, a);
    Actions all = complete_writes(r, a, now);
    for (ReplicaId p = 1; p < c.quorum(); ++p)
        append(all, complete_writes(r, r.handle(promise_from(p, r.id(), r.ballot()), now), now));
    return all;
}

}  // namespace

TEST_CASE("A follower campaigns when its election timer fires and its Prepares wait for the durable self-promise") {
    const Config c = small(3);
    Replica r(c, 0);
    Actions a;
    r.start(Time::zero(), a);
    REQUIRE(a.timers.size() == 1);
    const Time fire = a.timers[0].at;
    CHECK(a.timers[0].kind == TimerKind::Election);
    CHECK(fire >= c.election_timeout);
    CHECK(fire < c.election_timeout + c.election_jitter);

    // One picosecond early: a stale firing does nothing.
    CHECK(r.handle(timeout(0, TimerKind::Election), fire - Time::ps(1)).empty());
    const Actions b = r.handle(timeout(0, TimerKind::Election), fire);
    CHECK(r.role() == Role::Candidate);
    CHECK(r.ballot() == Ballot{1, 0});
    REQUIRE(b.writes.size() == 1);
    CHECK(b.writes[0].record.kind == RecordKind::Promise);
    CHECK(b.writes[0].record.ballot == Ballot{1, 0});
    CHECK(sent(b, MessageType::Prepare).empty());

    const Actions d = complete_writes(r, b, fire);
    const auto prepares = sent(d, MessageType::Prepare);
    REQUIRE(prepares.size() == 2);
    CHECK(prepares[0].to == 1);
    CHECK(prepares[1].to == 2);
    CHECK(prepares[0].ballot == Ballot{1, 0});
    CHECK(prepares[0].slot == 0);
}

TEST_CASE("An acceptor promises a higher ballot and reports what it accepted in each slot of the window") {
    DurableState disk;
    disk.apply(DurableRecord{RecordKind::Accept, Ballot{1, 0}, 0, value(7)});
    disk.apply(DurableRecord{RecordKind::Accept, Ballot{2, 1}, 2, value(8)});
    Replica r(small(3), 2, disk);
    CHECK(r.promised() == Ballot{2, 1});

    const Actions a = r.handle(msg(MessageType::Prepare, 0, 2, Ballot{3, 0}, 0), Time::ms(1));
    REQUIRE(a.writes.size() == 1);
    CHECK(a.writes[0].record.ballot == Ballot{3, 0});
    CHECK(a.sends.empty());  // the promise leaves only once it is durable
    const Actions b = complete_writes(r, a, Time::ms(1));
    const auto promises = sent(b, MessageType::Promise);
    REQUIRE(promises.size() == 1);
    const Message& p = promises[0];
    CHECK(p.to == 0);
    CHECK(p.ballot == Ballot{3, 0});
    CHECK(p.log_index == 3);
    CHECK(p.entries[0] == AcceptedEntry{Ballot{1, 0}, value(7)});
    CHECK(p.entries[1].empty());
    CHECK(p.entries[2] == AcceptedEntry{Ballot{2, 1}, value(8)});
    CHECK(p.entries[3].empty());
}

TEST_CASE("A Prepare below the promised ballot gets a Nack carrying the promised ballot and changes nothing") {
    DurableState disk;
    disk.apply(DurableRecord{RecordKind::Promise, Ballot{3, 1}, 0, Value{}});
    Replica r(small(3), 2, disk);
    const Actions a = r.handle(msg(MessageType::Prepare, 0, 2, Ballot{2, 0}), Time::ms(1));
    CHECK(a.writes.empty());
    const auto nacks = sent(a, MessageType::Nack);
    REQUIRE(nacks.size() == 1);
    CHECK(nacks[0].to == 0);
    CHECK(nacks[0].ballot == Ballot{3, 1});
    CHECK(r.promised() == Ballot{3, 1});
}

TEST_CASE("An Accept below the promised ballot is refused and one at the promised ballot is accepted durably first") {
    DurableState disk;
    disk.apply(DurableRecord{RecordKind::Promise, Ballot{3, 1}, 0, Value{}});
    Replica r(small(3), 2, disk);

    Message low = msg(MessageType::Accept, 0, 2, Ballot{2, 0}, 4);
    low.value = value(1);
    const Actions a = r.handle(low, Time::ms(1));
    CHECK(sent(a, MessageType::Nack).size() == 1);
    CHECK(r.accepted(4).empty());

    Message ok = msg(MessageType::Accept, 1, 2, Ballot{3, 1}, 4);
    ok.value = value(2);
    const Actions b = r.handle(ok, Time::ms(2));
    REQUIRE(b.writes.size() == 1);
    CHECK(b.writes[0].record.kind == RecordKind::Accept);
    CHECK(b.writes[0].record.slot == 4);
    CHECK(sent(b, MessageType::Accepted).empty());
    const auto accepted = sent(complete_writes(r, b, Time::ms(2)), MessageType::Accepted);
    REQUIRE(accepted.size() == 1);
    CHECK(accepted[0].to == 1);
    CHECK(accepted[0].slot == 4);
    CHECK(accepted[0].ballot == Ballot{3, 1});
    CHECK(r.accepted(4) == AcceptedEntry{Ballot{3, 1}, value(2)});

    // A duplicate of the same Accept is answered again without another write.
    const Actions c = r.handle(ok, Time::ms(3));
    CHECK(c.writes.empty());
    CHECK(sent(c, MessageType::Accepted).size() == 1);
}

TEST_CASE("A new leader re-proposes the highest-ballot value a quorum reported and fills holes with no-ops") {
    const Config c = small(5);
    Replica r(c, 0);
    Actions a;
    r.campaign(Time::ms(1), a);
    complete_writes(r, a, Time::ms(1));
    const Ballot b = r.ballot();

    Message p1 = promise_from(1, 0, b, 3);
    p1.entries[0] = AcceptedEntry{Ballot{1, 1}, value(10)};
    p1.entries[2] = AcceptedEntry{Ballot{1, 1}, value(12)};
    Message p2 = promise_from(2, 0, b, 1);
    p2.entries[0] = AcceptedEntry{Ballot{2, 2}, value(20)};  // higher ballot at slot 0 wins
    CHECK(r.handle(p1, Time::ms(2)).leadership.empty());
    CHECK(r.handle(p1, Time::ms(2)).leadership.empty());  // a duplicate promise does not count twice
    const Actions d = complete_writes(r, r.handle(p2, Time::ms(2)), Time::ms(2));
    CHECK(r.role() == Role::Leader);
    REQUIRE(d.leadership.size() == 1);
    CHECK(d.leadership[0].leader);
    CHECK(d.leadership[0].ballot == b);

    const auto accepts = sent(d, MessageType::Accept);
    REQUIRE(accepts.size() == 3 * 4);  // slots 0..2 to replicas 1..4
    auto value_at = [&](Slot s) {
        for (const auto& m : accepts)
            if (m.slot == s) return m.value;
        return value(999);
    };
    CHECK(value_at(0) == value(20));
    CHECK(value_at(1).is_noop());
    CHECK(value_at(2) == value(12));
    CHECK(r.accepted(0) == AcceptedEntry{b, value(20)});  // its own acceptor took part
}

TEST_CASE("Phase 1 walks the log window by window until a quorum reports nothing further") {
    const Config c = small(3);
    Replica r(c, 0);
    Actions a;
    r.campaign(Time::ms(1), a);
    complete_writes(r, a, Time::ms(1));
    const Ballot b = r.ballot();
    Message p = promise_from(1, 0, b, kWindow + 1);  // replica 1 accepted something in the second window
    const Actions d = r.handle(p, Time::ms(2));
    CHECK(r.role() == Role::Candidate);
    const auto prepares = sent(d, MessageType::Prepare);
    REQUIRE(prepares.size() == 2);
    CHECK(prepares[0].slot == kWindow);

    Message q = promise_from(1, 0, b, kWindow + 1);
    q.slot = kWindow;
    q.entries[0] = AcceptedEntry{Ballot{1, 1}, value(5)};
    const Actions e = r.handle(q, Time::ms(3));
    CHECK(r.role() == Role::Leader);
    const auto accepts = sent(e, MessageType::Accept);
    REQUIRE(accepts.size() == 2 * (kWindow + 1));
    CHECK(accepts.back().slot == kWindow);
    CHECK(accepts.back().value == value(5));
}

TEST_CASE("A proposed value commits once a majority accepted it and the leader tells the others") {
    const Config c = small(3);
    Replica r(c, 0);
    elect(r, c, Time::ms(1));
    REQUIRE(r.is_leader(Time::ms(1)));

    Actions a;
    CHECK(r.propose(value(3), Time::ms(2), a) == ProposeResult::Accepted);
    const auto accepts = sent(a, MessageType::Accept);
    REQUIRE(accepts.size() == 2);
    CHECK(accepts[0].slot == 0);
    const Actions own = complete_writes(r, a, Time::ms(2));  // its own acceptance: 1 of 2 needed
    CHECK(own.commits.empty());

    Message acc = msg(MessageType::Accepted, 2, 0, r.ballot(), 0);
    const Actions d = r.handle(acc, Time::ms(3));
    REQUIRE(d.commits.size() == 1);
    CHECK(d.commits[0].slot == 0);
    CHECK(d.commits[0].value == value(3));
    CHECK(sent(d, MessageType::Decide).size() == 2);
    CHECK(r.commit_index() == 1);
    CHECK(r.handle(acc, Time::ms(3)).commits.empty());  // a late duplicate changes nothing
}

TEST_CASE("A non-leader refuses proposals") {
    Replica r(small(3), 1);
    Actions a;
    CHECK(r.propose(value(1), Time::ms(1), a) == ProposeResult::NotLeader);
    CHECK(a.empty());
}

TEST_CASE("A lagging replica asks for missing slots and commits them in order whatever order they arrive in") {
    const Config c = small(3);
    Replica f(c, 2);
    Message hb = msg(MessageType::Heartbeat, 0, 2, Ballot{1, 0});
    hb.log_index = 3;
    const Actions a = f.handle(hb, Time::ms(1));
    const auto asks = sent(a, MessageType::CatchUp);
    REQUIRE(asks.size() == 1);
    CHECK(asks[0].to == 0);
    CHECK(asks[0].slot == 0);
    CHECK(f.leader_hint() == 0);

    auto decide = [](Slot s) {
        Message d = msg(MessageType::Decide, 0, 2, Ballot{1, 0}, s);
        d.value = value(100 + s);
        return d;
    };
    CHECK(f.handle(decide(2), Time::ms(2)).commits.empty());
    const Actions b = f.handle(decide(1), Time::ms(2));
    CHECK(b.commits.empty());
    const Actions d = f.handle(decide(0), Time::ms(2));
    REQUIRE(d.commits.size() == 3);
    for (Slot s = 0; s < 3; ++s) {
        CHECK(d.commits[s].slot == s);
        CHECK(d.commits[s].value == value(100 + s));
    }

    // And it answers someone else's CatchUp from what it learned.
    const Actions e = f.handle(msg(MessageType::CatchUp, 1, 2, Ballot{}, 1), Time::ms(3));
    const auto decides = sent(e, MessageType::Decide);
    REQUIRE(decides.size() == 2);
    CHECK(decides[0].slot == 1);
    CHECK(decides[1].slot == 2);
}

TEST_CASE("A recovered replica keeps its promise and accepted values and never reuses a ballot") {
    const Config c = small(3);
    DurableState disk;
    {
        Replica r(c, 1);
        Actions a;
        r.campaign(Time::ms(1), a);
        complete_writes(r, a, Time::ms(1), &disk);
        CHECK(r.ballot() == Ballot{1, 1});
    }  // crash: volatile state gone
    CHECK(disk.promised == Ballot{1, 1});
    Replica back(c, 1, disk);
    CHECK(back.promised() == Ballot{1, 1});
    CHECK(back.role() == Role::Follower);
    Actions a;
    back.campaign(Time::ms(10), a);
    CHECK(back.ballot() == Ballot{2, 1});
}

TEST_CASE("A crash before the self-promise is durable leaves no Prepare out, so the ballot can be reused safely") {
    const Config c = small(3);
    Replica r(c, 1);
    Actions a;
    r.campaign(Time::ms(1), a);
    CHECK(sent(a, MessageType::Prepare).empty());  // nothing left yet; a crash now loses the ballot unseen
}

TEST_CASE("Without the lease a deposed leader cut off from the others goes on believing it leads") {
    const Config c = small(3, false);
    Replica r(c, 0);
    elect(r, c, Time::ms(1));
    CHECK(r.is_leader(Time::ms(1)));
    // Heartbeat timers fire, nobody answers: still leader an hour later.
    for (int i = 2; i < 50; ++i) CHECK(r.handle(timeout(0, TimerKind::Heartbeat), Time::ms(i)).leadership.empty());
    CHECK(r.is_leader(Time::s(3600)));
    Actions a;
    CHECK(r.propose(value(1), Time::s(3600), a) == ProposeResult::Accepted);
    // Only a higher ballot it can hear deposes it.
    const Actions d = r.handle(msg(MessageType::Nack, 1, 0, Ballot{9, 2}), Time::s(3600));
    REQUIRE(d.leadership.size() == 1);
    CHECK_FALSE(d.leadership[0].leader);
    CHECK(r.role() == Role::Follower);
}

TEST_CASE("With the lease a leader leads only while a majority acknowledged a heartbeat within the lease") {
    const Config c = small(3, true);
    Replica r(c, 0);
    Actions boot;
    r.start(Time::zero(), boot);
    const Time t0 = Time::ms(10);  // past the start-up refusal
    const Actions e = elect(r, c, t0);
    CHECK(r.role() == Role::Leader);
    CHECK_FALSE(r.is_leader(t0));  // phase 1 alone grants no lease
    CHECK(e.leadership.empty());
    const auto hbs = sent(e, MessageType::Heartbeat);
    REQUIRE(hbs.size() == 2);
    Message ack = msg(MessageType::HeartbeatAck, 1, 0, r.ballot());
    ack.lease_start = hbs[0].lease_start;
    const Actions a = r.handle(ack, t0 + Time::us(300));
    REQUIRE(a.leadership.size() == 1);
    CHECK(a.leadership[0].leader);
    const Time expiry = hbs[0].lease_start + c.lease_duration;
    CHECK(r.is_leader(expiry - Time::ps(1)));
    CHECK_FALSE(r.is_leader(expiry));
    const Actions lapse = r.handle(timeout(0, TimerKind::Lease), expiry);
    REQUIRE(lapse.leadership.size() == 1);
    CHECK_FALSE(lapse.leadership[0].leader);
    Actions p;
    CHECK(r.propose(value(1), expiry, p) == ProposeResult::NotLeader);
}

TEST_CASE("A follower holding a lease refuses another proposer's Prepare until the lease lapses") {
    const Config c = small(3, true);
    Replica f(c, 2);
    Actions boot;
    f.start(Time::zero(), boot);
    // Right after (re)start it refuses every Prepare: it may have granted a lease before it crashed.
    CHECK(sent(f.handle(msg(MessageType::Prepare, 1, 2, Ballot{1, 1}), Time::ms(1)), MessageType::Nack).size() == 1);

    const Time t = Time::ms(10);
    Message hb = msg(MessageType::Heartbeat, 0, 2, Ballot{1, 0});
    hb.lease_start = t;
    CHECK(sent(f.handle(hb, t), MessageType::HeartbeatAck).size() == 1);
    const Message prep = msg(MessageType::Prepare, 1, 2, Ballot{2, 1});
    CHECK(sent(f.handle(prep, t + c.lease_duration - Time::ps(1)), MessageType::Nack).size() == 1);
    const Actions ok = f.handle(prep, t + c.lease_duration);
    CHECK(ok.writes.size() == 1);
    CHECK(f.promised() == Ballot{2, 1});
}

TEST_CASE("A candidate preempted by a higher ballot steps down and backs off by a jitter drawn from its seed") {
    auto run = [](std::uint64_t seed) {
        Config c = small(3);
        c.seed = seed;
        Replica r(c, 0);
        Actions a;
        r.campaign(Time::ms(1), a);
        complete_writes(r, a, Time::ms(1));
        const Actions d = r.handle(msg(MessageType::Nack, 1, 0, Ballot{5, 1}), Time::ms(2));
        CHECK(r.role() == Role::Follower);
        REQUIRE(d.timers.size() == 1);
        CHECK(d.timers[0].kind == TimerKind::Election);
        CHECK(d.timers[0].at >= Time::ms(2) + c.election_timeout);
        CHECK(d.timers[0].at < Time::ms(2) + c.election_timeout + c.election_jitter);
        // Its next ballot outbids the one that preempted it.
        Actions e;
        r.campaign(Time::ms(3), e);
        CHECK(r.ballot() == Ballot{6, 0});
        return d.timers[0].at;
    };
    CHECK(run(7) == run(7));
    CHECK(run(7) != run(8));
}

TEST_CASE("A lower Nack does not depose a candidate and a stale heartbeat is refused") {
    const Config c = small(3);
    Replica r(c, 0);
    Actions a;
    r.campaign(Time::ms(1), a);
    complete_writes(r, a, Time::ms(1));
    r.handle(msg(MessageType::Nack, 1, 0, Ballot{0, 0}), Time::ms(2));
    CHECK(r.role() == Role::Candidate);
    const Actions d = r.handle(msg(MessageType::Heartbeat, 2, 0, Ballot{0, 2}), Time::ms(2));
    CHECK(sent(d, MessageType::Nack).size() == 1);
}

TEST_CASE("An invalid configuration is rejected") {
    Config c;
    c.replicas = 0;
    CHECK_THROWS_AS(Replica(c, 0), InputError);
    c.replicas = 65;
    CHECK_THROWS_AS(Replica(c, 0), InputError);
    CHECK_THROWS_AS(Replica(Config{}, 5), InputError);
}

TEST_CASE("A lagging candidate learns the committed prefix from a promise and runs phase 1 only past it") {
    const Config c = small(5);
    Replica r(c, 0);
    Actions a;
    r.campaign(Time::ms(1), a);
    complete_writes(r, a, Time::ms(1));
    const Ballot b = r.ballot();
    Message p1 = promise_from(1, 0, b, 12);
    p1.commit = 10;
    const auto asks = sent(r.handle(p1, Time::ms(2)), MessageType::CatchUp);
    REQUIRE(asks.size() == 1);
    CHECK(asks[0].to == 1);
    CHECK(asks[0].slot == 0);
    for (Slot s = 0; s < 10; ++s) {
        Message dec = msg(MessageType::Decide, 1, 0, Ballot{1, 1}, s);
        dec.value = value(50 + s);
        CHECK(r.handle(dec, Time::ms(3)).commits.size() == 1);
    }
    CHECK(r.commit_index() == 10);
    // The quorum for window [0, 4) completes; the next window starts at the commit index, not at 4.
    const Actions d = complete_writes(r, r.handle(promise_from(2, 0, b, 12), Time::ms(4)), Time::ms(4));
    const auto prepares = sent(d, MessageType::Prepare);
    REQUIRE(prepares.size() == 4);
    CHECK(prepares[0].slot == 10);
    CHECK(r.role() == Role::Candidate);

    Message q1 = promise_from(1, 0, b, 12);
    q1.slot = 10;
    q1.entries[0] = AcceptedEntry{Ballot{1, 1}, value(60)};
    Message q2 = promise_from(2, 0, b, 11);
    q2.slot = 10;
    r.handle(q1, Time::ms(5));
    const Actions e = r.handle(q2, Time::ms(5));
    CHECK(r.role() == Role::Leader);
    const auto accepts = sent(e, MessageType::Accept);
    REQUIRE(accepts.size() == 2 * 4);  // slots 10 and 11 only: 0..9 are known to be chosen
    CHECK(accepts.front().slot == 10);
    CHECK(accepts.front().value == value(60));
    CHECK(accepts.back().slot == 11);
    CHECK(accepts.back().value.is_noop());
}

TEST_CASE("A leader deposed only by refused writes ignores the new leader's heartbeats until one of its own writes is refused") {
    Config c = small(3, false);
    c.depose_on_write_only = true;
    Replica r(c, 0);
    elect(r, c, Time::ms(1));
    const Ballot newer{r.ballot().round + 1, 2};
    CHECK(r.handle(msg(MessageType::Heartbeat, 2, 0, newer), Time::ms(2)).leadership.empty());
    Message hb_nack = msg(MessageType::Nack, 1, 0, newer);
    hb_nack.refused = MessageType::Heartbeat;
    CHECK(r.handle(hb_nack, Time::ms(2)).leadership.empty());
    CHECK(r.is_leader(Time::ms(2)));

    Message write_nack = msg(MessageType::Nack, 1, 0, newer);
    write_nack.refused = MessageType::Accept;
    const Actions d = r.handle(write_nack, Time::ms(3));
    REQUIRE(d.leadership.size() == 1);
    CHECK_FALSE(d.leadership[0].leader);
    CHECK(r.role() == Role::Follower);
}

TEST_CASE("By default a leader steps down as soon as it hears a higher ballot") {
    const Config c = small(3, false);
    Replica r(c, 0);
    elect(r, c, Time::ms(1));
    const Actions d = r.handle(msg(MessageType::Heartbeat, 2, 0, Ballot{r.ballot().round + 1, 2}), Time::ms(2));
    REQUIRE(d.leadership.size() == 1);
    CHECK_FALSE(d.leadership[0].leader);
    CHECK(r.leader_hint() == 2);
}

TEST_CASE("A Nack names the message it refuses") {
    DurableState disk;
    disk.apply(DurableRecord{RecordKind::Promise, Ballot{3, 1}, 0, Value{}});
    Replica r(small(3), 2, disk);
    const auto a = sent(r.handle(msg(MessageType::Accept, 0, 2, Ballot{2, 0}), Time::ms(1)), MessageType::Nack);
    const auto h = sent(r.handle(msg(MessageType::Heartbeat, 0, 2, Ballot{2, 0}), Time::ms(1)), MessageType::Nack);
    REQUIRE(a.size() == 1);
    REQUIRE(h.size() == 1);
    CHECK(a[0].refused == MessageType::Accept);
    CHECK(h[0].refused == MessageType::Heartbeat);
}
