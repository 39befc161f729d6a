#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>

#include "loom/net/scheduled_port.hpp"
#include "loom/tsp/unit_arrivals.hpp"

using namespace loom;
using namespace loom::literals;
using loom::tsp::UnitArrivals;

namespace {
LinkTiming link(Time jitter, double ber) {
    LinkTiming t;
    t.rate = Bandwidth::gbps(100);
    t.latency_parts = {{"cable", 97'750_ps}, {"phy", 400_ns}};
    t.jitter = jitter;
    t.bit_error_rate = ber;
    t.fec_correctable_bits = 1;
    t.replay_latency = 2_us;
    return t;
}

// Compares the arrivals with the link's own rule over many sends, indices and floors.
void check_against_link(const LinkTiming& t, bool plain) {
    const net::ScheduledLink view(t, 12345);
    const UnitArrivals a(view, t);
    CHECK(a.plain() == plain);
    std::uint64_t x = 88172645463325252ULL;  // xorshift: the same draws in every run
    auto draw = [&] {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        return x;
    };
    int later_than_latency = 0;
    for (int i = 0; i < 20'000; ++i) {
        const Time sent = Time::ps(static_cast<std::int64_t>(draw() % 1'000'000'000));
        const std::uint64_t index = draw() % 100'000;
        // Floors below, at and above sent + latency.
        const Time floor = sent + Time::ps(static_cast<std::int64_t>(draw() % 1'000'000)) - 500_ns;
        const Time want = view.arrival_after(sent, index, floor);
        const Time got = a.arrival_after(sent, index, floor);
        if (got != want) FAIL("unit " << index << " sent at " << sent.count() << " ps: " << got.count() << " != " << want.count());
        if (want > std::max(sent + t.latency(), floor)) ++later_than_latency;
    }
    // The noisy links delay some units (so the comparison above exercised their path).
    if (!plain) CHECK(later_than_latency > 0);
}
}  // namespace

TEST_CASE("A link without jitter or FEC errors times its units as latency after they leave, not before the floor") {
    check_against_link(link(Time::zero(), 0.0), true);
}

TEST_CASE("A link with jitter times its units by the link's own draws") { check_against_link(link(3_ns, 0.0), false); }

TEST_CASE("A link with FEC errors delays its replayed units as the link does") {
    check_against_link(link(Time::zero(), 1e-4), false);
}
