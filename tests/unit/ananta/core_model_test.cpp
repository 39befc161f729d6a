#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <vector>

#include "loom/ananta/core_model.hpp"

using namespace loom;
using namespace loom::ananta;

namespace {
CoreLimits one_core(std::int64_t queue) { return CoreLimits{1, 220'000, Bandwidth::bps(800'000'000), queue}; }
}  // namespace

TEST_CASE("A core's service time is the larger of the packet time and the bit time") {
    CoreModel m(one_core(0));
    CHECK(m.service_time(64) == Time::ps(4'545'455));           // ceil(10^12 / 220000)
    CHECK(m.service_time(1500) == Time::ps(15'000'000));        // 12000 bits at 800 Mbps
    CHECK(m.service_time(568) == Time::ps(5'680'000));          // 4544 bits
}

TEST_CASE("A core with a queue of two drops the fourth simultaneous packet and serves the rest in order") {
    CoreModel m(one_core(2));
    const Time s = m.service_time(64);
    for (int i = 0; i < 3; ++i) {
        const CoreDecision d = m.offer(5, 64, Time::zero());
        CHECK(d.accepted);
        CHECK(d.departure == s * (i + 1));
    }
    CHECK_FALSE(m.offer(5, 64, Time::zero()).accepted);
    // One packet leaves at s: an arrival at s - 1 ps still finds the queue full, one at s does not.
    CHECK_FALSE(m.offer(5, 64, s - Time::ps(1)).accepted);
    const CoreDecision d = m.offer(5, 64, s);
    CHECK(d.accepted);
    CHECK(d.departure == s * 4);
    CHECK(m.accepted() == 4);
    CHECK(m.dropped() == 2);
}

TEST_CASE("Flows are pinned to one core and spread over all of them") {
    CoreModel m(CoreLimits{8, 220'000, Bandwidth{}, 16});
    std::set<std::uint32_t> used;
    for (std::uint64_t h = 0; h < 200; ++h) {
        CHECK(m.core_of(h) == m.core_of(h));
        used.insert(m.core_of(h));
    }
    CHECK(used.size() == 8);
    // A single flow is limited to one core's rate even when the others are idle.
    int accepted = 0;
    for (int i = 0; i < 100; ++i) accepted += m.offer(77, 64, Time::zero()).accepted ? 1 : 0;
    CHECK(accepted == 17);  // one in service + 16 waiting
}

TEST_CASE("A core offered twice its rate serves its rate plus the queue and drops the rest") {
    CoreModel m(one_core(10));
    const Time s = m.service_time(64);
    const Time gap = s / 2;  // arrivals at twice the service rate
    const int offered = 1000;
    for (int i = 0; i < offered; ++i) m.offer(1, 64, gap * i);
    CHECK(m.accepted() + m.dropped() == static_cast<std::uint64_t>(offered));
    // The last arrival is at 999 gap = 499.5 s-units; the core can have started at most 500 services by then,
    // plus what waits (10) and the one in service.
    CHECK(m.accepted() <= 511);
    CHECK(m.accepted() >= 500);
    CHECK(m.dropped() >= 489);
}

TEST_CASE("A core's departures stay in order as its queue wraps around and grows past its first room") {
    CoreModel m(one_core(100));
    const Time s = m.service_time(64);
    // 6 packets, then 5 leave while 30 more arrive one service time apart from 5 s on: the ring wraps, then grows.
    for (int i = 0; i < 6; ++i) CHECK(m.offer(5, 64, Time::zero()).departure == s * (i + 1));
    CHECK(m.backlog(0, Time::zero()) == 6);
    const Time later = s * 5;
    for (int i = 0; i < 30; ++i) {
        const CoreDecision d = m.offer(5, 64, later);
        REQUIRE(d.accepted);
        CHECK(d.departure == s * (7 + i));  // behind the one left and each other
    }
    CHECK(m.backlog(0, later) == 31);
    CHECK(m.backlog(0, s * 20) == 16);
    CHECK(m.backlog(0, s * 36) == 0);
}

TEST_CASE("A core's departures match a first-come-first-served reference through bursts that grow and wrap its queue") {
    // One core, room for 40: bursts of up to 30 simultaneous packets of varied sizes, then gaps that drain part
    // of the backlog, so the stored departures wrap around and their storage grows while some are pending.
    CoreModel m(one_core(40));
    std::vector<Time> ref;  // pending departures, increasing
    Time now = Time::zero();
    std::uint64_t drops = 0;
    for (int round = 0; round < 300; ++round) {
        const int burst = (round * 7) % 31;
        for (int k = 0; k < burst; ++k) {
            const auto bytes = static_cast<std::uint32_t>(64 + ((round * 31 + k * 17) % 1437));
            while (!ref.empty() && ref.front() <= now) ref.erase(ref.begin());
            const CoreDecision d = m.offer(9, bytes, now);
            if (ref.size() > 40) {
                CHECK_FALSE(d.accepted);
                ++drops;
                continue;
            }
            const Time start = ref.empty() ? now : std::max(now, ref.back());
            REQUIRE(d.accepted);
            REQUIRE(d.departure == start + m.service_time(bytes));
            ref.push_back(d.departure);
            REQUIRE(m.backlog(0, now) == ref.size());
        }
        now = now + Time::ps(40'000'000 + (round % 5) * 25'000'000);
    }
    CHECK(drops > 0);
    CHECK(m.dropped() == drops);
}
