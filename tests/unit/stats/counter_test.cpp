#include <catch2/catch.hpp>

#include "loom/stats/counter.hpp"

using loom::stats::Counter;

TEST_CASE("A counter starts at zero and accumulates adds") {
    Counter c;
    CHECK(c.value() == 0);
    c.add();
    c.add(41);
    CHECK(c.value() == 42);
}

TEST_CASE("A counter may go negative and set or reset replaces its value") {
    Counter c;
    c.add(-3);
    CHECK(c.value() == -3);
    c.set(1'000'000'000'000);
    CHECK(c.value() == 1'000'000'000'000);
    c.reset();
    CHECK(c.value() == 0);
}
