#include <catch2/catch.hpp>

#include <cstdint>
#include <algorithm>
#include <map>
#include <tuple>
#include <vector>

#include "loom/base/error.hpp"
#include "loom/base/rng.hpp"
#include "loom/sim/simulator.hpp"
#include "loom/sim/timer_set.hpp"

using namespace loom;
using namespace loom::sim;
using namespace loom::literals;

namespace {

struct Firing {
    std::int64_t time;
    std::uint32_t id;
};

// Holds a TimerSet and logs every expiry; `on_fire` lets a test react inside the handler.
class Clockwork : public Component {
public:
    explicit Clockwork(Context& ctx) : Component(ctx), timers(ctx, this, handler<&Clockwork::on_expiry>) {}
    TimerSet timers;
    std::vector<Firing> log;
    std::uint32_t rearm_id = 0xffff'ffffU;  // re-armed for now + rearm_delay when it fires (twice)
    Time rearm_delay;

private:
    void on_expiry(std::uint32_t id) {
        log.push_back({now().count(), id});
        if (id == rearm_id && log.size() < 3) timers.arm_in(id, rearm_delay);
    }
};

}  // namespace

TEST_CASE("A timer set deadline fires at its expiry and not a picosecond earlier") {
    Simulator sim;
    auto& c = sim.add<Clockwork>("c");
    sim.init();
    c.timers.arm_at(7, 50_ns);
    CHECK(c.timers.armed(7));
    CHECK(c.timers.expiry(7) == 50_ns);
    sim.run({Time::ps(49'999)});
    CHECK(c.log.empty());
    sim.run({50_ns});
    REQUIRE(c.log.size() == 1);
    CHECK(c.log[0].time == 50'000);
    CHECK(c.log[0].id == 7);
    CHECK_FALSE(c.timers.armed(7));
    CHECK(c.timers.empty());
}

TEST_CASE("A timer set fires simultaneous deadlines in the order they were armed") {
    Simulator sim;
    auto& c = sim.add<Clockwork>("c");
    sim.init();
    c.timers.arm_at(3, 10_ns);
    c.timers.arm_at(1, 10_ns);
    c.timers.arm_at(2, 5_ns);
    c.timers.arm_at(0, 10_ns);
    sim.run();
    REQUIRE(c.log.size() == 4);
    CHECK(c.log[0].id == 2);
    CHECK(c.log[1].id == 3);
    CHECK(c.log[2].id == 1);
    CHECK(c.log[3].id == 0);
}

TEST_CASE("A cancelled timer set deadline does not fire and re-arming replaces the expiry") {
    Simulator sim;
    auto& c = sim.add<Clockwork>("c");
    sim.init();
    c.timers.arm_at(1, 10_ns);
    c.timers.arm_at(2, 20_ns);
    c.timers.cancel(1);
    c.timers.cancel(1);  // no-op
    c.timers.cancel(99);  // never armed: no-op
    c.timers.arm_at(2, 30_ns);  // later
    c.timers.arm_at(3, 40_ns);
    c.timers.arm_at(3, 15_ns);  // earlier
    sim.run();
    REQUIRE(c.log.size() == 2);
    CHECK(c.log[0].time == 15'000);
    CHECK(c.log[0].id == 3);
    CHECK(c.log[1].time == 30'000);
    CHECK(c.log[1].id == 2);
}

TEST_CASE("Re-arming timer set deadlines later pushes no kernel event") {
    Simulator sim;
    auto& c = sim.add<Clockwork>("c");
    sim.init();
    c.timers.arm_at(0, 10_ns);
    for (std::uint32_t id = 1; id < 100; ++id) c.timers.arm_at(id, 20_ns);
    for (int round = 0; round < 10; ++round)
        for (std::uint32_t id = 1; id < 100; ++id) c.timers.arm_at(id, Time::ns(30 + round));
    CHECK(c.timers.kernel_arms() == 1);
    CHECK(sim.pending() == 1);
    sim.run();
    CHECK(c.log.size() == 100);
    CHECK(c.log.back().time == 39'000);
    CHECK(sim.timer_events_discarded() == 0);
}

TEST_CASE("A timer set wakes early at most once when its earliest deadline is cancelled") {
    Simulator sim;
    auto& c = sim.add<Clockwork>("c");
    sim.init();
    c.timers.arm_at(1, 10_ns);
    c.timers.arm_at(2, 20_ns);
    c.timers.cancel(1);
    sim.run();
    REQUIRE(c.log.size() == 1);
    CHECK(c.log[0].time == 20'000);
    CHECK(c.timers.early_wakeups() == 1);
    CHECK(c.timers.kernel_arms() == 2);
}

TEST_CASE("A timer set handler may re-arm its own deadline for the same time and it fires in the same round") {
    Simulator sim;
    auto& c = sim.add<Clockwork>("c");
    c.rearm_id = 4;
    c.rearm_delay = Time::zero();
    sim.init();
    c.timers.arm_at(4, 1_ns);
    const RunResult r = sim.run();
    CHECK(r.events == 1);
    CHECK(c.log.size() == 3);
    for (const Firing& f : c.log) CHECK(f.time == 1000);
}

TEST_CASE("A timer set rejects a deadline in the past") {
    Simulator sim;
    auto& c = sim.add<Clockwork>("c");
    sim.init();
    c.timers.arm_at(0, 10_ns);
    sim.run();
    CHECK_THROWS_AS(c.timers.arm_at(1, 5_ns), InternalError);
}

TEST_CASE("A timer set holds 100,000 deadlines, each fires once at its last armed time") {
    constexpr std::uint32_t n = 100'000;
    Simulator sim;
    auto& c = sim.add<Clockwork>("c");
    sim.init();
    Rng rng(5);
    std::vector<std::int64_t> want(n);
    for (std::uint32_t id = 0; id < n; ++id) {
        want[id] = 1000 + static_cast<std::int64_t>(rng.uniform(1'000'000));
        c.timers.arm_at(id, Time::ps(want[id]));
    }
    // Re-arm a third of them (earlier or later) and cancel a tenth.
    for (std::uint32_t id = 0; id < n; id += 3) {
        want[id] = 1000 + static_cast<std::int64_t>(rng.uniform(1'000'000));
        c.timers.arm_at(id, Time::ps(want[id]));
    }
    for (std::uint32_t id = 0; id < n; id += 10) {
        c.timers.cancel(id);
        want[id] = -1;
    }
    const std::size_t live = c.timers.size();
    sim.run();
    CHECK(c.log.size() == live);
    std::vector<int> seen(n, 0);
    bool in_order = true;
    for (std::size_t i = 0; i < c.log.size(); ++i) {
        const Firing& f = c.log[i];
        ++seen[f.id];
        if (f.time != want[f.id]) FAIL("deadline " << f.id << " fired at " << f.time << ", armed for " << want[f.id]);
        if (i > 0 && f.time < c.log[i - 1].time) in_order = false;
    }
    CHECK(in_order);
    for (std::uint32_t id = 0; id < n; ++id) {
        if (seen[id] != (want[id] >= 0 ? 1 : 0)) FAIL("deadline " << id << " fired " << seen[id] << " times");
    }
    // One kernel event per distinct firing time at most, plus the few decreases of the earliest deadline.
    CHECK(sim.events_handled() <= live + c.timers.kernel_arms());
}

TEST_CASE("A timer set fires in (expiry, last arming) order under random arms, re-arms and cancels with many ties") {
    // Expiries from a few coarse values so that many deadlines share one; the reference is a sorted set of
    // (expiry, arming number, id).
    constexpr std::uint32_t n = 3'000;
    Simulator sim;
    auto& c = sim.add<Clockwork>("c");
    sim.init();
    Rng rng(11);
    std::map<std::uint32_t, std::pair<std::int64_t, std::uint64_t>> armed;  // id -> (expiry, arming number)
    std::uint64_t arming = 0;
    for (int op = 0; op < 20'000; ++op) {
        const auto id = static_cast<std::uint32_t>(rng.uniform(n));
        if (rng.uniform(5) == 0) {
            c.timers.cancel(id);
            armed.erase(id);
        } else {
            const std::int64_t t = 1000 * (1 + static_cast<std::int64_t>(rng.uniform(40)));
            c.timers.arm_at(id, Time::ps(t));
            armed[id] = {t, arming++};
        }
    }
    std::vector<std::tuple<std::int64_t, std::uint64_t, std::uint32_t>> want;
    for (const auto& [id, a] : armed) want.emplace_back(a.first, a.second, id);
    std::sort(want.begin(), want.end());
    REQUIRE(c.timers.size() == want.size());
    sim.run();
    REQUIRE(c.log.size() == want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
        if (c.log[i].id != std::get<2>(want[i]) || c.log[i].time != std::get<0>(want[i]))
            FAIL("firing " << i << ": id " << c.log[i].id << " at " << c.log[i].time << ", expected id "
                           << std::get<2>(want[i]) << " at " << std::get<0>(want[i]));
    }
}

TEST_CASE("A timer set keeps the arming order of simultaneous deadlines when its order numbers pass 32 bits") {
    Simulator sim;
    auto& c = sim.add<Clockwork>("c");
    sim.init();
    c.timers.arm_at(7, 50_ns);
    c.timers.arm_at(3, 50_ns);
    c.timers.arm_at(9, 20_ns);
    c.timers.set_next_order_for_test((std::uint64_t{1} << 32) - 2);
    c.timers.arm_at(5, 50_ns);  // the last number before the limit
    c.timers.arm_at(1, 50_ns);  // renumbered first: 7, 3, 9, 5 become 0 .. 3 in their order, 1 takes 4
    c.timers.arm_at(3, 50_ns);  // re-armed: now after 1
    c.timers.arm_at(2, 50_ns);
    sim.run();
    std::vector<std::uint32_t> ids;
    for (const Firing& f : c.log) ids.push_back(f.id);
    CHECK(ids == std::vector<std::uint32_t>{9, 7, 5, 1, 3, 2});
    CHECK(c.log[0].time == 20'000);
    CHECK(c.log[1].time == 50'000);
}

namespace {
// Each expiry re-arms its own deadline (mostly later, sometimes for now), arms or cancels another, and checks
// size() and next_expiry() against a reference of (expiry, arming number) per id.
class Juggler : public Component {
public:
    explicit Juggler(Context& ctx) : Component(ctx), timers(ctx, this, handler<&Juggler::on_expiry>), rng(17) {}
    void arm(std::uint32_t id, std::int64_t t) {
        timers.arm_at(id, Time::ps(t));
        ref[id] = {t, arming++};
    }
    TimerSet timers;
    Rng rng;
    std::map<std::uint32_t, std::pair<std::int64_t, std::uint64_t>> ref;
    std::uint64_t arming = 0;
    std::vector<Firing> log;
    bool consistent = true;
    int expiries = 0;

private:
    void on_expiry(std::uint32_t id) {
        const std::int64_t now_ps = now().count();
        // The one that fires is the reference's smallest.
        auto first = std::min_element(ref.begin(), ref.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
        if (first == ref.end() || first->first != id || first->second.first != now_ps) consistent = false;
        ref.erase(id);
        log.push_back({now_ps, id});
        if (timers.armed(id) || timers.size() != ref.size()) consistent = false;
        std::int64_t earliest = Time::max().count();
        for (const auto& [k, a] : ref) earliest = std::min(earliest, a.first);
        if (timers.next_expiry().count() != earliest) consistent = false;
        if (++expiries > 4'000) return;
        const auto other = static_cast<std::uint32_t>(rng.uniform(64));
        if (rng.uniform(3) == 0) {
            timers.cancel(other);
            ref.erase(other);
        } else if (other != id) {
            arm(other, now_ps + 1000 * static_cast<std::int64_t>(rng.uniform(4)));
        }
        if (rng.uniform(4) != 0) arm(id, now_ps + 1000 * static_cast<std::int64_t>(rng.uniform(5)));
    }
};
}  // namespace

TEST_CASE("A timer set handler that re-arms its own deadline, arms and cancels others sees a consistent set") {
    Simulator sim;
    auto& j = sim.add<Juggler>("j");
    sim.init();
    for (std::uint32_t id = 0; id < 64; ++id) j.arm(id, 1000 * (1 + static_cast<std::int64_t>(j.rng.uniform(6))));
    sim.run();
    CHECK(j.consistent);
    CHECK(j.expiries > 4'000);
    CHECK(j.ref.empty());
    CHECK(j.timers.empty());
}
