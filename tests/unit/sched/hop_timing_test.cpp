#include <catch2/catch.hpp>

#include <algorithm>
#include <limits>
#include <vector>

#include "hop_timing.hpp"
#include "loom/topo/chip_config.hpp"
#include "loom/topo/link_class_timing.hpp"

using namespace loom::literals;
using loom::ClockDomain;
using loom::LinkTiming;
using loom::Time;
using loom::sched::detail::HopTiming;
using loom::Serializer;

namespace {

struct Expected {
    std::int64_t k;
    std::int32_t occupancy;
};

// The contract's rules 3, 5 and 6 evaluated vector by vector with base/ arithmetic only.
Expected reference(const ClockDomain& clk, const LinkTiming& in, const LinkTiming* out, std::int64_t forward_cycles,
                   std::int64_t crossing, Time jitter, std::int64_t k_from, std::int64_t n) {
    const Time t0 = clk.edge(k_from);
    auto avail = [&](Time a) { return clk.edge(clk.edge_at_or_after(a + jitter) + crossing); };
    Time g = Time::ps(std::numeric_limits<std::int64_t>::min());
    for (std::int64_t i = 1; i <= n; ++i) {
        const Time slot = out ? out->serialization(i - 1) : in.serialization(i - 1);
        g = std::max(g, avail(in.unit_arrival(t0, i)) - slot);
    }
    // A Forward issues at the first edge m >= 0 its vectors allow; its train starts forward_cycles later.
    const std::int64_t m = out ? std::max<std::int64_t>(clk.edge_at_or_after(g), 0) : clk.edge_at_or_after(g);
    const std::int64_t k = out ? m + forward_cycles : m;
    const Time start = clk.edge(m);
    std::vector<Time> arrival(static_cast<std::size_t>(n));
    std::vector<Time> leave(static_cast<std::size_t>(n));
    for (std::int64_t i = 1; i <= n; ++i) {
        const auto x = static_cast<std::size_t>(i - 1);
        arrival[x] = in.unit_arrival(t0, i);
        leave[x] = out ? start + out->serialization(i - 1) : std::max(avail(arrival[x]), start);
    }
    std::int32_t occ = 0;
    for (std::size_t i = 0; i < arrival.size(); ++i) {
        std::int32_t present = 1;  // the arriving vector itself
        for (std::size_t l = 0; l < i; ++l) present += leave[l] > arrival[i] ? 1 : 0;
        occ = std::max(occ, present);
    }
    return {k, occ};
}

void compare(const LinkTiming& in, const LinkTiming& out, std::int64_t forward_cycles, std::int64_t crossing,
             Time jitter, const std::vector<std::int64_t>& lengths) {
    const ClockDomain clk(loom::Frequency::mhz(900));
    HopTiming h(clk, forward_cycles, crossing, 4, jitter);
    const Serializer s_in(in);
    const Serializer s_out(out);
    const auto fwd = h.kind(&s_in, {&s_out});
    const auto rcv = h.kind(&s_in, {});
    for (std::int64_t k_from : std::vector<std::int64_t>{0, 1, 2, 5, 8, 9, 13, 1000, 123457}) {
        for (std::int64_t n : lengths) {
            INFO("k_from " << k_from << " n " << n);
            const Expected f = reference(clk, in, &out, forward_cycles, crossing, jitter, k_from, n);
            const auto got_f = h.evaluate(fwd, k_from, n);
            CHECK(got_f.k == f.k);
            CHECK(got_f.occupancy == f.occupancy);
            const Expected r = reference(clk, in, nullptr, forward_cycles, crossing, jitter, k_from, n);
            const auto got_r = h.evaluate(rcv, k_from, n);
            CHECK(got_r.k == r.k);
            CHECK(got_r.occupancy == r.occupancy);
        }
    }
}

}  // namespace

TEST_CASE("Hop timing memoizes by clock phase at 900 MHz but not with a frequency offset") {
    const HopTiming h(ClockDomain(loom::Frequency::mhz(900)), 178, 0, 4, Time::zero());
    REQUIRE(h.periodic());
    CHECK(h.den() == 9);
    CHECK(h.num() == 10'000);
    CHECK(h.clock().period_floor() == Time::ps(1111));
    const HopTiming off(ClockDomain(loom::Frequency::mhz(900), 12'345), 178, 0, 4, Time::zero());
    CHECK_FALSE(off.periodic());
}

TEST_CASE("A 100 Gbps train's per-vector pattern repeats every 125 vectors at 900 MHz") {
    const HopTiming c(ClockDomain(loom::Frequency::mhz(900)), 178, 0, 4, Time::zero());
    const Serializer s(loom::topo::LinkClassTiming{}.timing(loom::topo::LinkClass::InNode));
    // 26240 ps per vector, 10^4/9 ps per cycle: 125 vectors = 3280000 ps = 2952 cycles exactly.
    CHECK(loom::sched::detail::period_vectors(s, c, 4096) == 125);
}

TEST_CASE("Memoized hop timing equals a vector-by-vector evaluation for long trains at every phase") {
    const LinkTiming t = loom::topo::LinkClassTiming{}.timing(loom::topo::LinkClass::InNode);
    compare(t, t, 178, 0, Time::zero(), {1, 2, 3, 7, 124, 125, 126, 259, 260, 261, 300, 1000});
}

TEST_CASE("Memoized hop timing stays exact with crossing cycles, jitter and a long forwarding latency") {
    const LinkTiming t = loom::topo::LinkClassTiming{}.timing(loom::topo::LinkClass::InNode);
    compare(t, t, 178, 3, 7_ns, {1, 2, 5, 125, 260, 700});
    compare(t, t, 600, 0, Time::zero(), {1, 4, 300});  // a forwarding latency longer than a train
}

TEST_CASE("Memoized hop timing stays exact at 25.78125 Gbps lanes") {
    loom::topo::LinkClassTiming links;
    links.in_node.lane_rate = loom::Bandwidth::bps(25'781'250'000);
    const LinkTiming t = links.timing(loom::topo::LinkClass::InNode);
    compare(t, t, 178, 0, Time::zero(), {1, 3, 100, 257, 400});
}

TEST_CASE("Hops between links of different rates are evaluated vector by vector and grow the FIFO") {
    loom::topo::LinkClassTiming links;
    links.rack_to_rack.lane_rate = loom::Bandwidth::bps(25'781'250'000);
    const LinkTiming slow = links.timing(loom::topo::LinkClass::InNode);
    const LinkTiming fast = links.timing(loom::topo::LinkClass::RackToRack);
    compare(slow, fast, 178, 0, Time::zero(), {1, 2, 10, 64, 200});
    compare(fast, slow, 178, 0, Time::zero(), {1, 2, 10, 64, 200});
    const ClockDomain clk(loom::Frequency::mhz(900));
    HopTiming h(clk, 178, 0, 4, Time::zero());
    const Serializer s_slow(slow);
    const Serializer s_fast(fast);
    const auto kind = h.kind(&s_slow, {&s_fast});
    CHECK_FALSE(h.hop_kind(kind).periodic);
    // Slow in, fast out: the onward train waits for the last vector, so early ones pile up.
    CHECK(h.evaluate(kind, 0, 256).occupancy > 4);
    CHECK(h.evaluate(kind, 0, 8).occupancy <= 2);
}
