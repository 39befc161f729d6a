#include <catch2/catch.hpp>

#include <cstdint>

#include "loom/base/clock_domain.hpp"
#include "loom/net/clocked_link.hpp"

using namespace loom::literals;
using loom::Time;
using loom::net::ClockedLink;
using loom::net::LinkNoise;
using loom::net::NoiseCounts;

namespace {
// A channel of 32-byte flits, one per 1 ns cycle.
loom::LinkTiming flit_timing() {
    loom::LinkTiming lt;
    lt.rate = loom::Bandwidth::bps(256'000'000'000);
    lt.unit_payload = loom::Bytes(32);
    lt.unit_wire = loom::Bytes(32);
    lt.latency_parts = {{"channel", 10_ns}};
    return lt;
}
}  // namespace

TEST_CASE("A clean clocked link sends one unit per cycle and adds its latency") {
    ClockedLink link;
    link.set_latency(10);
    NoiseCounts n;
    CHECK(link.send(5, n) == 15);
    CHECK(link.send(5, n) == 16);  // the link was busy in cycle 5
    CHECK(link.send(9, n) == 19);
    CHECK(link.free_at() == 10);
    // Signals beside the units take no cycle of the link.
    CHECK(link.signal(9, n) == 19);
    CHECK(link.signal(9, n) == 19);
    CHECK(link.free_at() == 10);
    CHECK(n.corrected == 0);
    CHECK(n.retried == 0);
}

TEST_CASE("A noisy clocked link retries go-back-N, never reorders, and repeats exactly under one stream") {
    const loom::ClockDomain clock = loom::ClockDomain::with_period(1_ns);
    loom::LinkTiming lt = flit_timing();
    lt.jitter = Time::ps(2'500);
    lt.bit_error_rate = 2e-3;  // 256 bits per flit: ~40% see an error, a few % more than one
    lt.fec_correctable_bits = 1;
    LinkNoise units_a(lt, 11, 21, clock), units_b(lt, 11, 21, clock), signals(lt, 12, 21, clock);
    ClockedLink a, b;
    a.set_latency(10);
    b.set_latency(10);
    NoiseCounts na, nb, ns;
    std::int64_t last = -1, last_signal = -1;
    std::int64_t retried_before = 0;
    for (std::int64_t c = 0; c < 2'000; ++c) {
        const std::int64_t free = a.free_at();
        const std::int64_t x = a.send(c, na, &units_a);
        CHECK(x == b.send(c, nb, &units_b));
        CHECK(x > last);                            // strictly after the previous unit
        CHECK(x >= std::max(c, free) + 10);         // never earlier than a clean link
        if (na.retried > retried_before) CHECK(a.free_at() == std::max(c, free) + 1 + 21);  // held for the replay
        retried_before = na.retried;
        last = x;
        const std::int64_t s = a.signal(c, ns, &signals);
        CHECK(s >= c + 10);
        CHECK(s >= last_signal);  // signals may share a cycle but never overtake
        last_signal = s;
    }
    CHECK(na.retried > 0);
    CHECK(na.corrected > na.retried);
    CHECK(nb.retried == na.retried);  // the same units' draws
    CHECK(ns.retried > 0);            // the signals' own draws
    CHECK(b.signal(0, nb) == 10);     // b's signals are clean (no noise passed)
}
