#include <catch2/catch.hpp>

#include <algorithm>

#include "loom/base/clock_domain.hpp"
#include "loom/base/rng.hpp"

using namespace loom::literals;
using loom::ClockDomain;
using loom::Time;

TEST_CASE("A 900 MHz clock puts edge n at floor(n * 10^4 / 9) ps") {
    ClockDomain clk(900_MHz);
    CHECK(clk.edge(0) == Time::ps(0));
    CHECK(clk.edge(1) == Time::ps(1111));
    CHECK(clk.edge(2) == Time::ps(2222));
    CHECK(clk.edge(9) == Time::ps(10000));
    CHECK(clk.edge(10) == Time::ps(11111));
}

TEST_CASE("A 900 MHz clock has no drift after 10^9 cycles") {
    ClockDomain clk(900_MHz);
    // 10^9 cycles at 900 MHz = 10^13/9 ps = 1111111111111.1 ps
    CHECK(clk.edge(1'000'000'000).count() == 1'111'111'111'111);
    CHECK(clk.edge(9'000'000'000).count() == 10'000'000'000'000);
}

TEST_CASE("Edge lookup is exact at T-1 and T") {
    ClockDomain clk(900_MHz);
    const Time e = clk.edge(7);  // 7777 ps
    CHECK(e == Time::ps(7777));
    CHECK(clk.edge_at_or_after(e) == 7);
    CHECK(clk.edge_at_or_after(e - Time::ps(1)) == 7);
    CHECK(clk.edge_at_or_after(e + Time::ps(1)) == 8);
    CHECK(clk.edge_at_or_before(e) == 7);
    CHECK(clk.edge_at_or_before(e - Time::ps(1)) == 6);
    CHECK(clk.edge_at_or_before(Time::ps(-1)) == -1);
    CHECK(clk.next_edge(Time::ps(1)) == Time::ps(1111));
}

TEST_CASE("Edge lookup round-trips for every edge over a long stretch") {
    ClockDomain clk(loom::Frequency::hz(1'234'567'891), 12'345);
    for (std::int64_t n = 999'990'000; n < 1'000'000'000; ++n) {
        const Time e = clk.edge(n);
        REQUIRE(clk.edge_at_or_after(e) == n);
        REQUIRE(clk.edge_at_or_before(e) == n);
        REQUIRE(clk.edge_at_or_before(e - Time::ps(1)) == n - 1);
    }
}

TEST_CASE("A ppm offset shifts the edges by exactly that fraction") {
    ClockDomain fast(1000_MHz, 1'000);  // +1 ppm: period 1000/1.000001 ps
    ClockDomain slow(1000_MHz, -1'000);
    CHECK(ClockDomain(1000_MHz).edge(1'000'000'000) == Time::ps(1'000'000'000'000));
    // 10^9 cycles: 10^12 / 1.000001 = 999999000000.999.. ps
    CHECK(fast.edge(1'000'000'000).count() == 999'999'000'000);
    CHECK(slow.edge(1'000'000'000).count() == 1'000'001'000'001);
}

TEST_CASE("A clock phase moves edge 0") {
    ClockDomain clk(900_MHz, 0, Time::ps(500));
    CHECK(clk.edge(0) == Time::ps(500));
    CHECK(clk.edge(1) == Time::ps(1611));
    CHECK(clk.edge_at_or_after(Time::ps(0)) == 0);
    CHECK(clk.span(3, loom::Cycles(9)) == Time::ps(10000));
}

namespace {

// The clock rules straight from their definitions, in 128 bits (phase 0 relative times).
struct Exact {
    loom::i128 num, den;
    std::int64_t edge(std::int64_t n) const { return static_cast<std::int64_t>(loom::floor_div(n * num, den)); }
    std::int64_t at_or_after(std::int64_t rel) const {
        return rel <= 0 ? 0 : static_cast<std::int64_t>(loom::ceil_div(rel * den, num));
    }
    std::int64_t at_or_before(std::int64_t rel) const {
        return rel < 0 ? -1 : static_cast<std::int64_t>(loom::floor_div((rel + 1) * den - 1, num));
    }
};

}  // namespace

TEST_CASE("Clock fast paths equal exact 128-bit arithmetic for random frequencies, offsets, edges and times") {
    loom::Rng rng(11);
    for (int c = 0; c < 200; ++c) {
        const std::int64_t hz = rng.uniform_int(1'000'000, std::int64_t{5'000'000'000});
        const std::int64_t ppb = c % 3 == 0 ? 0 : rng.uniform_int(-200'000, 200'000);
        const Time phase = Time::ps(c % 4 == 0 ? 0 : rng.uniform_int(0, 5'000));
        const ClockDomain clk = c % 5 == 4   ? ClockDomain::with_period(Time::ps(rng.uniform_int(1, 40'000)))
                                : c % 7 == 0 ? ClockDomain(loom::Frequency::ghz(1), 0, phase)
                                             : ClockDomain(loom::Frequency::hz(hz), ppb, phase);
        const Exact x{clk.period_num(), clk.period_den()};
        // The period is the definition's: 10^21 / (f (10^9 + ppb)) reduced, or the whole period given.
        // Compared as reduced fractions: cross-multiplying would overflow 128 bits.
        if (c % 5 != 4 && c % 7 != 0) {
            const loom::i128 a = loom::i128{1'000'000'000'000'000'000} * 1000;
            const loom::i128 b = loom::i128{hz} * (1'000'000'000 + ppb);
            const loom::i128 g = loom::gcd128(a, b);
            CHECK((x.num == a / g && x.den == b / g));
        }
        for (int i = 0; i < 300; ++i) {
            const std::int64_t n = rng.uniform_int(-5, i % 2 == 0 ? std::int64_t{100'000} : std::int64_t{1} << 42);
            REQUIRE(clk.edge(n) == clk.phase() + Time::ps(x.edge(n)));
            const std::int64_t m = std::max<std::int64_t>(0, n);
            REQUIRE(clk.min_span(loom::Cycles(m)) == Time::ps(x.edge(m)));
            REQUIRE(clk.span(m, loom::Cycles(7)) == Time::ps(x.edge(m + 7) - x.edge(m)));
            const std::int64_t rel = rng.uniform_int(-10, i % 2 == 0 ? std::int64_t{10'000'000} : std::int64_t{1} << 52);
            const Time t = clk.phase() + Time::ps(rel);
            REQUIRE(clk.edge_at_or_after(t) == x.at_or_after(rel));
            REQUIRE(clk.edge_at_or_before(t) == x.at_or_before(rel));
            REQUIRE(clk.next_edge(t, loom::Cycles(3)) == clk.phase() + Time::ps(x.edge(x.at_or_after(rel) + 3)));
            // On and next to an edge, where rounding errors would show.
            const Time e = clk.edge(m);
            REQUIRE(clk.edge_at_or_after(e) == x.at_or_after(x.edge(m)));
            REQUIRE(clk.edge_at_or_before(e - Time::ps(1)) == x.at_or_before(x.edge(m) - 1));
        }
    }
}

TEST_CASE("A whole-period clock multiplies and names its nearest frequency") {
    const ClockDomain c = ClockDomain::with_period(Time::ps(26'240));
    CHECK(c.edge(3) == Time::ps(78'720));
    CHECK(c.edge_at_or_before(Time::ps(78'719)) == 2);
    CHECK(c.edge_at_or_after(Time::ps(78'721)) == 4);
    CHECK(c.nominal() == loom::Frequency::hz(38'109'756));
    CHECK(c.period_floor() == Time::ps(26'240));
    CHECK(c.period_ceil() == Time::ps(26'240));
}
