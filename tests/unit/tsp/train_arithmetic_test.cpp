#include <catch2/catch.hpp>

#include "loom/base/rng.hpp"
#include "loom/tsp/train_arithmetic.hpp"

using namespace loom;
using loom::tsp::FastClock;
using loom::tsp::SerialStepper;

TEST_CASE("Stepped serialization equals LinkTiming::serialization at every lane rate and far into a train") {
    for (std::int64_t rate : {std::int64_t{100'000'000'000}, std::int64_t{103'125'000'000},
                              std::int64_t{120'000'000'000}, std::int64_t{7}, std::int64_t{999'999'999'989}}) {
        LinkTiming t;
        t.rate = Bandwidth::bps(rate);
        for (std::int64_t k0 : {std::int64_t{0}, std::int64_t{1}, std::int64_t{3'515}, std::int64_t{1'000'000'007}}) {
            SerialStepper s(t, k0);
            for (std::int64_t k = k0; k < k0 + 5'000; ++k) {
                REQUIRE(s.value() == t.serialization(k));
                s.next();
            }
        }
    }
}

TEST_CASE("The 64-bit clock gives the same edges as ClockDomain, with and without a frequency offset") {
    Rng rng(4);
    for (std::int64_t ppb : {std::int64_t{0}, std::int64_t{2'500}, std::int64_t{-100'000}}) {
        const ClockDomain c(Frequency::mhz(900), ppb, Time::ps(37));
        const FastClock f(c);
        for (int i = 0; i < 20'000; ++i) {
            const auto n = rng.uniform_int(0, std::int64_t{1} << 40);
            REQUIRE(f.edge(n) == c.edge(n));
            const Time t = Time::ps(rng.uniform_int(-100, std::int64_t{1} << 52));
            REQUIRE(f.edge_at_or_after(t) == c.edge_at_or_after(t));
            REQUIRE(f.available(t, 3) == c.edge(c.edge_at_or_after(t) + 3));
        }
    }
}
