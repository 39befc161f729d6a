// The planner's division-free fast paths (FixedDivisor, Pace, HopTiming's clock edges) against the exact base/
// arithmetic they stand in for: random inputs over the whole fast range, and the edges of that range.
#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "hop_timing.hpp"

using loom::ClockDomain;
using loom::Serializer;
using loom::Time;
using loom::sched::detail::FixedDivisor;
using loom::sched::detail::HopTiming;
using loom::sched::detail::Pace;

namespace {

constexpr std::uint64_t kMax64 = std::numeric_limits<std::uint64_t>::max();

}  // namespace

TEST_CASE("FixedDivisor divides exactly: random dividends and divisors, and the extremes") {
    std::mt19937_64 rng(20261204);
    std::vector<std::uint64_t> divisors = {1, 2, 3, 7, 9, 10'000, 1'000'000'007ULL, (1ULL << 32) + 1, kMax64 / 3,
                                           kMax64 - 1, kMax64};
    for (int i = 0; i < 200; ++i) divisors.push_back(rng() >> (rng() % 64) | 1);
    for (const std::uint64_t d : divisors) {
        const FixedDivisor div(d);
        std::vector<std::uint64_t> xs = {0, 1, d - 1, d, d + 1, kMax64, kMax64 - 1, kMax64 - d, kMax64 / d * d,
                                         kMax64 / d * d - 1};
        for (int j = 0; j < 500; ++j) xs.push_back(rng() >> (rng() % 64));
        for (const std::uint64_t x : xs) {
            if (div(x) != x / d) FAIL("x " << x << " d " << d << ": " << div(x) << " != " << x / d);
        }
    }
    SUCCEED();
}

TEST_CASE("Pace gives Serializer's times for every train length, on both sides of its 64-bit range") {
    std::mt19937_64 rng(7);
    const std::vector<std::pair<std::int64_t, std::int64_t>> links = {
        {2'624, 100'000'000'000},  // a 320-byte vector with framing at 100 Gbps
        {2'624, 25'781'250'000},   // a 25.78125 Gbps lane
        {1, 3},                    // a rate that does not divide 10^12
        {9'000'000, 1},            // 64-bit range ends early: k_fast small
    };
    for (const auto& [bits, rate] : links) {
        const Serializer s(bits, rate, Time::ps(1'234));
        const Pace p(s);
        CHECK(p.one() == s(1));
        CHECK(p.latency() == s.latency());
        const std::int64_t bits_ps = bits * 1'000'000'000'000LL;
        const std::int64_t k_fast = (std::numeric_limits<std::int64_t>::max() - rate) / bits_ps;
        std::vector<std::int64_t> ks = {0, 1, 2, 124, 125, 126, k_fast - 1, k_fast, k_fast + 1};
        for (int j = 0; j < 2'000; ++j) ks.push_back(static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(k_fast + 2)));
        for (const std::int64_t k : ks) {
            if (k < 0 || s(k).count() < 0) continue;  // past Serializer's own range
            if (p(k) != s(k)) FAIL("bits " << bits << " rate " << rate << " k " << k);
        }
    }
    SUCCEED();
}

TEST_CASE("HopTiming's clock edges equal ClockDomain's for random cycles and times") {
    std::mt19937_64 rng(11);
    for (const auto mhz : {900, 1000, 937, 1}) {
        const ClockDomain clk(loom::Frequency::mhz(mhz));
        const HopTiming h(clk, 178, 0, 4, Time::zero());
        // Cycles whose edges fit 64 bits (ClockDomain's own range), times up to the last of them.
        const std::int64_t n_max = std::numeric_limits<std::int64_t>::max() / (clk.period_floor().count() + 1);
        const std::int64_t t_max = clk.edge(n_max).count();
        std::vector<std::int64_t> ns = {0, 1, 8, 9, 10, 1'000'000, n_max - 1, n_max};
        std::vector<std::int64_t> ts = {0, 1, 1'110, 1'111, 1'112, 10'000, t_max - 1, t_max};
        for (int j = 0; j < 3'000; ++j) {
            ns.push_back(static_cast<std::int64_t>((rng() >> (rng() % 64)) % static_cast<std::uint64_t>(n_max)));
            ts.push_back(static_cast<std::int64_t>((rng() >> (rng() % 64)) % static_cast<std::uint64_t>(t_max)));
        }
        for (const std::int64_t n : ns) {
            if (h.edge(n) != clk.edge(n)) FAIL(mhz << " MHz edge(" << n << ")");
            if (h.periodic() && h.phase(n) != n % h.den()) FAIL(mhz << " MHz phase(" << n << ")");
            // split(): whole periods and phase, with the edge moved by whole periods (the scheduler's templates).
            std::int64_t periods = 0;
            std::int64_t phase = 0;
            if (h.split(n, periods, phase)) {
                if (!h.periodic() || periods != n / h.den() || phase != n % h.den())
                    FAIL(mhz << " MHz split(" << n << ")");
                if (Time::ps(periods * h.num()) + h.edge(phase) != clk.edge(n))
                    FAIL(mhz << " MHz edge(" << n << ") by whole periods");
            } else if (h.periodic() && n <= std::numeric_limits<std::int64_t>::max() / h.num()) {
                FAIL(mhz << " MHz split(" << n << ") refused in the fast range");
            }
        }
        if (h.periodic()) {
            std::int64_t periods = 0;
            std::int64_t phase = 0;
            CHECK_FALSE(h.split(-1, periods, phase));
        }
        for (const std::int64_t t : ts) {
            if (h.edge_at_or_after(Time::ps(t)) != clk.edge_at_or_after(Time::ps(t)))
                FAIL(mhz << " MHz edge_at_or_after(" << t << " ps)");
            if (h.edge_at_or_before(Time::ps(t)) != clk.edge_at_or_before(Time::ps(t)))
                FAIL(mhz << " MHz edge_at_or_before(" << t << " ps)");
        }
    }
    SUCCEED();
}

TEST_CASE("ClockEdges gives ClockDomain's edges and next edges for any clock, phase and offset") {
    std::mt19937_64 rng(23);
    std::vector<ClockDomain> clocks = {
        ClockDomain(loom::Frequency::mhz(900)),
        ClockDomain(loom::Frequency::mhz(1000)),
        ClockDomain(loom::Frequency::mhz(937), 0, Time::ps(517)),
        ClockDomain(loom::Frequency::mhz(900), 100'000),       // +100 ppm: a large reduced period
        ClockDomain(loom::Frequency::mhz(900), -37, Time::ps(3)),
        ClockDomain::with_period(Time::ps(26'240)),
        ClockDomain(loom::Frequency::mhz(1)),
    };
    for (const ClockDomain& clk : clocks) {
        const loom::sched::ClockEdges e(clk);
        const std::int64_t n_max = std::numeric_limits<std::int64_t>::max() / (clk.period_floor().count() + 1) / 2;
        const std::int64_t t_max = clk.edge(n_max).count();
        std::vector<std::int64_t> ns = {0, 1, 8, 9, 10, 1'000'000, n_max - 1, n_max};
        std::vector<std::int64_t> ts = {-5, 0, 1, 3, 516, 517, 518, 1'110, 1'111, 1'112, 10'000, t_max - 1, t_max};
        for (int j = 0; j < 3'000; ++j) {
            ns.push_back(static_cast<std::int64_t>((rng() >> (rng() % 64)) % static_cast<std::uint64_t>(n_max)));
            ts.push_back(static_cast<std::int64_t>((rng() >> (rng() % 64)) % static_cast<std::uint64_t>(t_max)));
        }
        for (const std::int64_t n : ns) {
            if (e.edge(n) != clk.edge(n)) FAIL(clk.nominal().hertz() << " Hz edge(" << n << ")");
        }
        for (const std::int64_t t : ts) {
            if (e.edge_at_or_after(Time::ps(t)) != clk.edge_at_or_after(Time::ps(t)))
                FAIL(clk.nominal().hertz() << " Hz edge_at_or_after(" << t << " ps)");
            for (const std::int64_t extra : {0, 2, 7}) {
                if (e.next_edge(Time::ps(t), loom::Cycles(extra)) != clk.next_edge(Time::ps(t), loom::Cycles(extra)))
                    FAIL(clk.nominal().hertz() << " Hz next_edge(" << t << " ps, " << extra << ")");
            }
        }
    }
    SUCCEED();
}
