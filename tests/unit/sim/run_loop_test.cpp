// The run loops of every queue kind (the heap's generic loop is the reference; the calendar and radix queues
// have loops of their own that read their events in place, in batches) hand out the same events in the same
// order and stop at the same places, on random workloads that exercise their batch-ending paths: pushes into
// the events being popped, far pushes into the overflow heap, end times inside a batch, budgets, stop().
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "loom/sim/channel.hpp"
#include "loom/sim/simulator.hpp"
#include "loom/sim/timer.hpp"

using namespace loom;
using namespace loom::sim;
using namespace loom::literals;

namespace {

struct Record {
    std::int64_t time;
    std::uint32_t who;
    std::uint32_t arg;
    bool operator==(const Record&) const = default;
};

struct Shared {
    std::vector<Record> log;
    std::int64_t population = 0;  // tokens in flight
    std::uint64_t stop_at = 0;     // stop() at this many records (0: never)
    std::uint64_t throw_at = 0;    // throw at this many records (0: never)
    std::uint64_t wrong_running = 0;  // handlers that saw running() or now() other than their own
};

// On each token: records it, then sends 0, 1 or 2 tokens (keeping the population near its start) to random
// members after a delay drawn from a mix: the minimum (lands in the events being popped), short, medium,
// a same-time burst of the minimum, and far (past any ring: the overflow heap).
class Member : public Component {
public:
    Member(Context& ctx, Shared* shared, std::uint32_t id, int tokens)
        : Component(ctx), port(ctx, "ch", this, handler<&Member::on_token>), shared_(shared), id_(id), tokens_(tokens) {}
    void init() override {
        for (int k = 0; k < tokens_; ++k) send(static_cast<std::uint32_t>(id_ * 1000 + static_cast<std::uint32_t>(k)));
        shared_->population += tokens_;
    }
    ChannelPort port;

private:
    void on_token(std::uint32_t arg) {
        shared_->log.push_back({now().count(), id_, arg});
        --shared_->population;
        if (shared_->log.size() == shared_->stop_at) ctx().sim().stop();
        if (shared_->log.size() == shared_->throw_at) throw std::runtime_error("handler failed");
        const std::uint64_t r = ctx().rng().uniform(16);
        const int n = r == 0 && shared_->population > 8 ? 0 : r == 1 ? 2 : 1;
        for (int k = 0; k < n; ++k) send(arg + 1);
        shared_->population += n;
    }
    void send(std::uint32_t arg) {
        const auto to = static_cast<std::uint32_t>(ctx().rng().uniform(port.channel_size()));
        const std::uint64_t kind = ctx().rng().uniform(10);
        std::int64_t delay = 1;
        if (kind < 2) {
            delay = 1;
        } else if (kind < 5) {
            delay = 1 + static_cast<std::int64_t>(ctx().rng().uniform(2000));
        } else if (kind < 9) {
            delay = 1 + static_cast<std::int64_t>(ctx().rng().uniform(200'000));
        } else if (ctx().rng().uniform(4) == 0) {
            delay = 1'000'000'000 + static_cast<std::int64_t>(ctx().rng().uniform(1'000'000'000));
        } else {
            delay = 1 + static_cast<std::int64_t>(ctx().rng().uniform(20'000'000));
        }
        port.send(to, arg, Time::ps(delay));
    }
    Shared* shared_;
    std::uint32_t id_;
    int tokens_;
};

struct Outcome {
    std::vector<Record> log;
    std::vector<StopReason> reasons;
    std::vector<std::int64_t> nows;
    std::vector<std::uint64_t> events_per_run;  // events_handled() after each run (run_mixed)
    std::uint64_t events = 0;
    std::size_t peak = 0;
    std::size_t pending = 0;
    TrafficTally sent, received;  // the channel's
};

// Runs the workload through `ends` (each run's end time and event budget), in order.
Outcome run_with(QueueKind kind, std::uint64_t seed, const std::vector<RunLimits>& limits, Shared shared = {}) {
    SimulatorOptions options;
    options.queue = kind;
    options.seed = seed;
    Simulator sim(options);
    constexpr std::uint32_t kMembers = 37;
    Channel& ch = sim.add_channel("net", kMembers, Time::ps(1));
    std::vector<Member*> members;
    for (std::uint32_t i = 0; i < kMembers; ++i) {
        std::string name = "m";
        name += std::to_string(i);
        members.push_back(&sim.add<Member>(name, &shared, i, 1 + static_cast<int>(i % 5)));
        members.back()->port.attach(ch, i);
    }
    sim.init();
    Outcome out;
    for (const RunLimits& l : limits) {
        try {
            const RunResult r = sim.run(l);
            out.reasons.push_back(r.reason);
        } catch (const std::runtime_error&) {
            out.reasons.push_back(StopReason::Interrupted);  // marks the exception
        }
        out.nows.push_back(sim.now_ps());
    }
    out.log = shared.log;
    out.events = sim.events_handled();
    out.peak = sim.peak_pending();
    out.pending = sim.pending();
    out.sent = ch.sent();
    out.received = ch.received();
    return out;
}

void check_same(const Outcome& a, const Outcome& b) {
    CHECK(a.log.size() == b.log.size());
    CHECK(a.log == b.log);
    CHECK(a.reasons == b.reasons);
    CHECK(a.nows == b.nows);
    CHECK(a.events == b.events);
    CHECK(a.peak == b.peak);
    CHECK(a.pending == b.pending);
    CHECK(a.sent.count == b.sent.count);
    CHECK(a.sent.time_sum == b.sent.time_sum);
    CHECK(a.received.count == b.received.count);
    CHECK(a.received.time_sum == b.received.time_sum);
}

const QueueKind kKinds[] = {QueueKind::Calendar, QueueKind::Radix, QueueKind::TwoLevel};

}  // namespace

TEST_CASE("Every queue kind's run loop hands out the heap's events in the heap's order") {
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
        const std::vector<RunLimits> limits{{Time::ps(3'000'000'000)}};
        const Outcome heap = run_with(QueueKind::Heap, seed, limits);
        REQUIRE(heap.log.size() > 5000);
        REQUIRE(heap.pending > 0);
        for (QueueKind kind : kKinds) {
            INFO("queue " << to_string(kind) << " seed " << seed);
            check_same(heap, run_with(kind, seed, limits));
        }
    }
}

TEST_CASE("Every queue kind's run loop stops at T-1 and T alike, T inclusive, and continues") {
    // First find an event time T that is not the first of its batch, from the heap's log.
    const Outcome probe = run_with(QueueKind::Heap, 7, {{Time::ps(2'000'000'000)}});
    REQUIRE(probe.log.size() > 1000);
    const std::int64_t t = probe.log[probe.log.size() / 2].time;
    std::vector<RunLimits> limits{{Time::ps(t - 1)}, {Time::ps(t)}, {Time::ps(t)}, {Time::ps(t + 1)},
                                  {Time::ps(2'500'000'000)}};
    const Outcome heap = run_with(QueueKind::Heap, 7, limits);
    REQUIRE(heap.reasons.size() == 5);
    CHECK(heap.reasons[0] == StopReason::EndTime);
    CHECK(heap.nows[0] == t - 1);
    CHECK(heap.nows[1] == t);
    CHECK(heap.nows[2] == t);
    // Every event at t was handled by the second run: none are left for the third.
    std::size_t at_t = 0;
    for (const Record& r : heap.log) at_t += r.time == t ? 1 : 0;
    CHECK(at_t >= 1);
    for (QueueKind kind : kKinds) {
        INFO("queue " << to_string(kind));
        check_same(heap, run_with(kind, 7, limits));
    }
}

TEST_CASE("Every queue kind's run loop stops on budgets, stop() and exceptions at the same event") {
    const std::vector<RunLimits> budgets{{Time::max(), 1}, {Time::max(), 2}, {Time::max(), 777}, {Time::max(), 3},
                                         {Time::ps(2'000'000'000), 3000}, {Time::ps(2'500'000'000)}};
    Shared stopping;
    stopping.stop_at = 1234;
    Shared throwing;
    throwing.throw_at = 2345;
    const std::vector<RunLimits> twice{{Time::ps(2'000'000'000)}, {Time::ps(2'500'000'000)}};
    const Outcome heap = run_with(QueueKind::Heap, 3, budgets);
    const Outcome heap_stop = run_with(QueueKind::Heap, 3, twice, stopping);
    const Outcome heap_throw = run_with(QueueKind::Heap, 3, twice, throwing);
    CHECK(heap.reasons[0] == StopReason::EventBudget);
    CHECK(heap_stop.reasons[0] == StopReason::Stopped);
    CHECK(heap_stop.log.size() > 1234);  // the second run continued
    CHECK(heap_throw.reasons[0] == StopReason::Interrupted);
    CHECK(heap_throw.log.size() > 2345);
    for (QueueKind kind : kKinds) {
        INFO("queue " << to_string(kind));
        check_same(heap, run_with(kind, 3, budgets));
        check_same(heap_stop, run_with(kind, 3, twice, stopping));
        check_same(heap_throw, run_with(kind, 3, twice, throwing));
    }
}

TEST_CASE("An exception from a handler leaves the event count and the peak of pending events written") {
    Shared throwing;
    throwing.throw_at = 100;
    for (QueueKind kind : {QueueKind::Heap, QueueKind::Calendar, QueueKind::Radix, QueueKind::TwoLevel}) {
        INFO("queue " << to_string(kind));
        const Outcome o = run_with(kind, 5, {{Time::max()}}, throwing);
        CHECK(o.reasons[0] == StopReason::Interrupted);
        CHECK(o.events == 100);  // the throwing event counts: it was being handled
        CHECK(o.peak >= o.pending);
    }
}

TEST_CASE("Every queue kind's send path counts each send and arrival in the channel's tallies") {
    // The tallies are updated on the send and arrival paths (ChannelPort::send, the delivery trampoline); the
    // push behind them is bound to the queue kind when the simulator is built.
    for (QueueKind kind : {QueueKind::Heap, QueueKind::Calendar, QueueKind::Radix, QueueKind::TwoLevel}) {
        INFO("queue " << to_string(kind));
        const Outcome o = run_with(kind, 11, {{Time::ps(1'000'000'000)}});
        REQUIRE(o.log.size() > 1000);
        std::uint64_t arrival_sum = 0;
        for (const Record& r : o.log) arrival_sum += static_cast<std::uint64_t>(r.time);
        CHECK(o.received.count == o.log.size());
        CHECK(o.received.time_sum == arrival_sum);
        CHECK(o.sent.count == o.received.count + o.pending);  // every send is delivered or still pending
        const Occupancy occ = occupancy(o.sent, o.received, Time::ps(o.nows.back()));
        CHECK(occ.in_flight == static_cast<std::int64_t>(o.pending));
        CHECK(occ.average > 0);
    }
}

namespace {

// Two handler types on one channel (Mixed<0> and Mixed<1>: two trampolines) and a timer per member, so that a
// radix window mixes them: a channel endpoint's batch (Simulator::next_in_batch) must end at the first event
// of another handler and leave it to the loop. Each handler checks that running() is its own component and
// that now() is its event's time (next_in_batch sets both); a token often comes back after 1 ps (into the
// window being handed out) and arms the timer 0-2 ps ahead.
template <int kKind>
class Mixed : public Component {
public:
    Mixed(Context& ctx, Shared* shared, std::uint32_t id)
        : Component(ctx),
          port(ctx, "ch", this, handler<&Mixed::on_token>),
          timer_(ctx, this, handler<&Mixed::on_timer>),
          shared_(shared),
          id_(id) {}
    void init() override {
        for (std::uint32_t k = 0; k < 3; ++k) send(id_ * 1000 + k);
    }
    ChannelPort port;

private:
    void record(std::uint32_t arg, std::int64_t expected) {
        if (ctx().sim().running() != &ctx() || now().count() != expected) ++shared_->wrong_running;
        shared_->log.push_back({now().count(), id_ * 2 + kKind, arg});
        if (shared_->log.size() == shared_->stop_at) ctx().sim().stop();
        if (shared_->log.size() == shared_->throw_at) throw std::runtime_error("handler failed");
    }
    void on_token(std::uint32_t arg) {
        record(arg, last_arrival());
        if (ctx().rng().uniform(8) == 0) timer_.arm_in(Time::ps(static_cast<std::int64_t>(ctx().rng().uniform(3))));
        send(arg + 1);
    }
    void on_timer() { record(0xffffffffu, timer_.expiry().count()); }
    // The arrival time the trampoline tallied for this event: the difference of the received time sums.
    std::int64_t last_arrival() {
        const std::uint64_t sum = port.received().time_sum;
        const auto t = static_cast<std::int64_t>(sum - seen_sum_);
        seen_sum_ = sum;
        return t;
    }
    void send(std::uint32_t arg) {
        const auto to = static_cast<std::uint32_t>(ctx().rng().uniform(port.channel_size()));
        const std::uint64_t kind = ctx().rng().uniform(10);
        const std::int64_t delay = kind < 3   ? 1
                                   : kind < 7 ? 1 + static_cast<std::int64_t>(ctx().rng().uniform(2000))
                                              : 1 + static_cast<std::int64_t>(ctx().rng().uniform(200'000));
        port.send(to, arg, Time::ps(delay));
    }
    Timer timer_;
    Shared* shared_;
    std::uint32_t id_;
    std::uint64_t seen_sum_ = 0;
};

Outcome run_mixed(QueueKind kind, const std::vector<RunLimits>& limits, Shared& shared) {
    SimulatorOptions options;
    options.queue = kind;
    options.seed = 9;
    Simulator sim(options);
    constexpr std::uint32_t kMembers = 29;
    Channel& ch = sim.add_channel("net", kMembers, Time::ps(1));
    for (std::uint32_t i = 0; i < kMembers; ++i) {
        const std::string name = "m" + std::to_string(i);
        if (i % 3 == 2) {
            sim.add<Mixed<1>>(name, &shared, i).port.attach(ch, i);
        } else {
            sim.add<Mixed<0>>(name, &shared, i).port.attach(ch, i);
        }
    }
    sim.init();
    Outcome out;
    for (const RunLimits& l : limits) {
        try {
            out.reasons.push_back(sim.run(l).reason);
        } catch (const std::runtime_error&) {
            out.reasons.push_back(StopReason::Interrupted);
        }
        out.nows.push_back(sim.now_ps());
        out.events_per_run.push_back(sim.events_handled());
    }
    out.log = shared.log;
    out.events = sim.events_handled();
    out.peak = sim.peak_pending();
    out.pending = sim.pending();
    out.sent = ch.sent();
    out.received = ch.received();
    return out;
}

}  // namespace

TEST_CASE("A channel endpoint's batch of window events ends where the loop's next event differs, as the heap's") {
    // Budgets, end times, stop() and an exception all fall inside batches (most events are channel arrivals);
    // the heap's loop has no batches and is the reference.
    const std::vector<RunLimits> limits{{Time::max(), 1},   {Time::max(), 2},         {Time::max(), 501},
                                        {Time::ps(40'000)}, {Time::ps(40'001)},       {Time::max(), 3},
                                        {Time::ps(900'000)}, {Time::ps(1'500'000), 2000}, {Time::ps(3'000'000)}};
    Shared plain, stopping, throwing;
    stopping.stop_at = 4321;
    throwing.throw_at = 3210;
    const Outcome heap = run_mixed(QueueKind::Heap, limits, plain);
    REQUIRE(heap.log.size() > 8000);
    std::size_t timers = 0, kinds[2] = {0, 0};
    for (const Record& r : heap.log) {
        timers += r.arg == 0xffffffffu ? 1 : 0;
        ++kinds[r.who % 2];
    }
    CHECK(timers > 100);  // the windows do mix the three handlers
    CHECK(kinds[1] > 1000);
    CHECK(plain.wrong_running == 0);
    Shared heap_stopping = stopping, heap_throwing = throwing;
    const Outcome heap_stop = run_mixed(QueueKind::Heap, limits, heap_stopping);
    const Outcome heap_throw = run_mixed(QueueKind::Heap, limits, heap_throwing);
    CHECK(std::count(heap_stop.reasons.begin(), heap_stop.reasons.end(), StopReason::Stopped) == 1);
    CHECK(std::count(heap_throw.reasons.begin(), heap_throw.reasons.end(), StopReason::Interrupted) == 1);
    CHECK(heap_throw.log.size() > 3210);  // the later runs went on
    for (QueueKind kind : {QueueKind::Radix, QueueKind::Calendar, QueueKind::TwoLevel}) {
        INFO("queue " << to_string(kind));
        Shared p, st = stopping, th = throwing;
        check_same(heap, run_mixed(kind, limits, p));
        check_same(heap_stop, run_mixed(kind, limits, st));
        check_same(heap_throw, run_mixed(kind, limits, th));
        CHECK(p.wrong_running == 0);
        CHECK(st.wrong_running == 0);
        CHECK(th.wrong_running == 0);
    }
}

TEST_CASE("An exception thrown in the middle of a channel endpoint's batch counts the events handled so far") {
    for (std::uint64_t at : {1u, 2u, 64u, 1000u}) {
        INFO("throw at " << at);
        const std::vector<RunLimits> limits{{Time::max()}, {Time::ps(100'000'000)}};
        Shared throwing, reference;
        throwing.throw_at = reference.throw_at = at;
        const Outcome o = run_mixed(QueueKind::Radix, limits, throwing);
        CHECK(o.reasons[0] == StopReason::Interrupted);
        // The throwing event counts (it was being handled), as do stale timer events, which record nothing.
        CHECK(o.events_per_run[0] >= at);
        CHECK(o.log.size() > at);          // the next run went on from the event after it
        const Outcome heap = run_mixed(QueueKind::Heap, limits, reference);
        CHECK(heap.events_per_run == o.events_per_run);
        check_same(heap, o);
    }
}

namespace {

// One handler type only (every event a channel arrival of the same trampoline), so that with the radix queue a
// whole window is one batch and a stop() from a handler falls inside it.
class Relay : public Component {
public:
    Relay(Context& ctx, Shared* shared, std::uint32_t id)
        : Component(ctx), port(ctx, "ch", this, handler<&Relay::on_token>), shared_(shared), id_(id) {}
    void init() override {
        for (std::uint32_t k = 0; k < 4; ++k) forward(id_ * 100 + k);
    }
    ChannelPort port;

private:
    void on_token(std::uint32_t arg) {
        shared_->log.push_back({now().count(), id_, arg});
        if (shared_->log.size() == shared_->stop_at) ctx().sim().stop();
        forward(arg);
    }
    void forward(std::uint32_t arg) {
        const auto to = static_cast<std::uint32_t>(ctx().rng().uniform(port.channel_size()));
        port.send(to, arg, Time::ps(1 + static_cast<std::int64_t>(ctx().rng().uniform(3000))));
    }
    Shared* shared_;
    std::uint32_t id_;
};

struct RelayRun {
    StopReason reason;
    std::uint64_t events;
    std::vector<Record> log;
};

RelayRun run_relay(QueueKind kind, std::uint64_t stop_at) {
    SimulatorOptions options;
    options.queue = kind;
    options.seed = 4;
    Simulator sim(options);
    constexpr std::uint32_t kMembers = 50;
    Channel& ch = sim.add_channel("net", kMembers, Time::ps(1));
    Shared shared;
    shared.stop_at = stop_at;
    for (std::uint32_t i = 0; i < kMembers; ++i) sim.add<Relay>("r" + std::to_string(i), &shared, i).port.attach(ch, i);
    sim.init();
    const RunResult r = sim.run({Time::ps(10'000'000)});
    return {r.reason, sim.events_handled(), shared.log};
}

}  // namespace

TEST_CASE("stop() from a handler inside a channel endpoint's batch ends the run after that event") {
    for (std::uint64_t at : {1u, 2u, 37u, 38u, 500u, 1234u, 5001u}) {
        INFO("stop at " << at);
        const RelayRun heap = run_relay(QueueKind::Heap, at);
        REQUIRE(heap.reason == StopReason::Stopped);
        REQUIRE(heap.events == at);
        for (QueueKind kind : {QueueKind::Radix, QueueKind::Calendar, QueueKind::TwoLevel}) {
            INFO("queue " << to_string(kind));
            const RelayRun o = run_relay(kind, at);
            CHECK(o.reason == StopReason::Stopped);
            CHECK(o.events == at);
            CHECK(o.log == heap.log);
        }
    }
}

namespace {

// A burst of 40 events in the first nanoseconds, then one event alone far later: the calendar loads the burst
// into its run, then the lone event into the same buffer, whose places past it still hold burst events. Each
// arrival of the lone token sends it on after 1 ps, which lands before the loaded buckets' end (the calendar's
// near list) while the run is exhausted: the loop must take it from near_, not read past the run's end.
class Burst : public Component {
public:
    Burst(Context& ctx, std::vector<Record>* log) : Component(ctx), port(ctx, "ch", this, handler<&Burst::on_token>), log_(log) {}
    void init() override {
        for (std::uint32_t k = 0; k < 40; ++k) port.send(0, k, Time::ps(1000 + k));
        port.send(0, 999, Time::ps(10'000'000));
    }
    ChannelPort port;

private:
    void on_token(std::uint32_t arg) {
        log_->push_back({now().count(), 0, arg});
        if (arg == 999 && ++hops_ < 6) port.send(0, arg, Time::ps(1));
    }
    std::vector<Record>* log_;
    int hops_ = 0;
};

std::vector<Record> run_burst(QueueKind kind) {
    SimulatorOptions options;
    options.queue = kind;
    Simulator sim(options);
    Channel& ch = sim.add_channel("net", 1, Time::ps(1));
    std::vector<Record> log;
    Burst& b = sim.add<Burst>("b", &log);
    b.port.attach(ch, 0);
    sim.init();
    sim.run();
    return log;
}

}  // namespace

TEST_CASE("A run loop merging pushes into the loaded buckets does not read past a shorter run's end") {
    const std::vector<Record> heap = run_burst(QueueKind::Heap);
    REQUIRE(heap.size() == 46);
    for (QueueKind kind : kKinds) {
        INFO("queue " << to_string(kind));
        CHECK(run_burst(kind) == heap);
    }
}

namespace {

// Ananta's shape in small: a thousand long timers (re-armed 100-140 ms ahead) make the calendar's buckets wide
// (the ring must cover them with at most `pending` buckets), while a few packets hop a link delay (about 1 us)
// or a longer way (5-60 us) ahead, or at once, so most pushes land before the loaded buckets' end (the calendar's
// near_), among far events there; ties in time are common (delays are whole nanoseconds).
class Spread : public Component {
public:
    static constexpr std::uint32_t kTimers = 1024, kPackets = 8;
    Spread(Context& ctx, std::vector<Record>* log) : Component(ctx), port(ctx, "ch", this, handler<&Spread::on_token>), log_(log) {}
    void init() override {
        for (std::uint32_t k = 0; k < kTimers; ++k) port.send(0, k, Time::ps(timer_delay()));
        for (std::uint32_t k = 0; k < kPackets; ++k) port.send(0, kTimers + k, Time::ps(packet_delay()));
    }
    ChannelPort port;

private:
    std::int64_t timer_delay() { return 100'000'000'000 + 1000 * static_cast<std::int64_t>(ctx().rng().uniform(40'000'000)); }
    std::int64_t packet_delay() {
        const std::uint64_t kind = ctx().rng().uniform(10);
        if (kind < 2) return 1;                                                                   // at once
        if (kind < 7) return 1000 * (900 + static_cast<std::int64_t>(ctx().rng().uniform(200)));   // a link
        return 1000 * (5000 + static_cast<std::int64_t>(ctx().rng().uniform(55'000)));            // farther
    }
    void on_token(std::uint32_t arg) {
        log_->push_back({now().count(), 0, arg});
        port.send(0, arg, Time::ps(arg < kTimers ? timer_delay() : packet_delay()));
    }
    std::vector<Record>* log_;
};

std::vector<Record> run_spread(QueueKind kind) {
    SimulatorOptions options;
    options.queue = kind;
    options.seed = 5;
    Simulator sim(options);
    Channel& ch = sim.add_channel("net", 1, Time::ps(1));
    std::vector<Record> log;
    Spread& s = sim.add<Spread>("s", &log);
    s.port.attach(ch, 0);
    sim.init();
    sim.run(RunLimits{Time::ps(150'000'000'000)});
    return log;
}

}  // namespace

TEST_CASE("Every queue kind's run loop keeps the heap's order with wide buckets and pushes spread far into them") {
    const std::vector<Record> heap = run_spread(QueueKind::Heap);
    REQUIRE(heap.size() > 20'000);
    for (QueueKind kind : kKinds) {
        INFO("queue " << to_string(kind));
        CHECK(run_spread(kind) == heap);
    }
}
