#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <vector>

#include "loom/base/error.hpp"
#include "loom/base/rng.hpp"
#include "loom/sim/timer.hpp"
#include "test_components.hpp"

using namespace loom;
using namespace loom::sim;
using namespace loom::literals;
using loom::sim::test::Alarm;
using loom::sim::test::Journal;
using loom::sim::test::Sink;
using loom::sim::test::Source;

TEST_CASE("A timer fires at its expiry and not a picosecond earlier") {
    Journal journal;
    Simulator sim;
    auto& a = sim.add<Alarm>("a", &journal);
    sim.init();
    a.timer.arm_at(50_ns);
    CHECK(a.timer.armed());
    CHECK(a.timer.expiry() == 50_ns);
    sim.run({Time::ps(49'999)});
    CHECK(a.fired == 0);
    sim.run({50_ns});
    CHECK(a.fired == 1);
    CHECK(journal.at(0).time == 50'000);
    CHECK_FALSE(a.timer.armed());
}

TEST_CASE("A cancelled timer does not fire and its expiry is discarded") {
    Journal journal;
    Simulator sim;
    auto& a = sim.add<Alarm>("a", &journal);
    sim.init();
    a.timer.arm_in(10_ns);
    a.timer.cancel();
    CHECK_FALSE(a.timer.armed());
    const RunResult r = sim.run();
    CHECK(a.fired == 0);
    CHECK(r.events == 1);  // the stale expiry is popped ...
    CHECK(sim.timer_events_discarded() == 1);  // ... and dropped
}

TEST_CASE("Re-arming a timer supersedes its pending expiry, earlier or later") {
    Journal journal;
    Simulator sim;
    auto& early = sim.add<Alarm>("early", &journal);
    auto& late = sim.add<Alarm>("late", &journal);
    sim.init();
    early.timer.arm_at(50_ns);
    early.timer.arm_at(30_ns);
    late.timer.arm_at(50_ns);
    late.timer.arm_at(80_ns);
    sim.run();
    REQUIRE(journal.size() == 2);
    CHECK(journal[0].who == "early");
    CHECK(journal[0].time == 30'000);
    CHECK(journal[1].who == "late");
    CHECK(journal[1].time == 80'000);
    CHECK(sim.timer_events_discarded() == 2);
}

TEST_CASE("Cancelling and re-arming for the same time fires exactly once") {
    Journal journal;
    Simulator sim;
    auto& a = sim.add<Alarm>("a", &journal);
    sim.init();
    a.timer.arm_at(40_ns);
    a.timer.cancel();
    a.timer.arm_at(40_ns);
    sim.run();
    CHECK(a.fired == 1);
    CHECK(journal.at(0).time == 40'000);
    CHECK(sim.timer_events_discarded() == 1);
}

TEST_CASE("Cancelling after the timer fired is a no-op and the timer can be armed again") {
    Journal journal;
    Simulator sim;
    auto& a = sim.add<Alarm>("a", &journal);
    sim.init();
    a.timer.arm_at(5_ns);
    sim.run();
    CHECK(a.fired == 1);
    a.timer.cancel();
    CHECK_FALSE(a.timer.armed());
    CHECK(sim.pending() == 0);
    a.timer.arm_in(5_ns);
    sim.run();
    CHECK(a.fired == 2);
    CHECK(journal.at(1).time == 10'000);
    CHECK(sim.timer_events_discarded() == 0);
}

TEST_CASE("A timer can re-arm itself from its handler") {
    Journal journal;
    Simulator sim;
    auto& a = sim.add<Alarm>("a", &journal);
    a.rearm_in = 3_ns;
    sim.init();
    a.timer.arm_at(1_ns);
    sim.run({10_ns});
    // 1, 4, 7, 10 ns (the end time is inclusive).
    REQUIRE(a.fired == 4);
    CHECK(journal.back().time == 10'000);
    CHECK(a.timer.armed());
    CHECK(a.timer.expiry() == 13_ns);
}

TEST_CASE("Arming a timer in the past is rejected") {
    Journal journal;
    Simulator sim;
    auto& a = sim.add<Alarm>("sys.a", &journal);
    sim.init();
    a.timer.arm_at(5_ns);
    sim.run();
    CHECK_THROWS_AS(a.timer.arm_at(4_ns), InternalError);
    CHECK_NOTHROW(a.timer.arm_at(5_ns));  // now is fine
}

TEST_CASE("Deliveries at a time are handled before timers at the same time") {
    Journal journal;
    Simulator sim;
    // The alarm is created first, so it has the lower source id: only the phase can put the delivery first.
    auto& a = sim.add<Alarm>("alarm", &journal);
    auto& src = sim.add<Source>("src", 20_ns);
    auto& sink = sim.add<Sink>("sink", &journal);
    sim.connect(src.out, sink.in, 20_ns);
    sim.init();
    a.timer.arm_at(20_ns);
    sim.run();
    REQUIRE(journal.size() == 2);
    CHECK(journal[0].who == "sink");
    CHECK(journal[1].who == "alarm");
}

namespace {

// Many timers, each its own handler object, as per-flow timers are.
class Farm : public Component {
public:
    struct Entry {
        Entry(Context& ctx, Farm* owner, std::uint32_t index)
            : timer(ctx, this, handler<&Entry::on_timer>), farm(owner), id(index) {}
        void on_timer() { farm->fired.push_back({farm->now().count(), id}); }
        Timer timer;
        Farm* farm;
        std::uint32_t id;
    };
    Farm(Context& ctx, std::uint32_t n) : Component(ctx) {
        for (std::uint32_t i = 0; i < n; ++i) entries.push_back(std::make_unique<Entry>(ctx, this, i));
    }
    std::vector<std::unique_ptr<Entry>> entries;
    std::vector<std::pair<std::int64_t, std::uint32_t>> fired;
};

}  // namespace

TEST_CASE("A hundred thousand live timers fire in time order and cancelled ones stay silent") {
    Simulator sim;
    auto& farm = sim.add<Farm>("farm", 100'000u);
    sim.init();
    Rng rng(9);
    std::vector<std::int64_t> expiry(farm.entries.size());
    for (std::size_t i = 0; i < farm.entries.size(); ++i) {
        expiry[i] = rng.uniform_int(1, 1'000'000);
        farm.entries[i]->timer.arm_at(Time::ps(expiry[i]));
    }
    // Cancel every tenth, re-arm every seventh to a new time.
    std::size_t live = 0;
    for (std::size_t i = 0; i < farm.entries.size(); ++i) {
        if (i % 10 == 0) {
            farm.entries[i]->timer.cancel();
            expiry[i] = -1;
        } else if (i % 7 == 0) {
            expiry[i] = rng.uniform_int(1, 1'000'000);
            farm.entries[i]->timer.arm_at(Time::ps(expiry[i]));
        }
        if (expiry[i] >= 0) ++live;
    }
    sim.run();
    REQUIRE(farm.fired.size() == live);
    for (std::size_t k = 1; k < farm.fired.size(); ++k) CHECK(farm.fired[k - 1].first <= farm.fired[k].first);
    bool all_on_time = true;
    for (const auto& [t, id] : farm.fired) all_on_time &= (expiry[id] == t);
    CHECK(all_on_time);
}
