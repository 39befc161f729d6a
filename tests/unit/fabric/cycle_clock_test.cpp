#include <catch2/catch.hpp>

#include "loom/fabric/cycle_clock.hpp"

using namespace loom;
using loom::fabric::CycleClock;

TEST_CASE("A 1 GHz router clock puts cycle n at n nanoseconds") {
    const CycleClock c(Frequency::ghz(1));
    CHECK(c.edge_ps(7) == 7000);
    CHECK(c.cycle_at(6999) == 6);
    CHECK(c.cycle_at(7000) == 7);
    CHECK(c.cycle_at_or_after(6001) == 7);
    CHECK(c.cycle_at_or_after(7000) == 7);
    CHECK(c.min_span(10) == Time::ns(10));
}

TEST_CASE("A 900 MHz router clock has exact edges and the shortest span as its link latency") {
    const CycleClock c(Frequency::mhz(900));
    CHECK(c.edge_ps(9) == 10000);  // floor(9 * 10^4 / 9)
    CHECK(c.edge_ps(1) == 1111);
    CHECK(c.cycle_at(c.edge_ps(123456)) == 123456);
    CHECK(c.cycle_at(c.edge_ps(123456) - 1) == 123455);
    CHECK(c.cycle_at_or_after(c.edge_ps(5) + 1) == 6);
    // Every 10-cycle span is at least min_span(10).
    for (std::int64_t n = 0; n < 50; ++n) CHECK(c.edge_ps(n + 10) - c.edge_ps(n) >= c.min_span(10).count());
    CHECK(c.min_span(10) == Time::ps(11111));
}
