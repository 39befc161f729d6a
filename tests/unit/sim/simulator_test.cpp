#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <string>
#include <vector>

#include "loom/base/error.hpp"
#include "loom/sim/simulator.hpp"
#include "loom/stats/document.hpp"
#include "loom/stats/group.hpp"
#include "test_components.hpp"

using namespace loom;
using namespace loom::sim;
using namespace loom::literals;
using loom::sim::test::Alarm;
using loom::sim::test::Journal;
using loom::sim::test::Sink;
using loom::sim::test::Source;

namespace {

// Ticks every `period` with a timer; counts ticks.
class Ticker : public Component {
public:
    Ticker(Context& ctx, Time period) : Component(ctx), timer(ctx, this, handler<&Ticker::on_tick>), period_(period) {}
    void init() override { timer.arm_in(period_); }
    Timer timer;
    std::uint64_t ticks = 0;
    std::uint64_t stop_after = 0;

private:
    void on_tick() {
        ++ticks;
        if (ticks == stop_after) ctx().sim().stop();
        timer.arm_in(period_);
    }
    Time period_;
};

}  // namespace

TEST_CASE("The end time is inclusive and a run stopped by it ends exactly there") {
    Simulator sim;
    auto& t = sim.add<Ticker>("t", 10_ns);
    sim.init();
    RunResult r = sim.run({100_ns});
    CHECK(r.reason == StopReason::EndTime);
    CHECK(t.ticks == 10);  // 10, 20, ..., 100 ns: the event at exactly 100 ns is handled
    CHECK(sim.now() == 100_ns);
    r = sim.run({Time::ps(109'999)});
    CHECK(t.ticks == 10);
    CHECK(sim.now() == Time::ps(109'999));
    CHECK(r.events == 0);
}

TEST_CASE("An event budget stops a run after that many events and the run can continue") {
    Simulator sim;
    auto& t = sim.add<Ticker>("t", 1_ns);
    sim.init();
    RunResult r = sim.run({Time::max(), 25});
    CHECK(r.reason == StopReason::EventBudget);
    CHECK(r.events == 25);
    CHECK(t.ticks == 25);
    CHECK(sim.now() == 25_ns);
    r = sim.run({30_ns, 100});
    CHECK(r.reason == StopReason::EndTime);
    CHECK(r.events == 5);
    CHECK(sim.events_handled() == 30);
}

TEST_CASE("A run with nothing pending stops as quiescent at the last event's time") {
    Journal journal;
    Simulator sim;
    auto& src = sim.add<Source>("src", 7_ns, 3u);
    auto& sink = sim.add<Sink>("sink", &journal);
    sim.connect(src.out, sink.in, 7_ns);
    sim.init();
    const RunResult r = sim.run({1_us});
    CHECK(r.reason == StopReason::Quiescent);
    CHECK(r.events == 3);
    CHECK(sim.now() == 7_ns);
    CHECK(sim.pending() == 0);
}

TEST_CASE("stop() from a handler ends the run after that event") {
    Simulator sim;
    auto& t = sim.add<Ticker>("t", 1_ns);
    t.stop_after = 7;
    sim.init();
    RunResult r = sim.run();
    CHECK(r.reason == StopReason::Stopped);
    CHECK(t.ticks == 7);
    r = sim.run({10_ns});
    CHECK(r.reason == StopReason::EndTime);
    CHECK(t.ticks == 10);
}

TEST_CASE("A raised stop flag ends the run at the next check point as interrupted") {
    std::atomic<bool> stop{false};
    SimulatorOptions options;
    options.stop_flag = &stop;
    options.stop_poll_log2 = 4;
    Simulator sim(options);
    auto& t = sim.add<Ticker>("t", 1_ns);
    sim.init();
    RunResult r = sim.run({100_ns});
    CHECK(r.reason == StopReason::EndTime);  // never raised: polling changes nothing
    CHECK(t.ticks == 100);
    stop = true;
    r = sim.run({1_us});
    CHECK(r.reason == StopReason::Interrupted);  // raised before the run: it stops at once
    CHECK(r.events == 0);
    stop = false;
    sim.set_progress([&stop](const Progress&) { stop = true; }, 3);  // raised from inside, at event 104
    r = sim.run({1_us});
    CHECK(r.reason == StopReason::Interrupted);
    CHECK(sim.events_handled() == 104);  // read at the next check point: here the progress hook's own
    CHECK(std::string(to_string(StopReason::Interrupted)) == "interrupted");
}

TEST_CASE("The progress hook is called every 2^k events") {
    Simulator sim;
    sim.add<Ticker>("t", 1_ns);
    std::vector<std::uint64_t> seen;
    sim.set_progress([&seen](const Progress& p) { seen.push_back(p.events); }, 4);
    sim.init();
    sim.run({Time::max(), 70});
    CHECK(seen == std::vector<std::uint64_t>{16, 32, 48, 64});
}

TEST_CASE("Simultaneous arrivals are ordered by source id, not by when they were sent") {
    Journal journal;
    Simulator sim;
    // "a_late" sends at 10 ns with 10 ns latency; "b_early" sends at 0 with 20 ns latency. Both arrive at
    // 20 ns; b_early's event was inserted first, a_late's has the lower source id (its path ranks first).
    auto& trigger = sim.add<Source>("trigger", 10_ns);
    auto& early = sim.add<Source>("b_early", 20_ns);  // created before a_late: creation order does not count
    auto& late = sim.add<test::Relay>("a_late", 10_ns);
    auto& sink_a = sim.add<Sink>("sink_a", &journal);
    auto& sink_b = sim.add<Sink>("sink_b", &journal);
    sim.connect(trigger.out, late.in, 10_ns);
    sim.connect(late.out, sink_a.in, 10_ns);
    sim.connect(early.out, sink_b.in, 20_ns);
    sim.init();
    CHECK(late.ctx().source() == 0);
    CHECK(early.ctx().source() == 1);
    sim.run();
    REQUIRE(journal.size() == 2);
    CHECK(journal[0].time == 20'000);
    CHECK(journal[1].time == 20'000);
    CHECK(journal[0].who == "sink_a");  // sent by "a_late", source id 0 < "b_early"'s 1
    CHECK(journal[1].who == "sink_b");
}

TEST_CASE("Lifecycle misuse is reported") {
    Simulator sim;
    sim.add<Ticker>("t", 1_ns);
    CHECK_THROWS_AS(sim.add<Ticker>("t", 1_ns), InternalError);  // duplicate path
    CHECK_THROWS_AS(sim.run(), InternalError);                     // before init
    sim.init();
    CHECK_THROWS_AS(sim.add<Ticker>("u", 1_ns), InternalError);  // after init
    CHECK_THROWS_AS(sim.init(), InternalError);
    sim.run({5_ns});
    sim.finish();
    CHECK_THROWS_AS(sim.run(), InternalError);
    CHECK_THROWS_AS(sim.finish(), InternalError);
}

TEST_CASE("finish writes the kernel's statistics") {
    Simulator sim;
    sim.add<Ticker>("t", 1_ns);
    sim.init();
    sim.run({10_ns});
    sim.finish();
    const stats::Json doc = sim.stats().to_json(sim.now());
    CHECK(doc.at("kernel").at("events_handled") == 10);
    CHECK(doc.at("kernel").at("pending_at_end") == 1);
    CHECK(doc.at("kernel").at("peak_pending") == 1);
    CHECK(sim.perf_fields().find("queue=calendar") != std::string::npos);
}

namespace {

std::vector<std::string> run_pattern(QueueKind kind) {
    Journal journal;
    SimulatorOptions options;
    options.queue = kind;
    Simulator sim(options);
    std::vector<Alarm*> alarms;
    for (int i = 0; i < 50; ++i) {
        std::string name = "a";  // appended, not `"a" + std::to_string(i)`: g++ 12 -O2 warns falsely on that
        name += std::to_string(i);
        auto& a = sim.add<Alarm>(name, &journal, static_cast<Phase>(i % 4));
        a.rearm_in = Time::ps(1000 * (i % 5 + 1));
        alarms.push_back(&a);
    }
    sim.init();
    for (auto* a : alarms) a->timer.arm_at(Time::ps(500 * (a->path().size() % 3)));
    sim.run({200_ns});
    std::vector<std::string> out;
    for (const auto& j : journal) out.push_back(std::to_string(j.time) + " " + j.who);
    return out;
}

}  // namespace

TEST_CASE("Heap, calendar, two-level and radix queues run a model identically") {
    const auto a = run_pattern(QueueKind::Heap);
    const auto b = run_pattern(QueueKind::Calendar);
    const auto c = run_pattern(QueueKind::TwoLevel);
    const auto d = run_pattern(QueueKind::Radix);
    CHECK(a.size() > 1000);
    CHECK(a == b);
    CHECK(a == c);
    CHECK(a == d);
}

TEST_CASE("Two simulators in one process do not share state") {
    Simulator a, b;
    auto& ta = a.add<Ticker>("t", 1_ns);
    auto& tb = b.add<Ticker>("t", 2_ns);
    a.init();
    b.init();
    a.run({10_ns});
    b.run({10_ns});
    CHECK(ta.ticks == 10);
    CHECK(tb.ticks == 5);
    CHECK(a.now() == 10_ns);
    CHECK(b.now() == 10_ns);
}

TEST_CASE("Stop reasons have stable names") {
    CHECK(std::string(to_string(StopReason::EndTime)) == "end_time");
    CHECK(std::string(to_string(StopReason::EventBudget)) == "event_budget");
    CHECK(std::string(to_string(StopReason::Quiescent)) == "quiescent");
    CHECK(std::string(to_string(StopReason::Stopped)) == "stopped");
}

TEST_CASE("Paths compare in natural order: digit runs as numbers") {
    CHECK(path_before("fabric.r2", "fabric.r10"));
    CHECK_FALSE(path_before("fabric.r10", "fabric.r2"));
    CHECK(path_before("phold.lp9", "phold.lp10"));
    CHECK(path_before("a", "a.b"));        // a prefix first
    CHECK(path_before("a.b", "a0"));       // then by byte: '.' < '0'
    CHECK(path_before("rack1.node2", "rack1.node10.tsp0"));
    CHECK(path_before("x01", "x1"));       // equal numbers: byte order breaks the tie
    CHECK_FALSE(path_before("x1", "x01"));
    CHECK_FALSE(path_before("same", "same"));
    CHECK(path_before("x18446744073709551616", "x18446744073709551617"));  // runs longer than 64 bits
    CHECK(path_before("x000000000000000000009", "x10"));
}

namespace {

// Two Sources into one Sink each, created in the order `paths` lists them; returns who arrived when.
Journal run_fan_in(const std::vector<std::string>& paths) {
    Journal journal;
    Simulator sim;
    std::vector<Source*> sources;
    for (const std::string& p : paths) sources.push_back(&sim.add<Source>(p, 5_ns, 3u));
    std::vector<Sink*> sinks;
    for (std::size_t k = 0; k < paths.size(); ++k) sinks.push_back(&sim.add<Sink>("sink" + paths[k], &journal));
    for (std::size_t k = 0; k < paths.size(); ++k) sim.connect(sources[k]->out, sinks[k]->in, 5_ns);
    sim.init();
    sim.run();
    return journal;
}

// Applies a timed action: a driver (kDriver) ranks before every other component.
class Hand : public Component {
public:
    static constexpr bool kDriver = true;
    using Component::Component;
};
class Plain : public Component {
public:
    using Component::Component;
};

class EagerSender : public Component {
public:
    EagerSender(Context& ctx) : Component(ctx), out(ctx, "out") {}
    OutPort out;
};

}  // namespace

TEST_CASE("Source ids are the rank of the component's path, whatever the creation order") {
    Simulator sim;
    auto& b = sim.add<Plain>("b");
    auto& a10 = sim.add<Plain>("a10");
    auto& a9 = sim.add<Plain>("a9");
    auto& hand = sim.add<Hand>("z.scenario");
    sim.init();
    CHECK(hand.ctx().source() == 0);  // a driver first
    CHECK(a9.ctx().source() == 1);
    CHECK(a10.ctx().source() == 2);
    CHECK(b.ctx().source() == 3);
    CHECK(key::source_of(b.ctx().next_key(Phase::Delivery)) == 3);
    CHECK(key::counter_of(b.ctx().next_key(Phase::Delivery)) == 1);

    // The same components created in two orders deliver the same events in the same order.
    const Journal one = run_fan_in({"n1", "n2", "n10", "m"});
    const Journal two = run_fan_in({"n10", "m", "n2", "n1"});
    REQUIRE(one.size() == 12);
    REQUIRE(two.size() == one.size());
    for (std::size_t k = 0; k < one.size(); ++k) {
        CHECK(one[k].time == two[k].time);
        CHECK(one[k].who == two[k].who);
        CHECK(one[k].arg == two[k].arg);
    }
    CHECK(one[0].who == "sinkm");  // m ranks before n1: its events at 5 ns come first
}

TEST_CASE("An event sent before init is an error naming the component") {
    Simulator sim;
    auto& s = sim.add<EagerSender>("eager");
    sim.add<Plain>("other");
    Journal journal;
    auto& k = sim.add<Sink>("sink", &journal);
    sim.connect(s.out, k.in, 1_ns);
    s.out.send(7);
    try {
        sim.init();
        FAIL("init accepted an event sent before it");
    } catch (const InternalError& e) {
        CHECK(std::string(e.what()).find("eager sent 1 event(s) before Simulator::init()") != std::string::npos);
    }
}

TEST_CASE("construction_order is the identity unless shuffled, then a seeded permutation") {
    Simulator plain;
    CHECK(plain.construction_order(5, "g") == std::vector<std::uint32_t>{0, 1, 2, 3, 4});
    CHECK_FALSE(plain.shuffled_construction());
    SimulatorOptions o;
    o.shuffle_construction = 7;
    Simulator shuffled(o);
    CHECK(shuffled.shuffled_construction());
    std::vector<std::uint32_t> p = shuffled.construction_order(100, "g");
    CHECK(p == shuffled.construction_order(100, "g"));  // a function of (seed, group)
    CHECK(p != shuffled.construction_order(100, "h"));
    CHECK(p != plain.construction_order(100, "g"));
    std::sort(p.begin(), p.end());
    CHECK(p == plain.construction_order(100, "g"));  // a permutation
    CHECK(shuffled.construction_order(0, "g").empty());
}

namespace {
// Counts its own destruction and writes one statistic at finish.
class Counted : public Component {
public:
    Counted(Context& ctx, int* destroyed) : Component(ctx), destroyed_(destroyed) {}
    ~Counted() override { ++*destroyed_; }
    void finish() override { ctx().sim().stats().group("counted." + ctx().path()).counter("finished").set(1); }

private:
    int* destroyed_;
};
}  // namespace

TEST_CASE("release_components destroys the components after finish and keeps their statistics") {
    int destroyed = 0;
    Simulator sim;
    sim.add<Counted>("a", &destroyed);
    sim.add<Counted>("b", &destroyed);
    CHECK_THROWS_AS(sim.release_components(), InternalError);  // not before finish
    sim.init();
    sim.run();
    sim.finish();
    CHECK(destroyed == 0);
    sim.release_components();
    CHECK(destroyed == 2);
    CHECK(sim.component_count() == 0);
    const auto json = sim.stats().to_json(sim.now());
    CHECK(json.at("counted.a").at("finished") == 1);
    CHECK(json.at("counted.b").at("finished") == 1);
    CHECK(json.at("kernel").at("components") == 2);
}
