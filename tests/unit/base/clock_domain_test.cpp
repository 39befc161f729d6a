#include <catch2/catch.hpp>

#include "loom/base/clock_domain.hpp"

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
    CHECK(clk.span(3, 9) == Time::ps(10000));
}
