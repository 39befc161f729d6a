#include <catch2/catch.hpp>

#include <vector>

#include "loom/net/scheduled_port.hpp"

using namespace loom::literals;
using loom::Time;
using loom::net::FecOutcome;
using loom::net::ScheduledLink;

namespace {
loom::LinkTiming c2c() {
    loom::LinkTiming lt;
    lt.rate = loom::Bandwidth::bps(100'000'000'000);  // 4 x 25 Gbps
    lt.latency_parts = {{"serdes_fec", 480_ns}, {"cable", Time::ps(3'750)}};
    return lt;
}
}  // namespace

TEST_CASE("A scheduled link opens each train at its start and reports a train that finds it busy") {
    ScheduledLink link(c2c(), 7);
    std::vector<Time> collisions;
    auto note = [&](Time busy_until) { collisions.push_back(busy_until); };
    // 10 vectors of 328 bytes at 100 Gbps: 262.4 ns.
    const auto a = link.open_train(1_us, 10, note);
    CHECK(a.start == 1_us);
    CHECK(a.sent == 1_us + Time::ps(262'400));
    CHECK(collisions.empty());
    // Starting exactly when the link frees is no collision, and it is a train of its own.
    const auto b = link.open_train(a.sent, 1, note);
    CHECK(b.start == a.sent);
    CHECK(collisions.empty());
    // One picosecond too early: a collision, reported with the time the link frees; the units queue behind.
    const auto c = link.open_train(b.sent - Time::ps(1), 2, note);
    REQUIRE(collisions.size() == 1);
    CHECK(collisions[0] == b.sent);
    CHECK(c.start == b.sent);
    CHECK(link.collisions() == 1);
    CHECK(link.units_sent() == 13);
}

TEST_CASE("A receiver's view of a scheduled link times a train's units exactly as the sender did") {
    loom::LinkTiming lt = c2c();
    lt.jitter = 5_ns;
    lt.bit_error_rate = 2e-3;  // 2624 bits per unit: most units see errors, a few beyond 7 bits
    lt.fec_correctable_bits = 7;
    lt.replay_latency = 1_us;
    ScheduledLink sender(lt, 42), view(lt, 42);
    const Time floor = sender.last_arrival();
    const auto t = sender.open_train(2_us, 200, [](Time) { FAIL("no collision expected"); });
    const std::uint64_t first = t.index + 1 - 200;
    Time prev = floor;
    std::uint64_t replayed = 0;
    for (std::int64_t k = 1; k <= 200; ++k) {
        const Time a = view.unit_arrival(t.start, k, first, prev);
        CHECK(a >= prev);  // never overtaking
        if (view.outcome(first + static_cast<std::uint64_t>(k - 1)) == FecOutcome::Uncorrectable) {
            ++replayed;
            CHECK(a >= lt.unit_sent(t.start, k) + lt.latency() + lt.replay_latency);
        }
        prev = a;
    }
    CHECK(prev == t.arrival);
    CHECK(replayed == sender.uncorrectable());
    CHECK(replayed > 0);
}
